/**
 * The quote request ("lead"), defined once (issue 13): up to 4 vehicles, up to 4 drivers (the
 * first is the visitor), the household's insurance facts and the contact. Each field is one rule
 * carrying its message and, in `leadFieldInfo`, how the form shows it (label, hint, control,
 * option labels, and "Why we ask": the reason a buyer prices on it). Everything else reads these:
 * the form (rapidfire.html) builds its screens and checks each field on blur and each screen on
 * Next; the server checks the whole request again before storing; the database mapping, the
 * exports and the delivery payloads take the `Lead` type.
 *
 * A request, as the form sends it (text for every answer, a boolean for consent):
 *   { zip, vehicles: [{ year, make, model, vin?, ownership, primaryUse, annualMileage }, …],
 *     drivers: [{ firstName, lastName, dateOfBirth, relationship, maritalStatus, licenseStatus,
 *                 ageFirstLicensed, accidents, tickets, claims, dui, sr22 }, …],
 *     currentlyInsured, currentInsurer?, insuredFor?, coverage, residence,
 *     streetAddress, email, phone, consent }
 * Errors are keyed by the answer's path: "zip", "vehicles", "vehicles.1.model", "drivers.0.dui".
 *
 * Adding a field: its rule here (in its record), its place on a screen (FORM_SCREENS), and its
 * storage (server/db/lead-rows.ts; a migration if it is a column).
 */
import * as z from "zod/mini";
import { ZIP_LENGTH, zipSchema } from "../campaign";
import { EMAIL_MAX_LENGTH, emailSchema, trimmedText, usPhoneSchema } from "../contact";
import { OLDEST_VEHICLE_YEAR, POPULAR_MAKES, VEHICLE_MAKES, newestVehicleYear, vehicleYears } from "../vehicles";
import { checkVin, VIN_LENGTH } from "../vin";
import { carriers, site } from "../site";
import { ageOn, parseDateOfBirth } from "./dates";

type Options<K extends string> = Readonly<Record<K, string>>;

export const MAX_VEHICLES = 4;
export const MAX_DRIVERS = 4;

export const OWNERSHIP: Options<"own" | "finance" | "lease"> = { own: "Own it", finance: "Financing it", lease: "Leasing it" };
export const PRIMARY_USE: Options<"commute" | "pleasure" | "business"> = {
  commute: "Commuting to work or school",
  pleasure: "Personal use and errands",
  business: "Business",
};
export const ANNUAL_MILEAGE: Options<"under_5k" | "5k_10k" | "10k_15k" | "15k_20k" | "over_20k"> = {
  under_5k: "Under 5,000 miles",
  "5k_10k": "5,000 – 10,000 miles",
  "10k_15k": "10,000 – 15,000 miles",
  "15k_20k": "15,000 – 20,000 miles",
  over_20k: "Over 20,000 miles",
};
export const RELATIONSHIP: Options<"self" | "spouse" | "partner" | "child" | "parent" | "sibling" | "other_relative" | "other"> = {
  self: "Me",
  spouse: "Spouse",
  partner: "Domestic partner",
  child: "Child",
  parent: "Parent",
  sibling: "Brother or sister",
  other_relative: "Other relative",
  other: "Someone else in the household",
};
export const MARITAL_STATUS: Options<"single" | "married" | "partner" | "divorced" | "separated" | "widowed"> = {
  single: "Single",
  married: "Married",
  partner: "Domestic partnership",
  divorced: "Divorced",
  separated: "Separated",
  widowed: "Widowed",
};
export const LICENSE_STATUS: Options<"active" | "permit" | "suspended" | "foreign"> = {
  active: "Valid US driver's license",
  permit: "Learner's permit",
  suspended: "Suspended or revoked",
  // The document the driver holds, not where the driver comes from: nothing in the form asks or
  // implies citizenship or immigration status (sensitive personal information, privacy policy
  // section 16). The stored code stays "foreign" for the leads and buyers that already use it.
  foreign: "International driver's license",
};
/** Accidents, tickets and claims in 3 years: counts, 3 meaning "3 or more". */
export const COUNT_CHOICES: Options<"0" | "1" | "2" | "3"> = { "0": "None", "1": "1", "2": "2", "3": "3 or more" };
export const YES_NO: Options<"yes" | "no"> = { yes: "Yes", no: "No" };
export const INSURED_FOR: Options<"under_6m" | "6_12m" | "1_3y" | "3_5y" | "over_5y"> = {
  under_6m: "Less than 6 months",
  "6_12m": "6 to 12 months",
  "1_3y": "1 to 3 years",
  "3_5y": "3 to 5 years",
  over_5y: "More than 5 years",
};
export const COVERAGE: Options<"state_minimum" | "standard" | "premium"> = {
  state_minimum: "State minimum: the liability cover your state requires, the lowest price",
  standard: "Standard: more liability, plus collision and comprehensive for your own car",
  premium: "Premium: high limits and extras like rental car and roadside help",
};
export const RESIDENCE: Options<"own" | "rent" | "other"> = { own: "I own my home", rent: "I rent", other: "I live with family or other" };
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
/**
 * The visitor must be an adult (spec); other drivers in the household from 16: the privacy policy
 * promises that we do not knowingly collect or sell the personal information of anyone under 16
 * (the CCPA's opt-in age), and a permit holder under 16 need not be listed on a policy.
 */
