/**
 * The quote form's field rules (shared/lead/fields.ts): what checkLeadFields and validateLead accept,
 * how they normalise it, and the exact message for everything they refuse. The same functions
 * run in the browser on blur/Next and on the server before storing, so these are both sides' rules.
 */
import fc from "fast-check";
import { badLeading, leading, lineNumber, phoneStyle, threeDigits } from "../support/phone-arbitraries";
import { describe, expect, it } from "vitest";
import { formatUsPhone } from "../../shared/contact";
import {
  COUNT_CHOICES,
  CURRENT_INSURERS,
  DRIVER_FIELDS,
  FORM_SCREENS,
  LEAD_FIELDS,
  LEAD_MESSAGES,
  LICENSE_STATUS,
  MARITAL_STATUS,
  OWNERSHIP,
  PRIMARY_USE,
  VEHICLE_FIELDS,
  checkLeadFields,
  checkRecordFields,
  fieldInfo,
  validateLead,
  type LeadErrors,
  type LeadField,
  type RawLead,
} from "../../shared/lead/fields";
import { ageOn, parseDateOfBirth } from "../../shared/lead/dates";
import { HONEYPOT_FIELD, LEADID_TOKEN_MAX_LENGTH, LEAD_URL_MAX_LENGTH, TRUSTEDFORM_CERT_URL_MAX_LENGTH, leadEnvelopeSchema } from "../../shared/lead/api";
import { funnelEventSchema } from "../../shared/funnel-events";
import { VEHICLE_MAKES } from "../../shared/vehicles";
import { carriers } from "../../shared/site";

/** The messages, word for word: a visitor reads these, so a change here should be deliberate. */
const MESSAGES = {
  once: "Send this field once, as text.",
  zip: "Enter the 5-digit ZIP code where the car is kept.",
  vehicles: "Add at least one vehicle, and at most 4.",
  drivers: "Add at least one driver (you), and at most 4.",
  vehicleYear: "Choose the car's model year.",
  vehicleMake: "Choose the make from the list (or “Other”).",
  vehicleModel: "Enter the model, like Camry or F-150 (letters and numbers, up to 40 characters).",
  vin: "Enter the 17-character VIN from the registration or the driver's side of the windshield, or leave it empty.",
  ownership: "Tell us whether you own, finance or lease the car.",
  primaryUse: "Choose what the car is mostly used for.",
  annualMileage: "Choose about how many miles the car is driven a year.",
  firstName: "Enter the first name (letters, spaces, hyphens and apostrophes, up to 50 characters).",
  lastName: "Enter the last name (letters, spaces, hyphens and apostrophes, up to 50 characters).",
  dateOfBirth: "Enter the date of birth as MM/DD/YYYY, like 04/15/1990.",
  relationship: "Choose how this driver is related to you.",
  maritalStatus: "Choose the marital status.",
  licenseStatus: "Choose the driver's license status.",
  ageFirstLicensed: "Enter the age when first licensed, a number from 14 up to the driver's age.",
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
  consent: "To send your request, tick the box to agree to be contacted. Prefer not to? Call us at 1-800-555-0142.",
  underAge: "You must be 18 or older to request quotes.",
  driverTooYoung: "Drivers on the policy must be 16 or older.",
  tooOld: "Check the year of the date of birth.",
  selfNotFirst: "Only the first driver is you: choose how this driver is related to you.",
  licensedTooLate: "The age first licensed cannot be more than the driver's age today.",
  vinYear: "This VIN is for another model year than the one chosen: check the VIN or the year.",
} as const;

/** Mid-afternoon in New York, mid-June: far from any day or year boundary. */
const NOW = new Date("2026-06-15T18:00:00Z");

/**
 * These tests name a one-vehicle, one-driver request's answers flat, as the form showed them
 * before issue 13 (vehicleYear, firstName…): `nest` makes the request, the first vehicle and the
 * first driver, and `flatErrors` names its errors back the same way.
 */
const VEHICLE_NAMES = { vehicleYear: "year", vehicleMake: "make", vehicleModel: "model", vin: "vin", ownership: "ownership", primaryUse: "primaryUse", annualMileage: "annualMileage" } as const;
const DRIVER_NAMES = Object.fromEntries(DRIVER_FIELDS.map((field) => [field, field])) as Record<string, string>;
type FlatName = LeadField | keyof typeof VEHICLE_NAMES | (typeof DRIVER_FIELDS)[number];
type Flat = Partial<Record<FlatName | string, unknown>>;

function nest(flat: Flat): RawLead {
  const vehicle: Record<string, unknown> = {};
  const driver: Record<string, unknown> = {};
  const top: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(flat)) {
    if (name in VEHICLE_NAMES) vehicle[VEHICLE_NAMES[name as keyof typeof VEHICLE_NAMES]] = value;
    else if (name in DRIVER_NAMES) driver[name] = value;
    else top[name] = value;
  }
  return { ...top, vehicles: [vehicle], drivers: [driver] };
}

const FLAT_OF_VEHICLE = Object.fromEntries(Object.entries(VEHICLE_NAMES).map(([flat, field]) => [field, flat]));
function flatErrors(errors: LeadErrors): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(errors).map(([path, message]) => {
      const vehicle = /^vehicles\.0\.(\w+)$/.exec(path);
      const driver = /^drivers\.0\.(\w+)$/.exec(path);
      return [vehicle ? FLAT_OF_VEHICLE[vehicle[1]!]! : driver ? driver[1]! : path, message];
    }),
  );
}

const VALID: Readonly<Record<string, unknown>> = {
  zip: "90210",
  vehicleYear: "2019",
  vehicleMake: "Toyota",
  vehicleModel: "Camry",
  vin: "",
  ownership: "finance",
  primaryUse: "commute",
  annualMileage: "10k_15k",
  firstName: "Ana",
  lastName: "O'Brien",
  dateOfBirth: "04/15/1990",
  maritalStatus: "single",
  licenseStatus: "active",
  ageFirstLicensed: "16",
  accidents: "0",
  tickets: "1",
  claims: "0",
  dui: "no",
  sr22: "no",
  currentlyInsured: "yes",
  currentInsurer: "GEICO",
  insuredFor: "over_5y",
  coverage: "standard",
  residence: "rent",
  streetAddress: "123 Main St Apt 4",
  email: "Ana.OBrien@Example.com",
  phone: "(415) 555-0134",
  consent: true,
};

function errorsOf(flat: Flat, now: Date = NOW) {
  const result = validateLead(nest(flat), now);
  if (result.ok) throw new Error(`expected errors, got ${JSON.stringify(result.value)}`);
  return flatErrors(result.errors);
}

function valueOf(flat: Flat, now: Date = NOW) {
  const result = validateLead(nest(flat), now);
  if (!result.ok) throw new Error(`expected a valid lead, got ${JSON.stringify(result.errors)}`);
  return result.value;
}

/** One field checked alone (as on blur), with the rest of VALID as context. */
function check(field: string, value: unknown, now: Date = NOW, context: Flat = VALID) {
  const raw = { ...context, [field]: value };
  if (field in VEHICLE_NAMES) {
    const name = VEHICLE_NAMES[field as keyof typeof VEHICLE_NAMES];
    const { values, errors } = checkRecordFields("vehicle", nest(raw).vehicles![0 as never], 0, [name], now);
    return { value: (values as Record<string, unknown>)[name], error: errors[name] };
  }
  if (field in DRIVER_NAMES) {
    const name = field as (typeof DRIVER_FIELDS)[number];
    const { values, errors } = checkRecordFields("driver", (nest(raw).drivers as unknown[])[0], 0, [name], now);
    return { value: (values as Record<string, unknown>)[name], error: errors[name] };
  }
  const { values, errors } = checkLeadFields(raw as RawLead, [field as LeadField], now);
  return { value: values[field as LeadField], error: errors[field as LeadField] };
}

