/**
 * A/B experiments on the quote form (issue 45, docs/experiments.md "The quote form's variants"),
 * against the real built app: GET /api/leads/session carries the form's knobs only when a running
 * experiment changes the form for this visitor (by the qr_vis cookie, and the sid the form passes
 * on), and is what it always was otherwise; an exposure is stored once per visitor and experiment;
 * Global Privacy Control and bots get no knobs and no cookie; the lead is checked as anyone's,
 * whatever variant the visitor is in.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { createTestApp, type TestApp } from "../support/app";
import { experimentSchema, type Experiment } from "../../server/experiments/schema";
import { newVisitorId, variantFor } from "../../server/experiments/assign";
import { EXPERIMENT_COOKIE, SKIPPED_COVERAGE_DEFAULT } from "../../shared/experiments";
import { LEAD_MESSAGES } from "../../shared/lead/fields";
import { leadBody, openLeadSession, postLead } from "../../tools/lead-session";

const PHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";
const CRAWLER = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

const experiment = (fields: Record<string, unknown>): Experiment =>
  experimentSchema.parse({ name: "A form experiment", hypothesis: "Fewer questions before the contact screen bring more leads", status: "running", startAt: "2020-01-01T00:00:00Z", ...fields });

/** Half the visitors skip the coverage question. */
const SKIP = experiment({
  id: "skip-coverage",
  variants: [
    { id: "control", name: "Control", share: 50 },
    { id: "skip", name: "No coverage question", share: 50, values: { "form.skipCoverage": true } },
  ],
});
/** Coverage first, for one source only (sid "cf-only"). */
const COVERAGE_FIRST = experiment({
  id: "coverage-first",
  sids: ["cf-only"],
  variants: [
    { id: "control", name: "Control", share: 50 },
    { id: "first", name: "Coverage first", share: 50, values: { "form.coverageFirst": true } },
  ],
});
/** A landing page experiment running at the same time: none of the form's business. */
const HEADLINE = experiment({
  id: "headline",
  variants: [
    { id: "control", name: "Control", share: 50 },
    { id: "short", name: "Short", share: 50, values: { "landing.headline": "Car Insurance Quotes in Two Minutes" } },
  ],
});

/** A visitor id that falls in `variant` of `test`. */
function idIn(test: Experiment, variant: string): string {
  for (;;) {
    const id = newVisitorId();
    if (variantFor(test, id).id === variant) return id;
  }
}

const cookies = (res: request.Response) => (res.headers["set-cookie"] as unknown as string[] | undefined) ?? [];
const visitorCookieOf = (res: request.Response) => cookies(res).find((line) => line.startsWith(`${EXPERIMENT_COOKIE}=`));
const session = (t: TestApp, query = "", headers: Record<string, string> = {}) => request(t.app).get(`/api/leads/session${query}`).set({ "User-Agent": PHONE, ...headers });
const withVisitor = (id: string) => ({ Cookie: `${EXPERIMENT_COOKIE}=${id}` });

