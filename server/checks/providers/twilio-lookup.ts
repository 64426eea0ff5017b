/**
 * Twilio Lookup v2, Line Type Intelligence (docs/lead-checks.md, "Providers"):
 * GET <TWILIO_LOOKUP_URL>/v2/PhoneNumbers/+1XXXXXXXXXX?Fields=line_type_intelligence, HTTP Basic
 * with the account SID and auth token. `valid: false` is Twilio's word that the number cannot be
 * a number (a definite no); otherwise `line_type_intelligence.type` names the line.
 */
import { z } from "zod";
import type { CheckAnswer, CheckInput, CheckProvider } from "../types";
import { basicAuth, exchange, failed, jsonAnswer, neverThrows, ok, TEN_DIGITS, unavailable } from "./exchange";

export const TWILIO_LOOKUP_PROVIDER = "twilio-lookup";

/** Every `type` Twilio documents; LINE_TYPES (../types.ts) are the ones a buyer may require. */
export const TWILIO_LINE_TYPES = [
  "mobile",
  "landline",
  "fixedVoip",
  "nonFixedVoip",
  "personal",
  "tollFree",
  "premium",
  "sharedCost",
  "uan",
  "voicemail",
  "pager",
  "unknown",
] as const;

const lookupAnswer = z.object({
  valid: z.boolean(),
  validation_errors: z.array(z.string().max(40)).max(10).nullish(),
  line_type_intelligence: z
    .object({
      type: z.string().max(40).nullable(),
      error_code: z.number().int().nullish(),
    })
    .nullish(),
});

export interface TwilioLookupSettings {
  /** TWILIO_LOOKUP_URL, without a trailing slash (server/config.ts). */
  apiUrl: string;
  accountSid: string;
  authToken: string;
}

export function twilioLookupProvider(settings: TwilioLookupSettings): CheckProvider {
  return {
    kind: "line_type",
    name: TWILIO_LOOKUP_PROVIDER,
    stage: "post",
    cachedByPhone: true,
    run: (input, timeoutMs) => neverThrows(() => lookUp(settings, input, timeoutMs)),
  };
}

async function lookUp(settings: TwilioLookupSettings, input: CheckInput, timeoutMs: number): Promise<CheckAnswer> {
  if (!TEN_DIGITS.test(input.phone)) return failed("unreadable_phone", "the phone is not ten digits");
  // E.164, so Twilio needs no CountryCode; "+" escaped, as Twilio's own examples do (%2B1…).
  const number = encodeURIComponent(`+1${input.phone}`);
  const result = await exchange(
    TWILIO_LOOKUP_PROVIDER,
    `${settings.apiUrl}/v2/PhoneNumbers/${number}?Fields=line_type_intelligence`,
    { method: "GET", headers: { authorization: basicAuth(settings.accountSid, settings.authToken), accept: "application/json" } },
    timeoutMs,
  );
  // v2 answers an impossible number 200 with valid:false; a 404 is a wrong address on our side,
  // and must not become a `failed` answer that the phone cache would keep for days (jsonAnswer).
  const read = jsonAnswer(result, lookupAnswer, "a Lookup v2 answer");
  if ("answer" in read) return read.answer;
  const body = read.body;
  if (!body.valid) {
    const reasons = (body.validation_errors ?? []).filter((reason) => /^[A-Z_]{1,40}$/.test(reason));
    return failed("invalid_phone", `Twilio says the number is not valid${reasons.length > 0 ? ` (${reasons.join(", ")})` : ""}`, result.latencyMs);
  }
  const line = body.line_type_intelligence;
  if (!line || line.type === null) {
    // Twilio answered but could not type the line (an error code such as 60601 or 60607 for a region it does not cover).
    return unavailable("no_line_type", `no line type${line?.error_code ? ` (Twilio error ${line.error_code})` : ""}`, result.latencyMs);
  }
  const type = (TWILIO_LINE_TYPES as readonly string[]).includes(line.type) ? line.type : undefined;
  // A type Twilio adds later is still an answer, recorded as "unknown" so no buyer's requirement matches it by accident.
  if (!type) return ok("unknown", /^[A-Za-z]{1,40}$/.test(line.type) ? `an undocumented line type (${line.type})` : "an undocumented line type", result.latencyMs);
  return ok(type, `line type ${type}`, result.latencyMs);
}