const accepted = (field: string, value: unknown, now: Date = NOW) => {
  const result = check(field, value, now);
  if (result.error !== undefined) throw new Error(`${field} ${JSON.stringify(value)} refused: ${result.error}`);
  return result.value;
};
const refusal = (field: string, value: unknown, now: Date = NOW) => check(field, value, now).error;

// ---------------------------------------------------------------------------------------------
// Calendar helpers for the date-of-birth properties (UTC dates standing for calendar days).

const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const daysIn = (year: number, month: number) => [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
const pad = (n: number, width = 2) => String(n).padStart(width, "0");

interface Day {
  year: number;
  month: number;
  day: number;
}
const isoOf = (d: Day) => `${pad(d.year, 4)}-${pad(d.month)}-${pad(d.day)}`;
const usOf = (d: Day, padded = true) => (padded ? `${pad(d.month)}/${pad(d.day)}/${pad(d.year, 4)}` : `${d.month}/${d.day}/${pad(d.year, 4)}`);
const dayFromUtc = (date: Date): Day => ({ year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() });
function addDays(d: Day, days: number): Day {
  const date = new Date(0);
  date.setUTCFullYear(d.year, d.month - 1, d.day); // unlike Date.UTC, takes years 0–99 literally
  date.setUTCDate(date.getUTCDate() + days);
  return dayFromUtc(date);
}
const compare = (a: Day, b: Day) => isoOf(a).localeCompare(isoOf(b));

/** The calendar date in New York at `now`, worked out independently of shared/lead/dates.ts. */
function newYorkDay(now: Date): Day {
  const text = new Intl.DateTimeFormat("en-CA", { timeZone: "America/New_York", year: "numeric", month: "2-digit", day: "2-digit" }).format(now);
  const [year, month, day] = text.split("-").map(Number) as [number, number, number];
  return { year, month, day };
}

/**
 * The latest birth date of someone who is at least `years` old on `today`: the same month and
 * day `years` earlier, or 28 February when that year has no 29th (born 29 Feb: a year older on 1 March).
 */
function latestBirthForAge(today: Day, years: number): Day {
  const year = today.year - years;
  return today.month === 2 && today.day === 29 && !isLeap(year) ? { year, month: 2, day: 28 } : { year, month: today.month, day: today.day };
}

const nowArbitrary = fc.date({ min: new Date("1995-01-01T00:00:00Z"), max: new Date("2099-12-31T23:59:59Z"), noInvalidDate: true });

// ---------------------------------------------------------------------------------------------

describe("LEAD_MESSAGES", () => {
  it("are the plain-words messages the form shows", () => {
    const { once: _once, vehicleYear, vehicleMake, vehicleModel, ...others } = MESSAGES;
    expect(LEAD_MESSAGES).toEqual({ ...others, year: vehicleYear, make: vehicleMake, model: vehicleModel });
  });
});

describe("validateLead", () => {
  it("accepts a complete request and returns it normalised", () => {
    expect(valueOf(VALID)).toEqual({
      zip: "90210",
      vehicles: [{ year: 2019, make: "Toyota", model: "Camry", ownership: "finance", primaryUse: "commute", annualMileage: "10k_15k" }],
      drivers: [
        {
          firstName: "Ana",
          lastName: "O'Brien",
          dateOfBirth: "1990-04-15",
          relationship: "self",
          maritalStatus: "single",
          licenseStatus: "active",
          ageFirstLicensed: 16,
          accidents: 0,
          tickets: 1,
          claims: 0,
          dui: false,
          sr22: false,
        },
      ],
      currentlyInsured: true,
      currentInsurer: "GEICO",
      insuredFor: "over_5y",
      coverage: "standard",
      residence: "rent",
      streetAddress: "123 Main St Apt 4",
      email: "ana.obrien@example.com",
      phone: "+14155550134",
      consent: true,
    });
  });

  it("returns currentlyInsured as a boolean, and no insurer or time insured for someone not insured", () => {
    expect(valueOf(VALID).currentlyInsured).toBe(true);
    const uninsured = valueOf({ ...VALID, currentlyInsured: "no", currentInsurer: "GEICO", insuredFor: "nonsense" });
    expect(uninsured.currentlyInsured).toBe(false);
    expect(uninsured).not.toHaveProperty("currentInsurer");
    expect(uninsured).not.toHaveProperty("insuredFor");
  });

  it("reports every field of an empty request (the insurer and time insured only asked of the insured; the VIN optional; the visitor is 'self')", () => {
    const errors = errorsOf({});
    const expected = [...LEAD_FIELDS, ...Object.keys(VEHICLE_NAMES), ...DRIVER_FIELDS].filter((field) => !["currentInsurer", "insuredFor", "vin", "relationship"].includes(field));
    expect(Object.keys(errors).sort()).toEqual(expected.sort());
    expect(errors).toMatchObject({ zip: MESSAGES.zip, vehicleYear: MESSAGES.vehicleYear, dateOfBirth: MESSAGES.dateOfBirth, consent: MESSAGES.consent });
  });

  it("reports every bad field at once, and only those", () => {
    expect(errorsOf({ ...VALID, zip: "9021", email: "nope", phone: "555-0134", consent: false })).toEqual({
      zip: MESSAGES.zip,
      email: MESSAGES.email,
      phone: MESSAGES.phone,
      consent: MESSAGES.consent,
    });
  });

  it("ignores fields it does not know", () => {
    const raw = { ...VALID, admin: "true", website: "spam" };
    expect(valueOf(raw)).toEqual(valueOf(VALID));
  });

  it("gives every question its \"Why we ask\" (the consent box's reason is its own text)", () => {
    const questions = [...LEAD_FIELDS.map((field) => fieldInfo(field)), ...VEHICLE_FIELDS.map((field) => fieldInfo(field, "vehicle")), ...DRIVER_FIELDS.map((field) => fieldInfo(field, "driver"))];
    const without = questions.filter((info) => !info.why && info.control.kind !== "consent").map((info) => info.label);
    expect(without).toEqual([]);
  });

  it("asks every field on exactly one screen of the form", () => {
    const asked = FORM_SCREENS.flatMap((screen) => [
      ...("fields" in screen ? screen.fields.map((field) => ("record" in screen ? `${screen.record}.${field}` : field)) : []),
      ...("lead" in screen ? screen.lead : []),
    ]);
    const every = [...LEAD_FIELDS, ...VEHICLE_FIELDS.map((field) => `vehicle.${field}`), ...DRIVER_FIELDS.map((field) => `driver.${field}`)];
    expect([...asked].sort()).toEqual([...every].sort());
  });
});

describe("vehicles and drivers", () => {
  const request = valueOf(VALID);
  const raw = nest(VALID);
  const [vehicle] = raw.vehicles as Record<string, unknown>[];
  const [visitor] = raw.drivers as Record<string, unknown>[];
  const spouse = { ...visitor, firstName: "Luis", relationship: "spouse", dateOfBirth: "01/02/1988" };
  const errors = (changes: Partial<RawLead>) => {
    const result = validateLead({ ...raw, ...changes }, NOW);
    return result.ok ? {} : result.errors;
  };

  it("takes 1 to 4 of each, in order, each checked by its own rules", () => {
    const result = validateLead({ ...raw, vehicles: [vehicle, { ...vehicle, model: "RAV4" }, vehicle, vehicle], drivers: [visitor, spouse] }, NOW);
    expect(result.ok && result.value.vehicles.map((v) => v.model)).toEqual(["Camry", "RAV4", "Camry", "Camry"]);
    expect(result.ok && result.value.drivers.map((d) => [d.firstName, d.relationship])).toEqual([["Ana", "self"], ["Luis", "spouse"]]);
    expect(request.vehicles).toHaveLength(1);
  });

  it("refuses no list, an empty list, five, or something else, with the list's message", () => {
    for (const vehicles of [undefined, [], [vehicle, vehicle, vehicle, vehicle, vehicle], "Camry", { 0: vehicle }]) expect(errors({ vehicles }), JSON.stringify(vehicles)).toEqual({ vehicles: MESSAGES.vehicles });
    for (const drivers of [undefined, [], [visitor, spouse, spouse, spouse, spouse]]) expect(errors({ drivers })).toEqual({ drivers: MESSAGES.drivers });
  });

  it("refuses a record that is not an object, naming its place", () => {
    expect(errors({ vehicles: [vehicle, "RAV4"] })).toEqual({ "vehicles.1": "Send each vehicle as an object of answers." });
    expect(errors({ drivers: [visitor, null] })).toEqual({ "drivers.1": "Send each driver as an object of answers." });
  });

  it("names a bad answer by its record's place and field", () => {
    expect(errors({ vehicles: [vehicle, { ...vehicle, model: "" }] })).toEqual({ "vehicles.1.model": MESSAGES.vehicleModel });
    expect(errors({ drivers: [visitor, { ...spouse, dui: "maybe" }] })).toEqual({ "drivers.1.dui": MESSAGES.dui });
  });

  it("makes the first driver the visitor, whatever was sent, and refuses 'self' for anyone else", () => {
    const result = validateLead({ ...raw, drivers: [{ ...visitor, relationship: "child" }] }, NOW);
    expect(result.ok && result.value.drivers[0]!.relationship).toBe("self");
    expect(errors({ drivers: [visitor, { ...spouse, relationship: "self" }] })).toEqual({ "drivers.1.relationship": MESSAGES.selfNotFirst });
    expect(errors({ drivers: [visitor, { ...spouse, relationship: "" }] })).toEqual({ "drivers.1.relationship": MESSAGES.relationship });
  });

  it("needs the visitor to be 18 and other drivers 15", () => {
    expect(errors({ drivers: [{ ...visitor, dateOfBirth: "06/16/2009" }] })).toEqual({ "drivers.0.dateOfBirth": MESSAGES.underAge });
    expect(errors({ drivers: [visitor, { ...spouse, dateOfBirth: "06/15/2010", ageFirstLicensed: "15" }] })).toEqual({});
    expect(errors({ drivers: [visitor, { ...spouse, dateOfBirth: "06/16/2011", ageFirstLicensed: "14" }] })).toEqual({ "drivers.1.dateOfBirth": MESSAGES.driverTooYoung });
  });

  it("takes the age first licensed from 14 to the driver's age", () => {
    expect(errors({ drivers: [{ ...visitor, ageFirstLicensed: "36" }] })).toEqual({});
    expect(errors({ drivers: [{ ...visitor, ageFirstLicensed: "37" }] })).toEqual({ "drivers.0.ageFirstLicensed": MESSAGES.licensedTooLate });
    for (const age of ["13", "sixteen", "16.5", "-16", ""]) expect(errors({ drivers: [{ ...visitor, ageFirstLicensed: age }] }), age).toEqual({ "drivers.0.ageFirstLicensed": MESSAGES.ageFirstLicensed });
  });

  it("takes counts of accidents, tickets and claims as 0 to 3 (3 or more)", () => {
    expect(Object.keys(COUNT_CHOICES)).toEqual(["0", "1", "2", "3"]);
    const result = validateLead({ ...raw, drivers: [{ ...visitor, accidents: "3", tickets: "2", claims: "1" }] }, NOW);
    expect(result.ok && [result.value.drivers[0]!.accidents, result.value.drivers[0]!.tickets, result.value.drivers[0]!.claims]).toEqual([3, 2, 1]);
    for (const field of ["accidents", "tickets", "claims"] as const) {
      for (const bad of ["4", "none", "-1", ""]) expect(errors({ drivers: [{ ...visitor, [field]: bad }] })).toEqual({ [`drivers.0.${field}`]: MESSAGES[field] });
    }
  });

  it("takes an optional VIN: empty is no VIN; a valid one is kept upper-cased; a bad check digit or another year is refused", () => {
    expect(errors({ vehicles: [{ ...vehicle, vin: " " }] })).toEqual({});
    const result = validateLead({ ...raw, vehicles: [{ ...vehicle, year: "2003", vin: " 1hgcm82633a004352 " }] }, NOW);
    expect(result.ok && result.value.vehicles[0]!.vin).toBe("1HGCM82633A004352");
    expect(errors({ vehicles: [{ ...vehicle, year: "2003", vin: "1HGCM82633A004353" }] })).toEqual({
      "vehicles.0.vin": "This VIN's check digit (the 9th character) does not match: please check it for a typo.",
    });
    expect(errors({ vehicles: [{ ...vehicle, vin: "1HGCM82633A004352" }] })).toEqual({ "vehicles.0.vin": MESSAGES.vinYear });
    expect(errors({ vehicles: [{ ...vehicle, vin: "12345" }] })).toEqual({ "vehicles.0.vin": "A VIN has exactly 17 characters; this one has 5." });
  });

  it("refuses each new choice outside its list", () => {
    expect(errors({ vehicles: [{ ...vehicle, annualMileage: "lots" }] })).toEqual({ "vehicles.0.annualMileage": MESSAGES.annualMileage });
    expect(errors({ drivers: [{ ...visitor, maritalStatus: "complicated" }] })).toEqual({ "drivers.0.maritalStatus": MESSAGES.maritalStatus });
    expect(errors({ drivers: [{ ...visitor, sr22: "true" }] })).toEqual({ "drivers.0.sr22": MESSAGES.sr22 });
    expect(errors({ insuredFor: "forever" })).toEqual({ insuredFor: MESSAGES.insuredFor });
    expect(errors({ coverage: "gold" })).toEqual({ coverage: MESSAGES.coverage });
    expect(errors({ residence: "castle" })).toEqual({ residence: MESSAGES.residence });
    expect(Object.keys(MARITAL_STATUS)).toContain("married");
  });
});

describe("checkLeadFields", () => {
  it("checks only the fields asked for (one on blur, a screen on Next)", () => {
    expect(checkLeadFields({ zip: "nope", email: "nope" }, ["zip"], NOW)).toEqual({ values: {}, errors: { zip: MESSAGES.zip } });
    const contact = checkLeadFields(VALID as RawLead, ["streetAddress", "email", "phone", "consent"], NOW);
    expect(contact.errors).toEqual({});
    expect(Object.keys(contact.values).sort()).toEqual(["consent", "email", "phone", "streetAddress"]);
  });

  it("defaults to the current time", () => {
    const thisYear = new Date().getUTCFullYear();
    expect(checkRecordFields("vehicle", { year: thisYear + 1 }, 0, ["year"]).errors).toEqual({});
    expect(checkRecordFields("vehicle", { year: thisYear + 2 }, 0, ["year"]).errors).toEqual({ year: MESSAGES.vehicleYear });
  });
});

describe("a text field sent twice (an array), as an object, a number, or as null", () => {
  const TEXT_FIELDS = [
    "zip",
    "vehicleMake",
    "vehicleModel",
    "ownership",
    "primaryUse",
    "annualMileage",
    "firstName",
    "lastName",
    "dateOfBirth",
    "maritalStatus",
    "licenseStatus",
    "ageFirstLicensed",
    "accidents",
    "tickets",
    "claims",
    "dui",
    "sr22",
    "currentlyInsured",
    "currentInsurer",
    "insuredFor",
    "coverage",
    "residence",
    "streetAddress",
    "email",
    "phone",
  ];

  it.each(TEXT_FIELDS)("refuses %s as an array, naming only that field", (field) => {
    const errors = errorsOf({ ...VALID, [field]: [VALID[field], VALID[field]] });
    expect(errors).toEqual({ [field]: MESSAGES.once });
  });

  it.each(TEXT_FIELDS)("refuses %s as an object, a number or a boolean", (field) => {
    for (const value of [{ value: VALID[field] }, 90210, true]) {
      expect(refusal(field, value), JSON.stringify(value)).toBe(MESSAGES.once);
    }
  });

  it.each(TEXT_FIELDS)("treats %s sent as null like a missing answer, with the field's own message", (field) => {
    expect(refusal(field, null)).not.toBe(MESSAGES.once);
    expect(refusal(field, null)).toBe(refusal(field, undefined));
  });

  it("refuses a repeated currentlyInsured without asking for an insurer", () => {
    expect(errorsOf({ ...VALID, currentlyInsured: ["yes", "yes"], currentInsurer: undefined, insuredFor: undefined })).toEqual({ currentlyInsured: MESSAGES.once });
  });
});

describe("whitespace", () => {
  it("is trimmed and runs of it collapse to one space", () => {
    expect(valueOf({
      ...VALID,
      zip: " 90210 ",
      vehicleMake: "  Land Rover ",
      vehicleModel: " Grand\n  Cherokee ",
      ownership: " own ",
      firstName: "  Mary   Ann ",
      lastName: "\tde  la\u00a0Cruz ",
      dateOfBirth: " 04/15/1990 ",
      streetAddress: " 123   Main\tSt ",
      email: "  ana@example.com\n",
      phone: " (415)   555-0134 ",
      currentlyInsured: " yes ",
      currentInsurer: " State Farm ",
    })).toMatchObject({
      zip: "90210",
      vehicles: [{ make: "Land Rover", model: "Grand Cherokee", ownership: "own" }],
      drivers: [{ firstName: "Mary Ann", lastName: "de la Cruz", dateOfBirth: "1990-04-15" }],
      streetAddress: "123 Main St",
      email: "ana@example.com",
      phone: "+14155550134",
      currentlyInsured: true,
      currentInsurer: "State Farm",
    });
  });

  it("alone counts as not answered", () => {
    for (const field of ["zip", "vehicleModel", "firstName", "streetAddress", "email", "phone", "dateOfBirth"] as const) {
      expect(refusal(field, "   "), field).toBe(MESSAGES[field]);
      expect(refusal(field, ""), field).toBe(MESSAGES[field]);
      expect(refusal(field, undefined), field).toBe(MESSAGES[field]);
    }
  });
});

describe("phone", () => {
  const style = phoneStyle;
  const padding = fc.constantFrom("", " ", "  ", "\t", "\n");

  it("turns any valid NANP number, typed in a common style, into E.164", () => {
    fc.assert(
      fc.property(threeDigits(leading), threeDigits(leading), lineNumber, style, padding, padding, (area, exchange, line, typed, before, after) => {
        expect(accepted("phone", `${before}${typed(area, exchange, line)}${after}`)).toBe(`+1${area}${exchange}${line}`);
      }),
      { numRuns: 400 },
    );
  });

  it("refuses an area code or exchange starting with 0 or 1, with the phone message", () => {
    const badArea = fc.tuple(threeDigits(badLeading), threeDigits(fc.oneof(leading, badLeading)));
    const badExchange = fc.tuple(threeDigits(leading), threeDigits(badLeading));
    fc.assert(
      fc.property(fc.oneof(badArea, badExchange), lineNumber, style, ([area, exchange], line, typed) => {
        expect(refusal("phone", typed(area, exchange, line))).toBe(MESSAGES.phone);
      }),
      { numRuns: 400 },
    );
  });

  it("round-trips: the stored number, and the number as the thank-you step reads it back, are accepted as themselves", () => {
    fc.assert(
      fc.property(threeDigits(leading), threeDigits(leading), lineNumber, style, (area, exchange, line, typed) => {
        const e164 = accepted("phone", typed(area, exchange, line)) as string;
        expect(accepted("phone", e164)).toBe(e164);
        expect(accepted("phone", formatUsPhone(e164))).toBe(e164);
      }),
      { numRuns: 200 },
    );
  });

  it("accepts nothing but a +1 and ten digits", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: fc.constantFrom(..."0123456789 ().+-x"), maxLength: 24 }), fc.string()), (input) => {
        const { value, error } = check("phone", input);
        if (error !== undefined) expect(error).toBe(MESSAGES.phone);
        else expect(value).toMatch(/^\+1[2-9]\d{2}[2-9]\d{6}$/);
      }),
      { numRuns: 1000 },
    );
  });

  it("refuses short, long, lettered and extension numbers", () => {
    for (const phone of ["555-0134", "415-555-013", "415-555-01345", "1-800-FLOWERS", "415 555 0134 ext 2", "+44 20 7946 0958", "2-415-555-0134", "phone"]) {
      expect(refusal("phone", phone), phone).toBe(MESSAGES.phone);
    }
  });

  // Another country's code whose digits total ten must not become someone else's US line:
  // "+45 32 12 34 56" (Copenhagen) read as +14532123456 would have partners call a stranger.
  it("refuses a number written with another country's code instead of reading it as a US number", () => {
    for (const phone of ["+45 32 12 34 56", "+47 22 12 34 56", "+4532123456"]) {
      expect(refusal("phone", phone), phone).toBe(MESSAGES.phone);
    }
  });
});

