/**
 * The quote form's API as a browser uses it, for HTTP tests: open a session (the CSRF cookie, the
 * signed form token), ask the consent words for the answers (their version: the buyers they name
 * depend on the answers, docs/decisions/039-disclosure-per-visitor.md), build a valid quote
 * request, send it.
 *
 * Every valid body gets its own idempotency key, phone number and email address, so tests sharing
 * one app (and one store) never turn each other's leads into duplicates or repeats.
 */
import { randomUUID } from "node:crypto";
import request from "supertest";
import { CSRF_HEADER } from "../shared/routes";
import type { Driver, Lead } from "../shared/lead/fields";
import { CONSENT_DISCLOSURE, CONSENT_DISCLOSURE_SHA256, type ShownDisclosure } from "../shared/consent-disclosure";
import { disclosureAnswers, type DisclosureAnswers } from "../shared/lead/disclosure-answers";
import type { NewLead } from "../server/leads/store";

/** What supertest accepts: an Express app, or an http.Server (one listening server for bulk tests). */
export type Target = Parameters<typeof request>[0];

export interface LeadSession {
  /** The Cookie header to send back (qr_csrf=…). */
  cookie: string;
  csrfToken: string;
  formToken: string;
  /** The disclosure the form shows beside the consent box (its version depends on the buyers named, so on the answers). */
  disclosure?: { version: number; parts?: ShownDisclosure["parts"] };
}

/** A session from GET /api/leads/session's Set-Cookie lines and JSON body, however it was fetched. */
export function leadSessionFrom(setCookie: readonly string[], body: unknown): LeadSession {
  return { cookie: setCookie.map((line) => line.split(";")[0]).join("; "), ...(body as Omit<LeadSession, "cookie">) };
}

/**
 * GET /api/leads/session, as the form does when it loads, then the consent words for `answers`
 * (the sample's by default, on PAGE_URL) as it does on reaching the consent box: the session's
 * disclosure is then theirs. `answers: false` keeps the session's own (the words naming only us).
 */
export async function openLeadSession(target: Target, headers: Record<string, string> = {}, answers: Record<string, unknown> | false = {}): Promise<LeadSession> {
  const response = await request(target).get("/api/leads/session").set(headers);
  if (response.status !== 200) throw new Error(`GET /api/leads/session answered ${response.status}`);
  const session = leadSessionFrom((response.headers["set-cookie"] as unknown as string[] | undefined) ?? [], response.body);
  if (answers === false) return session;
  const words = await askDisclosure(target, session, disclosureBody(answers), headers);
  if (words.status !== 200) throw new Error(`POST /api/leads/disclosure answered ${words.status}`);
  return { ...session, disclosure: words.body as ShownDisclosure };
}

/** What the form sends to POST /api/leads/disclosure for the sample answers with these changes (leadFields' overrides), on `pageUrl`. */
export function disclosureBody(overrides: Record<string, unknown> = {}, pageUrl = PAGE_URL): DisclosureAnswers {
  return { answers: disclosureAnswers(leadFields(overrides)), pageUrl };
}

/** POST /api/leads/disclosure with the session's cookie and CSRF header, like the form's fetch. */
export function askDisclosure(target: Target, session: LeadSession, body: unknown, headers: Record<string, string> = {}) {
  return request(target)
    .post("/api/leads/disclosure")
    .set({ Cookie: session.cookie, [CSRF_HEADER]: session.csrfToken, "Sec-Fetch-Site": "same-origin", ...headers })
    .send(body as object);
}

let counter = 0;

/** A contact no other body of this test file uses: a valid NANP number ((415) 2xx-xxxx) and an email. */
export function uniqueContact(): { phone: string; e164: string; email: string } {
  counter += 1;
  const exchange = String(200 + Math.floor(counter / 10_000));
  const line = String(counter % 10_000).padStart(4, "0");
  return { phone: `(415) ${exchange}-${line}`, e164: `+1415${exchange}${line}`, email: `driver${counter}@example.com` };
}

/** The form's address and the framing page's, as the browser reports them. */
export const FORM_URL = "https://www.quoteridge.test/rapidfire.html?zip=90210&sid=a1&tid=b2";
export const PAGE_URL = "https://www.quoteridge.test/?zip=90210&sid=a1&tid=b2";

/** A complete quote request's answers as validateLead returns them, contact details apart: two vehicles, two drivers. */
export const SAMPLE_ANSWERS = {
  zip: "90210",
  vehicles: [
    { year: 2019, make: "Toyota", model: "Camry", ownership: "own", primaryUse: "commute", annualMileage: "10k_15k" },
    { year: 2003, make: "Honda", model: "Accord", vin: "1HGCM82633A004352", ownership: "finance", primaryUse: "pleasure", annualMileage: "under_5k" },
  ],
  drivers: [
    { firstName: "Ana", lastName: "O'Brien", dateOfBirth: "1990-04-15", relationship: "self", maritalStatus: "married", licenseStatus: "active", ageFirstLicensed: 16, accidents: 0, tickets: 1, claims: 0, dui: false, sr22: false },
    { firstName: "Luis", lastName: "O'Brien", dateOfBirth: "1988-11-02", relationship: "spouse", maritalStatus: "married", licenseStatus: "active", ageFirstLicensed: 17, accidents: 1, tickets: 0, claims: 1, dui: false, sr22: false },
  ],
  currentlyInsured: true,
  currentInsurer: "GEICO",
  insuredFor: "1_3y",
  coverage: "standard",
  residence: "own",
  streetAddress: "123 Main St Apt 4",
  consent: true,
} as const satisfies Omit<Lead, "email" | "phone">;

