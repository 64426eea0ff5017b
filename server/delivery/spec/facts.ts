/**
 * The facts a buyer's field map may name (issue 43, item 2): a closed list, so a spec that names
 * anything else is refused when it is saved, and every fact knows its type, the values it can take
 * (a value map must cover them), whether a ping may carry it, and how it is masked for display.
 *
 * Names:
 *   lead.reference, lead.receivedAt, lead.test, ping.id (pings only), sale.price, auction.bidId and
 *   auction.saleType (posts only), source.sid, click.tid,
 *   location.zip, location.city, location.state, count.vehicles, count.drivers,
 *   contact.firstName, contact.lastName, contact.email, contact.phone, contact.street,
 *   vehicle.N.<year|make|model|vin|ownership|primaryUse|annualMileage|position>         N = 1…4
 *   driver.N.<firstName|lastName|dateOfBirth|age|relationship|maritalStatus|licenseStatus|
 *             ageFirstLicensed|yearsLicensed|accidents|tickets|claims|dui|sr22|position> N = 1…4
 *   drivers.<youngestAge|oldestAge|accidents|tickets|claims|anyDui|anySr22>  (the household)
 *   insurance.<insured|carrier|insuredFor|coverage>, home.<residence|owner>
 *   consent.<text|at|ip|userAgent|certificateUrl|formUrl|pageUrl|trustedFormCertUrl|leadidToken|version|sha256>
 * Inside an "each vehicle/driver" rule, the same names without "vehicle.N." / "driver.N.".
 *
 * The contact is the first driver, the visitor (server/db/lead-rows.ts keeps their name in the
 * lead's own columns). A value that is undefined, null or "" is absent: a rule that needs it
 * fails the render unless it is optional or has a default.
 */
import type { LeadRecord } from "../../db/leads";
import { ageOn } from "../../auction/ping";

/** As server/delivery/buyers.ts's SALE_TYPES (not imported from there: the buyers' schema embeds the spec's). */
type SaleType = "exclusive" | "shared";
import {
  ANNUAL_MILEAGE,
  COVERAGE,
  CURRENT_INSURERS,
  INSURED_FOR,
  LICENSE_STATUS,
  MARITAL_STATUS,
  MAX_DRIVERS,
  MAX_VEHICLES,
  OWNERSHIP,
  PRIMARY_USE,
  RELATIONSHIP,
  RESIDENCE,
} from "../../../shared/lead/fields";
import { US_STATES } from "../../../shared/privacy-request";
import type { StoredDriver, StoredVehicle } from "../../db/lead-rows";

/** A value as it goes into a request: JSON's scalars. */
export type Scalar = string | number | boolean | null;

/**
 * `date` is "YYYY-MM-DD"; `datetime` an ISO 8601 instant in UTC; `phone` E.164 ("+14155550134").
 * Each has its own transforms (a date format, a phone format); the others take the general ones.
 */
export type FactType = "string" | "number" | "boolean" | "date" | "datetime" | "phone";

/** How a value is masked in the copy of a request shown in the console and kept with the delivery. */
export type MaskKind = "name" | "email" | "phone" | "street" | "date" | "ip" | "text";

/** The lead as the engine reads it: the stored record (server/db/leads.ts), nothing more. */
export type SpecLead = Pick<
  LeadRecord,
  | "reference"
  | "receivedAt"
  | "test"
  | "zip"
  | "city"
  | "state"
  | "vehicles"
  | "drivers"
  | "firstName"
  | "lastName"
  | "currentlyInsured"
  | "currentInsurer"
  | "insuredFor"
  | "coverage"
  | "residence"
  | "streetAddress"
  | "email"
  | "phone"
  | "sid"
  | "tid"
  | "consent"
>;

/** What a render reads: the lead, and what only the caller knows. */
export interface RenderInput {
  lead: SpecLead;
  /** When the request is made: ages are whole years to this day (UTC, as the ping counts them). */
  now: Date;
  /** The disclosure's words as the visitor agreed to them (consent_disclosures.text of the record's version). */
  consentText?: string | null;
  /** The lead's consent certificate link for this buyer (the worker's certificateUrl option). */
  certificateUrl?: string | null;
  /** The auction's sale, when the post follows one: the bid id the buyer gave in its ping's answer. */
  auction?: { bidId: string | null; saleType: SaleType } | null;
  /** What the buyer pays for this lead (posts only). */
  price?: number | null;
  /** The ping's id (pings only). */
  pingId?: string | null;
  /** Mark the request as a test the way the spec says (spec.test). */
  test?: boolean;
}