describe("email", () => {
  const localChar = fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_'+-");
  const lastLocalChar = fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+-");
  const atom = fc.string({ unit: localChar, minLength: 1, maxLength: 10 });
  const localPart = fc.tuple(fc.array(atom, { maxLength: 3 }), fc.string({ unit: localChar, maxLength: 6 }), lastLocalChar).map(([atoms, tail, last]) => [...atoms.map((a) => `${a}.`), tail, last].join(""));
  const label = fc.tuple(
    fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"),
    fc.string({ unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-"), maxLength: 12 }),
  ).map(([first, rest]) => first + rest);
  const tld = fc.string({ unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"), minLength: 2, maxLength: 6 });
  const address = fc.tuple(localPart, fc.array(label, { minLength: 1, maxLength: 3 }), tld).map(([local, labels, top]) => `${local}@${labels.join(".")}.${top}`);

  /** A syntactically valid address of exactly `length` characters (labels of at most 63). */
  function emailOfLength(length: number): string {
    let domain = "example.com";
    while (1 + 1 + domain.length < length) {
      const room = length - (2 + domain.length) - 1;
      domain = `${"d".repeat(Math.max(1, Math.min(63, room)))}.${domain}`;
    }
    const email = `a@${domain}`;
    if (email.length !== length) throw new Error(`built ${email.length} characters, not ${length}`);
    return email;
  }

  it("accepts any well-formed address, trimmed and lower-cased", () => {
    fc.assert(
      fc.property(address, fc.constantFrom("", " ", "\t"), (email, space) => {
        expect(accepted("email", `${space}${email}${space}`)).toBe(email.toLowerCase());
      }),
      { numRuns: 500 },
    );
  });

  it("accepts 254 characters and refuses 255 (RFC 5321), whitespace around not counted", () => {
    expect(accepted("email", emailOfLength(254))).toHaveLength(254);
    expect(accepted("email", `  ${emailOfLength(254).toUpperCase()} `)).toBe(emailOfLength(254));
    expect(refusal("email", emailOfLength(255))).toBe(MESSAGES.email);
  });

  it("refuses what is not an address", () => {
    for (const email of [
      "ana",
      "ana@",
      "@example.com",
      "ana@example",
      "ana@example.c",
      "ana example@example.com",
      "ana@exa mple.com",
      "ana@@example.com",
      ".ana@example.com",
      "ana.@example.com",
      "an..a@example.com",
      "ana@.example.com",
      "ana@-example.com",
      "ana@example..com",
      "<ana@example.com>",
      "Ana <ana@example.com>",
      "ana@example.com, bob@example.com",
      "ana@[127.0.0.1]",
      "ana@example.123",
    ]) {
      expect(refusal("email", email), email).toBe(MESSAGES.email);
    }
  });

  it("refuses any text without an @", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }).filter((text) => !text.includes("@") && text.trim() !== ""), (text) => {
        expect(refusal("email", text)).toBe(MESSAGES.email);
      }),
    );
  });
});

