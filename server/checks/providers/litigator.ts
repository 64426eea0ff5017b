/**
 * The TCPA Litigator List API (docs/lead-checks.md, "Providers"): one provider file, two checks.
 * POST <LITIGATOR_API_URL>/scrub/phone/ (form-encoded, HTTP Basic with the API user and key) with
 * `phone_number` and the list `type`:
 * - kind "litigator": type `tcpa` (known TCPA plaintiffs and "trolls");
 * - kind "dnc": type `dnc` (DNC complainers) plus `state`, the lead's state, so the number is also
 *   scrubbed against that state's do-not-call list.
 * A match is an answer like a clean number (status ok, outcome "listed" or "dnc_match"): whether a
 * buyer may have the lead is the requirement logic's call, not the adapter's.
 */
import { z } from "zod";
import type { CheckAnswer, CheckInput, CheckProvider } from "../types";
import { basicAuth, exchange, failed, jsonAnswer, malformed, neverThrows, ok, TEN_DIGITS } from "./exchange";

export const LITIGATOR_PROVIDER = "tcpa-litigator-list";

/** PHP's truthiness as the API writes it: 0/1, "0"/"1" or a boolean. */
const flag = z.union([z.boolean(), z.literal(0), z.literal(1), z.literal("0"), z.literal("1")]).transform((value) => value === true || value === 1 || value === "1");

/** The list names a match came from ("tcpa", "dnc_complainers", "dnc_state"…), words only. */
const listNames = z.array(z.string().max(40)).max(20);

const scrubResult = z.object({
  clean: flag,
  is_bad_number: z.boolean().nullish(),
  status_array: listNames.nullish(),
});

/** PHP encodes an empty map as []. */
const phoneMap = z.union([z.record(z.string(), z.unknown()), z.array(z.unknown()).max(0)]);

/**
 * The single scrub's answer, in either documented shape: `results` (one record, or a list of
 * them) with `clean` 0/1, or the older maps of numbers `match` / `clean`.
 */
const scrubAnswer = z.union([
  z.object({ results: z.union([scrubResult, z.array(scrubResult).min(1).max(10)]) }),
  z.object({ match: phoneMap.optional(), clean: phoneMap.optional() }).refine((body) => body.match !== undefined || body.clean !== undefined),
]);

export interface LitigatorSettings {
  /** LITIGATOR_API_URL, without a trailing slash (server/config.ts). */
  apiUrl: string;
  user: string;
  key: string;
}

type ScrubKind = "litigator" | "dnc";

export function litigatorProvider(settings: LitigatorSettings): CheckProvider {
  return scrubProvider(settings, "litigator");
}

export function dncProvider(settings: LitigatorSettings): CheckProvider {
  return scrubProvider(settings, "dnc");
}

function scrubProvider(settings: LitigatorSettings, kind: ScrubKind): CheckProvider {
  return {
    kind,
    name: LITIGATOR_PROVIDER,
    stage: "post",
    // About the phone alone: reused for CHECK_CACHE_DAYS (the DNC answer with the lead's state,
    // which a phone keeps from lead to lead as its ZIP rarely moves across a state line).
    cachedByPhone: true,
    run: (input, timeoutMs) => neverThrows(() => scrub(settings, kind, input, timeoutMs)),
  };
}

async function scrub(settings: LitigatorSettings, kind: ScrubKind, input: CheckInput, timeoutMs: number): Promise<CheckAnswer> {
  if (!TEN_DIGITS.test(input.phone)) return failed("unreadable_phone", "the phone is not ten digits");
  const form = new URLSearchParams({ phone_number: input.phone, type: kind === "litigator" ? "tcpa" : "dnc" });
  if (kind === "dnc") {
    // Without the state the scrub would miss the state's own list and still answer "clean".
    if (!/^[A-Z]{2}$/.test(input.state)) return failed("unreadable_state", "the lead's state is not a two-letter code");
    // Arrays go JSON-encoded, as the API's documentation sends `type` (["tcpa","dnc"]).
    form.set("state", JSON.stringify([input.state]));
  }
  const result = await exchange(
    LITIGATOR_PROVIDER,
    `${settings.apiUrl}/scrub/phone/`,
    {
      method: "POST",
      headers: { authorization: basicAuth(settings.user, settings.key), accept: "application/json", "content-type": "application/x-www-form-urlencoded" },
      body: form.toString(),
    },
    timeoutMs,
  );
  const read = jsonAnswer(result, scrubAnswer, "a scrub answer");
  if ("answer" in read) return read.answer;
  const verdict = readVerdict(read.body);
  if (verdict === undefined) return malformed(result, "a scrub answer (neither clean nor a match)");
  if (!verdict.listed) return ok("clean", kind === "litigator" ? "not on the TCPA litigator list" : `not a DNC complainer nor on ${input.state}'s DNC list`, result.latencyMs);
  const lists = verdict.lists.length > 0 ? ` (${verdict.lists.join(", ")})` : "";
  return ok(kind === "litigator" ? "listed" : "dnc_match", `${kind === "litigator" ? "on the TCPA litigator list" : "on a DNC list"}${lists}`, result.latencyMs);
}

function readVerdict(body: z.infer<typeof scrubAnswer>): { listed: boolean; lists: string[] } | undefined {
  if ("results" in body) {
    const records = Array.isArray(body.results) ? body.results : [body.results];
    const matches = records.filter((record) => !record.clean || record.is_bad_number === true);
    // Only list names made of letters, digits and underscores reach `detail`.
    const lists = [...new Set(matches.flatMap((record) => record.status_array ?? []).filter((name) => /^\w{1,40}$/.test(name)))];
    return { listed: matches.length > 0, lists };
  }
  const size = (map: unknown) => (map === undefined ? 0 : Array.isArray(map) ? map.length : Object.keys(map as object).length);
  if (size(body.match) > 0) return { listed: true, lists: [] };
  if (size(body.clean) > 0) return { listed: false, lists: [] };
  return undefined;
}