export interface FactInfo {
  name: string;
  type: FactType;
  /** Every value it can take, as text: a value map on it must cover them all or have `otherwise`. */
  values?: readonly string[];
  /** Why a ping may not carry it; undefined when a ping may. */
  notInPing?: string;
  /** Known only when posting (the auction's bid) or only when pinging (the ping's id). */
  only?: "post" | "ping";
  mask?: MaskKind;
  description: string;
}

export interface Fact extends FactInfo {
  get: (input: RenderInput) => Scalar | undefined;
}

/** A fact of one vehicle or driver, read from the record at its position (from 1). */
export interface ItemFact<T> extends Omit<FactInfo, "name"> {
  get: (item: T, position: number, input: RenderInput) => Scalar | undefined;
}

export type ItemKind = "vehicle" | "driver";

const keysOf = (options: Readonly<Record<string, string>>): readonly string[] => Object.keys(options);
const BOOLEAN_VALUES = ["true", "false"] as const;
const COUNT_VALUES = ["0", "1", "2", "3"] as const;
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => String(from + index));
const SALE_TYPE_VALUES = ["exclusive", "shared"] as const satisfies readonly SaleType[];

const CONTACT = "a ping carries no contact details (issue 16): the buyer gets them with the post";
const LEADS_TO_PERSON = "a ping carries nothing that leads to the person (server/auction/ping.ts)";

/** Whole years from an ISO date of birth; undefined when there is none. */
const age = (driver: StoredDriver, input: RenderInput) => (driver.dateOfBirth ? ageOn(driver.dateOfBirth, input.now) : undefined);

export const VEHICLE_FACTS: Readonly<Record<string, ItemFact<StoredVehicle>>> = {
  position: { type: "number", values: range(1, MAX_VEHICLES), description: "its place in the lead, from 1", get: (_vehicle, position) => position },
  year: { type: "number", description: "model year", get: (vehicle) => vehicle.year },
  make: { type: "string", description: "make, as the form lists it (Toyota)", get: (vehicle) => vehicle.make },
  model: { type: "string", description: "model (Camry)", get: (vehicle) => vehicle.model },
  vin: { type: "string", notInPing: LEADS_TO_PERSON, description: "VIN, when the visitor gave it", get: (vehicle) => vehicle.vin },
  ownership: { type: "string", values: keysOf(OWNERSHIP), description: "own, finance or lease", get: (vehicle) => vehicle.ownership },
  primaryUse: { type: "string", values: keysOf(PRIMARY_USE), description: "commute, pleasure or business", get: (vehicle) => vehicle.primaryUse },
  annualMileage: { type: "string", values: keysOf(ANNUAL_MILEAGE), description: "a mileage band (10k_15k)", get: (vehicle) => vehicle.annualMileage },
};