describe("date of birth", () => {
  it("accepts someone who turns 18 today in New York, and refuses them the day before, at any date and time", () => {
    fc.assert(
      fc.property(nowArbitrary, fc.integer({ min: 0, max: 2 }), (now, styleIndex) => {
        const today = newYorkDay(now);
        const birthday = latestBirthForAge(today, 18);
        const oneDayShort = addDays(birthday, 1);
        const styleOf = (d: Day) => [isoOf(d), usOf(d), usOf(d, false)][styleIndex]!;
        expect(check("dateOfBirth", styleOf(birthday), now)).toEqual({ value: isoOf(birthday), error: undefined });
        expect(check("dateOfBirth", styleOf(oneDayShort), now)).toEqual({ value: undefined, error: MESSAGES.underAge });
      }),
      { numRuns: 500 },
    );
  });

  it("decides every birth date by the calendar in New York: future, under 18, 18 to 110, or older", () => {
    const offset = fc.integer({ min: -800, max: 800 });
    fc.assert(
      fc.property(nowArbitrary, fc.constantFrom<"today" | 18 | 111>("today", 18, 111), offset, fc.integer({ min: 0, max: 2 }), (now, anchor, days, styleIndex) => {
        const today = newYorkDay(now);
        const birth = addDays(anchor === "today" ? today : latestBirthForAge(today, anchor), days);
        const typed = [isoOf(birth), usOf(birth), usOf(birth, false)][styleIndex]!;
        const expected =
          compare(birth, today) > 0
            ? { value: undefined, error: MESSAGES.dateOfBirth }
            : compare(birth, latestBirthForAge(today, 18)) > 0
              ? { value: undefined, error: MESSAGES.underAge }
              : compare(birth, latestBirthForAge(today, 111)) > 0
                ? { value: isoOf(birth), error: undefined }
                : { value: undefined, error: MESSAGES.tooOld };
        expect(check("dateOfBirth", typed, now)).toEqual(expected);
      }),
      { numRuns: 1000 },
    );
  });

  it("uses New York's date, not UTC's: 18 from midnight Eastern on the birthday", () => {
    // 15 June 2026 starts at 04:00 UTC in New York (EDT, UTC-4).
    expect(refusal("dateOfBirth", "06/15/2008", new Date("2026-06-15T03:59:59.999Z"))).toBe(MESSAGES.underAge);
    expect(accepted("dateOfBirth", "06/15/2008", new Date("2026-06-15T04:00:00Z"))).toBe("2008-06-15");
    // In winter (EST, UTC-5).
    expect(refusal("dateOfBirth", "01/10/2008", new Date("2026-01-10T04:59:59Z"))).toBe(MESSAGES.underAge);
    expect(accepted("dateOfBirth", "01/10/2008", new Date("2026-01-10T05:00:00Z"))).toBe("2008-01-10");
  });

  it("counts someone born on 29 February as a year older on 1 March of a common year", () => {
    expect(refusal("dateOfBirth", "02/29/2004", new Date("2022-02-28T17:00:00Z"))).toBe(MESSAGES.underAge);
    expect(accepted("dateOfBirth", "02/29/2004", new Date("2022-03-01T17:00:00Z"))).toBe("2004-02-29");
    expect(accepted("dateOfBirth", "2000-02-29", NOW)).toBe("2000-02-29");
    // On a leap day, the 28 February of 18 years before turned 18 yesterday; 1 March is still 17.
    expect(accepted("dateOfBirth", "02/28/2006", new Date("2024-02-29T17:00:00Z"))).toBe("2006-02-28");
    expect(refusal("dateOfBirth", "03/01/2006", new Date("2024-02-29T17:00:00Z"))).toBe(MESSAGES.underAge);
  });

  it("accepts 110 years and refuses 111 with the check-the-year message", () => {
    expect(accepted("dateOfBirth", "06/15/1916", NOW)).toBe("1916-06-15");
    expect(refusal("dateOfBirth", "06/15/1915", NOW)).toBe(MESSAGES.tooOld);
    expect(refusal("dateOfBirth", "01/01/1066", NOW)).toBe(MESSAGES.tooOld);
  });

  it("refuses dates in the future, and today, with the right message", () => {
    expect(refusal("dateOfBirth", "06/16/2026", NOW)).toBe(MESSAGES.dateOfBirth);
    expect(refusal("dateOfBirth", "2090-01-01", NOW)).toBe(MESSAGES.dateOfBirth);
    expect(refusal("dateOfBirth", "06/15/2026", NOW)).toBe(MESSAGES.underAge);
  });

  it("refuses impossible calendar dates", () => {
    for (const date of ["02/30/1990", "04/31/1990", "06/31/1990", "09/31/1990", "11/31/1990", "02/29/1990", "02/29/1900", "13/01/1990", "00/10/1990", "01/00/1990", "01/32/1990", "1990-02-30", "1990-13-01", "1990-00-01"]) {
      expect(refusal("dateOfBirth", date), date).toBe(MESSAGES.dateOfBirth);
    }
  });

  it("refuses any day past the end of its month, in either form", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1920, max: 2005 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 3 }), fc.boolean(), (year, month, over, iso) => {
        const day = daysIn(year, month) + over;
        const typed = iso ? `${year}-${pad(month)}-${pad(day)}` : `${pad(month)}/${pad(day)}/${year}`;
        expect(refusal("dateOfBirth", typed, NOW)).toBe(MESSAGES.dateOfBirth);
      }),
    );
  });

  it("refuses other spellings: two-digit years, dashes in US order, words, times", () => {
    for (const date of ["04/15/90", "04-15-1990", "1990/04/15", "1990-4-15", "15.04.1990", "April 15, 1990", "1990-04-15T00:00:00Z", "04/15/1990 12:00", "4/15/ 1990", "0x7C6"]) {
      expect(refusal("dateOfBirth", date), date).toBe(MESSAGES.dateOfBirth);
    }
  });
});

