/**
 * GET /consent/:id against the real app and both stores: a buyer's signed link shows what the
 * visitor saw and did, contact details masked; any other link (bad or missing signature, another
 * buyer's, a buyer the lead did not go to, an unknown id) gets one and the same 404. Also the
 * quote form's session, which carries the disclosure the form must show.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { parse } from "node-html-parser";
import { createTestApp, type TestApp } from "../support/app";
import { allStores } from "../support/databases";
import { TEST_SECRET } from "../support/services";
import { FORM_URL, PAGE_URL, leadBody, openLeadSession, postLead, sampleNewLead } from "../../tools/lead-session";
import { certificateSecret, certificateSignature, certificateUrl } from "../../server/consent/certificate";
import { registerDisclosure } from "../../server/consent/disclosures";
import { disclosureFor } from "../../server/leads/disclosure";
import { CONSENT_DISCLOSURE, CONSENT_DISCLOSURE_SHA256, disclosureText } from "../../shared/consent-disclosure";
import { escapeHtml } from "../../server/pages/template";
import { leadStore } from "../../server/leads/store";

/** The key the test app signs with: no CERTIFICATE_SECRET, so derived from its CSRF secret. */
const KEY = { secret: certificateSecret({}, TEST_SECRET), baseUrl: "" };
const REQUEST_ID = "certificate-test-request-0001";
const UNKNOWN_ID = "AAECAwQFBgcICQoLDA0ODw";
const ACME = { id: "acme", name: "Acme Insurance Agency" };
const BETA = { id: "beta", name: "Beta Auto Insurance" };