export const DRIVER_FACTS: Readonly<Record<string, ItemFact<StoredDriver>>> = {
  position: { type: "number", values: range(1, MAX_DRIVERS), description: "its place in the lead, from 1 (1: the visitor)", get: (_driver, position) => position },
  firstName: { type: "string", notInPing: CONTACT, mask: "name", description: "first name", get: (driver) => driver.firstName },
  lastName: { type: "string", notInPing: CONTACT, mask: "name", description: "last name", get: (driver) => driver.lastName },
  dateOfBirth: { type: "date", notInPing: `${LEADS_TO_PERSON}; send the age`, mask: "date", description: "date of birth", get: (driver) => driver.dateOfBirth },
  age: { type: "number", description: "age in whole years on the day of the request", get: (driver, _position, input) => age(driver, input) },
  relationship: { type: "string", values: keysOf(RELATIONSHIP), description: "self, spouse, partner, child…", get: (driver) => driver.relationship },
  maritalStatus: { type: "string", values: keysOf(MARITAL_STATUS), description: "single, married, partner, divorced, separated or widowed", get: (driver) => driver.maritalStatus },
  licenseStatus: { type: "string", values: keysOf(LICENSE_STATUS), description: "active, permit, suspended or foreign", get: (driver) => driver.licenseStatus },
  ageFirstLicensed: { type: "number", description: "age when first licensed", get: (driver) => driver.ageFirstLicensed },
  yearsLicensed: {
    type: "number",
    description: "age minus age first licensed (never below 0)",
    get: (driver, _position, input) => {
      const years = age(driver, input);
      return years === undefined || driver.ageFirstLicensed === undefined ? undefined : Math.max(0, years - driver.ageFirstLicensed);
    },
  },
  accidents: { type: "number", values: COUNT_VALUES, description: "accidents in 3 years (3: three or more)", get: (driver) => driver.accidents },
  tickets: { type: "number", values: COUNT_VALUES, description: "tickets in 3 years (3: three or more)", get: (driver) => driver.tickets },
  claims: { type: "number", values: COUNT_VALUES, description: "claims in 3 years (3: three or more)", get: (driver) => driver.claims },
  dui: { type: "boolean", values: BOOLEAN_VALUES, description: "a DUI or DWI in 7 years", get: (driver) => driver.dui },
  sr22: { type: "boolean", values: BOOLEAN_VALUES, description: "needs an SR-22 filing", get: (driver) => driver.sr22 },
};

export const ITEM_FACTS = { vehicle: VEHICLE_FACTS, driver: DRIVER_FACTS } as const;
const MAX_ITEMS: Readonly<Record<ItemKind, number>> = { vehicle: MAX_VEHICLES, driver: MAX_DRIVERS };

/** The household's drivers' values of one answer; undefined when no driver has it (a lead from before migration 10). */
function driversOf<T>(input: RenderInput, read: (driver: StoredDriver) => T | undefined): T[] | undefined {
  const values = input.lead.drivers.map(read).filter((value): value is T => value !== undefined);
  return values.length === 0 ? undefined : values;
}
const sum = (values: number[] | undefined) => values?.reduce((total, value) => total + value, 0);

