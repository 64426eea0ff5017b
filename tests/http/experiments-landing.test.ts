/**
 * A/B experiments on the landing page (issue 45, docs/experiments.md, "Assignment and exposure"),
 * against the real built app: the variant is in the server's HTML for the visitor whose id falls
 * in it, the same id always gets the same variant, visitors with Global Privacy Control and bots
 * get the control and no cookie, the page cache keeps one entry per variant and never mixes them,
 * an exposure is stored once per visitor and experiment, and the visitor id reaches the funnel
 * events and the lead.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { createTestApp, type TestApp } from "../support/app";
import { experimentSchema, type Experiment } from "../../server/experiments/schema";
import { newVisitorId, variantFor } from "../../server/experiments/assign";
import { EXPERIMENT_COOKIE, KNOBS } from "../../shared/experiments";
import { leadBody, openLeadSession, postLead, uniqueContact } from "../../tools/lead-session";

const PHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";
const CRAWLER = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const VARIANT_HEADLINE = "Car Insurance Quotes in Two Minutes";
const CONTROL_HEADLINE = KNOBS["landing.headline"].control;

function experiment(overrides: Partial<Record<string, unknown>> = {}): Experiment {
  return experimentSchema.parse({
    id: "headline-1",
    name: "Shorter headline",
    hypothesis: "A headline naming the time it takes gets more ZIP codes entered",
    status: "running",
    variants: [
      { id: "control", name: "Control", share: 50 },
      { id: "minutes", name: "Two minutes", share: 50, values: { "landing.headline": VARIANT_HEADLINE, "landing.buttonText": "See My Rates", "landing.carrierLogos": false } },
    ],
    startAt: "2020-01-01T00:00:00Z",
    ...overrides,
  });
}

/** A visitor id that falls in `variant` of `test`. */
function idIn(test: Experiment, variant: string): string {
  for (;;) {
    const id = newVisitorId();
    if (variantFor(test, id).id === variant) return id;
  }
}

const headlineOf = (html: string) => /<h1>([^<]*)<\/h1>/.exec(html)?.[1];
const cookieOf = (res: request.Response) => ((res.headers["set-cookie"] as unknown as string[] | undefined) ?? []).find((line) => line.startsWith(`${EXPERIMENT_COOKIE}=`));
const page = (t: TestApp, path: string, headers: Record<string, string> = {}) => request(t.app).get(path).set({ "User-Agent": PHONE, ...headers });

