/**
 * The quote request ("lead"), defined once: one zod object schema per form section, made of one
 * rule per field. Each rule carries its message and, in `leadFieldInfo`, how the form shows it
 * (label, hint, control, option labels). Everything else reads these: the form (rapidfire.html)
 * builds its steps and checks each field on blur and each step on Next; the server checks the
 * whole request again before storing; the database mapping and the exports take the `Lead` type.
 *
 * Adding a field: its rule here (in its section), one migration, its column in
 * server/db/lead-rows.ts.
 */
import * as z from "zod/mini";
import { ZIP_LENGTH, zipSchema } from "../campaign";
import { EMAIL_MAX_LENGTH, emailSchema, trimmedText, usPhoneSchema } from "../contact";
import { OLDEST_VEHICLE_YEAR, VEHICLE_MAKES, newestVehicleYear, vehicleYears } from "../vehicles";
import { carriers, site } from "../site";
import { ageOn, parseDateOfBirth } from "./dates";

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

export const NAME_MAX_LENGTH = 50;
export const MODEL_MAX_LENGTH = 40;
export const STREET_MIN_LENGTH = 5;
export const STREET_MAX_LENGTH = 100;
/** The site is for adults (spec: visitors are 18 or older); no one drives at 120. */
export const MINIMUM_AGE = 18;
export const MAXIMUM_AGE = 110;

// --- How the form shows a field ------------------------------------------------------------------

/** A control's choices: stored value and the label a visitor reads. */
export type Choices = readonly (readonly [value: string, label: string])[];

export type FieldControl =
  | {
      kind: "text";
      type?: "text" | "email" | "tel";
      autocomplete: string;
      inputmode?: "numeric" | "email" | "tel" | "text";
      maxLength: number;
      placeholder?: string;
    }
  | { kind: "select"; prompt: string; choices: Choices }
  | { kind: "choice"; choices: Choices }
  /** The consent checkbox; its label is the versioned disclosure (shared/consent-disclosure.ts). */
  | { kind: "consent" };

export interface LeadFieldInfo {
  label: string;
  hint?: string;
  control: FieldControl;
  /** What to do when the answer is missing or wrong: plain words, shown beside the field. */
  message: string;
  /** Asked only when this holds for the other answers (as sent); otherwise whatever was sent is ignored. */
  askedWhen?: (raw: Readonly<Record<string, unknown>>) => boolean;
}

/** Each field rule's presentation, keyed by the rule itself (a zod registry). */
export const leadFieldInfo = z.registry<LeadFieldInfo>();

// --- Rules ---------------------------------------------------------------------------------------

const ONCE = "Send this field once, as text.";
type Verdict<T> = { value: T } | { error: string };

/**
 * zod parses without a context, and two rules depend on today's date (the newest model year, the
 * visitor's age). They read it here: checkLeadFields sets it, synchronously, around each check;
 * a rule parsed on its own uses the current time.
 */
let checkingAt: Date | undefined;
const today = () => checkingAt ?? new Date();

/** A field's rule: anything in (a form sends text, a bot anything), the normalised answer out. */
function rule<T>(check: (raw: unknown, now: Date) => Verdict<T>) {
  return z.pipe(
    z.unknown(),
    z.transform((raw: unknown, ctx): T => {
      const verdict = check(raw, today());
      if ("value" in verdict) return verdict.value;
      ctx.issues.push({ code: "custom", input: raw, message: verdict.error });
      return z.NEVER;
    }),
  );
}

/** Text answers: trimmed, inner spaces collapsed; null (JSON's "no answer") is missing; a number, list or object is malformed. */
function textRule<T>(message: string, accept: (text: string, now: Date) => Verdict<T> | undefined) {
  return rule<T>((raw, now) => {
    if (raw !== undefined && raw !== null && typeof raw !== "string") return { error: ONCE };
    const text = trimmedText(raw)?.replace(/\s+/g, " ");
    return (text === undefined ? undefined : accept(text, now)) ?? { error: message };
  });
}

const matching = (message: string, schema: z.ZodMiniType) => textRule(message, (text) => (schema.safeParse(text).success ? { value: text } : undefined));

function oneOf<K extends string>(message: string, options: Options<K>) {
  return textRule<K>(message, (text) => (Object.hasOwn(options, text) ? { value: text as K } : undefined));
}

