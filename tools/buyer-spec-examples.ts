/**
 * The three example buyers of issue 43, as specs (server/delivery/spec/), and the lead they are
 * rendered for: the sample answers of tools/lead-session.ts with a fixed contact, reference and
 * time, so every byte of each request can be compared with what the issue says the buyer gets.
 * The issue does not say how each marks a test lead; these choose one way each (a form field, a
 * JSON field, a header) so all three are exercised.
 *
 * Here in tools/ because both the unit tests (tests/unit/buyer-spec-examples.ts re-exports it) and
 * npm run bench:spec use it, and scripts never import tests (.dependency-cruiser.cjs).
 */
import type { RenderInput, RequestSpecInput, SpecLead } from "../server/delivery/spec";
import { SAMPLE_ANSWERS, FORM_URL, PAGE_URL } from "./lead-session";
import { CONSENT_DISCLOSURE, CONSENT_DISCLOSURE_SHA256, disclosureText } from "../shared/consent-disclosure";

/** Acme Auto Agents (post, $12): a form post with the key in the query, answered in XML. */
export const ACME_POST = {
  format: "form",
  method: "POST",
  auth: { type: "query", name: "key", credential: "key" },
  fields: [
    { to: "FirstName", from: "contact.firstName" },
    { to: "LastName", from: "contact.lastName" },
    { to: "Email", from: "contact.email" },
    { to: "Phone", from: "contact.phone", transforms: [{ type: "phone", format: "10digits" }] },
    { to: "Address", from: "contact.street" },
    { to: "City", from: "location.city" },
    { to: "State", from: "location.state" },
    { to: "Zip", from: "location.zip" },
    { to: "DOB", from: "driver.1.dateOfBirth", transforms: [{ type: "date", format: "MM/DD/YYYY" }] },
    { to: "Married", from: "driver.1.maritalStatus", transforms: [{ type: "map", values: { married: "Y", partner: "Y" }, otherwise: "N" }] },
    { to: "V1_Year", from: "vehicle.1.year" },
    { to: "V1_Make", from: "vehicle.1.make" },
    { to: "V1_Model", from: "vehicle.1.model" },
    { to: "V1_Ownership", from: "vehicle.1.ownership", transforms: [{ type: "map", values: { own: "Owned", finance: "Financed", lease: "Leased" } }] },
    { to: "Vehicles", from: "count.vehicles" },
    { to: "Drivers", from: "count.drivers" },
    { to: "Insured", from: "insurance.insured", transforms: [{ type: "boolean", as: "Y/N" }] },
    { to: "CurrentCarrier", from: "insurance.carrier", default: "None" },
    { to: "Homeowner", from: "home.owner", transforms: [{ type: "boolean", as: "Y/N" }] },
    { to: "Accidents", from: "driver.1.accidents" },
    { to: "TCPA_Text", from: "consent.text" },
    { to: "LeadID", from: "lead.reference" },
    { to: "SubID", from: "source.sid", default: "" },
  ],
  test: { to: "TestLead", value: "1" },
  answer: {
    body: "xml",
    rules: [
      { status: 200, path: "response/status", equals: "success", outcome: "accepted", price: { path: "response/price" }, leadId: { path: "response/lead_id" } },
      { status: 200, path: "response/status", equals: ["duplicate", "rejected"], outcome: "refused", reason: { path: "response/message" } },
      { status: 200, path: "response/status", equals: "error", outcome: "retry" },
      // Our key was refused: nothing is wrong with the lead, so it waits (and ops are told) rather than going elsewhere.
      { status: 401, outcome: "retry", reason: { value: "Acme refused our key (HTTP 401)" } },
    ],
  },
} satisfies RequestSpecInput;

/** Bolt Insurance Direct (post, $10): JSON with a bearer token. */
export const BOLT_POST = {
  format: "json",
  auth: { type: "bearer", credential: "token" },
  fields: [
    { to: "source", value: "quoteridge" },
    { to: "external_id", from: "lead.reference" },
    { to: "contact.first", from: "contact.firstName" },
    { to: "contact.last", from: "contact.lastName" },
    { to: "contact.email", from: "contact.email" },
    { to: "contact.phone", from: "contact.phone", transforms: [{ type: "phone", format: "e164" }] },
    { to: "contact.street", from: "contact.street" },
    { to: "contact.city", from: "location.city" },
    { to: "contact.state", from: "location.state" },
    { to: "contact.zip", from: "location.zip" },
    { to: "applicant.birth_date", from: "driver.1.dateOfBirth", transforms: [{ type: "date", format: "YYYY-MM-DD" }] },
    { to: "applicant.marital", from: "driver.1.maritalStatus", transforms: [{ type: "map", values: { married: "married", single: "single" }, otherwise: "other" }] },
    { to: "applicant.years_licensed", from: "driver.1.yearsLicensed" },
    {
      to: "vehicles",
      each: "vehicle",
      fields: [
        { to: "year", from: "year" },
        { to: "make", from: "make" },
        { to: "model", from: "model" },
        { to: "vin", from: "vin", default: null },
      ],
    },
    { to: "current_policy.insured", from: "insurance.insured" },
    { to: "current_policy.carrier", from: "insurance.carrier", default: null },
    { to: "consent.text", from: "consent.text" },
    { to: "consent.timestamp", from: "consent.at" },
    { to: "consent.ip", from: "consent.ip" },
  ],
  test: { to: "test", value: true },
  answer: {
    body: "json",
    rules: [
      { status: [200, 201], path: "result.accepted", equals: true, outcome: "accepted", price: { path: "result.payout" }, leadId: { path: "result.id" } },
      { status: [200, 201], path: "result.accepted", equals: false, outcome: "refused", reason: { path: "result.why" } },
      { status: "5xx", outcome: "retry" },
    ],
  },
} satisfies RequestSpecInput;