export const MINIMUM_AGE = 18;
export const MINIMUM_DRIVER_AGE = 16;
export const MAXIMUM_AGE = 110;
/** The youngest age any US state licenses (a learner's permit at 14 in a few states). */
export const YOUNGEST_LICENSED_AGE = 14;

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
  /**
   * One answer from a list, as large tap targets over native radios (issue 32: a tap answers, and
   * a screen reader still hears "1 of 4" and the question). `columns` lays short labels out in a
   * grid so a long list fits a phone's screen; `search` adds a filter box for lists too long to
   * show whole (years, makes): only `shown` options show until the visitor types.
   */
  | { kind: "choice"; choices: Choices; columns?: 2 | 3 | 5; search?: ChoiceSearch }
  /** The consent checkbox; its label is the versioned disclosure (shared/consent-disclosure.ts). */
  | { kind: "consent" };

/** The filter box of a long choice list (shared/lead/fields.ts, FieldControl). */
export interface ChoiceSearch {
  /** The box's label: what to type, e.g. "Another year". */
  label: string;
  inputmode: "numeric" | "text";
  /** How many options show at once (without a filter: the featured ones, else the first). */
  shown: number;
  /** The options shown before anything is typed, most asked first (makes: the best-selling brands). */
  featured?: readonly string[];
}

/** The answers a rule may look at besides its own: the record's (a vehicle's, a driver's) or the request's top level. */
export type Answers = Readonly<Record<string, unknown>>;

export interface LeadFieldInfo {
  label: string;
  hint?: string;
  /** "Why we ask": the reason, in a sentence a visitor can read, that a buyer uses this answer. */
  why?: string;
  control: FieldControl;
  /** What to do when the answer is missing or wrong: plain words, shown beside the field. */
  message: string;
  /** Asked only when this holds for the other answers of its record (as sent, and its index); otherwise whatever was sent is ignored. */
  askedWhen?: (raw: Answers, index: number) => boolean;
}

/** Each field rule's presentation, keyed by the rule itself (a zod registry). */
export const leadFieldInfo = z.registry<LeadFieldInfo>();

// --- Rules ---------------------------------------------------------------------------------------

const ONCE = "Send this field once, as text.";
type Verdict<T> = { value: T } | { error: string };

/**
 * zod parses without a context, and some rules depend on today's date (the newest model year,
 * ages) or on where the record sits (the first driver is the visitor). They read it here:
 * the checks set it, synchronously, around each parse; a rule parsed on its own uses the current
 * time and index 0.
 */
let checkingAt: Date | undefined;
let checkingIndex = 0;
const today = () => checkingAt ?? new Date();

/** A field's rule: anything in (a form sends text, a bot anything), the normalised answer out. */
function rule<T>(check: (raw: unknown, now: Date, index: number) => Verdict<T>) {
  return z.pipe(
    z.unknown(),
    z.transform((raw: unknown, ctx): T => {
      const verdict = check(raw, today(), checkingIndex);
      if ("value" in verdict) return verdict.value;
      ctx.issues.push({ code: "custom", input: raw, message: verdict.error });
      return z.NEVER;
    }),
  );
}

/** Text answers: trimmed, inner spaces collapsed; null (JSON's "no answer") is missing; a number, list or object is malformed. */
function textRule<T>(message: string, accept: (text: string, now: Date, index: number) => Verdict<T> | undefined) {
  return rule<T>((raw, now, index) => {
    if (raw !== undefined && raw !== null && typeof raw !== "string") return { error: ONCE };
    const text = trimmedText(raw)?.replace(/\s+/g, " ");
    return (text === undefined ? undefined : accept(text, now, index)) ?? { error: message };
  });
}

const matching = (message: string, schema: z.ZodMiniType) => textRule(message, (text) => (schema.safeParse(text).success ? { value: text } : undefined));

function oneOf<K extends string>(message: string, options: Options<K>) {
  return textRule<K>(message, (text) => (Object.hasOwn(options, text) ? { value: text as K } : undefined));
}

