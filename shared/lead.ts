/**
 * The quote request ("lead"): the quote form's fields, their rules and their messages. The form
 * (rapidfire.html) checks each field on blur and each step on Next with these; the server checks
 * the whole request again with the same functions before storing anything.
 */
import * as z from "zod/mini";
import { campaignIdSchema, zipSchema } from "./campaign";
import { EMAIL_MAX_LENGTH, emailSchema, trimmedText, usPhoneSchema } from "./contact";
import { OLDEST_VEHICLE_YEAR, VEHICLE_MAKES, newestVehicleYear } from "./vehicles";
import { carriers, site } from "./site";

type Options<K extends string> = Readonly<Record<K, string>>;

export const OWNERSHIP: Options<"own" | "finance" | "lease"> = { own: "Own it", finance: "Financing it", lease: "Leasing it" };
export const PRIMARY_USE: Options<"commute" | "pleasure" | "business"> = {
  commute: "Commuting to work or school",
  pleasure: "Personal use and errands",
  business: "Business",
};
export const LICENSE_STATUS: Options<"active" | "permit" | "suspended" | "foreign"> = {
  active: "Valid US driver's license",
  permit: "Learner's permit",
  suspended: "Suspended or revoked",
  foreign: "License from another country",
};
export const INCIDENTS: Options<"none" | "one" | "two_or_more"> = { none: "None", one: "One", two_or_more: "Two or more" };
export const YES_NO: Options<"yes" | "no"> = { yes: "Yes", no: "No" };
/** Current insurers to choose from: the landing page's carriers, other large US insurers, "Other". */
export const CURRENT_INSURERS: readonly string[] = [
  ...carriers.map((carrier) => carrier.name),
  "Farmers",
  "USAA",
  "Travelers",
  "American Family",
  "Other company",
];

export type Ownership = keyof typeof OWNERSHIP;
export type PrimaryUse = keyof typeof PRIMARY_USE;
export type LicenseStatus = keyof typeof LICENSE_STATUS;
export type Incidents = keyof typeof INCIDENTS;

export const NAME_MAX_LENGTH = 50;
export const MODEL_MAX_LENGTH = 40;
export const STREET_MIN_LENGTH = 5;
export const STREET_MAX_LENGTH = 100;
/** The site is for adults (spec: visitors are 18 or older); no one drives at 120. */
export const MINIMUM_AGE = 18;
export const MAXIMUM_AGE = 110;

const keysOf = <K extends string>(options: Options<K>) => Object.keys(options) as [K, ...K[]];

