/**
 * The campaign and ZIP parameters, validated the same way on the server (/go, logs) and in the
 * browser (landing page hidden inputs, quote page frame address).
 *
 * sid / tid: affiliate sub-ids and click ids. Ad networks send short opaque tokens; we accept
 * 1–64 characters from the URL-unreserved set (RFC 3986 §2.3: letters, digits, - _ . ~), so a
 * valid value never needs escaping, can never smuggle a URL, a path or markup, and is safe to
 * log and to put back in a query string. See docs/decisions/001-campaign-parameters.md.
 *
 * vid: the visit id. A random UUID (shared/random-id.ts) minted by the server when a page or /go
 * is reached without one, then carried in the address like sid and tid (through /go, the quote
 * page and the form) so one visitor's events join without a tracking cookie (the privacy
 * policy says so). Validated like sid/tid: a hand-edited value is harmless and only groups events.
 */
// zod/mini: the same validation as zod with a tree-shakable API, so the browser bundle stays small.
import * as z from "zod/mini";
import { CAMPAIGN_PARAMS, ZIP_LENGTH, type Campaign, type CampaignParam } from "./campaign-format";

// What the browser needs at page load, without zod (shared/campaign-format.ts).
export * from "./campaign-format";

export const CAMPAIGN_ID_MAX_LENGTH = 64;

export const zipSchema = z.string().check(z.regex(/^\d{5}$/, "A ZIP code is exactly 5 digits"));

export const campaignIdSchema = z
  .string()
  .check(
    z.minLength(1),
    z.maxLength(CAMPAIGN_ID_MAX_LENGTH),
    z.regex(/^[A-Za-z0-9._~-]+$/, "Only letters, digits and - _ . ~ are allowed"),
  );

/** Why a raw campaign value was refused; analysts see this in the logs. */
export type RejectionReason = "repeated" | "not_a_string" | "empty" | "too_long" | "bad_characters";

export interface RejectedParam {
  param: CampaignParam | "zip";
  reason: RejectionReason;
}

/** A query value as Express or URLSearchParams may hand it to us: absent, one, many, nested. */
export type RawQueryValue = unknown;

function classify(raw: RawQueryValue, schema: z.ZodMiniType<string>, max: number): { value?: string; reason?: RejectionReason } {
  if (raw === undefined) return {};
  if (Array.isArray(raw)) return { reason: "repeated" };
  if (typeof raw !== "string") return { reason: "not_a_string" };
  if (raw.length === 0) return { reason: "empty" };
  if (raw.length > max) return { reason: "too_long" };
  const parsed = schema.safeParse(raw);
  return parsed.success ? { value: parsed.data } : { reason: "bad_characters" };
}

export interface ParsedCampaignQuery {
  /** Valid campaign values only. */
  campaign: Campaign;
  /** The valid ZIP, when one was given. */
  zip?: string;
  /** Whether a zip key was present at all. */
  zipGiven: boolean;
  /** Each parameter that was present but refused, and why. */
  rejected: RejectedParam[];
}

/**
 * Reads zip, sid, tid and vid from a parsed query object (Express's `req.query`, or
 * `Object.fromEntries`-style records). Never throws: bad values are reported in `rejected`.
 */
export function parseCampaignQuery(query: Record<string, RawQueryValue>): ParsedCampaignQuery {
  const result: ParsedCampaignQuery = { campaign: {}, zipGiven: query.zip !== undefined, rejected: [] };
  const zip = classify(query.zip, zipSchema, ZIP_LENGTH);
  if (zip.value !== undefined) result.zip = zip.value;
  else if (zip.reason) result.rejected.push({ param: "zip", reason: zip.reason });
  for (const param of CAMPAIGN_PARAMS) {
    const outcome = classify(query[param], campaignIdSchema, CAMPAIGN_ID_MAX_LENGTH);
    if (outcome.value !== undefined) result.campaign[param] = outcome.value;
    else if (outcome.reason) result.rejected.push({ param, reason: outcome.reason });
  }
  return result;
}

/** The same, from URLSearchParams (the browser's location, the SSR request URL). */
export function parseCampaignSearch(search: URLSearchParams): ParsedCampaignQuery {
  const record: Record<string, RawQueryValue> = {};
  for (const key of ["zip", ...CAMPAIGN_PARAMS]) {
    const all = search.getAll(key);
    if (all.length === 1) record[key] = all[0];
    else if (all.length > 1) record[key] = all;
  }
  return parseCampaignQuery(record);
}

/** The address's visit id when it carries exactly one valid `vid`, else undefined (then one is minted). */
export function visitIdOf(search: URLSearchParams): string | undefined {
  const all = search.getAll("vid");
  if (all.length !== 1) return undefined;
  const parsed = campaignIdSchema.safeParse(all[0]);
  return parsed.success ? parsed.data : undefined;
}