const yesNo = (message: string) => textRule<boolean>(message, (text) => (Object.hasOwn(YES_NO, text) ? { value: text === "yes" } : undefined));
const count = (message: string) => textRule<number>(message, (text) => (Object.hasOwn(COUNT_CHOICES, text) ? { value: Number(text) } : undefined));

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
  vehicles: `Add at least one vehicle, and at most ${MAX_VEHICLES}.`,
  drivers: `Add at least one driver (you), and at most ${MAX_DRIVERS}.`,
  year: "Choose the car's model year.",
  make: "Choose the make from the list (or “Other”).",
  model: `Enter the model, like Camry or F-150 (letters and numbers, up to ${MODEL_MAX_LENGTH} characters).`,
  vin: "Enter the 17-character VIN from the registration or the driver's side of the windshield, or leave it empty.",
  ownership: "Tell us whether you own, finance or lease the car.",
  primaryUse: "Choose what the car is mostly used for.",
  annualMileage: "Choose about how many miles the car is driven a year.",
  firstName: `Enter the first name (letters, spaces, hyphens and apostrophes, up to ${NAME_MAX_LENGTH} characters).`,
  lastName: `Enter the last name (letters, spaces, hyphens and apostrophes, up to ${NAME_MAX_LENGTH} characters).`,
  dateOfBirth: "Enter the date of birth as MM/DD/YYYY, like 04/15/1990.",
  relationship: "Choose how this driver is related to you.",
  maritalStatus: "Choose the marital status.",
  licenseStatus: "Choose the driver's license status.",
  ageFirstLicensed: `Enter the age when first licensed, a number from ${YOUNGEST_LICENSED_AGE} up to the driver's age.`,
  accidents: "Tell us how many accidents in the past 3 years.",
  tickets: "Tell us how many tickets or other violations in the past 3 years.",
  claims: "Tell us how many insurance claims in the past 3 years.",
  dui: "Tell us whether there was a DUI or DWI in the past 7 years.",
  sr22: "Tell us whether the state requires an SR-22 filing.",
  currentlyInsured: "Tell us whether you have car insurance today.",
  currentInsurer: "Choose your current insurance company (or “Other company”).",
  insuredFor: "Choose how long you have been insured without a break.",
  coverage: "Choose the coverage you want.",
  residence: "Tell us whether you own or rent your home.",
  streetAddress: "Enter your street address with the house number, like 123 Main St Apt 4.",
  email: "Enter an email address like name@example.com.",
  phone: "Enter a 10-digit US phone number, like (415) 555-0134.",
  consent: `To send your request, tick the box to agree to be contacted. Prefer not to? Call us at ${site.phone}.`,
} as const;
/** The other messages some rules give. */
const OTHER_MESSAGES = {
  underAge: `You must be ${MINIMUM_AGE} or older to request quotes.`,
  driverTooYoung: `Drivers on the policy must be ${MINIMUM_DRIVER_AGE} or older.`,
  tooOld: "Check the year of the date of birth.",
  selfNotFirst: "Only the first driver is you: choose how this driver is related to you.",
  licensedTooLate: "The age first licensed cannot be more than the driver's age today.",
  vinYear: "This VIN is for another model year than the one chosen: check the VIN or the year.",
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
const choice = (options: Options<string>): FieldControl => ({ kind: "choice", choices: pairs(options) });

// --- A vehicle -----------------------------------------------------------------------------------

export const vehicleSchema = z.object({
  year: field(
    // A JSON number, or its four digits as text.
    rule<number>((raw, now) => {
      const year = typeof raw === "string" && /^\d{4}$/.test(raw.trim()) ? Number(raw) : raw;
      return yearSchema.safeParse(year).success && (year as number) <= newestVehicleYear(now) ? { value: year as number } : { error: MESSAGES.year };
    }),
    {
      label: "Year",
      why: "The model year sets the car's value and safety features, which insurers price on.",
      control: { kind: "choice", choices: same(vehicleYears()), columns: 5, search: { label: "Older? Type the year", inputmode: "numeric", shown: 15 } },
      message: MESSAGES.year,
    },
  ),
  make: field(oneOf(MESSAGES.make, asOptions(VEHICLE_MAKES)), {
    label: "Make",
    why: "Each maker's cars cost differently to repair and insure.",
    control: { kind: "choice", choices: same(VEHICLE_MAKES), columns: 3, search: { label: "Not listed? Type it", inputmode: "text", shown: 12, featured: POPULAR_MAKES } },
    message: MESSAGES.make,
  }),
  model: field(matching(MESSAGES.model, modelSchema), {
    label: "Model",
    hint: "Pick from the list, or type it: for example Camry, Civic or F-150.",
    why: "Repair costs and theft rates differ by model, so quotes need it.",
    control: { kind: "text", autocomplete: "off", maxLength: MODEL_MAX_LENGTH },
    message: MESSAGES.model,
  }),
  vin: z.optional(
    field(
      rule<string | undefined>((raw) => {
        if (raw !== undefined && raw !== null && typeof raw !== "string") return { error: ONCE };
        const text = trimmedText(raw);
        if (text === undefined) return { value: undefined };
        const checked = checkVin(text);
        return checked.ok ? { value: checked.vin } : { error: checked.message };
      }),
      {
        label: "VIN (optional)",
        hint: "17 characters, on your registration or insurance card. We fill in the year, make and model from it.",
        why: "A VIN identifies the exact car and its equipment, so quotes come out more precise. You can leave it out.",
        control: { kind: "text", autocomplete: "off", maxLength: VIN_LENGTH + 4 },
        message: MESSAGES.vin,
      },
    ),
  ),
  ownership: field(oneOf(MESSAGES.ownership, OWNERSHIP), {
    label: "Do you own, finance or lease it?",
    why: "A lender or leasing company usually requires collision and comprehensive cover.",
    control: choice(OWNERSHIP),
    message: MESSAGES.ownership,
  }),
  primaryUse: field(oneOf(MESSAGES.primaryUse, PRIMARY_USE), {
    label: "What is it mostly used for?",
    why: "Cars used for commuting or business are on the road more, which changes the price.",
    control: choice(PRIMARY_USE),
    message: MESSAGES.primaryUse,
  }),
  annualMileage: field(oneOf(MESSAGES.annualMileage, ANNUAL_MILEAGE), {
    label: "About how many miles a year?",
    why: "Fewer miles mean less time on the road; many insurers give a low-mileage discount.",
    control: choice(ANNUAL_MILEAGE),
    message: MESSAGES.annualMileage,
  }),
});

// --- A driver ------------------------------------------------------------------------------------

/** Every driver on a policy is named on it; insurers check each one's record by name and date of birth. */
const NAME_WHY = "Every driver is named on the policy, and insurers look up each driver's record by name and date of birth.";

/** A count of accidents, tickets or claims in 3 years: None, 1, 2, 3 or more. */
const countField = (message: string, label: string, why: string) => field(count(message), { label, why, control: choice(COUNT_CHOICES), message });

/** The first driver is the visitor: "self", and 18 or older. Others are anyone else in the household. */
const isVisitor = (index: number) => index === 0;
const { self: _self, ...OTHERS_RELATIONSHIP } = RELATIONSHIP;
const relationshipOfOthers = oneOf(MESSAGES.relationship, OTHERS_RELATIONSHIP);

export const driverSchema = z.object({
  firstName: field(matching(MESSAGES.firstName, nameSchema), { label: "First name", why: NAME_WHY, control: nameControl("given-name"), message: MESSAGES.firstName }),
  lastName: field(matching(MESSAGES.lastName, nameSchema), { label: "Last name", why: NAME_WHY, control: nameControl("family-name"), message: MESSAGES.lastName }),
  dateOfBirth: field(
    textRule<string>(MESSAGES.dateOfBirth, (text, now, index) => {
      const iso = parseDateOfBirth(text);
      if (iso === undefined) return undefined;
      const age = ageOn(iso, now);
      if (age < 0) return undefined;
      if (isVisitor(index) && age < MINIMUM_AGE) return { error: OTHER_MESSAGES.underAge };
      if (age < MINIMUM_DRIVER_AGE) return { error: OTHER_MESSAGES.driverTooYoung };
      if (age > MAXIMUM_AGE) return { error: OTHER_MESSAGES.tooOld };
      return { value: iso };
    }),
    {
      label: "Date of birth",
      hint: "MM/DD/YYYY.",
      why: "Age and driving experience are among the biggest factors in a car insurance price.",
      control: { kind: "text", autocomplete: "bday", inputmode: "numeric", maxLength: 10, placeholder: "MM/DD/YYYY" },
      message: MESSAGES.dateOfBirth,
    },
  ),
  relationship: field(
    rule<keyof typeof RELATIONSHIP>((raw, _now, index) => {
      // The first driver is the visitor, whatever was sent; no one else can be.
      if (isVisitor(index)) return { value: "self" };
      return relationshipOfOthers.safeParse(raw).success ? { value: relationshipOfOthers.parse(raw) } : { error: trimmedText(raw) === "self" ? OTHER_MESSAGES.selfNotFirst : MESSAGES.relationship };
    }),
    {
      label: "Relationship to you",
      why: "Insurers rate a household together: a spouse or a teenage child changes the price differently.",
      control: { kind: "choice", choices: pairs(OTHERS_RELATIONSHIP), columns: 2 },
      message: MESSAGES.relationship,
      askedWhen: (_raw, index) => !isVisitor(index),
    },
  ),
  maritalStatus: field(oneOf(MESSAGES.maritalStatus, MARITAL_STATUS), {
    label: "Marital status",
    why: "Married drivers often pay less: insurers' claims data shows fewer accidents.",
    control: { kind: "choice", choices: pairs(MARITAL_STATUS), columns: 2 },
    message: MESSAGES.maritalStatus,
  }),
  licenseStatus: field(oneOf(MESSAGES.licenseStatus, LICENSE_STATUS), {
    label: "Driver's license status",
    why: "Insurers can cover only some license types, and price a permit or an international license differently.",
    control: choice(LICENSE_STATUS),
    message: MESSAGES.licenseStatus,
  }),
  ageFirstLicensed: field(
    textRule<number>(MESSAGES.ageFirstLicensed, (text) => {
      if (!/^\d{1,3}$/.test(text)) return undefined;
      const age = Number(text);
      return age >= YOUNGEST_LICENSED_AGE && age <= MAXIMUM_AGE ? { value: age } : undefined;
    }),
    {
      label: "Age when first licensed",
      hint: "Your age when you got your first license or permit.",
      why: "Years of driving experience lower the price.",
      control: { kind: "text", autocomplete: "off", inputmode: "numeric", maxLength: 3 },
      message: MESSAGES.ageFirstLicensed,
    },
  ),
  accidents: countField(
    MESSAGES.accidents,
    "Accidents in the past 3 years",
    "Recent accidents are what insurers look at most; they check records, so an honest answer gives a quote that holds.",
  ),
  tickets: countField(MESSAGES.tickets, "Tickets or violations in the past 3 years", "Speeding and other tickets raise prices for 3 to 5 years in most states."),
  claims: countField(MESSAGES.claims, "Insurance claims in the past 3 years", "Claims, even ones that were not your fault, are part of every insurer's price."),
  dui: field(yesNo(MESSAGES.dui), {
    label: "A DUI or DWI in the past 7 years?",
    why: "Only some companies insure drivers with a DUI; we send your request to those that do.",
    control: choice(YES_NO),
    message: MESSAGES.dui,
  }),
  sr22: field(yesNo(MESSAGES.sr22), {
    label: "Does your state require an SR-22 filing?",
    hint: "A form the insurer files with the state after some violations.",
    why: "Not every insurer files SR-22s; this sends your request to those that do.",
    control: choice(YES_NO),
    message: MESSAGES.sr22,
  }),
});

// --- The household's insurance, and the contact ----------------------------------------------------

/** Asked only of people who are insured today. */
const insuredToday = (raw: Answers) => trimmedText(raw.currentlyInsured) === "yes";

const currentInsurer = field(oneOf(MESSAGES.currentInsurer, asOptions(CURRENT_INSURERS)), {
  label: "Current insurance company",
  why: "Some companies give a discount for switching, and some buyers look for customers of particular insurers.",
  control: { kind: "choice", choices: same(CURRENT_INSURERS), columns: 2 },
  message: MESSAGES.currentInsurer,
  askedWhen: insuredToday,
});
const insuredFor = field(oneOf(MESSAGES.insuredFor, INSURED_FOR), {
  label: "Insured without a break for",
  why: "Continuous cover earns lower prices from most insurers; a gap usually costs more.",
  control: choice(INSURED_FOR),
  message: MESSAGES.insuredFor,
  askedWhen: insuredToday,
});

export const insuranceSchema = z.object({
  currentlyInsured: field(yesNo(MESSAGES.currentlyInsured), {
    label: "Do you have car insurance today?",
    why: "Drivers who are insured now usually get better prices than drivers who are not.",
    control: choice(YES_NO),
    message: MESSAGES.currentlyInsured,
  }),
  currentInsurer: z.optional(currentInsurer),
  insuredFor: z.optional(insuredFor),
  coverage: field(oneOf(MESSAGES.coverage, COVERAGE), {
    label: "What coverage do you want?",
    why: "So the quotes you get compare the same cover. You can change it with the insurer later.",
    control: choice(COVERAGE),
    message: MESSAGES.coverage,
  }),
  residence: field(oneOf(MESSAGES.residence, RESIDENCE), {
    label: "Do you own or rent your home?",
    why: "Homeowners often get lower car insurance prices and can bundle home and auto.",
    control: choice(RESIDENCE),
    message: MESSAGES.residence,
  }),
});

export const contactSchema = z.object({
  streetAddress: field(matching(MESSAGES.streetAddress, streetSchema), {
    label: "Street address",
    hint: "House number and street, and an apartment if you have one.",
    why: "Prices depend on where the car is kept, and insurers need the address for a quote they can bind.",
    control: { kind: "text", autocomplete: "address-line1", maxLength: STREET_MAX_LENGTH },
    message: MESSAGES.streetAddress,
  }),
  email: field(
    textRule<string>(MESSAGES.email, (text) => {
      const email = text.toLowerCase();
      return email.length <= EMAIL_MAX_LENGTH && emailSchema.safeParse(email).success ? { value: email } : undefined;
    }),
    {
      label: "Email address",
      why: "So the companies can send you written quotes.",
      control: { kind: "text", type: "email", autocomplete: "email", inputmode: "email", maxLength: EMAIL_MAX_LENGTH },
      message: MESSAGES.email,
    },
  ),
  phone: field(
    textRule<string>(MESSAGES.phone, (text) => {
      const parsed = usPhoneSchema.safeParse(text);
      return parsed.success ? { value: parsed.data } : undefined;
    }),
    {
      label: "Phone number",
      hint: "A US number, like (415) 555-0134.",
      why: "Most final prices are confirmed in a short call; only the companies named below may call.",
      control: { kind: "text", type: "tel", autocomplete: "tel", inputmode: "tel", maxLength: 20 },
      message: MESSAGES.phone,
    },
  ),
  consent: field(
    rule<true>((raw) => (raw === true ? { value: true } : { error: MESSAGES.consent })),
    { label: "Agreement to be contacted", control: { kind: "consent" }, message: MESSAGES.consent },
  ),
});

const zip = field(matching(MESSAGES.zip, zipSchema), {
  label: "ZIP code where the car is kept",
  why: "Prices and the companies that can quote you depend on where the car is kept.",
  control: { kind: "text", autocomplete: "postal-code", inputmode: "numeric", maxLength: ZIP_LENGTH },
  message: MESSAGES.zip,
});

export type Vehicle = z.output<typeof vehicleSchema>;
export type Driver = z.output<typeof driverSchema>;
export type VehicleField = keyof Vehicle;
export type DriverField = keyof Driver;
type Insurance = z.output<typeof insuranceSchema>;
type Contact = z.output<typeof contactSchema>;

/** A checked quote request: trimmed text, email lower-cased, phone in E.164, dates of birth ISO (YYYY-MM-DD), counts and yes/no as numbers and booleans. */
export type Lead = { zip: string; vehicles: Vehicle[]; drivers: Driver[] } & Insurance & Contact;
/** The request's own (top-level) answers: everything but the vehicles and drivers. */
export type LeadField = "zip" | keyof Insurance | keyof Contact;
/** What a form sends: text for every answer, a boolean for consent, lists of records; anything from a bot. */
export type RawLead = Partial<Record<LeadField | "vehicles" | "drivers", unknown>>;
/** A message per answer path: "zip", "vehicles", "vehicles.1.model", "drivers.0.dui". */
export type LeadErrors = Partial<Record<string, string>>;

export type RecordKind = "vehicle" | "driver";
const RECORD_RULES = {
  vehicle: { ...vehicleSchema.shape, vin: vehicleSchema.shape.vin.def.innerType },
  driver: driverSchema.shape,
} as const;
const TOP_RULES: Readonly<Record<LeadField, z.ZodMiniType>> = { zip, ...insuranceSchema.shape, currentInsurer, insuredFor, ...contactSchema.shape };

export const VEHICLE_FIELDS = Object.keys(vehicleSchema.shape) as VehicleField[];
export const DRIVER_FIELDS = Object.keys(driverSchema.shape) as DriverField[];
export const LEAD_FIELDS = Object.keys(TOP_RULES) as LeadField[];
export const INSURANCE_FIELDS = Object.keys(insuranceSchema.shape) as (keyof Insurance)[];
export const CONTACT_FIELDS = Object.keys(contactSchema.shape) as (keyof Contact)[];

/** A field's presentation (label, hint, why, control, message). */
export function fieldInfo(field: LeadField): LeadFieldInfo;
export function fieldInfo(field: string, record: RecordKind): LeadFieldInfo;
export function fieldInfo(field: string, record?: RecordKind): LeadFieldInfo {
  const rules: Readonly<Record<string, z.ZodMiniType>> = record ? RECORD_RULES[record] : TOP_RULES;
  const schema = rules[field];
  const info = schema && leadFieldInfo.get(schema);
  if (!info) throw new Error(`No presentation registered for the ${record ?? "lead"} field ${field}`);
  return info;
}

// --- The form's screens --------------------------------------------------------------------------

/**
 * The three parts of the request ("an easy 3-step process"): funnel events carry the part a
 * screen belongs to as `step`, as they did when each part was a page of questions.
 */
export const LEAD_STEPS = [
  { id: "vehicles", title: "Your vehicles" },
  { id: "drivers", title: "Drivers" },
  { id: "contact", title: "How to reach you" },
] as const;

/**
 * A screen asks one thing (issue 32, after GOV.UK's "one thing per page"): one question, or one
 * decision that takes more than one field (a name; where to send the quotes). `title` is the
 * question as the visitor reads it about themselves and their first car; `other` names it for a
 * second vehicle or another driver ("Vehicle 2: Make"). A record screen edits one vehicle or
 * driver at a time; a list screen shows them all, to add, edit or remove. A screen whose fields
 * are not asked for the answers given (askedWhen) is skipped. Funnel events name the screen
 * completed, so analysts see which question costs leads.
 */
export type FormScreen =
  /** `lead`: request-level fields asked on the first record's screen (the ZIP, with the first vehicle, when the address did not bring a known one). */
  | { id: string; step: number; title: string; other?: string; kind: "record"; record: RecordKind; fields: readonly string[]; lead?: readonly LeadField[] }
  | { id: string; step: number; title: string; kind: "list"; record: RecordKind }
  /**
   * `none`: the second field is asked only as the question's one other answer (shown as `label`,
   * its value "no"); answering the question sets it to "yes" (the insurer screen).
   */
  | { id: string; step: number; title: string; kind: "fields"; fields: readonly LeadField[]; none?: { field: LeadField; label: string } };

export const FORM_SCREENS = [
  { id: "vehicle-year", step: 0, title: "What year is your car?", other: "Model year", kind: "record", record: "vehicle", fields: ["year", "vin"], lead: ["zip"] },
  { id: "vehicle-make", step: 0, title: "What make is it?", other: "Make", kind: "record", record: "vehicle", fields: ["make"] },
  { id: "vehicle-model", step: 0, title: "Which model is it?", other: "Model", kind: "record", record: "vehicle", fields: ["model"] },
  { id: "vehicle-ownership", step: 0, title: "Do you own, finance or lease it?", kind: "record", record: "vehicle", fields: ["ownership"] },
  { id: "vehicle-use", step: 0, title: "What is it mostly used for?", kind: "record", record: "vehicle", fields: ["primaryUse"] },
  { id: "vehicle-mileage", step: 0, title: "About how many miles a year?", kind: "record", record: "vehicle", fields: ["annualMileage"] },
  { id: "vehicles", step: 0, title: "Your vehicles", kind: "list", record: "vehicle" },
  { id: "driver-name", step: 1, title: "What is your name?", other: "Name", kind: "record", record: "driver", fields: ["firstName", "lastName"] },
  { id: "driver-birth", step: 1, title: "What is your date of birth?", other: "Date of birth", kind: "record", record: "driver", fields: ["dateOfBirth"] },
  { id: "driver-relationship", step: 1, title: "How is this driver related to you?", other: "Relationship to you", kind: "record", record: "driver", fields: ["relationship"] },
  { id: "driver-marital", step: 1, title: "What is your marital status?", other: "Marital status", kind: "record", record: "driver", fields: ["maritalStatus"] },
  { id: "driver-license", step: 1, title: "Which driver's license do you have?", other: "Driver's license", kind: "record", record: "driver", fields: ["licenseStatus"] },
  { id: "driver-licensed-age", step: 1, title: "How old were you when first licensed?", other: "Age when first licensed", kind: "record", record: "driver", fields: ["ageFirstLicensed"] },
  { id: "driver-accidents", step: 1, title: "Any accidents in the past 3 years?", other: "Accidents in the past 3 years", kind: "record", record: "driver", fields: ["accidents"] },
  { id: "driver-tickets", step: 1, title: "Any tickets or violations in the past 3 years?", other: "Tickets in the past 3 years", kind: "record", record: "driver", fields: ["tickets"] },
  { id: "driver-claims", step: 1, title: "Any insurance claims in the past 3 years?", other: "Claims in the past 3 years", kind: "record", record: "driver", fields: ["claims"] },
  { id: "driver-dui", step: 1, title: "A DUI or DWI in the past 7 years?", other: "DUI or DWI in the past 7 years", kind: "record", record: "driver", fields: ["dui"] },
  { id: "driver-sr22", step: 1, title: "Does your state require an SR-22 filing?", other: "SR-22 filing", kind: "record", record: "driver", fields: ["sr22"] },
  { id: "drivers", step: 1, title: "Your drivers", kind: "list", record: "driver" },
  // The insurer's name answers "insured today?" too: a company means yes, and the one other
  // option is "no" (issue 32: an answer that can be inferred is not asked).
  { id: "insurer", step: 1, title: "Who insures your car today?", kind: "fields", fields: ["currentInsurer", "currentlyInsured"], none: { field: "currentlyInsured", label: "I don't have car insurance today" } },
  { id: "insured-for", step: 1, title: "How long have you been insured without a break?", kind: "fields", fields: ["insuredFor"] },
  { id: "coverage", step: 1, title: "What coverage do you want?", kind: "fields", fields: ["coverage"] },
  { id: "residence", step: 1, title: "Do you own or rent your home?", kind: "fields", fields: ["residence"] },
  { id: "contact", step: 2, title: "Where should we send your quotes?", kind: "fields", fields: CONTACT_FIELDS },
] as const satisfies readonly FormScreen[];
export type ScreenId = (typeof FORM_SCREENS)[number]["id"];
export const SCREEN_IDS = FORM_SCREENS.map((screen) => screen.id) as readonly ScreenId[];

// --- Checking ------------------------------------------------------------------------------------

/** Field messages, word for word as visitors read them, and the other messages rules give. */
export const LEAD_MESSAGES = { ...MESSAGES, ...OTHER_MESSAGES } as const;

function checking<T>(now: Date, index: number, run: () => T): T {
  checkingAt = now;
  checkingIndex = index;
  try {
    return run();
  } finally {
    checkingAt = undefined;
    checkingIndex = 0;
  }
}

function checkWith(rules: Readonly<Record<string, z.ZodMiniType>>, info: (field: string) => LeadFieldInfo, raw: Answers, fields: readonly string[], index: number) {
  const values: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const name of fields) {
    const { askedWhen, message } = info(name);
    // The first driver's relationship is not asked, but its rule sets "self".
    if (askedWhen && !askedWhen(raw, index) && !(name === "relationship" && isVisitor(index))) continue;
    const checked = rules[name]!.safeParse(raw[name]);
    if (checked.success) {
      if (checked.data !== undefined) values[name] = checked.data;
    } else errors[name] = checked.error.issues[0]?.message ?? message;
  }
  return { values, errors };
}