/** Attaches the field's presentation to its rule and hands the rule back. */
function field<S extends z.ZodMiniType>(schema: S, info: LeadFieldInfo): S {
  leadFieldInfo.add(schema, info);
  return schema;
}

const pairs = (options: Options<string>): Choices => Object.entries(options);
const same = (values: readonly (string | number)[]): Choices => values.map((value) => [String(value), String(value)] as const);
const asOptions = (values: readonly string[]): Options<string> => Object.fromEntries(values.map((value) => [value, value]));

const MESSAGES = {
  zip: "Enter the 5-digit ZIP code where the car is kept.",
  vehicleYear: "Choose the car's model year.",
  vehicleMake: "Choose the make from the list (or “Other”).",
  vehicleModel: `Enter the model, like Camry or F-150 (letters and numbers, up to ${MODEL_MAX_LENGTH} characters).`,
  ownership: "Tell us whether you own, finance or lease the car.",
  primaryUse: "Choose what the car is mostly used for.",
  firstName: `Enter your first name (letters, spaces, hyphens and apostrophes, up to ${NAME_MAX_LENGTH} characters).`,
  lastName: `Enter your last name (letters, spaces, hyphens and apostrophes, up to ${NAME_MAX_LENGTH} characters).`,
  dateOfBirth: "Enter your date of birth as MM/DD/YYYY, like 04/15/1990.",
  licenseStatus: "Choose your driver's license status.",
  incidents: "Tell us how many accidents or violations you had in the past 3 years.",
  currentlyInsured: "Tell us whether the car is insured today.",
  currentInsurer: "Choose your current insurance company (or “Other company”).",
  streetAddress: "Enter your street address with the house number, like 123 Main St Apt 4.",
  email: "Enter an email address like name@example.com.",
  phone: "Enter a 10-digit US phone number, like (415) 555-0134.",
  consent: `To send your request, tick the box to agree to be contacted. Prefer not to? Call us at ${site.phone}.`,
} as const;
/** The date of birth's two other messages. */
const AGE_MESSAGES = {
  underAge: `You must be ${MINIMUM_AGE} or older to request quotes.`,
  tooOld: "Check the year of your date of birth.",
} as const;