describe("parseDateOfBirth", () => {
  it("reads MM/DD/YYYY (with or without leading zeros) and ISO, giving ISO", () => {
    expect(parseDateOfBirth("04/15/1990")).toBe("1990-04-15");
    expect(parseDateOfBirth("4/5/1990")).toBe("1990-04-05");
    expect(parseDateOfBirth("1990-04-15")).toBe("1990-04-15");
    expect(parseDateOfBirth("02/29/2000")).toBe("2000-02-29");
  });

  it("returns undefined for what is not a real date in one of those forms", () => {
    for (const input of ["", " 04/15/1990", "04/15/1990 ", "1990-4-15", "04/15/90", "004/15/1990", "02/29/2001", "04/31/2000", "2000-02-30", "00/01/2000", "13/01/2000", "01/01/0050"]) {
      expect(parseDateOfBirth(input), input).toBeUndefined();
    }
  });

  it("round-trips every real date from year 1000 on, in all three spellings", () => {
    const date = fc.date({ min: new Date("1000-01-01T00:00:00Z"), max: new Date("9999-12-31T00:00:00Z"), noInvalidDate: true }).map(dayFromUtc);
    fc.assert(
      fc.property(date, (d) => {
        expect(parseDateOfBirth(isoOf(d))).toBe(isoOf(d));
        expect(parseDateOfBirth(usOf(d))).toBe(isoOf(d));
        expect(parseDateOfBirth(usOf(d, false))).toBe(isoOf(d));
      }),
      { numRuns: 500 },
    );
  });
});