/**
 * Checks some of the request's own fields (one on blur, a screen on Next). Returns the valid
 * values (normalised) and a message for each invalid field.
 */
export function checkLeadFields(raw: RawLead, fields: readonly LeadField[], now: Date = new Date()): { values: Partial<Lead>; errors: Partial<Record<LeadField, string>> } {
  return checking(now, 0, () => checkWith(TOP_RULES, (name) => fieldInfo(name as LeadField), raw as Answers, fields, 0)) as {
    values: Partial<Lead>;
    errors: Partial<Record<LeadField, string>>;
  };
}

/** The cross-field rules of a record, once its fields pass: a VIN's year, an age first licensed. */
function recordRules(kind: RecordKind, values: Record<string, unknown>, errors: Record<string, string>, now: Date): void {
  if (kind === "vehicle" && typeof values.vin === "string" && typeof values.year === "number" && !errors.vin) {
    const decoded = checkVin(values.vin);
    if (decoded.ok && decoded.year !== values.year) errors.vin = OTHER_MESSAGES.vinYear;
  }
  if (kind === "driver" && typeof values.ageFirstLicensed === "number" && typeof values.dateOfBirth === "string") {
    if (values.ageFirstLicensed > ageOn(values.dateOfBirth, now)) errors.ageFirstLicensed = OTHER_MESSAGES.licensedTooLate;
  }
}

