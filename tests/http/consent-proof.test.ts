/**
 * Consent proof from TrustedForm and Jornaya on the quote form (issue 44), through the real app:
 * the quote form's CSP adds the providers' origins only for those switched on, and no other page's
 * ever does; the session tells the form what to load; the certificate URL and the token a form
 * sends are stored with the consent record as sent (any text), and only an overlong one is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { createTestApp, type TestApp } from "../support/app";
import { leadBody, openLeadSession, postLead, type LeadSession } from "../../tools/lead-session";
import { LEADID_TOKEN_MAX_LENGTH, TRUSTEDFORM_CERT_URL_MAX_LENGTH } from "../../shared/lead/api";
import { paths } from "../../shared/routes";
import { deliveryPayload } from "../../server/delivery/payload";
import { FACTS } from "../../server/delivery/spec/facts";

function directives(csp: string | undefined): Map<string, string[]> {
  return new Map(
    (csp ?? "")
      .split(";")
      .map((part) => part.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name, ...values]) => [name!, values]),
  );
}

/** Every source of the page's CSP that is not this site's own ('self', a nonce or hash, data:, 'none', …). */
async function thirdPartySources(t: TestApp, path: string): Promise<string[]> {
  const response = await request(t.app).get(path);
  expect(response.status, path).toBeLessThan(400);
  return [...directives(response.headers["content-security-policy"]).values()].flat().filter((source) => /^https?:/.test(source) || source.includes("."));
}

const TRUSTEDFORM_ORIGINS = ["https://api.trustedform.com", "https://cdn.trustedform.com"];
const JORNAYA_ORIGINS = ["https://create.lidstatic.com", "https://*.leadid.com"];
/** Every page a visitor reaches besides the form: none may ever list a provider. */
const OTHER_PAGES = [paths.quote, `${paths.quote}?zip=90210&sid=a1`, paths.landing, `${paths.landing}?zip=90210`, paths.privacy, paths.terms, paths.doNotSell, "/favicon.svg", paths.leadsSession];

describe("the CSP with both providers off (the default)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.services.close();
  });

  it.each([paths.quoteForm, `${paths.quoteForm}?zip=90210&sid=a1&tid=b2`, ...OTHER_PAGES])("lists no third-party origin on %s", async (path) => {
    expect(await thirdPartySources(t, path)).toEqual([]);
  });

  it("gives the quote form the policy every other response has", async () => {
    const form = directives((await request(t.app).get(paths.quoteForm)).headers["content-security-policy"]);
    const page = directives((await request(t.app).get(paths.doNotSell)).headers["content-security-policy"]);
    for (const policy of [form, page]) policy.set("script-src", policy.get("script-src")!.filter((source) => !source.startsWith("'nonce-")));
    expect(form).toEqual(page);
  });

  it("sends the form no script to load", async () => {
    const response = await request(t.app).get(paths.leadsSession);
    expect(response.body).not.toHaveProperty("proofScripts");
  });
});

/** Jornaya on needs its campaign script (server/config.ts): the real snippet's form of address. */
const JORNAYA_ON = { JORNAYA: "on", JORNAYA_SCRIPT_URL: "https://create.lidstatic.com/campaign/3b513dc6-02b0-336b-0c8d-23896690cc37.js?snippet_version=2" };