const modelSchema = z.string().check(z.maxLength(MODEL_MAX_LENGTH), z.regex(/^[\p{L}\p{N}][\p{L}\p{N} .&+/-]*$/u));
const nameSchema = z.string().check(z.maxLength(NAME_MAX_LENGTH), z.regex(/^\p{L}[\p{L}\p{M}'’ .-]*$/u));
const streetSchema = z.string().check(
  z.minLength(STREET_MIN_LENGTH),
  z.maxLength(STREET_MAX_LENGTH),
  z.regex(/^[\p{L}\p{N}][\p{L}\p{N} #.,'’/-]*$/u),
  z.regex(/\p{N}/u),
  z.regex(/\p{L}/u),
);
const yearSchema = z.int().check(z.gte(OLDEST_VEHICLE_YEAR));
const nameControl = (autocomplete: string): FieldControl => ({ kind: "text", autocomplete, maxLength: NAME_MAX_LENGTH });

// --- The sections: one step of the form each, in order ---------------------------------------------

export const vehicleSection = z.object({
  zip: field(matching(MESSAGES.zip, zipSchema), {
    label: "ZIP code where the car is kept",
    control: { kind: "text", autocomplete: "postal-code", inputmode: "numeric", maxLength: ZIP_LENGTH },
    message: MESSAGES.zip,
  }),
  vehicleYear: field(
    // A JSON number, or its four digits as text.
    rule<number>((raw, now) => {
      const year = typeof raw === "string" && /^\d{4}$/.test(raw.trim()) ? Number(raw) : raw;
      return yearSchema.safeParse(year).success && (year as number) <= newestVehicleYear(now) ? { value: year as number } : { error: MESSAGES.vehicleYear };
    }),
    { label: "Year", control: { kind: "select", prompt: "Choose the year", choices: same(vehicleYears()) }, message: MESSAGES.vehicleYear },
  ),
  vehicleMake: field(oneOf(MESSAGES.vehicleMake, asOptions(VEHICLE_MAKES)), {
    label: "Make",
    control: { kind: "select", prompt: "Choose the make", choices: same(VEHICLE_MAKES) },
    message: MESSAGES.vehicleMake,
  }),
  vehicleModel: field(matching(MESSAGES.vehicleModel, modelSchema), {
    label: "Model",
    hint: "For example Camry, Civic or F-150.",
    control: { kind: "text", autocomplete: "off", maxLength: MODEL_MAX_LENGTH },
    message: MESSAGES.vehicleModel,
  }),
  ownership: field(oneOf(MESSAGES.ownership, OWNERSHIP), {
    label: "Do you own, finance or lease it?",
    control: { kind: "choice", choices: pairs(OWNERSHIP) },
    message: MESSAGES.ownership,
  }),
  primaryUse: field(oneOf(MESSAGES.primaryUse, PRIMARY_USE), {
    label: "What is it mostly used for?",
    control: { kind: "choice", choices: pairs(PRIMARY_USE) },
    message: MESSAGES.primaryUse,
  }),
});

/** Asked only of people who are insured today. */
const insuredToday = (raw: Readonly<Record<string, unknown>>) => trimmedText(raw.currentlyInsured) === "yes";
const currentInsurer = field(oneOf(MESSAGES.currentInsurer, asOptions(CURRENT_INSURERS)), {
  label: "Current insurance company",
  control: { kind: "select", prompt: "Choose the company", choices: same(CURRENT_INSURERS) },
  message: MESSAGES.currentInsurer,
  askedWhen: insuredToday,
});

export const driverSection = z.object({
  firstName: field(matching(MESSAGES.firstName, nameSchema), { label: "First name", control: nameControl("given-name"), message: MESSAGES.firstName }),
  lastName: field(matching(MESSAGES.lastName, nameSchema), { label: "Last name", control: nameControl("family-name"), message: MESSAGES.lastName }),
  dateOfBirth: field(
    textRule<string>(MESSAGES.dateOfBirth, (text, now) => {
      const iso = parseDateOfBirth(text);
      if (iso === undefined) return undefined;
      const age = ageOn(iso, now);
      if (age < 0) return undefined;
      if (age < MINIMUM_AGE) return { error: AGE_MESSAGES.underAge };
      if (age > MAXIMUM_AGE) return { error: AGE_MESSAGES.tooOld };
      return { value: iso };
    }),
    {
      label: "Date of birth",
      hint: `MM/DD/YYYY. You must be ${MINIMUM_AGE} or older.`,
      control: { kind: "text", autocomplete: "bday", inputmode: "numeric", maxLength: 10, placeholder: "MM/DD/YYYY" },
      message: MESSAGES.dateOfBirth,
    },
  ),
  licenseStatus: field(oneOf(MESSAGES.licenseStatus, LICENSE_STATUS), {
    label: "Driver's license status",
    control: { kind: "select", prompt: "Choose your license status", choices: pairs(LICENSE_STATUS) },
    message: MESSAGES.licenseStatus,
  }),
  incidents: field(oneOf(MESSAGES.incidents, INCIDENTS), {
    label: "Accidents, tickets or other violations in the past 3 years",
    control: { kind: "choice", choices: pairs(INCIDENTS) },
    message: MESSAGES.incidents,
  }),
  currentlyInsured: field(
    textRule<boolean>(MESSAGES.currentlyInsured, (text) => (Object.hasOwn(YES_NO, text) ? { value: text === "yes" } : undefined)),
    { label: "Is the car insured today?", control: { kind: "choice", choices: pairs(YES_NO) }, message: MESSAGES.currentlyInsured },
  ),
  currentInsurer: z.optional(currentInsurer),
});

export const contactSection = z.object({
  streetAddress: field(matching(MESSAGES.streetAddress, streetSchema), {
    label: "Street address",
    hint: "House number and street, and an apartment if you have one.",
    control: { kind: "text", autocomplete: "address-line1", maxLength: STREET_MAX_LENGTH },
    message: MESSAGES.streetAddress,
  }),
  email: field(
    textRule<string>(MESSAGES.email, (text) => {
      const email = text.toLowerCase();
      return email.length <= EMAIL_MAX_LENGTH && emailSchema.safeParse(email).success ? { value: email } : undefined;
    }),
    { label: "Email address", control: { kind: "text", type: "email", autocomplete: "email", inputmode: "email", maxLength: EMAIL_MAX_LENGTH }, message: MESSAGES.email },
  ),
  phone: field(
    textRule<string>(MESSAGES.phone, (text) => {
      const parsed = usPhoneSchema.safeParse(text);
      return parsed.success ? { value: parsed.data } : undefined;
    }),
    {
      label: "Phone number",
      hint: "A US number, like (415) 555-0134.",
      control: { kind: "text", type: "tel", autocomplete: "tel", inputmode: "tel", maxLength: 20 },
      message: MESSAGES.phone,
    },
  ),
  consent: field(
    rule<true>((raw) => (raw === true ? { value: true } : { error: MESSAGES.consent })),
    { label: "Agreement to be contacted", control: { kind: "consent" }, message: MESSAGES.consent },
  ),
});

/** The three steps of the form, one topic each, in order ("an easy 3-step process"). */
export const LEAD_SECTIONS = [
  { id: "vehicle", title: "Your vehicle", schema: vehicleSection },
  { id: "driver", title: "About you", schema: driverSection },
  { id: "contact", title: "How to reach you", schema: contactSection },
] as const;

/** The whole request, every section's fields. */
export const leadSchema = z.object({ ...vehicleSection.shape, ...driverSection.shape, ...contactSection.shape });

/** A checked quote request: trimmed text, email lower-cased, phone in E.164, date of birth ISO (YYYY-MM-DD). */
export type Lead = z.output<typeof leadSchema>;
export type LeadField = keyof Lead;
/** What a form sends: text for every field, a boolean for consent, anything from a bot. */
export type RawLead = Partial<Record<LeadField, unknown>>;
export type LeadErrors = Partial<Record<LeadField, string>>;

/** Each field's rule as the form checks it on its own (optional ones unwrapped: asked or not is `askedWhen`'s call). */
const RULES: Readonly<Record<LeadField, z.ZodMiniType>> = { ...leadSchema.shape, currentInsurer };

export const LEAD_STEPS: readonly { id: string; title: string; fields: readonly LeadField[] }[] = LEAD_SECTIONS.map((section) => ({
  id: section.id,
  title: section.title,
  fields: Object.keys(section.schema.shape) as LeadField[],
}));
export const LEAD_FIELDS: readonly LeadField[] = LEAD_STEPS.flatMap((step) => step.fields);

/** The field's presentation (label, hint, control, message). */
export function fieldInfo(field: LeadField): LeadFieldInfo {
  const info = leadFieldInfo.get(RULES[field]);
  if (!info) throw new Error(`No presentation registered for the lead field ${field}`);
  return info;
}

/** Field messages, word for word as visitors read them, and the date of birth's two others. */
export const LEAD_MESSAGES: Readonly<Record<LeadField, string>> & typeof AGE_MESSAGES = {
  ...(Object.fromEntries(LEAD_FIELDS.map((name) => [name, fieldInfo(name).message])) as Record<LeadField, string>),
  ...AGE_MESSAGES,
};

/**
 * Checks some fields (one on blur, a step on Next). Returns the valid values (normalised: trimmed,
 * email lower-cased, phone in E.164, date of birth in ISO form, yes/no as a boolean) and a
 * message for each invalid field.
 */
export function checkLeadFields(raw: RawLead, fields: readonly LeadField[], now: Date = new Date()): { values: Partial<Lead>; errors: LeadErrors } {
  const values: Record<string, unknown> = {};
  const errors: LeadErrors = {};
  checkingAt = now;
  try {
    for (const name of fields) {
      const { askedWhen, message } = fieldInfo(name);
      if (askedWhen && !askedWhen(raw)) continue;
      const checked = RULES[name].safeParse(raw[name]);
      if (checked.success) values[name] = checked.data;
      else errors[name] = checked.error.issues[0]?.message ?? message;
    }
  } finally {
    checkingAt = undefined;
  }
  return { values: values as Partial<Lead>, errors };
}

/** The whole request, as the server checks it before storing; on failure, also the answers that were valid. */
export function validateLead(raw: RawLead, now: Date = new Date()): { ok: true; value: Lead } | { ok: false; errors: LeadErrors; values: Partial<Lead> } {
  const { values, errors } = checkLeadFields(raw, LEAD_FIELDS, now);
  if (Object.keys(errors).length > 0) return { ok: false, errors, values };
  return { ok: true, value: values as Lead };
}