describe("the quote form's session with experiments running", () => {
  let running: Experiment[] = [SKIP, COVERAGE_FIRST, HEADLINE];
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({}, { experiments: () => running });
  });
  afterAll(() => t.services.close());

  async function exposures(experimentId: string, visitorId: string) {
    await t.exposures!.flush();
    const db = await t.services.db();
    const rows = await db.query<{ variant: string; sid: string | null; tid: string | null; bot: boolean }>("SELECT variant, sid, tid, bot FROM experiment_exposures WHERE experiment = $1 AND visitor_id = $2", [experimentId, visitorId]);
    return rows.rows;
  }

  it("carries the form's knobs, and only the form's, for a visitor in a variant; the rest of the answer is today's", async () => {
    const id = idIn(SKIP, "skip");
    const res = await session(t, "?sid=a1&tid=b2", withVisitor(id));
    expect(res.status).toBe(200);
    expect(res.headers["cache-control"]).toContain("no-store");
    expect(Object.keys(res.body as object).sort()).toEqual(["csrfToken", "disclosure", "experiments", "formToken"]);
    expect(res.body.experiments).toEqual({ knobs: { "form.coverageFirst": false, "form.skipCoverage": true } });
    // The cookie was there already: it is not set again.
    expect(visitorCookieOf(res)).toBeUndefined();

    const other = await session(t, "?sid=a1&tid=b2", withVisitor(idIn(SKIP, "control")));
    // The control is a variant too: the form is told so (and counted), with the control's values.
    expect(other.body.experiments).toEqual({ knobs: { "form.coverageFirst": false, "form.skipCoverage": false } });
  });

  it("mints the visitor id for a first visit, and the knobs are its variant's", async () => {
    const res = await session(t, "?sid=a1&tid=new1");
    const cookie = visitorCookieOf(res);
    expect(cookie).toMatch(new RegExp(`^${EXPERIMENT_COOKIE}=[A-Za-z0-9_-]{22};`));
    expect(cookie).toContain("HttpOnly");
    const id = /=([^;]+);/.exec(cookie!)![1]!;
    expect(res.body.experiments.knobs["form.skipCoverage"]).toBe(variantFor(SKIP, id).id === "skip");
  });

  it("applies an experiment limited to some sources only to the sid the form passes on", async () => {
    const id = idIn(COVERAGE_FIRST, "first");
    const forSource = await session(t, "?sid=cf-only&tid=t1", withVisitor(id));
    expect(forSource.body.experiments.knobs["form.coverageFirst"]).toBe(true);
    const elsewhere = await session(t, "?sid=another&tid=t1", withVisitor(id));
    expect(elsewhere.body.experiments.knobs["form.coverageFirst"]).toBe(false);
    // No sid, or one the campaign rules refuse: the visitor is from no source.
    for (const query of ["", "?sid=cf-only%3Cscript%3E", "?sid=cf-only&sid=cf-only"]) {
      expect((await session(t, query, withVisitor(id))).body.experiments.knobs["form.coverageFirst"], query).toBe(false);
    }
  });

  it("stores one exposure per visitor and experiment, with the sid and tid of the first session", async () => {
    const id = idIn(SKIP, "skip");
    for (let load = 0; load < 3; load += 1) await session(t, `?sid=ex1&tid=T${load}`, withVisitor(id));
    expect(await exposures("skip-coverage", id)).toEqual([{ variant: "skip", sid: "ex1", tid: "T0", bot: false }]);
    // Only the experiments that change the form: the landing page's is counted on the landing page.
    expect(await exposures("headline", id)).toEqual([]);
    // And one that does not apply to this source is not counted either.
    expect(await exposures("coverage-first", id)).toEqual([]);
  });

  it("gives Global Privacy Control no knobs, no cookie and no exposure, and expires a cookie set before", async () => {
    const fresh = await session(t, "?sid=gpc1&tid=G1", { "Sec-GPC": "1" });
    expect(fresh.status).toBe(200);
    expect(fresh.body).not.toHaveProperty("experiments");
    expect(visitorCookieOf(fresh)).toBeUndefined();

    const id = idIn(SKIP, "skip");
    const before = await session(t, "?sid=gpc1&tid=G2", { ...withVisitor(id), "Sec-GPC": "1" });
    expect(before.body).not.toHaveProperty("experiments");
    expect(visitorCookieOf(before)).toMatch(/Max-Age=0/);
    expect(await exposures("skip-coverage", id)).toEqual([]);
  });

  it("gives a crawler no knobs and no cookie", async () => {
    const res = await session(t, "?sid=bot1", { "User-Agent": CRAWLER });
    expect(res.body).not.toHaveProperty("experiments");
    expect(visitorCookieOf(res)).toBeUndefined();
  });

  it("takes no variant's word from the form: a request without coverage is refused in the skip variant too, and the default is stored as sent", async () => {
    const id = idIn(SKIP, "skip");
    const opened = await openLeadSession(t.app);
    const headers = { Cookie: `${opened.cookie}; ${EXPERIMENT_COOKIE}=${id}`, "User-Agent": PHONE };
    const without = await postLead(t.app, opened, leadBody(opened, { coverage: undefined, sid: "sk1" }), headers);
    expect(without.status).toBe(422);
    expect(without.body.errors).toEqual({ coverage: LEAD_MESSAGES.coverage });

    const sent = await postLead(t.app, opened, leadBody(opened, { coverage: SKIPPED_COVERAGE_DEFAULT, sid: "sk1" }), headers);
    expect(sent.status).toBe(201);
    const db = await t.services.db();
    const rows = await db.query<{ coverage: string }>("SELECT coverage FROM leads WHERE reference = $1", [(sent.body as { reference: string }).reference]);
    expect(rows.rows).toEqual([{ coverage: "standard" }]);
  });

  it("is today's answer again once the experiments stop: no knobs, no cookie", async () => {
    const saved = running;
    running = [HEADLINE];
    try {
      const res = await session(t, "?sid=a1&tid=b2");
      expect(res.body).not.toHaveProperty("experiments");
      expect(visitorCookieOf(res)).toBeUndefined();
    } finally {
      running = saved;
    }
  });
});

describe("the quote form's session without experiments", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.services.close());

  it("answers as it always did: tokens and the disclosure, no experiments, no visitor cookie", async () => {
    const res = await session(t, "?sid=a1&tid=b2");
    expect(res.status).toBe(200);
    expect(Object.keys(res.body as object).sort()).toEqual(["csrfToken", "disclosure", "formToken"]);
    expect(visitorCookieOf(res)).toBeUndefined();
  });
});