describe("the landing page with a running headline experiment", () => {
  const test = experiment();
  let running: Experiment[] = [test];
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({}, { experiments: () => running, analytics: true });
  });
  afterAll(() => t.services.close());

  it("shows the variant to a visitor whose id falls in it, the control to another, in the server's HTML and its hydration data", async () => {
    const inVariant = await page(t, "/zipcode", { Cookie: `${EXPERIMENT_COOKIE}=${idIn(test, "minutes")}` });
    expect(headlineOf(inVariant.text)).toBe(VARIANT_HEADLINE);
    expect(inVariant.text).toContain("See My Rates <span");
    expect(inVariant.text).not.toContain('class="carriers"');
    // The router's data carries the same values, so hydration renders what the server sent.
    expect(inVariant.text).toMatch(/__staticRouterHydrationData[^<]*landing\.headline[^<]*Car Insurance Quotes in Two Minutes/);
    // A page that depends on the cookie is not for shared caches.
    expect(inVariant.headers["cache-control"]).toBe("private, no-cache");
    // The cookie was there: no new one.
    expect(cookieOf(inVariant)).toBeUndefined();

    const inControl = await page(t, "/zipcode", { Cookie: `${EXPERIMENT_COOKIE}=${idIn(test, "control")}` });
    expect(headlineOf(inControl.text)).toBe(CONTROL_HEADLINE);
    expect(inControl.text).toContain(`${KNOBS["landing.buttonText"].control} <span`);
    expect(inControl.text).toContain('class="carriers"');
    expect(inControl.text).not.toContain("landing.headline");
  });

  it("gives the same id the same variant on every visit", async () => {
    for (const variant of ["minutes", "control"]) {
      const id = idIn(test, variant);
      const headlines = new Set<string | undefined>();
      for (let visit = 0; visit < 4; visit += 1) headlines.add(headlineOf((await page(t, `/zipcode?sid=a1&tid=T${visit}`, { Cookie: `${EXPERIMENT_COOKIE}=${id}` })).text));
      expect([...headlines]).toEqual([variant === "minutes" ? VARIANT_HEADLINE : CONTROL_HEADLINE]);
    }
  });

  it("mints an id for a new visitor, sets it as a first-party cookie and shows that id's variant", async () => {
    const res = await page(t, "/zipcode?sid=a1&tid=NEW1");
    const cookie = cookieOf(res);
    expect(cookie).toBeDefined();
    const id = /^qr_vis=([A-Za-z0-9_-]{22});/.exec(cookie!)![1]!;
    const attributes = cookie!.split("; ").slice(1).map((part) => part.toLowerCase());
    expect(attributes).toEqual(expect.arrayContaining(["max-age=7776000", "path=/", "httponly", "samesite=lax", "secure"]));
    expect(attributes.some((part) => part.startsWith("domain="))).toBe(false);
    expect(headlineOf(res.text)).toBe(variantFor(test, id).id === "minutes" ? VARIANT_HEADLINE : CONTROL_HEADLINE);
  });

  it("sets no cookie and shows the control with Global Privacy Control, and expires a cookie set before", async () => {
    const fresh = await page(t, "/zipcode", { "Sec-GPC": "1" });
    expect(cookieOf(fresh)).toBeUndefined();
    expect(headlineOf(fresh.text)).toBe(CONTROL_HEADLINE);
    const before = await page(t, "/zipcode", { "Sec-GPC": "1", Cookie: `${EXPERIMENT_COOKIE}=${idIn(test, "minutes")}` });
    expect(headlineOf(before.text)).toBe(CONTROL_HEADLINE);
    expect(cookieOf(before)).toMatch(/^qr_vis=; Max-Age=0;/);
  });

  it("sets no cookie for a crawler, which sees the control", async () => {
    const res = await page(t, "/zipcode?sid=a1", { "User-Agent": CRAWLER });
    expect(cookieOf(res)).toBeUndefined();
    expect(headlineOf(res.text)).toBe(CONTROL_HEADLINE);
  });

  it("keeps one cache entry per variant and never gives one visitor's variant to another", async () => {
    const ids = Array.from({ length: 80 }, () => newVisitorId());
    // Rounds: the first renders and primes each shape, the later ones are served from the cache.
    for (let round = 0; round < 3; round += 1) {
      const answers = await Promise.all(ids.map((id, index) => page(t, index % 2 ? `/zipcode?sid=a1&tid=C${index}-${round}` : "/zipcode", { Cookie: `${EXPERIMENT_COOKIE}=${id}`, "Accept-Encoding": round === 1 ? "gzip" : "identity" })));
      answers.forEach((res, index) => {
        const expected = variantFor(test, ids[index]!).id === "minutes" ? VARIANT_HEADLINE : CONTROL_HEADLINE;
        expect(headlineOf(res.text), `visitor ${index}, round ${round}`).toBe(expected);
      });
    }
  });

  it("renders each variant's page once per shape: later visitors are served from the cache", async () => {
    const before = t.renders();
    const ids = Array.from({ length: 20 }, (_, index) => idIn(test, index % 2 ? "minutes" : "control"));
    for (const id of ids) await page(t, "/zipcode?sid=z9&tid=R1", { Cookie: `${EXPERIMENT_COOKIE}=${id}` });
    // Each variant: its first visitor's render and its shape's render for the cache.
    expect(t.renders() - before).toBeLessThanOrEqual(4);
  });

  it("stores one exposure per visitor and experiment, with the variant, sid and tid of the first", async () => {
    const returning = idIn(test, "minutes");
    const other = idIn(test, "control");
    for (let visit = 0; visit < 3; visit += 1) await page(t, `/zipcode?sid=ex1&tid=V${visit}`, { Cookie: `${EXPERIMENT_COOKIE}=${returning}` });
    await page(t, "/zipcode?sid=ex2&tid=W1", { Cookie: `${EXPERIMENT_COOKIE}=${other}` });
    await page(t, "/zipcode?sid=ex3&tid=B1", { "User-Agent": CRAWLER });
    await page(t, "/zipcode?sid=ex4&tid=G1", { "Sec-GPC": "1" });
    await t.exposures!.flush();
    const db = await t.services.db();
    const rows = await db.query<{ visitor_id: string; variant: string; sid: string; tid: string; bot: boolean }>(
      "SELECT visitor_id, variant, sid, tid, bot FROM experiment_exposures WHERE experiment = 'headline-1' AND sid LIKE 'ex%' ORDER BY sid",
    );
    expect(rows.rows).toEqual([
      { visitor_id: returning, variant: "minutes", sid: "ex1", tid: "V0", bot: false },
      { visitor_id: other, variant: "control", sid: "ex2", tid: "W1", bot: false },
    ]);
  });

  it("carries the visitor id on the funnel events and the lead", async () => {
    const id = idIn(test, "minutes");
    const cookie = `${EXPERIMENT_COOKIE}=${id}`;
    await page(t, "/zipcode?sid=fv1&tid=F1", { Cookie: cookie });
    const go = await page(t, "/go?zip=90210&sid=fv1&tid=F1", { Cookie: cookie });
    expect(go.status).toBe(303);
    const session = await openLeadSession(t.app);
    const contact = uniqueContact();
    const lead = await postLead(t.app, session, leadBody(session, { phone: contact.phone, email: contact.email, sid: "fv1" }), { Cookie: `${session.cookie}; ${cookie}`, "User-Agent": PHONE });
    expect(lead.status).toBe(201);
    await t.analytics!.flush();
    const db = await t.services.db();
    const events = await db.query<{ name: string; visitor_id: string | null }>("SELECT name, visitor_id FROM analytics_events WHERE sid = 'fv1' ORDER BY id");
    expect(events.rows.map((row) => row.name)).toEqual(expect.arrayContaining(["campaign_hit", "zip_submitted", "lead_submitted"]));
    expect(new Set(events.rows.map((row) => row.visitor_id))).toEqual(new Set([id]));
    const leads = await db.query<{ visitor_id: string | null }>("SELECT visitor_id FROM leads WHERE reference = $1", [(lead.body as { reference: string }).reference]);
    expect(leads.rows).toEqual([{ visitor_id: id }]);
  });

  it("stops showing the variant, and stops setting the cookie, when the experiment stops", async () => {
    const id = idIn(test, "minutes");
    expect(headlineOf((await page(t, "/zipcode?sid=st1", { Cookie: `${EXPERIMENT_COOKIE}=${id}` })).text)).toBe(VARIANT_HEADLINE);
    running = [{ ...test, status: "stopped" }];
    try {
      const stopped = await page(t, "/zipcode?sid=st1", { Cookie: `${EXPERIMENT_COOKIE}=${id}` });
      expect(headlineOf(stopped.text)).toBe(CONTROL_HEADLINE);
      expect(stopped.headers["cache-control"]).toBe("no-cache");
      const newcomer = await page(t, "/zipcode?sid=st1");
      expect(cookieOf(newcomer)).toBeUndefined();
      expect(headlineOf(newcomer.text)).toBe(CONTROL_HEADLINE);
    } finally {
      running = [test];
    }
  });
});