/** Cobalt Exchange (ping/post, exclusive): the ping, with no contact details. */
export const COBALT_PING = {
  format: "json",
  auth: { type: "header", name: "X-Api-Key", credential: "apiKey" },
  fields: [
    { to: "zip", from: "location.zip" },
    { to: "state", from: "location.state" },
    { to: "vehicle_count", from: "count.vehicles" },
    { to: "driver_count", from: "count.drivers" },
    { to: "youngest_driver_age", from: "drivers.youngestAge" },
    { to: "insured", from: "insurance.insured" },
    { to: "homeowner", from: "home.owner" },
    { to: "sr22", from: "drivers.anySr22" },
  ],
  test: { header: "X-Test", value: "1" },
  answer: {
    body: "json",
    rules: [
      { status: 200, path: "status", equals: "bid", outcome: "bid", price: { path: "amount" }, bidId: { path: "bid_id" } },
      { status: 200, path: "status", equals: "no_bid", outcome: "no_bid" },
    ],
  },
} satisfies RequestSpecInput;

/** Cobalt Exchange: the post to the winner, with the bid id from the ping's answer. */
export const COBALT_POST = {
  format: "json",
  auth: { type: "header", name: "X-Api-Key", credential: "apiKey" },
  fields: [
    { to: "bid_id", from: "auction.bidId" },
    { to: "first_name", from: "contact.firstName" },
    { to: "last_name", from: "contact.lastName" },
    { to: "phone", from: "contact.phone", transforms: [{ type: "phone", format: "10digits" }] },
    { to: "email", from: "contact.email" },
    { to: "zip", from: "location.zip" },
    { to: "dob", from: "driver.1.dateOfBirth", transforms: [{ type: "date", format: "MM/DD/YYYY" }] },
  ],
  test: { header: "X-Test", value: "1" },
  answer: {
    body: "json",
    rules: [
      { status: "2xx", path: "status", equals: "sold", outcome: "accepted" },
      { status: "2xx", path: "status", equals: "rejected", outcome: "refused", reason: { path: "message" } },
      { status: "5xx", outcome: "retry" },
    ],
  },
} satisfies RequestSpecInput;

/** The buyers' credentials, kept apart from their specs. */
export const EXAMPLE_CREDENTIALS = {
  acme: { key: "acme-test-key-123" },
  bolt: { token: "bolt-test-token-456" },
  cobalt: { apiKey: "cobalt-test-key-789" },
} as const;

export const EXAMPLE_URLS = {
  acme: "http://127.0.0.1:4010/acme/leads",
  bolt: "http://127.0.0.1:4010/bolt/leads",
  cobaltPing: "http://127.0.0.1:4010/cobalt/ping",
  cobaltPost: "http://127.0.0.1:4010/cobalt/post",
} as const;

/** The disclosure's words the sample visitor agreed to. */
export const EXAMPLE_CONSENT_TEXT = disclosureText(CONSENT_DISCLOSURE.parts);

/** The sample lead (two vehicles, two drivers) as stored, with a fixed contact, reference and times. */
export function exampleLead(overrides: Partial<SpecLead> = {}): SpecLead {
  const answers = structuredClone(SAMPLE_ANSWERS) as unknown as Pick<SpecLead, "vehicles" | "drivers"> & typeof SAMPLE_ANSWERS;
  const visitor = answers.drivers[0]!;
  return {
    reference: "LD-7K3M-Q9XD",
    receivedAt: new Date("2026-11-28T14:59:13.000Z"),
    test: false,
    zip: answers.zip,
    city: "Beverly Hills",
    state: "CA",
    vehicles: answers.vehicles,
    drivers: answers.drivers,
    firstName: visitor.firstName,
    lastName: visitor.lastName,
    currentlyInsured: answers.currentlyInsured,
    currentInsurer: answers.currentInsurer,
    insuredFor: answers.insuredFor,
    coverage: answers.coverage,
    residence: answers.residence,
    streetAddress: answers.streetAddress,
    email: "ana.obrien@example.com",
    phone: "+14155550134",
    sid: "a1",
    tid: "b2",
    consent: {
      disclosureVersion: CONSENT_DISCLOSURE.version,
      disclosureSha256: CONSENT_DISCLOSURE_SHA256,
      checkboxChecked: true,
      consentedAt: new Date("2026-11-28T14:59:12.000Z"),
      ip: "203.0.113.7",
      userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X)",
      formUrl: FORM_URL,
      pageUrl: PAGE_URL,
      certificateId: "c_example",
    },
    ...overrides,
  };
}

/** A render of the sample lead on 28 November 2026 (Ana is 36, licensed 20 years; Luis is 38). */
export function exampleInput(overrides: Partial<RenderInput> = {}): RenderInput {
  return { lead: exampleLead(), now: new Date("2026-11-28T15:00:00.000Z"), consentText: EXAMPLE_CONSENT_TEXT, certificateUrl: null, ...overrides };
}