const LEAD_FACTS: readonly Fact[] = [
  // Not secret, but it names the person's request: a ping names the lead by its own id, as today's.
  { name: "lead.reference", type: "string", notInPing: "a ping names the lead by its ping id (ping.id); the reference goes with the post", description: "our reference (LD-7K3M-Q9XD)", get: (input) => input.lead.reference },
  { name: "lead.receivedAt", type: "datetime", description: "when the lead was received", get: (input) => input.lead.receivedAt.toISOString() },
  { name: "lead.test", type: "boolean", values: BOOLEAN_VALUES, description: "a test lead (a test link or the test phone number)", get: (input) => input.test === true },
  { name: "ping.id", type: "string", only: "ping", description: "the ping's id, sent again with the post", get: (input) => input.pingId },
  { name: "sale.price", type: "number", only: "post", description: "what the buyer pays for this lead, in US dollars", get: (input) => input.price },
  { name: "auction.bidId", type: "string", only: "post", description: "the bid id from the buyer's answer to the ping", get: (input) => input.auction?.bidId },
  { name: "auction.saleType", type: "string", values: SALE_TYPE_VALUES, only: "post", description: "exclusive or shared", get: (input) => input.auction?.saleType },
  { name: "source.sid", type: "string", description: "the traffic source's sid", get: (input) => input.lead.sid },
  { name: "click.tid", type: "string", notInPing: LEADS_TO_PERSON, description: "the click's tid", get: (input) => input.lead.tid },
  { name: "location.zip", type: "string", description: "ZIP code where the car is kept", get: (input) => input.lead.zip },
  { name: "location.city", type: "string", description: "the ZIP code's city", get: (input) => input.lead.city },
  { name: "location.state", type: "string", values: Object.keys(US_STATES), description: "the ZIP code's two-letter state", get: (input) => input.lead.state },
  { name: "count.vehicles", type: "number", values: range(1, MAX_VEHICLES), description: "how many vehicles", get: (input) => input.lead.vehicles.length },
  { name: "count.drivers", type: "number", values: range(1, MAX_DRIVERS), description: "how many drivers", get: (input) => input.lead.drivers.length },
  { name: "contact.firstName", type: "string", notInPing: CONTACT, mask: "name", description: "the visitor's first name (the first driver's)", get: (input) => input.lead.firstName },
  { name: "contact.lastName", type: "string", notInPing: CONTACT, mask: "name", description: "the visitor's last name", get: (input) => input.lead.lastName },
  { name: "contact.email", type: "string", notInPing: CONTACT, mask: "email", description: "email address", get: (input) => input.lead.email },
  { name: "contact.phone", type: "phone", notInPing: CONTACT, mask: "phone", description: "phone number (E.164 unless a phone transform says)", get: (input) => input.lead.phone },
  { name: "contact.street", type: "string", notInPing: CONTACT, mask: "street", description: "street address", get: (input) => input.lead.streetAddress },
  {
    name: "drivers.youngestAge",
    type: "number",
    description: "the youngest driver's age",
    get: (input) => {
      const ages = driversOf(input, (driver) => age(driver, input));
      return ages && Math.min(...ages);
    },
  },
  {
    name: "drivers.oldestAge",
    type: "number",
    description: "the oldest driver's age",
    get: (input) => {
      const ages = driversOf(input, (driver) => age(driver, input));
      return ages && Math.max(...ages);
    },
  },
  { name: "drivers.accidents", type: "number", description: "all drivers' accidents in 3 years", get: (input) => sum(driversOf(input, (driver) => driver.accidents)) },
  { name: "drivers.tickets", type: "number", description: "all drivers' tickets in 3 years", get: (input) => sum(driversOf(input, (driver) => driver.tickets)) },
  { name: "drivers.claims", type: "number", description: "all drivers' claims in 3 years", get: (input) => sum(driversOf(input, (driver) => driver.claims)) },
  { name: "drivers.anyDui", type: "boolean", values: BOOLEAN_VALUES, description: "any driver with a DUI in 7 years", get: (input) => driversOf(input, (driver) => driver.dui)?.includes(true) },
  { name: "drivers.anySr22", type: "boolean", values: BOOLEAN_VALUES, description: "any driver needing an SR-22", get: (input) => driversOf(input, (driver) => driver.sr22)?.includes(true) },
  { name: "insurance.insured", type: "boolean", values: BOOLEAN_VALUES, description: "insured today", get: (input) => input.lead.currentlyInsured },
  { name: "insurance.carrier", type: "string", values: CURRENT_INSURERS, description: "the current insurer (absent when not insured)", get: (input) => input.lead.currentInsurer },
  { name: "insurance.insuredFor", type: "string", values: keysOf(INSURED_FOR), description: "insured without a break for (1_3y)", get: (input) => input.lead.insuredFor },
  { name: "insurance.coverage", type: "string", values: keysOf(COVERAGE), description: "state_minimum, standard or premium", get: (input) => input.lead.coverage },
  { name: "home.residence", type: "string", values: keysOf(RESIDENCE), description: "own, rent or other", get: (input) => input.lead.residence },
  {
    name: "home.owner",
    type: "boolean",
    values: BOOLEAN_VALUES,
    description: "owns their home",
    get: (input) => (input.lead.residence === null ? undefined : input.lead.residence === "own"),
  },
  { name: "consent.text", type: "string", mask: "text", description: "the disclosure's words the visitor agreed to", get: (input) => input.consentText },
  { name: "consent.at", type: "datetime", description: "when the visitor agreed", get: (input) => input.lead.consent?.consentedAt.toISOString() },
  { name: "consent.ip", type: "string", notInPing: LEADS_TO_PERSON, mask: "ip", description: "the visitor's IP address", get: (input) => input.lead.consent?.ip },
  { name: "consent.userAgent", type: "string", notInPing: LEADS_TO_PERSON, description: "the visitor's browser (User-Agent)", get: (input) => input.lead.consent?.userAgent },
  // The certificate shows the contact masked, like a verification vendor's; ping/post buyers use
  // such a link at ping time (docs: TrustedForm's /ping), so a ping may carry it.
  { name: "consent.certificateUrl", type: "string", description: "the consent certificate's link", get: (input) => input.certificateUrl },
  { name: "consent.formUrl", type: "string", notInPing: `${LEADS_TO_PERSON} (it holds the click's tid)`, description: "the form's address", get: (input) => input.lead.consent?.formUrl },
  { name: "consent.pageUrl", type: "string", notInPing: `${LEADS_TO_PERSON} (it holds the click's tid)`, description: "the framing page's address", get: (input) => input.lead.consent?.pageUrl },
  // As the visitor's browser sent them (issue 44): a buyer that requires the proof gets a lead
  // only once its check passed (server/checks/). The certificate shows the form as it was filled
  // in, so a ping does not carry it (TrustedForm gives pings a ping URL of their own); the LeadiD
  // token names a visit, not a person, and buyers look it up at ping time.
  {
    name: "consent.trustedFormCertUrl",
    type: "string",
    notInPing: `${LEADS_TO_PERSON} (the certificate replays the form as filled in)`,
    description: "TrustedForm's certificate URL, when TRUSTEDFORM is on and its script ran",
    get: (input) => input.lead.consent?.trustedFormCertUrl,
  },
  { name: "consent.leadidToken", type: "string", description: "Jornaya's LeadiD token, when JORNAYA is on and its script ran", get: (input) => input.lead.consent?.leadidToken },
  { name: "consent.version", type: "number", description: "the disclosure's version", get: (input) => input.lead.consent?.disclosureVersion },
  { name: "consent.sha256", type: "string", description: "the disclosure text's SHA-256", get: (input) => input.lead.consent?.disclosureSha256 },
];

