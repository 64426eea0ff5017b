/**
 * POST /api/leads against the real app and both stores (embedded and PostgreSQL): a good request
 * is stored once with its consent record; every bad one is refused with a 4xx and stores nothing;
 * repeats, duplicates, concurrency, rate limits, and no personal details in the logs.
 */
import http from "node:http";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { createTestApp, type TestApp } from "../support/app";
import { allStores } from "../support/databases";
import { TEST_SECRET } from "../support/services";
import { FORM_URL, PAGE_URL, SAMPLE_ANSWERS, leadBody, leadFields, openLeadSession, postLead, sampleNewLead, uniqueContact, type LeadSession } from "../../tools/lead-session";

/** The sample answers as a stored lead holds them (the consent flag becomes the consent record). */
const { consent: _consent, ...storedAnswers } = SAMPLE_ANSWERS;
import { createFormTokens } from "../../server/leads/form-token";
import { CONSENT_DISCLOSURE, CONSENT_DISCLOSURE_SHA256 } from "../../shared/consent-disclosure";
import { LEAD_REFERENCE_PATTERN } from "../../shared/lead/api";
import { suppressionList } from "../../server/privacy/suppression";
import { LEAD_MESSAGES } from "../../shared/lead/fields";
import { newestVehicleYear } from "../../shared/vehicles";
import { CSRF_HEADER } from "../../shared/routes";
import { TEST_LINK_PARAM, testLinkToken } from "../../server/leads/test-link";
import { leadStore } from "../../server/leads/store";

const DAY_MS = 86_400_000;

/** MM/DD/YYYY of the day `years` years before today (US Eastern, as the rule counts), plus `days`. */
function birthDate(years: number, days: number): string {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone: "America/New_York", year: "numeric", month: "numeric", day: "numeric" }).formatToParts(new Date());
  const get = (type: string) => Number(parts.find((part) => part.type === type)?.value);
  const date = new Date(Date.UTC(get("year") - years, get("month") - 1, get("day") + days));
  return `${String(date.getUTCMonth() + 1).padStart(2, "0")}/${String(date.getUTCDate()).padStart(2, "0")}/${date.getUTCFullYear()}`;
}