/**
 * Checks some fields of one vehicle or driver (index: its place, from 0; the first driver is the
 * visitor). Errors are keyed by the field's own name.
 */
export function checkRecordFields<K extends RecordKind>(
  kind: K,
  raw: unknown,
  index: number,
  fields: readonly (K extends "vehicle" ? VehicleField : DriverField)[] = (kind === "vehicle" ? VEHICLE_FIELDS : DRIVER_FIELDS) as never,
  now: Date = new Date(),
): { values: Partial<K extends "vehicle" ? Vehicle : Driver>; errors: Partial<Record<string, string>> } {
  const answers: Answers = raw !== null && typeof raw === "object" && !Array.isArray(raw) ? (raw as Answers) : {};
  return checking(now, index, () => {
    const { values, errors } = checkWith(RECORD_RULES[kind], (name) => fieldInfo(name, kind), answers, fields, index);
    recordRules(kind, values, errors, now);
    for (const name of Object.keys(errors)) delete values[name];
    return { values: values as never, errors };
  });
}

/** The records sent for vehicles or drivers: a list of 1 to max objects, else the list's message. */
function recordsOf(raw: unknown, max: number): unknown[] | undefined {
  return Array.isArray(raw) && raw.length >= 1 && raw.length <= max ? raw : undefined;
}