describe.each<{ name: string; env: Record<string, string>; on: string[]; off: string[] }>([
  { name: "TrustedForm on", env: { TRUSTEDFORM: "on" }, on: TRUSTEDFORM_ORIGINS, off: JORNAYA_ORIGINS },
  { name: "Jornaya on", env: { ...JORNAYA_ON }, on: JORNAYA_ORIGINS, off: TRUSTEDFORM_ORIGINS },
  { name: "both on", env: { TRUSTEDFORM: "on", ...JORNAYA_ON }, on: [...TRUSTEDFORM_ORIGINS, ...JORNAYA_ORIGINS], off: [] },
])("the CSP with $name", ({ env, on, off }) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(env);
  });
  afterAll(async () => {
    await t.services.close();
  });

  it("adds the provider's origins to the quote form's script-src, connect-src and img-src, and nowhere else in it", async () => {
    for (const path of [paths.quoteForm, `${paths.quoteForm}?zip=90210&sid=a1&tid=b2`]) {
      const csp = directives((await request(t.app).get(path)).headers["content-security-policy"]);
      expect(csp.get("script-src")).toEqual(["'self'", expect.stringMatching(/^'nonce-/), ...on]);
      expect(csp.get("connect-src")).toEqual(["'self'", ...on]);
      expect(csp.get("img-src")).toEqual(["'self'", "data:", ...on]);
      for (const [name, sources] of csp) if (!["script-src", "connect-src", "img-src"].includes(name)) expect(sources.filter((source) => [...on, ...off].includes(source)), name).toEqual([]);
      expect(csp.get("frame-src")).toEqual(["'self'"]);
      for (const origin of off) expect(csp.get("script-src")).not.toContain(origin);
    }
  });

  it.each(OTHER_PAGES)("lists no third-party origin on %s", async (path) => {
    expect(await thirdPartySources(t, path)).toEqual([]);
  });

  it("tells the form which scripts to load, a new TrustedForm address per session", async () => {
    const first = (await request(t.app).get(paths.leadsSession)).body as { proofScripts: Array<{ src: string; id: string }> };
    const second = (await request(t.app).get(paths.leadsSession)).body as { proofScripts: Array<{ src: string; id: string }> };
    expect(first.proofScripts.map((script) => new URL(script.src).origin)).toEqual(on.filter((origin) => !origin.includes("*") && !origin.includes("cdn.")));
    const trustedForm = first.proofScripts.find((script) => script.id === "xxTrustedFormScript");
    if (trustedForm) expect(trustedForm.src).not.toBe(second.proofScripts.find((script) => script.id === "xxTrustedFormScript")!.src);
  });
});

describe("the certificate URL and the LeadiD token with the lead", () => {
  let t: TestApp;
  let session: LeadSession;
  beforeAll(async () => {
    t = await createTestApp({ LEAD_RATE_LIMIT: "100000", TRUSTEDFORM: "on", ...JORNAYA_ON });
    session = await openLeadSession(t.app);
  });
  afterAll(async () => {
    await t.services.close();
  });

  const CERT_URL = "https://cert.trustedform.com/0123456789abcdef0123456789abcdef01234567";
  const TOKEN = "01234567-89AB-CDEF-0123-456789ABCDEF";

  async function consentRow(reference: string) {
    const db = await t.services.db();
    return db.builder.selectFrom("leadConsents").select(["trustedformCertUrl", "leadidToken"]).where("leadReference", "=", reference).executeTakeFirstOrThrow();
  }
  const counts = async () => (await t.services.leadRepository()).counts();

  it("stores both in lead_consents, and the lead's record, its JSON payload and its spec facts carry them", async () => {
    const response = await postLead(t.app, session, leadBody(session, { trustedFormCertUrl: CERT_URL, leadidToken: TOKEN }));
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const { reference } = response.body as { reference: string };
    expect(await consentRow(reference)).toEqual({ trustedformCertUrl: CERT_URL, leadidToken: TOKEN });

    const lead = (await (await t.services.leadRepository()).findByReference(reference))!;
    expect(lead.consent).toMatchObject({ trustedFormCertUrl: CERT_URL, leadidToken: TOKEN });
    expect(deliveryPayload(lead, { sale: true, price: 10, certificateUrl: null }).consent).toMatchObject({ trustedFormCertUrl: CERT_URL, leadidToken: TOKEN });
    const input = { lead, now: new Date() };
    expect(FACTS.get("consent.trustedFormCertUrl")!.get(input)).toBe(CERT_URL);
    expect(FACTS.get("consent.leadidToken")!.get(input)).toBe(TOKEN);
  });

  it("stores neither when the form sent none, and the payload then has no such keys", async () => {
    const response = await postLead(t.app, session, leadBody(session));
    expect(response.status).toBe(201);
    const { reference } = response.body as { reference: string };
    expect(await consentRow(reference)).toEqual({ trustedformCertUrl: null, leadidToken: null });
    const lead = (await (await t.services.leadRepository()).findByReference(reference))!;
    const consent = deliveryPayload(lead, { sale: true, price: 10, certificateUrl: null }).consent!;
    expect(consent).not.toHaveProperty("trustedFormCertUrl");
    expect(consent).not.toHaveProperty("leadidToken");
    expect(FACTS.get("consent.trustedFormCertUrl")!.get({ lead, now: new Date() })).toBeUndefined();
  });

  it("stores a bad value as sent: it fails its check later, it never costs the visitor the request", async () => {
    const response = await postLead(t.app, session, leadBody(session, { trustedFormCertUrl: "javascript:alert(1)", leadidToken: "not-a-token <b>" }));
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(await consentRow((response.body as { reference: string }).reference)).toEqual({ trustedformCertUrl: "javascript:alert(1)", leadidToken: "not-a-token <b>" });
  });

  it.each([
    ["trustedFormCertUrl", `https://cert.trustedform.com/${"a".repeat(TRUSTEDFORM_CERT_URL_MAX_LENGTH)}`],
    ["leadidToken", "t".repeat(LEADID_TOKEN_MAX_LENGTH + 1)],
    ["trustedFormCertUrl", ["https://cert.trustedform.com/x"]],
    ["leadidToken", 42],
  ])("refuses an overlong or non-text %s with the envelope's 400, storing nothing", async (field, value) => {
    const before = await counts();
    const response = await postLead(t.app, session, leadBody(session, { [field]: value }));
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ status: "error", error: "This form is out of date. Reload the page and send it again." });
    expect(await counts()).toEqual(before);
    expect(t.events("lead_rejected").at(-1)).toMatchObject({ reason: "bad_envelope", fields: [field] });
  });
});
