/**
 * The consent words per visitor (issue 44 item 6, docs/decisions/039-disclosure-per-visitor.md):
 * POST /api/leads/disclosure names exactly the buyers that could take this visitor's request
 * (active, or sandbox for a test lead; taking the ZIP's state; passing their filters on the
 * answers), with QuoteRidge, and never a company that is not a partner; with none, QuoteRidge
 * alone. Each distinct text is a stored version with its SHA-256; the request sent is checked
 * against the words for its answers (409 otherwise), and goes only to the buyers its words named.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app";
import { TEST_SECRET } from "../support/services";
import { PAGE_URL, askDisclosure, disclosureBody, leadBody, openLeadSession, postLead, type LeadSession } from "../../tools/lead-session";
import { CONSENT_DISCLOSURE, CONSENT_DISCLOSURE_SHA256, disclosureText, type ShownDisclosure } from "../../shared/consent-disclosure";
import { carriers, site } from "../../shared/site";
import { sha256Hex } from "../../server/leads/disclosure";
import { TEST_LINK_PARAM, testLinkToken } from "../../server/leads/test-link";

const SECRET = "s".repeat(40);
const buyer = (id: string, name: string, more: Record<string, unknown> = {}) => ({ id, name, url: `http://127.0.0.1:9/${id}`, secret: SECRET, price: 10, ...more });
const BUYERS = {
  buyers: [
    buyer("west", "West Coast Auto Insurance", { states: ["CA", "OR"] }),
    buyer("paused", "Paused Insurance Agency", { status: "paused" }),
    buyer("texas", "Lone Star Auto Insurance", { states: ["TX"] }),
    buyer("owners", "Homeowners Auto Group", { filters: { homeowner: true } }),
    buyer("archived", "Old Archived Agency", { status: "archived" }),
    buyer("sandbox", "Sandbox QA Buyer", { sandbox: true }),
  ],
};

/** The page address of an ops test link (server/leads/test-link.ts). */
const TEST_PAGE_URL = `${PAGE_URL}&${TEST_LINK_PARAM}=${testLinkToken(TEST_SECRET, new Date(Date.now() + 3_600_000))}`;

const textOf = (words: ShownDisclosure) => disclosureText(words.parts);
/** The companies a text names, as the wording lists them between "QuoteRidge … and" and ", and licensed". */
function namedIn(words: ShownDisclosure): string {
  const text = textOf(words);
  const match = new RegExp(`I agree that ${site.legalEntity.replace(/[.,]/g, "\\$&")} (?:and (.+?), and licensed insurance agents acting for them, )?may call`).exec(text);
  if (!match) throw new Error(`unexpected words: ${text}`);
  return match[1] ?? "";
}

describe("POST /api/leads/disclosure without buyers", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ LEAD_RATE_LIMIT: "100000", EVENTS_RATE_LIMIT: "100000" });
  });
  afterAll(async () => {
    await t.services.close();
  });

  it("names only QuoteRidge, never the landing page's carriers, and the request under it is stored", async () => {
    const session = await openLeadSession(t.app, {}, false);
    const response = await askDisclosure(t.app, session, disclosureBody());
    expect(response.status).toBe(200);
    expect(response.headers["cache-control"]).toBe("no-store");
    expect(response.body).toEqual(CONSENT_DISCLOSURE);
    const words = response.body as ShownDisclosure;
    expect(namedIn(words)).toBe("");
    for (const carrier of carriers) expect(textOf(words)).not.toContain(carrier.name);
    expect(sha256Hex(textOf(words))).toBe(CONSENT_DISCLOSURE_SHA256);
    // The session's words are the same: nobody to name before the answers either.
    expect(session.disclosure).toEqual(CONSENT_DISCLOSURE);
    const sent = await postLead(t.app, session, leadBody({ ...session, disclosure: words }));
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
  });

  it("goes through the API's checks: CSRF, JSON, and the answers by the form's rules", async () => {
    const session = await openLeadSession(t.app, {}, false);
    const noToken = await request(t.app).post("/api/leads/disclosure").set({ Cookie: session.cookie, "Sec-Fetch-Site": "same-origin" }).send(disclosureBody());
    expect(noToken.status).toBe(403);
    const crossSite = await askDisclosure(t.app, session, disclosureBody(), { "Sec-Fetch-Site": "cross-site" });
    expect(crossSite.status).toBe(403);
    const notAnObject = await askDisclosure(t.app, session, [1, 2]);
    expect(notAnObject.status).toBe(400);
    const badPage = await askDisclosure(t.app, session, { ...disclosureBody(), pageUrl: "javascript:alert(1)" });
    expect(badPage.status).toBe(400);
    const unanswered = await askDisclosure(t.app, session, disclosureBody({ residence: undefined, "drivers.0.dateOfBirth": "02/30/1990" }));
    expect(unanswered.status).toBe(422);
    expect(Object.keys((unanswered.body as { errors: Record<string, string> }).errors).sort()).toEqual(["drivers.0.dateOfBirth", "residence"]);
    const unknownZip = await askDisclosure(t.app, session, disclosureBody({ zip: "00000" }));
    expect(unknownZip.status).toBe(422);
  });
});