describe("an experiment restricted to one traffic source", () => {
  const test = experiment({ id: "headline-sid", sids: ["a1"] });
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({}, { experiments: () => [test] });
  });
  afterAll(() => t.services.close());

  it("assigns visitors from that sid only", async () => {
    const id = idIn(test, "minutes");
    const fromSource = await page(t, "/zipcode?sid=a1&tid=S1", { Cookie: `${EXPERIMENT_COOKIE}=${id}` });
    expect(headlineOf(fromSource.text)).toBe(VARIANT_HEADLINE);
    const fromOther = await page(t, "/zipcode?sid=b2&tid=S1", { Cookie: `${EXPERIMENT_COOKIE}=${id}` });
    expect(headlineOf(fromOther.text)).toBe(CONTROL_HEADLINE);
    expect(fromOther.headers["cache-control"]).toBe("no-cache");
    expect(cookieOf(await page(t, "/zipcode?sid=b2&tid=S2"))).toBeUndefined();
    expect(cookieOf(await page(t, "/zipcode?tid=S3"))).toBeUndefined();
    expect(cookieOf(await page(t, "/zipcode?sid=a1&tid=S4"))).toBeDefined();
  });

  it("is not running before its start", async () => {
    const later = experiment({ id: "headline-later", startAt: "2999-01-01T00:00:00Z" });
    const app = await createTestApp({}, { experiments: () => [later] });
    const res = await page(app, "/zipcode", { Cookie: `${EXPERIMENT_COOKIE}=${idIn(later, "minutes")}` });
    expect(headlineOf(res.text)).toBe(CONTROL_HEADLINE);
    expect(cookieOf(res)).toBeUndefined();
  });
});

describe("the landing page without a running experiment", () => {
  it("is the same document, with the control's words, as an app with no experiments at all", async () => {
    const none = await createTestApp();
    const empty = await createTestApp({}, { experiments: () => [] });
    const normalise = (html: string) => html.replace(/nonce-[^']+'|nonce="[^"]+"/g, "N").replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "V");
    const a = await page(none, "/zipcode?sid=a1&tid=N1");
    const b = await page(empty, "/zipcode?sid=a1&tid=N1");
    expect(normalise(b.text)).toBe(normalise(a.text));
    expect(headlineOf(a.text)).toBe(CONTROL_HEADLINE);
    expect(a.text).toContain(`${KNOBS["landing.buttonText"].control} <span`);
    expect(a.text).toContain('class="carriers"');
    expect(b.headers["cache-control"]).toBe("no-cache");
    expect(cookieOf(b)).toBeUndefined();
  });
});