/** The sample as a fresh, mutable Lead (the constant is deeply read-only). */
function sampleLead(): Omit<Lead, "email" | "phone"> {
  return structuredClone(SAMPLE_ANSWERS) as unknown as Omit<Lead, "email" | "phone">;
}

/** The sample's drivers with the first one (the visitor) changed: `lead: { drivers: sampleDrivers({ firstName: "José" }) }`. */
export function sampleDrivers(visitor: Partial<Driver> = {}): Driver[] {
  const [first, ...others] = sampleLead().drivers;
  return [{ ...first!, ...visitor }, ...others];
}

/** "1990-04-15" → "04/15/1990", as a visitor types it. */
const usDate = (iso: string) => `${iso.slice(5, 7)}/${iso.slice(8, 10)}/${iso.slice(0, 4)}`;
const yesNo = (value: boolean) => (value ? "yes" : "no");

/** The same answers as the form sends them, every answer as text (a new phone and email each call). */
export function leadFields(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const contact = uniqueContact();
  const fields: Record<string, unknown> = {
    ...SAMPLE_ANSWERS,
    vehicles: SAMPLE_ANSWERS.vehicles.map((vehicle) => ({ vin: "", ...vehicle, year: String(vehicle.year) })),
    drivers: SAMPLE_ANSWERS.drivers.map((driver, index) => ({
      ...driver,
      relationship: index === 0 ? "" : driver.relationship,
      dateOfBirth: usDate(driver.dateOfBirth),
      ageFirstLicensed: String(driver.ageFirstLicensed),
      accidents: String(driver.accidents),
      tickets: String(driver.tickets),
      claims: String(driver.claims),
      dui: yesNo(driver.dui),
      sr22: yesNo(driver.sr22),
    })),
    currentlyInsured: "yes",
    email: contact.email,
    phone: contact.phone,
  };
  return withAnswers(fields, overrides);
}

/**
 * The body with these answers changed: a key is a field ("email") or an answer's path
 * ("vehicles.1.model", "drivers.0.dateOfBirth"), as the server names errors; undefined removes it.
 */
export function withAnswers(body: Record<string, unknown>, changes: Record<string, unknown>): Record<string, unknown> {
  const result = structuredClone(body);
  for (const [path, value] of Object.entries(changes)) {
    const keys = path.split(".");
    const last = keys.pop()!;
    let target: Record<string, unknown> = result;
    for (const key of keys) target = target[key] as Record<string, unknown>;
    if (value === undefined) delete target[last];
    else target[last] = value;
  }
  return result;
}

export interface NewLeadOverrides extends Partial<Omit<NewLead, "lead" | "consent">> {
  lead?: Partial<Lead>;
  consent?: Partial<NewLead["consent"]>;
}

/** What the repository stores for one request, as the lead service builds it: the sample answers, a contact of its own. */
export function sampleNewLead({ lead, consent, ...rest }: NewLeadOverrides = {}): NewLead {
  const contact = uniqueContact();
  return {
    lead: { ...sampleLead(), email: contact.email, phone: contact.e164, ...lead },
    location: { city: "Beverly Hills", state: "CA" },
    idempotencyKey: randomUUID(),
    sid: "a1",
    tid: "b2",
    gpc: false,
    receivedAt: new Date(),
    consent: {
      disclosureVersion: CONSENT_DISCLOSURE.version,
      disclosureSha256: CONSENT_DISCLOSURE_SHA256,
      checkboxChecked: true,
      ip: "203.0.113.7",
      userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
      formUrl: FORM_URL,
      pageUrl: PAGE_URL,
      ...consent,
    },
    ...rest,
  };
}

/** A whole request body: the fields plus the envelope for `session` (a new idempotency key). */
export function leadBody(session: LeadSession, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const body = {
    ...leadFields(),
    idempotencyKey: randomUUID(),
    formToken: session.formToken,
    consentVersion: session.disclosure?.version ?? CONSENT_DISCLOSURE.version,
    formUrl: FORM_URL,
    pageUrl: PAGE_URL,
    sid: "a1",
    tid: "b2",
    website: "",
  };
  return withAnswers(body, overrides);
}

/** POST /api/leads with the session's cookie and CSRF header, like the form's fetch (same-origin). */
export function postLead(target: Target, session: LeadSession, body: unknown, headers: Record<string, string> = {}) {
  return request(target)
    .post("/api/leads")
    .set({ Cookie: session.cookie, [CSRF_HEADER]: session.csrfToken, "Sec-Fetch-Site": "same-origin", ...headers })
    .send(body as object);
}