/** One kind's facts at each position: "vehicle.2.year", "driver.1.age". */
function positional<T>(kind: ItemKind, facts: Readonly<Record<string, ItemFact<T>>>, records: (input: RenderInput) => readonly T[]): Fact[] {
  const result: Fact[] = [];
  for (let position = 1; position <= MAX_ITEMS[kind]; position += 1) {
    const index = position - 1;
    for (const [field, fact] of Object.entries(facts)) {
      result.push({
        ...fact,
        name: `${kind}.${position}.${field}`,
        description: `${kind} ${position}: ${fact.description}`,
        get: (input) => {
          const record = records(input)[index];
          return record === undefined ? undefined : fact.get(record, position, input);
        },
      });
    }
  }
  return result;
}

/** Every fact by name. */
export const FACTS: ReadonlyMap<string, Fact> = new Map(
  [...LEAD_FACTS, ...positional("vehicle", VEHICLE_FACTS, (input) => input.lead.vehicles), ...positional("driver", DRIVER_FACTS, (input) => input.lead.drivers)].map((fact) => [fact.name, fact]),
);

/** The catalogue without the readers, for the console's field picker and docs/buyer-specs.md. */
export function factCatalog(): FactInfo[] {
  return [...FACTS.values()].map(({ get: _get, ...info }) => info);
}

/** Why a name is not a fact (with what is close), or undefined when it is one. */
export function unknownFactProblem(name: string, item?: ItemKind): string | undefined {
  if (item) {
    if (Object.hasOwn(ITEM_FACTS[item], name)) return undefined;
    return `unknown ${item} fact "${name}": one of ${Object.keys(ITEM_FACTS[item]).join(", ")}`;
  }
  if (FACTS.has(name)) return undefined;
  const positional = /^(vehicle|driver)\.(\d+)\.(.+)$/.exec(name);
  if (positional) {
    const kind = positional[1] as ItemKind;
    const position = Number(positional[2]);
    if (position < 1 || position > MAX_ITEMS[kind]) return `unknown fact "${name}": ${kind}s are numbered 1 to ${MAX_ITEMS[kind]}`;
    return `unknown fact "${name}": a ${kind}'s facts are ${Object.keys(ITEM_FACTS[kind]).join(", ")}`;
  }
  const group = name.split(".")[0];
  const near = [...FACTS.keys()].filter((fact) => fact.startsWith(`${group}.`) && !/^(vehicle|driver)\.\d/.test(fact));
  return near.length > 0 ? `unknown fact "${name}": did you mean one of ${near.join(", ")}?` : `unknown fact "${name}" (see docs/buyer-specs.md for the list)`;
}

/** Absent: a rule that needs the value fails the render unless optional or defaulted. */
export const isAbsent = (value: Scalar | undefined): value is null | undefined | "" => value === undefined || value === null || value === "";