/** One field wrong, everything else right: the answer must name exactly that field. */
const INVALID_FIELDS: Array<[string, string, unknown, string]> = [
  ["zip", "4 digits", "9021", LEAD_MESSAGES.zip],
  ["zip", "letters", "9021O", LEAD_MESSAGES.zip],
  ["zip", "a number instead of text", 90210, "Send this field once, as text."],
  ["vehicles.0.year", "before 1981", "1980", LEAD_MESSAGES.year],
  ["vehicles.0.year", "two years ahead", String(newestVehicleYear() + 1), LEAD_MESSAGES.year],
  ["vehicles.0.year", "not a year", "20x9", LEAD_MESSAGES.year],
  ["vehicles.0.make", "not in the list", "Yugo Motors", LEAD_MESSAGES.make],
  ["vehicles.0.model", "markup", "<script>", LEAD_MESSAGES.model],
  ["vehicles.0.model", "too long", "A".repeat(41), LEAD_MESSAGES.model],
  ["vehicles.0.model", "missing", undefined, LEAD_MESSAGES.model],
  ["vehicles.0.ownership", "unknown", "rent", LEAD_MESSAGES.ownership],
  ["vehicles.0.primaryUse", "unknown", "racing", LEAD_MESSAGES.primaryUse],
  ["drivers.0.firstName", "digits", "R2D2", LEAD_MESSAGES.firstName],
  ["drivers.0.firstName", "blank", "   ", LEAD_MESSAGES.firstName],
  ["drivers.0.firstName", "sent twice (an array)", ["Jordan", "Sam"], "Send this field once, as text."],
  ["drivers.0.lastName", "too long", "R".repeat(51), LEAD_MESSAGES.lastName],
  ["drivers.0.dateOfBirth", "not a calendar date", "02/30/1990", LEAD_MESSAGES.dateOfBirth],
  ["drivers.0.dateOfBirth", "another format", "15.04.1990", LEAD_MESSAGES.dateOfBirth],
  ["drivers.0.dateOfBirth", "in the future", birthDate(-1, 0), LEAD_MESSAGES.dateOfBirth],
  ["drivers.0.dateOfBirth", "older than anyone drives", "01/01/1900", LEAD_MESSAGES.tooOld],
  ["drivers.0.licenseStatus", "unknown", "none", LEAD_MESSAGES.licenseStatus],
  ["drivers.1.relationship", "the second driver as 'self'", "self", LEAD_MESSAGES.selfNotFirst],
  ["drivers.1.dateOfBirth", "another driver under 15", birthDate(15, 1), LEAD_MESSAGES.driverTooYoung],
  ["drivers.0.ageFirstLicensed", "licensed later than the driver's age", "99", LEAD_MESSAGES.licensedTooLate],
  ["drivers.0.ageFirstLicensed", "younger than any state licenses", "13", LEAD_MESSAGES.ageFirstLicensed],
  ["drivers.0.maritalStatus", "unknown", "complicated", LEAD_MESSAGES.maritalStatus],
  ["drivers.0.accidents", "more than the list", "4", LEAD_MESSAGES.accidents],
  ["drivers.1.tickets", "words", "none", LEAD_MESSAGES.tickets],
  ["drivers.0.claims", "missing", undefined, LEAD_MESSAGES.claims],
  ["drivers.0.dui", "not yes or no", "maybe", LEAD_MESSAGES.dui],
  ["drivers.1.sr22", "a boolean", true, "Send this field once, as text."],
  ["vehicles.0.annualMileage", "unknown", "lots", LEAD_MESSAGES.annualMileage],
  ["vehicles.1.vin", "a bad check digit", "1HGCM82633A004353", "This VIN's check digit (the 9th character) does not match: please check it for a typo."],
  ["vehicles.0.vin", "a 2003 VIN on a 2019 car", "1HGCM82633A004352", LEAD_MESSAGES.vinYear],
  ["vehicles", "an empty list", [], LEAD_MESSAGES.vehicles],
  ["vehicles", "five vehicles", [1, 2, 3, 4, 5].map(() => ({ year: "2019", make: "Toyota", model: "Camry", ownership: "own", primaryUse: "commute", annualMileage: "10k_15k" })), LEAD_MESSAGES.vehicles],
  ["vehicles", "missing", undefined, LEAD_MESSAGES.vehicles],
  ["drivers", "not a list", "Ana", LEAD_MESSAGES.drivers],
  ["drivers.1", "a driver that is not an object", "Luis", "Send each driver as an object of answers."],
  ["insuredFor", "unknown while insured", "forever", LEAD_MESSAGES.insuredFor],
  ["insuredFor", "missing while insured", undefined, LEAD_MESSAGES.insuredFor],
  ["coverage", "unknown", "gold", LEAD_MESSAGES.coverage],
  ["residence", "missing", undefined, LEAD_MESSAGES.residence],
  ["currentlyInsured", "neither yes nor no", "maybe", LEAD_MESSAGES.currentlyInsured],
  ["currentlyInsured", "a boolean", true, "Send this field once, as text."],
  ["currentInsurer", "not in the list while insured", "Acme Mutual", LEAD_MESSAGES.currentInsurer],
  ["currentInsurer", "missing while insured", undefined, LEAD_MESSAGES.currentInsurer],
  ["streetAddress", "no house number", "Main Street", LEAD_MESSAGES.streetAddress],
  ["streetAddress", "too short", "1 A", LEAD_MESSAGES.streetAddress],
  ["streetAddress", "too long", `1${" Main".repeat(25)}`, LEAD_MESSAGES.streetAddress],
  ["email", "no domain", "jordan@", LEAD_MESSAGES.email],
  ["email", "not an address", "not-an-email", LEAD_MESSAGES.email],
  ["phone", "7 digits", "555-0134", LEAD_MESSAGES.phone],
  ["phone", "area code starting with 1", "(115) 555-0134", LEAD_MESSAGES.phone],
  ["phone", "letters", "415-CALL-NOW", LEAD_MESSAGES.phone],
  ["consent", "missing", undefined, LEAD_MESSAGES.consent],
  ["consent", "false (unticked)", false, LEAD_MESSAGES.consent],
  ["consent", 'the string "true"', "true", LEAD_MESSAGES.consent],
  ["consent", "1", 1, LEAD_MESSAGES.consent],
];