describe("POST /api/leads/disclosure with buyers", () => {
  let t: TestApp;
  beforeAll(async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "disclosure-"));
    const file = path.join(dir, "buyers.json");
    writeFileSync(file, JSON.stringify(BUYERS));
    t = await createTestApp({ LEAD_RATE_LIMIT: "100000", EVENTS_RATE_LIMIT: "100000" }, { buyersFile: file });
  });
  afterAll(async () => {
    await t.services.close();
  });

  async function wordsFor(overrides: Record<string, unknown> = {}, pageUrl = PAGE_URL): Promise<{ session: LeadSession; words: ShownDisclosure }> {
    const session = await openLeadSession(t.app, {}, false);
    const response = await askDisclosure(t.app, session, disclosureBody(overrides, pageUrl));
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return { session, words: response.body as ShownDisclosure };
  }

  it("names the active buyers serving the ZIP's state whose filters the answers pass, in the settings' order, with QuoteRidge", async () => {
    // 90210 (CA), a homeowner: not the paused one, not Texas's, not the archived or the sandbox one.
    const { words } = await wordsFor();
    expect(namedIn(words)).toBe("West Coast Auto Insurance and Homeowners Auto Group");
    // A renter fails Homeowners Auto Group's filter.
    expect(namedIn((await wordsFor({ residence: "rent" })).words)).toBe("West Coast Auto Insurance");
    // Dallas: West Coast does not serve Texas.
    expect(namedIn((await wordsFor({ zip: "75201" })).words)).toBe("Lone Star Auto Insurance and Homeowners Auto Group");
    // A renter in New York: nobody could take it, so QuoteRidge alone.
    const alone = (await wordsFor({ zip: "10001", residence: "rent" })).words;
    expect(alone).toEqual(CONSENT_DISCLOSURE);
    for (const words of [(await wordsFor()).words, alone]) {
      for (const name of ["Paused Insurance Agency", "Old Archived Agency", "Sandbox QA Buyer", ...carriers.map((carrier) => carrier.name)]) expect(textOf(words)).not.toContain(name);
    }
  });

  it("names a sandbox buyer for a test lead only, and then no real buyer", async () => {
    const { words } = await wordsFor({}, TEST_PAGE_URL);
    expect(namedIn(words)).toBe("Sandbox QA Buyer");
  });

  it("stores each distinct text once, as a version with its SHA-256 and the buyers it names", async () => {
    const first = (await wordsFor({ residence: "rent", zip: "97201" })).words;
    const again = (await wordsFor({ residence: "rent", zip: "97201" })).words;
    expect(again).toEqual(first);
    const db = await t.services.db();
    const { rows } = await db.query<{ version: number; sha256: string; text: string; buyer_ids: string[]; partner_names: string[] }>(
      "SELECT version, sha256, text, buyer_ids, partner_names FROM consent_disclosures ORDER BY version",
    );
    expect(new Set(rows.map((row) => row.sha256)).size).toBe(rows.length);
    for (const row of rows) expect(sha256Hex(row.text)).toBe(row.sha256);
    const stored = rows.find((row) => row.version === first.version)!;
    expect(stored).toMatchObject({ text: textOf(first), buyer_ids: ["west"], partner_names: ["West Coast Auto Insurance"] });
    expect(rows.find((row) => row.version === CONSENT_DISCLOSURE.version)).toMatchObject({ buyer_ids: [], partner_names: [] });
  });

  it("refuses a request sent under the words of other answers (409), storing nothing", async () => {
    const { session, words } = await wordsFor({ residence: "rent" });
    const db = await t.services.db();
    const before = (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM leads")).rows[0]!.n;
    // The visitor was shown the renter's words, then the request says they own their home.
    const response = await postLead(t.app, session, leadBody({ ...session, disclosure: words }, { residence: "own" }));
    expect(response.status).toBe(409);
    expect(response.body).toEqual({ status: "error", error: expect.stringContaining("updated the wording beside the consent box") });
    expect((await db.query<{ n: number }>("SELECT count(*)::int AS n FROM leads")).rows[0]!.n).toBe(before);
  });

  it("sends the lead only to the buyers its words named", async () => {
    const { session, words } = await wordsFor({ residence: "rent" });
    const response = await postLead(t.app, session, leadBody({ ...session, disclosure: words }, { residence: "rent" }));
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const { reference } = response.body as { reference: string };
    const db = await t.services.db();
    const consent = await db.query<{ disclosure_version: number }>("SELECT disclosure_version FROM lead_consents WHERE lead_reference = $1", [reference]);
    expect(consent.rows).toEqual([{ disclosure_version: words.version }]);
    const deliveries = await db.query<{ target: string }>("SELECT target FROM deliveries WHERE lead_reference = $1 AND kind = 'buyer' ORDER BY target", [reference]);
    expect(deliveries.rows.map((row) => row.target)).toEqual(["west"]);
  });

  it("sends a test lead only to the sandbox buyer its words named", async () => {
    const { session, words } = await wordsFor({}, TEST_PAGE_URL);
    const response = await postLead(t.app, session, leadBody({ ...session, disclosure: words }, { pageUrl: TEST_PAGE_URL }));
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const db = await t.services.db();
    const deliveries = await db.query<{ target: string }>("SELECT target FROM deliveries WHERE lead_reference = $1 AND kind = 'buyer'", [(response.body as { reference: string }).reference]);
    expect(deliveries.rows.map((row) => row.target)).toEqual(["sandbox"]);
  });
});
