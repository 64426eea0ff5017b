/**
 * The privacy request form ("Do Not Sell or Share My Personal Information", /do-not-sell):
 * its fields and rules, shared by the page (field messages) and the server (the real check).
 */
import * as z from "zod/mini";
import { emailSchema, trimmedText as text, usPhoneSchema } from "./contact";

export { EMAIL_MAX_LENGTH, normalizeUsPhone } from "./contact";

export const PRIVACY_REQUEST_TYPES = ["revoke_consent", "opt_out_sale_sharing", "nevada_opt_out", "access", "deletion", "correction", "appeal"] as const;
export type PrivacyRequestType = (typeof PRIVACY_REQUEST_TYPES)[number];

export const PRIVACY_REQUEST_LABELS: Record<PrivacyRequestType, string> = {
  revoke_consent: "Stop calls and texts: I revoke my consent to be contacted about my quote requests",
  opt_out_sale_sharing: "Do not sell or share my personal information",
  nevada_opt_out: "Nevada residents: do not sell my covered information",
  access: "Tell me what personal information you have about me",
  deletion: "Delete my personal information",
  correction: "Correct my personal information",
  appeal: "Appeal our decision on an earlier request",
};

/** The requests whose details box is kept: what to correct, or the earlier request and why an appeal. */
export const DETAILS_TYPES: readonly PrivacyRequestType[] = ["correction", "appeal"];

/** US states, DC and territories, for the optional state field. */
export const US_STATES: Readonly<Record<string, string>> = {
  AL: "Alabama", AK: "Alaska", AZ: "Arizona", AR: "Arkansas", CA: "California", CO: "Colorado", CT: "Connecticut",
  DE: "Delaware", DC: "District of Columbia", FL: "Florida", GA: "Georgia", HI: "Hawaii", ID: "Idaho", IL: "Illinois",
  IN: "Indiana", IA: "Iowa", KS: "Kansas", KY: "Kentucky", LA: "Louisiana", ME: "Maine", MD: "Maryland",
  MA: "Massachusetts", MI: "Michigan", MN: "Minnesota", MS: "Mississippi", MO: "Missouri", MT: "Montana",
  NE: "Nebraska", NV: "Nevada", NH: "New Hampshire", NJ: "New Jersey", NM: "New Mexico", NY: "New York",
  NC: "North Carolina", ND: "North Dakota", OH: "Ohio", OK: "Oklahoma", OR: "Oregon", PA: "Pennsylvania",
  PR: "Puerto Rico", RI: "Rhode Island", SC: "South Carolina", SD: "South Dakota", TN: "Tennessee", TX: "Texas",
  UT: "Utah", VT: "Vermont", VA: "Virginia", WA: "Washington", WV: "West Virginia", WI: "Wisconsin", WY: "Wyoming",
};

export const DETAILS_MAX_LENGTH = 1000;

/** Each field's rule as a zod schema; validatePrivacyRequest below gives each its message. */
export const privacyFieldSchemas = {
  requestType: z.enum(PRIVACY_REQUEST_TYPES),
  email: emailSchema,
  phone: usPhoneSchema,
  state: z.string().check(z.refine((code) => Object.hasOwn(US_STATES, code))),
  details: z.string().check(z.maxLength(DETAILS_MAX_LENGTH)),
};

export type PrivacyRequestField = "requestType" | "email" | "phone" | "state" | "details";
export type FieldErrors = Partial<Record<PrivacyRequestField, string>>;

export interface PrivacyRequestInput {
  requestType: PrivacyRequestType;
  email?: string;
  phone?: string;
  state?: string;
  details?: string;
}

/** What the form sends: every value a string (absent or empty when not filled). */
export type RawPrivacyRequest = Partial<Record<PrivacyRequestField, unknown>>;

/**
 * Validates the form with the field schemas above and a message per field, in plain words.
 * Unknown fields are ignored; a field sent twice (an array) is refused.
 */
export function validatePrivacyRequest(raw: RawPrivacyRequest): { ok: true; value: PrivacyRequestInput } | { ok: false; errors: FieldErrors } {
  const errors: FieldErrors = {};
  for (const field of ["requestType", "email", "phone", "state", "details"] as const) {
    if (raw[field] !== undefined && typeof raw[field] !== "string") errors[field] = "Send this field once, as text.";
  }
  const requestType = text(raw.requestType);
  const email = text(raw.email)?.toLowerCase();
  const phoneText = text(raw.phone);
  const state = text(raw.state)?.toUpperCase();
  const details = text(raw.details);

  const { requestType: typeRule, email: emailRule, phone: phoneRule, state: stateRule, details: detailsRule } = privacyFieldSchemas;
  if (!requestType) errors.requestType ??= "Choose what you would like us to do.";
  else if (!typeRule.safeParse(requestType).success) errors.requestType ??= "Choose one of the listed requests.";

  if (email !== undefined && !emailRule.safeParse(email).success) errors.email ??= "Enter an email address like name@example.com.";
  const parsedPhone = phoneText === undefined ? undefined : phoneRule.safeParse(phoneText);
  const phone = parsedPhone?.success ? parsedPhone.data : undefined;
  if (parsedPhone && !parsedPhone.success) errors.phone ??= "Enter a 10-digit US phone number, like (415) 555-0134.";
  if (email === undefined && phoneText === undefined) errors.email ??= "Give an email address or a phone number so we can find your information.";

  if (state !== undefined && !stateRule.safeParse(state).success) errors.state ??= "Choose a state from the list.";
  const keepsDetails = (DETAILS_TYPES as readonly string[]).includes(requestType ?? "");
  if (details !== undefined && keepsDetails && !detailsRule.safeParse(details).success) {
    errors.details ??= `Keep this under ${DETAILS_MAX_LENGTH} characters.`;
  }
  if (details === undefined && requestType === "appeal") {
    errors.details ??= "Give the reference number of the request you are appealing (like PR-7K3M-Q9XD) and tell us why.";
  }

  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    value: {
      requestType: requestType as PrivacyRequestType,
      ...(email ? { email } : {}),
      ...(phone ? { phone } : {}),
      ...(state ? { state } : {}),
      // Only a correction or an appeal needs details; a no-JavaScript form always shows the box, so others are ignored.
      ...(details && keepsDetails ? { details } : {}),
    },
  };
}

/** "PR-7K3M-Q9XD": how visitors and ops refer to a request. */
export const PRIVACY_REFERENCE_PATTERN = /^PR-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/;