describe.each(allStores())("POST /api/leads ($kind store)", (store) => {
  let t: TestApp;
  let session: LeadSession;

  beforeAll(async () => {
    // Behind one load balancer on loopback, as in production: the client IP comes from X-Forwarded-For.
    t = await createTestApp({ LEAD_RATE_LIMIT: "100000", TRUST_PROXY: "loopback" }, { store });
    session = await openLeadSession(t.app);
  });
  afterAll(async () => {
    await t.services.close();
  });

  const counts = async () => (await t.services.leadRepository()).counts();

  /** leads.visit_id of a stored lead (the repository's records do not carry it). */
  async function visitIdOf(reference: string): Promise<string | null | undefined> {
    const db = await t.services.db();
    const row = await db.builder.selectFrom("leads").select("visitId").where("reference", "=", reference).executeTakeFirst();
    return row?.visitId;
  }

  /** Runs `send`, then checks that the store holds exactly what it held before. */
  async function storesNothing<T>(send: () => Promise<T>): Promise<T> {
    const before = await counts();
    const result = await send();
    expect(await counts()).toEqual(before);
    return result;
  }

  describe("a good request", () => {
    it("stores exactly one lead and one consent record, with the values the server checked and looked up", async () => {
      const contact = uniqueContact();
      const body = leadBody(session, {
        email: `  ${contact.email.toUpperCase()} `,
        phone: contact.phone,
        "drivers.0.firstName": " Ana ",
        "drivers.0.dateOfBirth": "04/15/1990",
        // The client's idea of the place is ignored: the server looks the ZIP up itself.
        city: "Springfield",
        state: "IL",
      });
      const before = await counts();
      const sentAt = Date.now();
      const response = await postLead(t.app, session, body, { "User-Agent": "LeadTest/1.0 (happy path)", "X-Forwarded-For": "203.0.113.9" });
      const answeredAt = Date.now();

      expect(response.status).toBe(201);
      expect(response.headers["cache-control"]).toBe("no-store");
      expect(response.body).toEqual({ status: "created", reference: expect.stringMatching(LEAD_REFERENCE_PATTERN), duplicate: false, matchesToken: expect.stringMatching(/^[\w-]{43}$/) });
      expect(await counts()).toEqual({ leads: before.leads + 1, consents: before.consents + 1, duplicates: before.duplicates });

      const repository = await t.services.leadRepository();
      const stored = await repository.findByReference((response.body as { reference: string }).reference);
      expect(stored).toEqual({
        reference: (response.body as { reference: string }).reference,
        receivedAt: expect.any(Date),
        // Both vehicles and both drivers exactly as sent (checked and normalised), the new answers,
        // and the first vehicle and driver in the summary columns.
        ...storedAnswers,
        vehicleYear: 2019,
        vehicleMake: "Toyota",
        vehicleModel: "Camry",
        ownership: "own",
        primaryUse: "commute",
        firstName: "Ana",
        lastName: "O'Brien",
        dateOfBirth: "1990-04-15",
        licenseStatus: "active",
        incidents: "one",
        city: "Beverly Hills",
        state: "CA",
        // 90210's zone, kept for the buyers' calling rules (migration 19).
        timeZone: "America/Los_Angeles",
        email: contact.email,
        phone: contact.e164,
        sid: "a1",
        tid: "b2",
        gpc: false,
        duplicateOf: null,
        test: false,
        consent: {
          disclosureVersion: CONSENT_DISCLOSURE.version,
          disclosureSha256: CONSENT_DISCLOSURE_SHA256,
          checkboxChecked: true,
          consentedAt: expect.any(Date),
          ip: "203.0.113.9",
          userAgent: "LeadTest/1.0 (happy path)",
          formUrl: FORM_URL,
          pageUrl: PAGE_URL,
          certificateId: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
        },
      });
      const consentedAt = stored!.consent!.consentedAt.getTime();
      expect(consentedAt).toBeGreaterThanOrEqual(sentAt - 1000);
      expect(consentedAt).toBeLessThanOrEqual(answeredAt + 1000);
      expect(stored!.receivedAt.getTime()).toBe(consentedAt);
      // Exactly one row for this person.
      expect((await repository.list()).filter((lead) => lead.phone === contact.e164)).toHaveLength(1);
    });

    it("records the Global Privacy Control signal, an ISO date of birth, and no insurer for the uninsured", async () => {
      const body = leadBody(session, { "drivers.0.dateOfBirth": "1985-12-31", currentlyInsured: "no", currentInsurer: "Anything at all", insuredFor: "nonsense", sid: undefined, tid: undefined });
      const response = await postLead(t.app, session, body, { "Sec-GPC": "1" });
      expect(response.status).toBe(201);
      const stored = await (await t.services.leadRepository()).findByReference((response.body as { reference: string }).reference);
      expect(stored).toMatchObject({ gpc: true, dateOfBirth: "1985-12-31", currentlyInsured: false, currentInsurer: null, insuredFor: null, sid: null, tid: null });
      // The client IP without a proxy header: the loopback address supertest connects from.
      expect(stored!.consent!.ip).toMatch(/^(::ffff:)?127\.0\.0\.1$|^::1$/);
      // The signal is an opt-out of sale from now on: the person's contact goes on the suppression list.
      const suppression = suppressionList(await t.services.db());
      expect(await suppression.isSuppressed({ email: stored!.email, phone: stored!.phone })).toBe(true);
      expect(await suppression.isSuppressed({ email: "someone.else@example.com", phone: "+12125550100" })).toBe(false);
    });

    it("stores the visit id the form sent with the lead, and logs lead_submitted with it", async () => {
      const vid = randomUUID();
      const response = await postLead(t.app, session, leadBody(session, { vid }));
      expect(response.status).toBe(201);
      const { reference } = response.body as { reference: string };
      expect(await visitIdOf(reference)).toBe(vid);
      const logged = t.events("lead_submitted").find((line) => line.requestId === response.headers["x-request-id"]);
      expect(logged).toMatchObject({ reference, campaign: { sid: "a1", tid: "b2", vid } });
    });

    it("stores no visit id when the form had none (an address without vid)", async () => {
      const response = await postLead(t.app, session, leadBody(session));
      expect(response.status).toBe(201);
      expect(await visitIdOf((response.body as { reference: string }).reference)).toBeNull();
    });

    it("accepts someone who turns 18 today (US Eastern)", async () => {
      const dob = birthDate(18, 0);
      // On 29 February nobody turns 18: the day did not exist 18 years ago.
      if (dob.slice(0, 5) !== birthDate(0, 0).slice(0, 5)) return;
      const response = await postLead(t.app, session, leadBody(session, { "drivers.0.dateOfBirth": dob }));
      expect(response.status, JSON.stringify(response.body)).toBe(201);
    });

    it("stores a lead sent from an ops test link as a test, and one from a forged, expired or foreign link as a real lead", async () => {
      const pageWith = (token: string) => `${PAGE_URL}&${TEST_LINK_PARAM}=${encodeURIComponent(token)}`;
      const now = new Date();
      const cases: [string, boolean][] = [
        [testLinkToken(TEST_SECRET, new Date(now.getTime() + 3_600_000)), true],
        [testLinkToken(TEST_SECRET, new Date(now.getTime() - 1_000)), false],
        [testLinkToken("another-secret-another-secret-another!", new Date(now.getTime() + 3_600_000)), false],
        ["lzz.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", false],
      ];
      for (const [token, test] of cases) {
        const response = await postLead(t.app, session, leadBody(session, { pageUrl: pageWith(token) }));
        expect(response.status, JSON.stringify(response.body)).toBe(201);
        const { reference } = response.body as { reference: string };
        expect((await (await t.services.leadRepository()).findByReference(reference))?.test, token).toBe(test);
        const logged = t.events("lead_submitted").find((line) => line.reference === reference);
        expect(logged?.test, token).toBe(test ? true : undefined);
      }
    });

    it("accepts a same-origin Origin header (the Host it names)", async () => {
      const response = await postLead(t.app, session, leadBody(session), { Host: "www.quoteridge.test", Origin: "https://www.quoteridge.test" });
      expect(response.status).toBe(201);
    });
  });

  describe("field errors: 422 with a message for the field, nothing stored", () => {
    it.each(INVALID_FIELDS)("%s: %s", async (field, _case, value, message) => {
      const body = leadBody(session, { [field]: value });
      if (value === undefined) delete body[field];
      const response = await storesNothing(() => postLead(t.app, session, body));
      expect(response.status).toBe(422);
      expect(response.body).toEqual({ status: "invalid", errors: { [field]: message } });
    });

    it("under 18 (18 years old tomorrow)", async () => {
      const response = await storesNothing(() => postLead(t.app, session, leadBody(session, { "drivers.0.dateOfBirth": birthDate(18, 1) })));
      expect(response.status).toBe(422);
      expect(response.body).toEqual({ status: "invalid", errors: { "drivers.0.dateOfBirth": LEAD_MESSAGES.underAge } });
    });

    it("an unknown ZIP code (99999)", async () => {
      const response = await storesNothing(() => postLead(t.app, session, leadBody(session, { zip: "99999" })));
      expect(response.status).toBe(422);
      expect(response.body).toEqual({ status: "invalid", errors: { zip: expect.stringContaining("could not find ZIP code 99999") } });
    });

    it("every field wrong at once: every message at once", async () => {
      const body = leadBody(session, {
        zip: "99999",
        "vehicles.0.year": "1900",
        "vehicles.1.make": "Yugo Motors",
        "drivers.0.firstName": "R2D2",
        "drivers.0.dateOfBirth": birthDate(18, 1),
        email: "nope",
        phone: "123",
        consent: "true",
      });
      const response = await storesNothing(() => postLead(t.app, session, body));
      expect(response.status).toBe(422);
      expect(Object.keys((response.body as { errors: object }).errors).sort()).toEqual(
        ["consent", "drivers.0.dateOfBirth", "email", "drivers.0.firstName", "phone", "vehicles.1.make", "vehicles.0.year", "zip"].sort(),
      );
    });

    it("logs lead_rejected with the invalid fields' names only", async () => {
      const response = await postLead(t.app, session, leadBody(session, { email: "secret-wrong-address", phone: "999" }));
      expect(response.status).toBe(422);
      const line = t.events("lead_rejected").find((entry) => entry.requestId === response.headers["x-request-id"]);
      expect(line).toMatchObject({ reason: "invalid_fields", fields: ["email", "phone"] });
    });
  });

  describe("refused requests: 4xx, nothing stored", () => {
    it("an oversized body (413, JSON)", async () => {
      const response = await storesNothing(() => postLead(t.app, session, leadBody(session, { streetAddress: `1 ${"x".repeat(17 * 1024)}` })));
      expect(response.status).toBe(413);
      expect(response.headers["content-type"]).toMatch(/^application\/json/);
      expect(response.body).toEqual({ status: "error", error: expect.any(String) });
    });

    it.each([
      ["text/plain", () => JSON.stringify(leadBody(session))],
      ["application/x-www-form-urlencoded", () => new URLSearchParams(leadBody(session) as Record<string, string>).toString()],
      ["multipart/form-data; boundary=x", () => "--x\r\nContent-Disposition: form-data; name=\"zip\"\r\n\r\n90210\r\n--x--\r\n"],
    ])("a %s body (415, JSON)", async (type, payload) => {
      const response = await storesNothing(() =>
        request(t.app).post("/api/leads").set({ Cookie: session.cookie, [CSRF_HEADER]: session.csrfToken, "Content-Type": type }).send(payload()),
      );
      expect(response.status).toBe(415);
      expect(response.body).toEqual({ status: "error", error: "Send the request as application/json." });
    });

    it("malformed JSON (400, JSON)", async () => {
      const response = await storesNothing(() =>
        request(t.app).post("/api/leads").set({ Cookie: session.cookie, [CSRF_HEADER]: session.csrfToken, "Content-Type": "application/json" }).send('{"zip": "90210",'),
      );
      expect(response.status).toBe(400);
      expect(response.headers["content-type"]).toMatch(/^application\/json/);
      expect(response.body).toEqual({ status: "error", error: "The request body is not valid JSON." });
    });

    it.each([
      ["an array", [leadFields()]],
      ["null", null],
      ["a string", "hello"],
      ["a number", 42],
    ])("a JSON body that is %s, not an object (400)", async (_name, payload) => {
      const response = await storesNothing(() =>
        request(t.app)
          .post("/api/leads")
          .set({ Cookie: session.cookie, [CSRF_HEADER]: session.csrfToken, "Content-Type": "application/json" })
          .send(JSON.stringify(payload)),
      );
      expect(response.status).toBe(400);
      expect(response.headers["content-type"]).toMatch(/^application\/json/);
    });

    it("no CSRF token, a forged one, no cookie, or another visitor's token (403)", async () => {
      const other = await openLeadSession(t.app);
      const attempts = [
        () => request(t.app).post("/api/leads").set({ Cookie: session.cookie }).send(leadBody(session)),
        () => postLead(t.app, session, leadBody(session), { [CSRF_HEADER]: "forged" }),
        () => postLead(t.app, session, leadBody(session), { [CSRF_HEADER]: session.csrfToken.replace(/^./, (c) => (c === "A" ? "B" : "A")) }),
        () => postLead(t.app, session, leadBody(session), { Cookie: "" }),
        () => postLead(t.app, session, leadBody(session), { [CSRF_HEADER]: other.csrfToken }),
        // The form token is signed with the same secret but for another purpose: never a CSRF token.
        () => postLead(t.app, session, leadBody(session), { [CSRF_HEADER]: session.formToken }),
      ];
      for (const [index, attempt] of attempts.entries()) {
        const response = await storesNothing(attempt);
        expect(response.status, `attempt ${index}`).toBe(403);
        expect(response.body, `attempt ${index}`).toMatchObject({ status: "error", error: expect.any(String) });
      }
    });

    it.each([
      ["Sec-Fetch-Site: cross-site", { "Sec-Fetch-Site": "cross-site" }],
      ["Sec-Fetch-Site: same-site", { "Sec-Fetch-Site": "same-site" }],
      ["Sec-Fetch-Site: none", { "Sec-Fetch-Site": "none" }],
      ["a foreign Origin", { "Sec-Fetch-Site": "", Origin: "https://evil.example" }],
      ["Origin: null", { "Sec-Fetch-Site": "", Origin: "null" }],
    ])("a cross-site call (%s) is refused with 403", async (_name, headers) => {
      const sent: Record<string, string> = { ...headers };
      const response = await storesNothing(() => {
        const call = request(t.app).post("/api/leads").set({ Cookie: session.cookie, [CSRF_HEADER]: session.csrfToken });
        for (const [name, value] of Object.entries(sent)) if (value !== "") call.set(name, value);
        return call.send(leadBody(session));
      });
      expect(response.status).toBe(403);
      expect(response.headers["cache-control"]).toBe("no-store");
    });

    it("the honeypot filled in (400)", async () => {
      const response = await storesNothing(() => postLead(t.app, session, leadBody(session, { website: "http://cheap-pills.example" })));
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ status: "error", error: expect.any(String) });
      expect(t.events("lead_rejected").find((line) => line.requestId === response.headers["x-request-id"])).toMatchObject({ reason: "honeypot" });
    });

    it.each([
      ["missing", undefined],
      ["garbage", "not-a-token"],
      ["with a forged signature", `${Date.now().toString(36)}.${"A".repeat(43)}`],
      ["signed with another secret", createFormTokens("another-secret-another-secret-another", 0).issue()],
      ["the CSRF token instead", "csrf"],
      ["expired (opened 25 hours ago)", createFormTokens(TEST_SECRET, 0).issue(Date.now() - 25 * 60 * 60_000)],
      ["a number", 12345],
    ])("a form token %s (400)", async (_name, formToken) => {
      const body = leadBody(session, { formToken: formToken === "csrf" ? session.csrfToken : formToken });
      if (formToken === undefined) delete body.formToken;
      const response = await storesNothing(() => postLead(t.app, session, body));
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ status: "error", error: expect.any(String) });
    });

    it.each([
      ["no idempotency key", { idempotencyKey: undefined }],
      ["an idempotency key that is not a UUID", { idempotencyKey: "click-1" }],
      ["no consent version", { consentVersion: undefined }],
      ["a consent version as text", { consentVersion: String(CONSENT_DISCLOSURE.version) }],
      ["no form URL", { formUrl: undefined }],
      ["a form URL on another path", { formUrl: "https://www.quoteridge.test/zipcode?zip=90210" }],
      ["a form URL with another scheme", { formUrl: "javascript:alert(1)//rapidfire.html" }],
      ["a page URL on another origin", { pageUrl: "https://evil.example/?zip=90210" }],
      ["a page URL on another port", { pageUrl: "https://www.quoteridge.test:8443/" }],
      ["a page URL that is not a URL", { pageUrl: "the quote page" }],
      ["a too long page URL", { pageUrl: `https://www.quoteridge.test/?q=${"x".repeat(2048)}` }],
      ["a sid with markup", { sid: "<b>a1</b>" }],
      ["an empty tid", { tid: "" }],
      ["a vid with markup", { vid: "<i>v</i>" }],
      ["a vid that is too long", { vid: "v".repeat(65) }],
      ["a vid that is not text", { vid: ["a", "b"] }],
    ])("a bad envelope: %s (400)", async (_name, overrides) => {
      const body = leadBody(session, overrides);
      for (const [key, value] of Object.entries(overrides)) if (value === undefined) delete body[key];
      const response = await storesNothing(() => postLead(t.app, session, body));
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ status: "error", error: expect.any(String) });
    });

    it("a stale consent version (409)", async () => {
      const response = await storesNothing(() => postLead(t.app, session, leadBody(session, { consentVersion: CONSENT_DISCLOSURE.version - 1 })));
      expect(response.status).toBe(409);
      expect(response.body).toEqual({ status: "error", error: expect.stringContaining("updated the wording beside the consent box") });
    });
  });

  describe("repeats and duplicates", () => {
    it("a repeated idempotency key answers 409 with the first reference and stores nothing new", async () => {
      const body = leadBody(session);
      const first = await postLead(t.app, session, body);
      expect(first.status).toBe(201);
      const reference = (first.body as { reference: string }).reference;
      const again = await storesNothing(() => postLead(t.app, session, body));
      expect(again.status).toBe(409);
      expect(again.body).toEqual({ status: "already_sent", reference, matchesToken: expect.any(String) });
      // The key is what counts (in any letter case), not the rest of the form.
      const edited = await storesNothing(() => postLead(t.app, session, leadBody(session, { idempotencyKey: String(body.idempotencyKey).toUpperCase() })));
      expect(edited.status).toBe(409);
      expect(edited.body).toEqual({ status: "already_sent", reference, matchesToken: expect.any(String) });
      const phone = (await (await t.services.leadRepository()).findByReference(reference))!.phone;
      expect((await (await t.services.leadRepository()).list()).filter((lead) => lead.phone === phone)).toHaveLength(1);
    });

    it("a double click (the same request twice at once) stores one lead", async () => {
      const body = leadBody(session);
      const before = await counts();
      const answers = await Promise.all([postLead(t.app, session, body), postLead(t.app, session, body)]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
      const references = answers.map((answer) => (answer.body as { reference: string }).reference);
      expect(references[0]).toBe(references[1]);
      expect(await counts()).toEqual({ leads: before.leads + 1, consents: before.consents + 1, duplicates: before.duplicates });
    });

    it("one idempotency key sent five times at once, with different contacts each time, stores one lead", async () => {
      const idempotencyKey = randomUUID();
      const before = await counts();
      const answers = await Promise.all(Array.from({ length: 5 }, () => postLead(t.app, session, leadBody(session, { idempotencyKey }))));
      expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409, 409, 409, 409]);
      expect(new Set(answers.map((answer) => (answer.body as { reference: string }).reference)).size).toBe(1);
      expect(await counts()).toEqual({ leads: before.leads + 1, consents: before.consents + 1, duplicates: before.duplicates });
    });

    it("five requests from one phone at once: one original and four duplicates of it", async () => {
      const contact = uniqueContact();
      const before = await counts();
      const answers = await Promise.all(Array.from({ length: 5 }, () => postLead(t.app, session, leadBody(session, { phone: contact.phone }))));
      expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201, 201, 201]);
      const originals = answers.filter((answer) => !(answer.body as { duplicate: boolean }).duplicate);
      expect(originals).toHaveLength(1);
      const original = (originals[0]!.body as { reference: string }).reference;
      const rows = (await (await t.services.leadRepository()).list()).filter((lead) => lead.phone === contact.e164);
      expect(rows).toHaveLength(5);
      expect(rows.map((row) => row.duplicateOf).sort()).toEqual([null, original, original, original, original].sort());
      expect(await counts()).toEqual({ leads: before.leads + 5, consents: before.consents + 5, duplicates: before.duplicates + 4 });
    });

    it("the same phone (or email) within 30 days is stored as a duplicate of the first and answered 201", async () => {
      const contact = uniqueContact();
      const before = await counts();
      const first = await postLead(t.app, session, leadBody(session, { phone: contact.phone, email: contact.email }));
      // Same phone typed another way, another email.
      const samePhone = await postLead(t.app, session, leadBody(session, { phone: contact.e164, email: uniqueContact().email }));
      // Same email in capitals, another phone.
      const sameEmail = await postLead(t.app, session, leadBody(session, { email: contact.email.toUpperCase() }));
      expect(first.status).toBe(201);
      expect(first.body).toMatchObject({ status: "created", duplicate: false });
      for (const answer of [samePhone, sameEmail]) {
        expect(answer.status).toBe(201);
        expect(answer.body).toEqual({ status: "created", reference: expect.stringMatching(LEAD_REFERENCE_PATTERN), duplicate: true, matchesToken: expect.any(String) });
      }
      expect(await counts()).toEqual({ leads: before.leads + 3, consents: before.consents + 3, duplicates: before.duplicates + 2 });
      const repository = await t.services.leadRepository();
      const firstReference = (first.body as { reference: string }).reference;
      expect((await repository.findByReference(firstReference))!.duplicateOf).toBeNull();
      for (const answer of [samePhone, sameEmail]) {
        expect((await repository.findByReference((answer.body as { reference: string }).reference))!.duplicateOf).toBe(firstReference);
      }
      const line = t.events("lead_submitted").find((entry) => entry.requestId === samePhone.headers["x-request-id"]);
      expect(line).toMatchObject({ duplicate: true, duplicateOf: firstReference });
    });
  });

  it("300 concurrent valid requests: 300 × 201, 300 leads and 300 consent records", async () => {
    const server = http.createServer(t.app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const before = await counts();
      const bodies = Array.from({ length: 300 }, () => leadBody(session));
      const answers = await Promise.all(bodies.map((body) => postLead(server, session, body)));
      const statuses = answers.reduce<Record<number, number>>((tally, answer) => ({ ...tally, [answer.status]: (tally[answer.status] ?? 0) + 1 }), {});
      expect(statuses).toEqual({ 201: 300 });
      expect(new Set(answers.map((answer) => (answer.body as { reference: string }).reference)).size).toBe(300);
      expect(answers.every((answer) => (answer.body as { duplicate: boolean }).duplicate === false)).toBe(true);
      expect(await counts()).toEqual({ leads: before.leads + 300, consents: before.consents + 300, duplicates: before.duplicates });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }, 60_000);

  it("never logs a person's details, but logs lead_submitted with the reference, campaign, ZIP and request id", async () => {
    const pii = {
      "drivers.0.firstName": "Zebulon",
      "drivers.0.lastName": "Quimbyfarthing",
      email: "Zebulon.Quimby@Example.ORG",
      phone: "(628) 555-0199",
      streetAddress: "742 Evergreen Terrace Apt 9",
      "drivers.0.dateOfBirth": "07/04/1979",
    };
    const good = await postLead(t.app, session, leadBody(session, pii), { "X-Request-Id": `pii-good-${randomUUID()}` });
    expect(good.status).toBe(201);
    // The same person again (a duplicate), once with a repeated key, and with other answers wrong.
    expect((await postLead(t.app, session, leadBody(session, pii))).status).toBe(201);
    const goodKey = leadBody(session, pii);
    await postLead(t.app, session, goodKey);
    expect((await postLead(t.app, session, goodKey)).status).toBe(409);
    expect((await postLead(t.app, session, leadBody(session, { ...pii, zip: "99999", "drivers.0.dateOfBirth": "07/04/2020" }))).status).toBe(422);
    expect((await postLead(t.app, session, leadBody(session, { ...pii, email: "Zebulon.Quimby@", phone: "(628) 555-019" }))).status).toBe(422);
    expect((await postLead(t.app, session, leadBody(session, { ...pii, website: "spam" }))).status).toBe(400);
    expect((await postLead(t.app, session, leadBody(session, pii), { [CSRF_HEADER]: "forged" })).status).toBe(403);

    const logs = t.rawLogs();
    const forbidden = [
      "Zebulon",
      "Quimbyfarthing",
      "zebulon.quimby@example.org",
      "Zebulon.Quimby@Example.ORG",
      "(628) 555-0199",
      "+16285550199",
      "6285550199",
      "555-0199",
      "742 Evergreen",
      "Evergreen Terrace",
      "07/04/1979",
      "1979-07-04",
      "07/04/2020",
    ];
    for (const value of forbidden) expect(logs.toLowerCase(), value).not.toContain(value.toLowerCase());

    const submitted = t.events("lead_submitted").find((line) => line.requestId === good.headers["x-request-id"]);
    expect(submitted).toMatchObject({
      event: "lead_submitted",
      reference: (good.body as { reference: string }).reference,
      duplicate: false,
      campaign: { sid: "a1", tid: "b2" },
      zip: "90210",
      requestId: good.headers["x-request-id"],
    });
  });

  // body-parser puts the raw body on a parse error and V8 quotes it in the message: the logger's
  // err serializer (server/logger.ts serializeError) keeps both out.
  it("never logs a person's details from a body that is not valid JSON", async () => {
    const response = await request(t.app)
      .post("/api/leads")
      .set({ Cookie: session.cookie, [CSRF_HEADER]: session.csrfToken, "Content-Type": "application/json" })
      .send('{"firstName": "Philomena", "email": "philomena.x@example.net", "phone": "(628) 555-0142", "streetAddress": "99 Juniper Lane",}');
    expect(response.status).toBe(400);
    const logs = t.rawLogs();
    for (const value of ["Philomena", "philomena.x@example.net", "555-0142", "Juniper Lane"]) expect(logs, value).not.toContain(value);
  });

  describe("rate limit", () => {
    let limited: TestApp;
    beforeAll(async () => {
      limited = await createTestApp({ LEAD_RATE_LIMIT: "2" }, { store });
    });
    afterAll(async () => {
      await limited.services.close();
    });

    it("answers the third request in the window with 429 and stores nothing", async () => {
      const own = await openLeadSession(limited.app);
      expect((await postLead(limited.app, own, leadBody(own))).status).toBe(201);
      expect((await postLead(limited.app, own, leadBody(own))).status).toBe(201);
      const repository = await limited.services.leadRepository();
      const before = await repository.counts();
      const third = await postLead(limited.app, own, leadBody(own));
      expect(third.status).toBe(429);
      expect(third.headers["cache-control"]).toBe("no-store");
      expect(third.body).toEqual({ status: "error", error: expect.any(String) });
      expect(await repository.counts()).toEqual(before);
      expect(before.leads).toBe(2);
      expect(limited.events("lead_rate_limited")).toHaveLength(1);
    });
  });

  describe("minimum fill time", () => {
    let slow: TestApp;
    beforeAll(async () => {
      slow = await createTestApp({}, { store, minFillMs: 60_000 });
    });
    afterAll(async () => {
      await slow.services.close();
    });

    it("refuses a form sent sooner than LEAD_MIN_FILL_MS after it opened (400), and accepts one sent later", async () => {
      const own = await openLeadSession(slow.app);
      const repository = await slow.services.leadRepository();
      const tooFast = await postLead(slow.app, own, leadBody(own));
      expect(tooFast.status).toBe(400);
      expect(tooFast.body).toEqual({ status: "error", error: expect.stringContaining("quicker than we expected") });
      expect(await repository.counts()).toEqual({ leads: 0, consents: 0, duplicates: 0 });
      expect(slow.events("lead_rejected").at(-1)).toMatchObject({ reason: "too_fast", requestId: tooFast.headers["x-request-id"] });

      // The same app, a token from a form opened a minute and a bit ago: the time is all that differed.
      const openedEarlier = createFormTokens(TEST_SECRET, 60_000).issue(Date.now() - 61_000);
      const later = await postLead(slow.app, own, leadBody(own, { formToken: openedEarlier }));
      expect(later.status).toBe(201);
      expect(await repository.counts()).toEqual({ leads: 1, consents: 1, duplicates: 0 });
    });
  });

  it("counts a repeat as a duplicate only within 30 days of the earlier request", async () => {
    const repository = await t.services.leadRepository();
    const contact = uniqueContact();
    const older = uniqueContact();
    const earlier = (daysAgo: number, phone: string, email: string) =>
      leadStore(repository).create(sampleNewLead({ lead: { phone, email }, receivedAt: new Date(Date.now() - daysAgo * DAY_MS) }));
    const recent = await earlier(29, contact.e164, contact.email);
    await earlier(31, older.e164, older.email);
    const withinWindow = await postLead(t.app, session, leadBody(session, { phone: contact.phone, email: uniqueContact().email }));
    const pastWindow = await postLead(t.app, session, leadBody(session, { phone: older.phone, email: uniqueContact().email }));
    expect(withinWindow.body).toMatchObject({ status: "created", duplicate: true });
    expect(pastWindow.body).toMatchObject({ status: "created", duplicate: false });
    if (!recent.created) throw new Error("the earlier lead was not stored");
    expect((await repository.findByReference((withinWindow.body as { reference: string }).reference))!.duplicateOf).toBe(recent.reference);
  });
});