describe("ageOn", () => {
  it("counts whole years on New York's calendar", () => {
    expect(ageOn("2000-06-15", new Date("2018-06-15T04:00:00Z"))).toBe(18);
    expect(ageOn("2000-06-15", new Date("2018-06-15T03:59:59Z"))).toBe(17);
    expect(ageOn("2000-06-15", new Date("2018-06-14T12:00:00Z"))).toBe(17);
    expect(ageOn("2000-06-15", new Date("2019-06-14T12:00:00Z"))).toBe(18);
    expect(ageOn("2000-01-01", new Date("2000-01-01T12:00:00Z"))).toBe(0);
    expect(ageOn("2000-01-02", new Date("2000-01-01T12:00:00Z"))).toBe(-1);
  });

  it("makes someone born on 29 February a year older on 1 March in a common year, on the 29th in a leap year", () => {
    expect(ageOn("2004-02-29", new Date("2022-02-28T17:00:00Z"))).toBe(17);
    expect(ageOn("2004-02-29", new Date("2022-03-01T17:00:00Z"))).toBe(18);
    expect(ageOn("2004-02-29", new Date("2024-02-28T17:00:00Z"))).toBe(19);
    expect(ageOn("2004-02-29", new Date("2024-02-29T17:00:00Z"))).toBe(20);
  });

  it("grows by exactly one on each birthday", () => {
    fc.assert(
      fc.property(nowArbitrary, fc.integer({ min: 0, max: 120 }), (now, years) => {
        const birthday = latestBirthForAge(newYorkDay(now), years);
        expect(ageOn(isoOf(birthday), now)).toBe(years);
        expect(ageOn(isoOf(addDays(birthday, 1)), now)).toBe(years - 1);
      }),
    );
  });
});

describe("zip", () => {
  it("accepts any five digits (whether the ZIP exists is the server's ZIP directory's question)", () => {
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom(..."0123456789"), minLength: 5, maxLength: 5 }), (zip) => {
        expect(accepted("zip", zip)).toBe(zip);
      }),
    );
  });

  it("refuses anything else", () => {
    const zipLike = fc.string({ unit: fc.constantFrom(..."0123456789 -a٣"), maxLength: 10 });
    fc.assert(
      fc.property(fc.oneof(zipLike, fc.string()), (text) => {
        const trimmed = text.trim();
        if (/^\d{5}$/.test(trimmed)) expect(accepted("zip", text)).toBe(trimmed);
        else expect(refusal("zip", text)).toBe(MESSAGES.zip);
      }),
      { numRuns: 500 },
    );
    for (const zip of ["9021", "902100", "90210-1234", "9O21O", "K1A 0B1", "９０２１０", "90 210"]) expect(refusal("zip", zip), zip).toBe(MESSAGES.zip);
  });
});

describe("vehicleYear", () => {
  it("accepts 1981 through next year, as text or a number, and refuses the rest", () => {
    const now = fc.date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2099-12-31T23:59:59Z"), noInvalidDate: true });
    fc.assert(
      fc.property(now, fc.integer({ min: 1900, max: 2150 }), fc.boolean(), (at, year, asText) => {
        const ok = year >= 1981 && year <= at.getUTCFullYear() + 1;
        const result = check("vehicleYear", asText ? String(year) : year, at);
        expect(result).toEqual(ok ? { value: year, error: undefined } : { value: undefined, error: MESSAGES.vehicleYear });
      }),
      { numRuns: 500 },
    );
  });

  it("has its bounds at 1981 and next year", () => {
    expect(accepted("vehicleYear", "1981")).toBe(1981);
    expect(refusal("vehicleYear", "1980")).toBe(MESSAGES.vehicleYear);
    expect(accepted("vehicleYear", 2027)).toBe(2027);
    expect(refusal("vehicleYear", 2028)).toBe(MESSAGES.vehicleYear);
    expect(accepted("vehicleYear", " 2020 ")).toBe(2020);
  });

  it("refuses what is not a whole four-digit year", () => {
    for (const year of [2019.5, "2019.0", "19", "02019", "2k19", "", "0x7E3", NaN, Infinity, null, true, ["2019"], { year: 2019 }]) {
      expect(refusal("vehicleYear", year), String(year)).toBe(MESSAGES.vehicleYear);
    }
  });
});

describe("vehicleMake", () => {
  it("accepts every make on the list, exactly as listed", () => {
    for (const make of VEHICLE_MAKES) expect(accepted("vehicleMake", make)).toBe(make);
    expect(VEHICLE_MAKES).toContain("Other");
  });

  it("refuses makes that are not on the list, in other cases, or object property names", () => {
    for (const make of ["toyota", "TOYOTA", "Tesla Motors", "Yugo", "Mercedes", "__proto__", "constructor", "toString"]) {
      expect(refusal("vehicleMake", make), make).toBe(MESSAGES.vehicleMake);
    }
  });
});

describe("vehicleModel", () => {
  it("accepts models with letters, digits, spaces and . & + / -", () => {
    for (const model of ["Camry", "F-150", "CR-V", "3 Series", "Model 3", "Range Rover Sport", "e-tron", "C/K 1500", "M&M", "Q5 Sportback e+", "Mazda6", "Mégane", "9-3", "X5 M50i"]) {
      expect(accepted("vehicleModel", model)).toBe(model);
    }
  });

  it("accepts 40 characters and refuses 41", () => {
    expect(accepted("vehicleModel", "A".repeat(40))).toBe("A".repeat(40));
    expect(refusal("vehicleModel", "A".repeat(41))).toBe(MESSAGES.vehicleModel);
  });

  it("refuses markup, punctuation and a leading symbol", () => {
    for (const model of ["<script>", "Camry!", "-Camry", ".Camry", "Camry; DROP TABLE", "Camry\u0000", "\"Camry\"", "Camry 🚗", "=1+1"]) {
      expect(refusal("vehicleModel", model), model).toBe(MESSAGES.vehicleModel);
    }
  });
});