describe.each(allStores())("GET /consent/:id ($kind store)", (store) => {
  let t: TestApp;
  /** The lead sent through the form's API, delivered to acme. */
  let reference: string;
  let certificateId: string;
  let sentAt: number;

  const certificateIdOf = async (ref: string) =>
    (await (await t.services.db()).query<{ certificate_id: string }>("SELECT certificate_id FROM lead_consents WHERE lead_reference = $1", [ref])).rows[0]!.certificate_id;
  const deliver = async (ref: string, buyerId: string) =>
    (await t.services.db()).query(
      `INSERT INTO deliveries (lead_id, lead_reference, kind, target, idempotency_key, sale)
       SELECT id, reference, 'buyer', $2, reference || ':' || $2, true FROM leads WHERE reference = $1`,
      [ref, buyerId],
    );
  const get = (path: string) => request(t.app).get(path).set("X-Request-Id", REQUEST_ID);

  beforeAll(async () => {
    t = await createTestApp({ TRUST_PROXY: "loopback" }, { store });
    const session = await openLeadSession(t.app);
    sentAt = Date.now();
    const response = await postLead(
      t.app,
      session,
      leadBody(session, { "drivers.0.firstName": "Ana", "drivers.0.lastName": "Diaz-Ortega", email: "ana.diaz@example.com", phone: "(415) 555-0134", zip: "90210" }),
      { "User-Agent": "CertificateTest/1.0 <b>bold</b>", "X-Forwarded-For": "203.0.113.9" },
    );
    expect(response.status).toBe(201);
    reference = (response.body as { reference: string }).reference;
    certificateId = await certificateIdOf(reference);
    await deliver(reference, "acme");
  });
  afterAll(async () => {
    await t.services.close();
  });

  describe("the quote form's session", () => {
    it("carries the disclosure to show: its stored version and exact text", async () => {
      const response = await request(t.app).get("/api/leads/session");
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ disclosure: { version: CONSENT_DISCLOSURE.version, parts: CONSENT_DISCLOSURE.parts } });
      expect(disclosureText((response.body as { disclosure: typeof CONSENT_DISCLOSURE }).disclosure.parts)).toBe(disclosureText(CONSENT_DISCLOSURE.parts));
    });
  });

  describe("a buyer's signed link", () => {
    it("shows what the visitor saw and did, the contact details masked", async () => {
      const response = await get(certificateUrl(certificateId, "acme", KEY));
      expect(response.status).toBe(200);
      expect(response.headers["content-type"]).toMatch(/^text\/html/);
      const html = response.text;
      for (const fact of [
        reference,
        certificateId,
        `Version ${CONSENT_DISCLOSURE.version}`,
        CONSENT_DISCLOSURE_SHA256,
        escapeHtml(disclosureText(CONSENT_DISCLOSURE.parts)),
        escapeHtml(FORM_URL),
        escapeHtml(PAGE_URL),
        "203.0.113.9",
        "CertificateTest/1.0 &lt;b&gt;bold&lt;/b&gt;",
        "Terms of Use accepted</th><td>revision of 2023-05-24",
        "Privacy Policy read</th><td>revision of 2023-05-24",
        "A*** D***",
        "(415) ***-**34",
        "a***@example.com",
        "90210",
        "<code>acme</code>",
        // The words name the phone number; the form showed the one typed, the one recorded.
        "In the form, the words “the phone number I entered above” showed the number the visitor had typed, the phone number recorded above ((415) ***-**34).",
      ]) {
        expect(html, fact).toContain(fact);
      }
      for (const detail of ["Diaz", "555-0134", "5550134", "ana.diaz"]) expect(html, detail).not.toContain(detail);

      const doc = parse(html);
      const row = (label: string) => doc.querySelectorAll("tr").find((tr) => tr.querySelector("th")?.text === label)?.querySelector("time")?.getAttribute("datetime");
      const opened = Date.parse(row("Form opened at")!);
      const consented = Date.parse(row("Consented (submitted) at")!);
      expect(opened).toBeLessThanOrEqual(consented);
      expect(Math.abs(consented - sentAt)).toBeLessThan(60_000);
    });

    it("is private: no-store, not indexed, no referrer, under the site's CSP with no script at all", async () => {
      const response = await get(certificateUrl(certificateId, "acme", KEY));
      expect(response.headers["cache-control"]).toBe("no-store");
      expect(response.headers["x-robots-tag"]).toBe("noindex, nofollow");
      expect(response.headers["referrer-policy"]).toBe("no-referrer");
      const csp = response.headers["content-security-policy"] as string;
      expect(csp).toMatch(/script-src 'self' 'nonce-[^']+'/);
      expect(csp).not.toContain("unsafe-inline'; script");
      expect(response.text).not.toMatch(/<script|\son\w+=/i);
      expect(response.text).toContain('<meta name="robots" content="noindex, nofollow" />');
      // Its styles are files of this site, as the CSP wants.
      for (const sheet of parse(response.text).querySelectorAll('link[rel="stylesheet"]').map((link) => link.getAttribute("href")!)) {
        expect((await request(t.app).get(sheet)).status, sheet).toBe(200);
      }
    });

    it("logs consent_certificate_viewed with the buyer and the reference, never the person", async () => {
      await get(certificateUrl(certificateId, "acme", KEY));
      const viewed = t.events("consent_certificate_viewed").at(-1);
      expect(viewed).toMatchObject({ buyerId: "acme", reference, requestId: REQUEST_ID });
      const { req: _access, ...event } = viewed as Record<string, unknown>;
      expect(JSON.stringify(event)).not.toMatch(/Diaz|ana\.diaz|555|203\.0\.113\.9/);
    });

    it("answers HEAD like GET, without the body", async () => {
      const response = await request(t.app).head(certificateUrl(certificateId, "acme", KEY));
      expect(response.status).toBe(200);
      expect(response.headers["cache-control"]).toBe("no-store");
      expect(response.text ?? "").toBe("");
    });

    it("names the buyers of the disclosure the lead was consented under", async () => {
      const db = await t.services.db();
      const draft = disclosureFor([ACME, BETA]);
      const { version } = await registerDisclosure(db.builder, draft);
      const result = await leadStore(await t.services.leadRepository()).create(sampleNewLead({ consent: { disclosureVersion: version, disclosureSha256: draft.sha256 } }));
      if (!result.created) throw new Error("expected a new lead");
      await deliver(result.reference, "beta");
      const response = await get(certificateUrl(await certificateIdOf(result.reference), "beta", KEY));
      expect(response.status).toBe(200);
      expect(response.text).toContain(`Version ${version}`);
      expect(response.text).toContain("<li>Acme Insurance Agency <span class=\"id\">(buyer id <code>acme</code>)</span></li>");
      expect(response.text).toContain("<li>Beta Auto Insurance <span class=\"id\">(buyer id <code>beta</code>)</span></li>");
      // Made before certificates recorded it: said so, not invented.
      expect(response.text).toContain("Form opened at</th><td><em>not recorded</em>");
    });
  });

  describe("any other link", () => {
    const signed = (id: string, buyer: string) => `/consent/${id}?b=${buyer}&s=${certificateSignature(KEY.secret, id, buyer)}`;
    const flip = (hex: string) => (hex[0] === "0" ? "1" : "0") + hex.slice(1);

    it("gets the same 404 page, whether the id exists or not, and says nothing more", async () => {
      const acmeSignature = certificateSignature(KEY.secret, certificateId, "acme");
      const links = {
        "a bad signature": `/consent/${certificateId}?b=acme&s=${flip(acmeSignature)}`,
        "no signature": `/consent/${certificateId}?b=acme`,
        "no buyer": `/consent/${certificateId}?s=${acmeSignature}`,
        "acme's signature for another buyer": `/consent/${certificateId}?b=beta&s=${acmeSignature}`,
        "a signature by another key": `/consent/${certificateId}?b=acme&s=${certificateSignature("another key of at least 32 characters!", certificateId, "acme")}`,
        "a buyer the lead did not go to, signed": signed(certificateId, "beta"),
        "an unknown id, signed": signed(UNKNOWN_ID, "acme"),
        "a malformed id": `/consent/${certificateId}x?b=acme&s=${acmeSignature}`,
        "the buyer twice": `/consent/${certificateId}?b=acme&b=acme&s=${acmeSignature}`,
        "the bare id": `/consent/${certificateId}`,
      };
      const bodies = new Set<string>();
      for (const [name, link] of Object.entries(links)) {
        const response = await get(link);
        expect(response.status, name).toBe(404);
        expect(response.headers["cache-control"], name).toBe("no-store");
        expect(response.headers["content-type"], name).toMatch(/^text\/html/);
        bodies.add(response.text);
      }
      expect(bodies.size).toBe(1);
      const [body] = [...bodies];
      expect(body).toContain("Oops! Page not found");
      expect(body).not.toContain(reference);
      expect(t.events("consent_certificate_refused").length).toBeGreaterThanOrEqual(Object.keys(links).length);
      expect(JSON.stringify(t.events("consent_certificate_refused"))).not.toContain(certificateId);
    });

    it("answers HEAD with the same 404", async () => {
      const response = await request(t.app).head(signed(UNKNOWN_ID, "acme"));
      expect(response.status).toBe(404);
      expect(response.headers["cache-control"]).toBe("no-store");
    });
  });
});