/** Each field's rule; the functions below add the messages and the rules that need "now". */
export const leadFieldSchemas = {
  zip: zipSchema,
  vehicleYear: z.int().check(z.gte(OLDEST_VEHICLE_YEAR)),
  vehicleMake: z.enum(VEHICLE_MAKES as [string, ...string[]]),
  vehicleModel: z.string().check(z.maxLength(MODEL_MAX_LENGTH), z.regex(/^[\p{L}\p{N}][\p{L}\p{N} .&+/-]*$/u)),
  ownership: z.enum(keysOf(OWNERSHIP)),
  primaryUse: z.enum(keysOf(PRIMARY_USE)),
  name: z.string().check(z.maxLength(NAME_MAX_LENGTH), z.regex(/^\p{L}[\p{L}\p{M}'’ .-]*$/u)),
  dateOfBirth: z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/)),
  licenseStatus: z.enum(keysOf(LICENSE_STATUS)),
  incidents: z.enum(keysOf(INCIDENTS)),
  currentlyInsured: z.enum(keysOf(YES_NO)),
  currentInsurer: z.enum(CURRENT_INSURERS as [string, ...string[]]),
  streetAddress: z.string().check(
    z.minLength(STREET_MIN_LENGTH),
    z.maxLength(STREET_MAX_LENGTH),
    z.regex(/^[\p{L}\p{N}][\p{L}\p{N} #.,'’/-]*$/u),
    z.regex(/\p{N}/u),
    z.regex(/\p{L}/u),
  ),
  email: emailSchema,
  phone: usPhoneSchema,
  consent: z.literal(true),
};

export const LEAD_FIELDS = [
  "zip",
  "vehicleYear",
  "vehicleMake",
  "vehicleModel",
  "ownership",
  "primaryUse",
  "firstName",
  "lastName",
  "dateOfBirth",
  "licenseStatus",
  "incidents",
  "currentlyInsured",
  "currentInsurer",
  "streetAddress",
  "email",
  "phone",
  "consent",
] as const;
export type LeadField = (typeof LEAD_FIELDS)[number];

/** The three steps of the form, one topic each, in order. */
export const LEAD_STEPS: readonly { title: string; fields: readonly LeadField[] }[] = [
  { title: "Your vehicle", fields: ["zip", "vehicleYear", "vehicleMake", "vehicleModel", "ownership", "primaryUse"] },
  { title: "About you", fields: ["firstName", "lastName", "dateOfBirth", "licenseStatus", "incidents", "currentlyInsured", "currentInsurer"] },
  { title: "How to reach you", fields: ["streetAddress", "email", "phone", "consent"] },
];

export interface LeadInput {
  zip: string;
  vehicleYear: number;
  vehicleMake: string;
  vehicleModel: string;
  ownership: Ownership;
  primaryUse: PrimaryUse;
  firstName: string;
  lastName: string;
  /** ISO calendar date, YYYY-MM-DD. */
  dateOfBirth: string;
  licenseStatus: LicenseStatus;
  incidents: Incidents;
  currentlyInsured: boolean;
  /** Only when currently insured. */
  currentInsurer?: string;
  streetAddress: string;
  /** Lower-cased. */
  email: string;
  /** E.164, +1 and ten digits. */
  phone: string;
  consent: true;
}

/** What a form sends: text for every field, a boolean for consent, anything from a bot. */
export type RawLead = Partial<Record<LeadField, unknown>>;
export type LeadErrors = Partial<Record<LeadField, string>>;

/** The date today in the US's easternmost mainland time zone: nobody is turned away on their 18th birthday. */
function todayInUs(now: Date): { year: number; month: number; day: number } {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone: "America/New_York", year: "numeric", month: "numeric", day: "numeric" }).formatToParts(now);
  const get = (type: string) => Number(parts.find((part) => part.type === type)?.value);
  return { year: get("year"), month: get("month"), day: get("day") };
}

/**
 * "04/15/1990", "4/15/1990" or "1990-04-15" → "1990-04-15"; undefined when it is not a real
 * calendar date (31 April, 29 February of a common year).
 */
export function parseDateOfBirth(input: string): string | undefined {
  const us = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(input);
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(input);
  const [year, month, day] = us ? [us[3], us[1], us[2]].map(Number) : iso ? [iso[1], iso[2], iso[3]].map(Number) : [];
  if (year === undefined || month === undefined || day === undefined) return undefined;
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  return `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

/** Whole years between an ISO birth date and today (US Eastern). Born 29 February: a year older on 1 March. */
export function ageOn(isoBirthDate: string, now: Date): number {
  const [year, month, day] = isoBirthDate.split("-").map(Number) as [number, number, number];
  const today = todayInUs(now);
  const birthdayPassed = today.month > month || (today.month === month && today.day >= day);
  return today.year - year - (birthdayPassed ? 0 : 1);
}

const ONCE = "Send this field once, as text.";

/** Field messages: plain words, saying what to do. */
export const LEAD_MESSAGES = {
  zip: "Enter the 5-digit ZIP code where the car is kept.",
  vehicleYear: "Choose the car's model year.",
  vehicleMake: "Choose the make from the list (or “Other”).",
  vehicleModel: `Enter the model, like Camry or F-150 (letters and numbers, up to ${MODEL_MAX_LENGTH} characters).`,
  ownership: "Tell us whether you own, finance or lease the car.",
  primaryUse: "Choose what the car is mostly used for.",
  firstName: `Enter your first name (letters, spaces, hyphens and apostrophes, up to ${NAME_MAX_LENGTH} characters).`,
  lastName: `Enter your last name (letters, spaces, hyphens and apostrophes, up to ${NAME_MAX_LENGTH} characters).`,
  dateOfBirth: "Enter your date of birth as MM/DD/YYYY, like 04/15/1990.",
  underAge: `You must be ${MINIMUM_AGE} or older to request quotes.`,
  tooOld: "Check the year of your date of birth.",
  licenseStatus: "Choose your driver's license status.",
  incidents: "Tell us how many accidents or violations you had in the past 3 years.",
  currentlyInsured: "Tell us whether the car is insured today.",
  currentInsurer: "Choose your current insurance company (or “Other company”).",
  streetAddress: "Enter your street address with the house number, like 123 Main St Apt 4.",
  email: "Enter an email address like name@example.com.",
  phone: "Enter a 10-digit US phone number, like (415) 555-0134.",
  consent: `To send your request, tick the box to agree to be contacted. Prefer not to? Call us at ${site.phone}.`,
} as const;

type Checked<T> = { value: T } | { error: string };

function textField(raw: unknown, check: (text: string) => boolean, message: string): Checked<string> {
  // null (JSON's "no answer") is a missing answer; a number, list or object is malformed.
  if (raw !== undefined && raw !== null && typeof raw !== "string") return { error: ONCE };
  const text = trimmedText(raw)?.replace(/\s+/g, " ");
  return text !== undefined && check(text) ? { value: text } : { error: message };
}

const passes = (schema: z.ZodMiniType) => (value: unknown) => schema.safeParse(value).success;

function checkField(field: LeadField, raw: RawLead, now: Date): Checked<unknown> {
  const s = leadFieldSchemas;
  const value = raw[field];
  switch (field) {
    case "zip":
    case "vehicleMake":
    case "vehicleModel":
    case "ownership":
    case "primaryUse":
    case "licenseStatus":
    case "incidents":
    case "currentlyInsured":
    case "streetAddress":
      return textField(value, passes(s[field]), LEAD_MESSAGES[field]);
    case "firstName":
    case "lastName":
      return textField(value, passes(s.name), LEAD_MESSAGES[field]);
    case "vehicleYear": {
      const year = typeof value === "string" && /^\d{4}$/.test(value.trim()) ? Number(value) : value;
      const ok = s.vehicleYear.safeParse(year).success && (year as number) <= newestVehicleYear(now);
      return ok ? { value: year } : { error: LEAD_MESSAGES.vehicleYear };
    }
    case "dateOfBirth": {
      const text = textField(value, () => true, LEAD_MESSAGES.dateOfBirth);
      if ("error" in text) return text;
      const iso = parseDateOfBirth(text.value);
      if (iso === undefined || !s.dateOfBirth.safeParse(iso).success) return { error: LEAD_MESSAGES.dateOfBirth };
      const age = ageOn(iso, now);
      if (age < 0) return { error: LEAD_MESSAGES.dateOfBirth };
      if (age < MINIMUM_AGE) return { error: LEAD_MESSAGES.underAge };
      if (age > MAXIMUM_AGE) return { error: LEAD_MESSAGES.tooOld };
      return { value: iso };
    }
    case "currentInsurer": {
      // Asked only of people who are insured today; otherwise whatever was sent is ignored.
      if (trimmedText(raw.currentlyInsured) !== "yes") return { value: undefined };
      return textField(value, passes(s.currentInsurer), LEAD_MESSAGES.currentInsurer);
    }
    case "email": {
      const text = textField(value, () => true, LEAD_MESSAGES.email);
      if ("error" in text) return text;
      const email = text.value.toLowerCase();
      return email.length <= EMAIL_MAX_LENGTH && s.email.safeParse(email).success ? { value: email } : { error: LEAD_MESSAGES.email };
    }
    case "phone": {
      const text = textField(value, () => true, LEAD_MESSAGES.phone);
      if ("error" in text) return text;
      const parsed = s.phone.safeParse(text.value);
      return parsed.success ? { value: parsed.data } : { error: LEAD_MESSAGES.phone };
    }
    case "consent":
      return s.consent.safeParse(value).success ? { value: true } : { error: LEAD_MESSAGES.consent };
  }
}

/**
 * Checks some fields (one on blur, a step on Next). Returns the valid values (normalised: trimmed,
 * email lower-cased, phone in E.164, date of birth in ISO form) and a message for each invalid field.
 */
export function checkLeadFields(raw: RawLead, fields: readonly LeadField[], now: Date = new Date()): { values: Partial<Record<LeadField, unknown>>; errors: LeadErrors } {
  const values: Partial<Record<LeadField, unknown>> = {};
  const errors: LeadErrors = {};
  for (const field of fields) {
    const checked = checkField(field, raw, now);
    if ("error" in checked) errors[field] = checked.error;
    else if (checked.value !== undefined) values[field] = checked.value;
  }
  return { values, errors };
}

/** The whole request, as the server checks it before storing; on failure, also the answers that were valid. */
export function validateLead(
  raw: RawLead,
  now: Date = new Date(),
): { ok: true; value: LeadInput } | { ok: false; errors: LeadErrors; values: Partial<Record<LeadField, unknown>> } {
  const { values, errors } = checkLeadFields(raw, LEAD_FIELDS, now);
  if (Object.keys(errors).length > 0) return { ok: false, errors, values };
  return {
    ok: true,
    value: { ...(values as Omit<LeadInput, "currentlyInsured">), currentlyInsured: values.currentlyInsured === "yes" } as LeadInput,
  };
}

/** The longest URL we keep for the form's and the framing page's addresses. */
export const LEAD_URL_MAX_LENGTH = 2048;
/** The honeypot: a field people never see or fill; bots that fill every input do. */
export const HONEYPOT_FIELD = "website";

/** What the form sends besides the fields: identifiers, the consent context and the anti-bot signals. */
export const leadEnvelopeSchema = z.object({
  /** One per form: a double-click or a retry repeats it, and never makes a second lead. */
  idempotencyKey: z.string().check(z.regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i)),
  /** Signed by the server when the form opened: proves the fill time. */
  formToken: z.string().check(z.maxLength(200)),
  /** The disclosure version the visitor saw beside the checkbox. */
  consentVersion: z.int(),
  formUrl: z.string().check(z.maxLength(LEAD_URL_MAX_LENGTH), z.url({ protocol: /^https?$/ })),
  pageUrl: z.string().check(z.maxLength(LEAD_URL_MAX_LENGTH), z.url({ protocol: /^https?$/ })),
  sid: z.optional(campaignIdSchema),
  tid: z.optional(campaignIdSchema),
  [HONEYPOT_FIELD]: z.optional(z.string().check(z.maxLength(200))),
});
export type LeadEnvelope = z.infer<typeof leadEnvelopeSchema>;

/** "LD-7K3M-Q9XD": how visitors, partners and ops refer to a quote request. */
export const LEAD_REFERENCE_PATTERN = /^LD-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/;

/** How long a repeat from the same phone number or email counts as a duplicate. */
export const DUPLICATE_WINDOW_DAYS = 30;

/** The funnel events the form reports through POST /api/events (docs/logging.md). */
export const FUNNEL_EVENTS = ["form_started", "form_step_completed"] as const;
export type FunnelEventName = (typeof FUNNEL_EVENTS)[number];
export const funnelEventSchema = z
  .object({
    event: z.enum(FUNNEL_EVENTS),
    step: z.optional(z.int().check(z.gte(1), z.lte(LEAD_STEPS.length))),
    zip: z.optional(zipSchema),
    sid: z.optional(campaignIdSchema),
    tid: z.optional(campaignIdSchema),
  })
  // A step completion says which step; a start does not.
  .check(z.refine((event) => (event.event === "form_step_completed") === (event.step !== undefined)));
export type FunnelEvent = z.infer<typeof funnelEventSchema>;

/** The answers of POST /api/leads the form understands. */
export type LeadSubmitResponse =
  | { status: "created"; reference: string; duplicate: boolean }
  | { status: "already_sent"; reference: string }
  | { status: "invalid"; errors: LeadErrors }
  | { status: "error"; error: string };
