/**
 * The campaign parameters' names, the ZIP's length, and the query string built from values that
 * passed validation: the parts of shared/campaign.ts that need no zod, so the landing page can
 * use them at load while the schemas (the validation itself) load when first needed (issue 12).
 * shared/campaign.ts re-exports everything here.
 */
export const ZIP_LENGTH = 5;

export type CampaignParam = "sid" | "tid" | "vid";
/** In the order they appear in the addresses we build. */
export const CAMPAIGN_PARAMS: readonly CampaignParam[] = ["sid", "tid", "vid"];

export interface Campaign {
  sid?: string;
  tid?: string;
  /** The visit id (its rules: shared/campaign.ts). */
  vid?: string;
}

/** Strips non-digits and cuts to 5, as the ZIP input does while the visitor types (spec 5). */
export function sanitizeZipInput(value: string): string {
  return value.replace(/\D+/g, "").slice(0, ZIP_LENGTH);
}

/**
 * Builds a query string ("?zip=…&sid=…") from already-validated values, in a fixed order.
 * Returns "" when there is nothing to carry.
 */
export function campaignQueryString(values: { zip?: string } & Campaign): string {
  const params = new URLSearchParams();
  if (values.zip) params.set("zip", values.zip);
  for (const param of CAMPAIGN_PARAMS) {
    const value = values[param];
    if (value) params.set(param, value);
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}