describe("names", () => {
  it("accept letters with spaces, hyphens, apostrophes, periods and accents", () => {
    for (const name of ["Ana", "O'Brien", "O’Brien", "Mary-Jane", "Mary Ann", "J. R.", "José", "Zoë", "Nguyễn", "Jose\u0301", "Åsa", "李", "Ngũgĩ wa Thiong'o"]) {
      expect(accepted("firstName", name)).toBe(name);
      expect(accepted("lastName", name)).toBe(name);
    }
  });

  it("accept 50 characters and refuse 51, each with its own message", () => {
    expect(accepted("firstName", "a".repeat(50))).toHaveLength(50);
    expect(refusal("firstName", "a".repeat(51))).toBe(MESSAGES.firstName);
    expect(refusal("lastName", "a".repeat(51))).toBe(MESSAGES.lastName);
  });

  it("refuse digits, markup, a leading symbol and other punctuation", () => {
    for (const name of ["J0hn", "'Brien", "-Ann", ".Ann", "<b>Ann</b>", "Ann!", "Ann@example.com", "Ann_Lee", "Ann, Bob", "\u0301Ann", "😀"]) {
      expect(refusal("firstName", name), name).toBe(MESSAGES.firstName);
      expect(refusal("lastName", name), name).toBe(MESSAGES.lastName);
    }
  });
});

describe("streetAddress", () => {
  it("accepts addresses with a house number and a street name", () => {
    for (const street of ["123 Main St Apt 4", "1600 Pennsylvania Ave NW", "PO Box 12", "12 O'Connell St.", "4-B Elm Ct", "221B Baker St", "10 Rue d’Alésia", "12 Oak St, Apt #4", "1/2 Mile Rd 7"]) {
      expect(accepted("streetAddress", street)).toBe(street);
    }
  });

  it("accepts 5 to 100 characters and refuses 4 and 101", () => {
    expect(accepted("streetAddress", "1 Elm")).toBe("1 Elm");
    expect(refusal("streetAddress", "1 El")).toBe(MESSAGES.streetAddress);
    const hundred = `1 ${"a".repeat(98)}`;
    expect(accepted("streetAddress", hundred)).toBe(hundred);
    expect(refusal("streetAddress", `${hundred}a`)).toBe(MESSAGES.streetAddress);
  });

  it("needs a number and a letter, and no markup or leading symbol", () => {
    for (const street of ["Main Street", "12345", "#123 Main St", "-12 Main St", "123 Main St <b>", "123 Main St; --", "123 Main St (rear)", "123 Main St!"]) {
      expect(refusal("streetAddress", street), street).toBe(MESSAGES.streetAddress);
    }
  });
});

describe("the choice fields", () => {
  const CHOICES: [string, readonly string[]][] = [
    ["ownership", Object.keys(OWNERSHIP)],
    ["primaryUse", Object.keys(PRIMARY_USE)],
    ["licenseStatus", Object.keys(LICENSE_STATUS)],
    ["maritalStatus", Object.keys(MARITAL_STATUS)],
    ["currentlyInsured", ["yes", "no"]],
  ];

  it.each(CHOICES)("%s accepts exactly its listed keys", (field, keys) => {
    // Stored as chosen, except yes/no, which the rule turns into a boolean.
    for (const key of keys) expect(accepted(field, key)).toBe(field === "currentlyInsured" ? key === "yes" : key);
    for (const other of ["", "other", keys[0]!.toUpperCase(), `${keys[0]}x`, "__proto__", "toString", "Own it", "Yes"]) {
      expect(check(field, other).error, other).toBe(MESSAGES[field as keyof typeof MESSAGES]);
    }
  });

  it("have the keys the database's CHECK constraints allow", () => {
    expect(Object.keys(OWNERSHIP)).toEqual(["own", "finance", "lease"]);
    expect(Object.keys(PRIMARY_USE)).toEqual(["commute", "pleasure", "business"]);
    expect(Object.keys(LICENSE_STATUS)).toEqual(["active", "permit", "suspended", "foreign"]);
  });
});

describe("currentInsurer", () => {
  it("is required when currently insured, from the list (carriers first, then others)", () => {
    expect(errorsOf({ ...VALID, currentInsurer: undefined })).toEqual({ currentInsurer: MESSAGES.currentInsurer });
    expect(errorsOf({ ...VALID, currentInsurer: "" })).toEqual({ currentInsurer: MESSAGES.currentInsurer });
    for (const insurer of CURRENT_INSURERS) expect(valueOf({ ...VALID, currentInsurer: insurer }).currentInsurer).toBe(insurer);
    expect(CURRENT_INSURERS.slice(0, carriers.length)).toEqual(carriers.map((carrier) => carrier.name));
    expect(CURRENT_INSURERS).toContain("Other company");
  });

  it("refuses insurers not on the list", () => {
    for (const insurer of ["Acme Mutual", "geico", "Other", "__proto__"]) {
      expect(errorsOf({ ...VALID, currentInsurer: insurer }), insurer).toEqual({ currentInsurer: MESSAGES.currentInsurer });
    }
  });

  it("is ignored, whatever was sent, when not insured or when the answer is missing or invalid", () => {
    for (const currentInsurer of ["GEICO", "Acme Mutual", ["a", "b"], 42, undefined]) {
      expect(valueOf({ ...VALID, currentlyInsured: "no", currentInsurer })).not.toHaveProperty("currentInsurer");
      expect(checkLeadFields({ currentlyInsured: "maybe", currentInsurer }, ["currentInsurer"], NOW)).toEqual({ values: {}, errors: {} });
      expect(checkLeadFields({ currentInsurer }, ["currentInsurer"], NOW)).toEqual({ values: {}, errors: {} });
    }
  });

  it("is checked on its own (on blur) against the currentlyInsured answer sent with it", () => {
    expect(checkLeadFields({ currentlyInsured: " yes ", currentInsurer: "Nope" }, ["currentInsurer"], NOW).errors).toEqual({ currentInsurer: MESSAGES.currentInsurer });
    expect(checkLeadFields({ currentlyInsured: "yes", currentInsurer: "USAA" }, ["currentInsurer"], NOW).values).toEqual({ currentInsurer: "USAA" });
  });
});

describe("consent", () => {
  it("is given only by the boolean true", () => {
    expect(accepted("consent", true)).toBe(true);
    for (const value of ["true", "on", "yes", "1", 1, false, "false", null, undefined, [true], { checked: true }]) {
      expect(refusal("consent", value), JSON.stringify(value)).toBe(MESSAGES.consent);
    }
  });
});