/** The whole request, as the server checks it before storing; on failure, also the answers that were valid. */
export function validateLead(raw: RawLead, now: Date = new Date()): { ok: true; value: Lead } | { ok: false; errors: LeadErrors; values: Partial<Lead> } {
  const top = checkLeadFields(raw, LEAD_FIELDS, now);
  const errors: LeadErrors = { ...top.errors };
  const values: Partial<Lead> = { ...top.values };
  for (const [key, kind, max] of [
    ["vehicles", "vehicle", MAX_VEHICLES],
    ["drivers", "driver", MAX_DRIVERS],
  ] as const) {
    const records = recordsOf(raw[key], max);
    if (!records) {
      errors[key] = MESSAGES[key];
      continue;
    }
    const checked = records.map((record, index) => {
      if (record !== null && typeof record === "object" && !Array.isArray(record)) return checkRecordFields(kind, record, index, undefined, now);
      return { values: {}, errors: { "": `Send each ${kind} as an object of answers.` } };
    });
    checked.forEach((result, index) => {
      for (const [name, message] of Object.entries(result.errors)) errors[name ? `${key}.${index}.${name}` : `${key}.${index}`] = message;
    });
    if (checked.every((result) => Object.keys(result.errors).length === 0)) (values as Record<string, unknown>)[key] = checked.map((result) => result.values);
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors, values };
  return { ok: true, value: values as Lead };
}

/** "vehicles.1.model" → where it is: the record (kind and index) and the field, or a top-level field. */
export function errorPlace(path: string): { record: RecordKind; index: number; field: string } | { field: string } {
  const match = /^(vehicles|drivers)\.(\d+)\.(\w+)$/.exec(path);
  if (!match) return { field: path };
  return { record: match[1] === "vehicles" ? "vehicle" : "driver", index: Number(match[2]), field: match[3]! };
}