describe("leadEnvelopeSchema", () => {
  const ENVELOPE = {
    idempotencyKey: "3f2b8c4e-9a1d-4e7f-b6c5-0d1e2f3a4b5c",
    formToken: "lz3k2a1b.abc",
    consentVersion: 1,
    formUrl: "https://www.quoteridge.com/rapidfire.html?zip=90210&sid=a1&tid=b2",
    pageUrl: "https://www.quoteridge.com/zipcode?zip=90210&sid=a1&tid=b2",
    sid: "a1",
    tid: "b2",
  };
  const parses = (overrides: Record<string, unknown>) => leadEnvelopeSchema.safeParse({ ...ENVELOPE, ...overrides }).success;
  const urlOfLength = (length: number) => {
    const base = "https://www.quoteridge.com/rapidfire.html?q=";
    return base + "a".repeat(length - base.length);
  };

  it("accepts a complete envelope, with or without campaign ids and an empty honeypot", () => {
    expect(leadEnvelopeSchema.parse(ENVELOPE)).toEqual(ENVELOPE);
    expect(parses({ sid: undefined, tid: undefined })).toBe(true);
    expect(parses({ [HONEYPOT_FIELD]: "" })).toBe(true);
  });

  it("needs a UUID as the idempotency key (any case)", () => {
    expect(parses({ idempotencyKey: ENVELOPE.idempotencyKey.toUpperCase() })).toBe(true);
    for (const key of ["", "not-a-uuid", "3f2b8c4e9a1d4e7fb6c50d1e2f3a4b5c", "3f2b8c4e-9a1d-4e7f-b6c5-0d1e2f3a4b5", "3f2b8c4e-9a1d-4e7f-b6c5-0d1e2f3a4b5c0", "zf2b8c4e-9a1d-4e7f-b6c5-0d1e2f3a4b5c", 42, undefined]) {
      expect(parses({ idempotencyKey: key }), String(key)).toBe(false);
    }
    fc.assert(
      fc.property(fc.uuid(), (uuid) => {
        expect(parses({ idempotencyKey: uuid })).toBe(true);
      }),
    );
  });

  it("takes only http(s) addresses of up to 2048 characters as the form's and the page's URL", () => {
    for (const field of ["formUrl", "pageUrl"]) {
      expect(parses({ [field]: "http://localhost:3000/rapidfire.html" }), field).toBe(true);
      expect(parses({ [field]: urlOfLength(LEAD_URL_MAX_LENGTH) }), field).toBe(true);
      expect(parses({ [field]: urlOfLength(LEAD_URL_MAX_LENGTH + 1) }), field).toBe(false);
      for (const url of ["javascript:alert(1)", "data:text/html,hi", "ftp://example.com/x", "file:///etc/passwd", "/rapidfire.html", "rapidfire.html", "https://", "http:example.com", "", 42, undefined]) {
        expect(parses({ [field]: url }), `${field} ${String(url)}`).toBe(false);
      }
    }
  });

  it("applies the campaign rules to sid and tid", () => {
    for (const field of ["sid", "tid"]) {
      expect(parses({ [field]: "A-z_0.9~" }), field).toBe(true);
      expect(parses({ [field]: "a".repeat(64) }), field).toBe(true);
      for (const bad of ["", "a".repeat(65), "a b", "a/b", "<x>", "a&b=c", ["a1", "a2"], 7]) {
        expect(parses({ [field]: bad }), `${field} ${JSON.stringify(bad)}`).toBe(false);
      }
    }
  });

  it("needs a whole-number disclosure version and a form token of at most 200 characters", () => {
    expect(parses({ consentVersion: 1.5 })).toBe(false);
    expect(parses({ consentVersion: "1" })).toBe(false);
    expect(parses({ consentVersion: undefined })).toBe(false);
    expect(parses({ formToken: "t".repeat(200) })).toBe(true);
    expect(parses({ formToken: "t".repeat(201) })).toBe(false);
    expect(parses({ formToken: undefined })).toBe(false);
  });

  it("carries the honeypot as text of at most 200 characters", () => {
    expect(leadEnvelopeSchema.parse({ ...ENVELOPE, website: "http://spam.example" }).website).toBe("http://spam.example");
    expect(parses({ website: "x".repeat(201) })).toBe(false);
    expect(parses({ website: ["x"] })).toBe(false);
  });

  it("carries TrustedForm's certificate URL and Jornaya's token as any text within their lengths (issue 44)", () => {
    const proof = { trustedFormCertUrl: "https://cert.trustedform.com/0123456789abcdef0123456789abcdef01234567", leadidToken: "01234567-89AB-CDEF-0123-456789ABCDEF" };
    expect(leadEnvelopeSchema.parse({ ...ENVELOPE, ...proof })).toEqual({ ...ENVELOPE, ...proof });
    // Optional: a form without the providers sends neither.
    expect(leadEnvelopeSchema.parse(ENVELOPE)).not.toHaveProperty("trustedFormCertUrl");
    // A bad value is not the envelope's business (the checks fail it later): not a URL, not a UUID, empty.
    for (const value of ["not a url", "javascript:alert(1)", "", "x".repeat(TRUSTEDFORM_CERT_URL_MAX_LENGTH)]) expect(parses({ trustedFormCertUrl: value }), value.slice(0, 20)).toBe(true);
    for (const value of ["nope", "", "<script>", "t".repeat(LEADID_TOKEN_MAX_LENGTH)]) expect(parses({ leadidToken: value }), value.slice(0, 20)).toBe(true);
    // Only the length, and the type, are refused.
    expect(TRUSTEDFORM_CERT_URL_MAX_LENGTH).toBe(2048);
    expect(LEADID_TOKEN_MAX_LENGTH).toBe(200);
    expect(parses({ trustedFormCertUrl: "x".repeat(TRUSTEDFORM_CERT_URL_MAX_LENGTH + 1) })).toBe(false);
    expect(parses({ leadidToken: "t".repeat(LEADID_TOKEN_MAX_LENGTH + 1) })).toBe(false);
    for (const bad of [42, ["x"], { url: "x" }, true]) {
      expect(parses({ trustedFormCertUrl: bad }), JSON.stringify(bad)).toBe(false);
      expect(parses({ leadidToken: bad }), JSON.stringify(bad)).toBe(false);
    }
  });
});

describe("funnelEventSchema", () => {
  it("accepts the form's events, with a step from 1 to 3 and the campaign ids", () => {
    expect(funnelEventSchema.parse({ event: "form_started", zip: "90210", sid: "a1", tid: "b2" })).toEqual({ event: "form_started", zip: "90210", sid: "a1", tid: "b2" });
    for (const step of [1, 2, 3]) expect(funnelEventSchema.safeParse({ event: "form_step_completed", step }).success).toBe(true);
  });

  it("refuses unknown or server-only events, steps outside 1–3, and bad ZIP or campaign values", () => {
    for (const bad of [
      { event: "lead_submitted" },
      { event: "quote_page_view" },
      { event: "form_Started" },
      {},
      { event: "form_step_completed", step: 0 },
      { event: "form_step_completed", step: 4 },
      { event: "form_step_completed", step: 1.5 },
      { event: "form_step_completed", step: "2" },
      { event: "form_started", zip: "9021" },
      { event: "form_started", sid: "a b" },
      { event: "form_started", tid: "x".repeat(65) },
    ]) {
      expect(funnelEventSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it("drops fields it does not know, so nothing else reaches the logs", () => {
    expect(funnelEventSchema.parse({ event: "form_step_completed", email: "ana@example.com", step: 1 })).toEqual({ event: "form_step_completed", step: 1 });
  });

  it("wants a step with form_step_completed and none with form_started", () => {
    expect(funnelEventSchema.safeParse({ event: "form_step_completed" }).success).toBe(false);
    expect(funnelEventSchema.safeParse({ event: "form_started", step: 1 }).success).toBe(false);
    expect(funnelEventSchema.safeParse({ event: "form_started" }).success).toBe(true);
  });
});
