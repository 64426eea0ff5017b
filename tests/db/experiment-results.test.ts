/**
 * An experiment's results (server/experiments/results.ts) on both stores, from seeded exposures,
 * leads carrying visitor ids and the sales and returns the event store holds: each variant's
 * counts and money, revenue less returns (a return counting once it arrives), visitors once per
 * experiment and in every experiment they saw, bots and leads made before the exposure left out,
 * duplicates and test leads aside, per source; and a skewed split whose SRM warning hides a
 * verdict the numbers alone would give.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerDisclosure } from "../../server/consent/disclosures";
import { disclosureFor } from "../../server/leads/disclosure";
import { leadRepository } from "../../server/db/leads";
import { leadStore } from "../../server/leads/store";
import { insertEvents, type EventInput } from "../../server/analytics/store";
import { insertExposures, type ExposureRow } from "../../server/db/experiment-exposures";
import { experimentResults } from "../../server/experiments/results";
import { armEstimate } from "../../server/experiments/stats";
import { experimentSchema, type Experiment } from "../../server/experiments/schema";
import { TEST_LEAD_PHONE } from "../../server/auction/sandbox";
import type { VariantResult } from "../../shared/experiment-results";
import { sampleNewLead, type NewLeadOverrides } from "../../tools/lead-session";
import { allStores, type TestDatabase } from "../support/databases";

const ZONE = "America/New_York";
const T0 = new Date("2026-11-02T15:00:00.000Z");
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);
/** The results are read "now" = a day after T0; the late return arrives after that. */
const NOW = at(24 * 60);
const LATER = at(3 * 24 * 60);

const experiment = (id: string, overrides: Partial<Experiment> = {}): Experiment =>
  experimentSchema.parse({
    id,
    name: `Experiment ${id}`,
    hypothesis: "A shorter headline makes more visitors start the form.",
    status: "running",
    startAt: "2026-11-01T00:00:00Z",
    variants: [
      { id: "control", name: "Control", share: 50 },
      { id: "short", name: "Short headline", share: 50, values: { "landing.headline": "Cheaper car insurance, fast" } },
    ],
    ...overrides,
  });

const HEADLINE = experiment("headline");
const FORM = experiment("form-order", { variants: [{ id: "control", name: "Control", share: 50, values: {} }, { id: "coverage-first", name: "Coverage first", share: 50, values: { "form.coverageFirst": true } }] });
const SKEWED = experiment("skewed", { primaryMetric: "lead_rate" });
const BALANCED = experiment("balanced", { primaryMetric: "lead_rate" });

const exposure = (experimentId: string, visitorId: string, variant: string, minutes: number, sid: string | null, bot = false): ExposureRow => ({
  experiment: experimentId,
  visitorId,
  variant,
  firstAt: at(minutes),
  sid,
  tid: null,
  bot,
});

describe.each(allStores())("experiment results ($kind)", (store) => {
  let db: TestDatabase;

  /** A lead of `visitorId` received at `minutes`; its reference. */
  async function lead(visitorId: string, minutes: number, overrides: NewLeadOverrides = {}): Promise<string> {
    const result = await leadStore(leadRepository(db)).create(sampleNewLead({ receivedAt: at(minutes), ...overrides }), () => ({ deliveries: [] }));
    if (!result.created) throw new Error("expected a new lead");
    await db.query("UPDATE leads SET visitor_id = $1 WHERE reference = $2", [visitorId, result.reference]);
    return result.reference;
  }

  /** Copies of a stored lead, one per visitor (many leads without a form each), received at `minutes`. */
  async function cloneLeads(original: string, visitorIds: readonly string[], minutes: number): Promise<void> {
    const { rows } = await db.query<{ column_name: string }>(
      "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'leads' AND column_name NOT IN ('id', 'reference', 'idempotency_key', 'visitor_id', 'received_at')",
    );
    const columns = rows.map((row) => row.column_name).join(", ");
    await db.query(
      `INSERT INTO leads (${columns}, reference, idempotency_key, visitor_id, received_at)
       SELECT ${columns}, 'LD-CLONE-' || v.visitor, gen_random_uuid(), v.visitor, $3 FROM leads, unnest($1::text[]) AS v(visitor) WHERE leads.reference = $2`,
      [visitorIds, original, at(minutes)],
    );
  }

  /** Funnel events carrying the visitor id (the column the funnel's recorder fills). */
  async function formStarted(visitorId: string, minutes: number): Promise<void> {
    const visitId = `visit-${visitorId}-${minutes}`;
    await insertEvents(db, [{ name: "form_started", at: at(minutes), visitId }], ZONE);
    await db.query("UPDATE analytics_events SET visitor_id = $1 WHERE visit_id = $2", [visitorId, visitId]);
  }

  const sold = (reference: string, minutes: number, target: string, revenue: number): EventInput => ({ name: "lead_sold", at: at(minutes), leadReference: reference, target, revenue, payout: 5 });
  const returned = (reference: string, minutes: number, target: string, revenue: number): EventInput => ({ name: "lead_returned", at: at(minutes), leadReference: reference, target, revenue });

  beforeAll(async () => {
    db = await store.open();
    await registerDisclosure(db.builder, disclosureFor(undefined));

    // The headline experiment. Control: c1 (sid a1) starts the form and sends a lead, sold to two
    // buyers, one of whom returns it; c2 (a1) does nothing; c3 (b2) sent a lead and started the
    // form BEFORE its exposure (not the variant's doing). Short headline: v1 (a1) sends a lead
    // sold at 30, then a duplicate of it and a test lead; v2 (b2) starts the form only. A bot
    // (a1) in the variant with a sold lead counts nowhere.
    await insertExposures(db.builder, [
      exposure("headline", "c1", "control", 0, "a1"),
      exposure("headline", "c2", "control", 5, "a1"),
      exposure("headline", "c3", "control", 60, "b2"),
      exposure("headline", "v1", "short", 0, "a1"),
      exposure("headline", "v2", "short", 10, "b2"),
      exposure("headline", "bot", "short", 0, "a1", true),
      // v1 is in the form experiment too, first exposed there later, from another source.
      exposure("form-order", "v1", "coverage-first", 2, "zz"),
      exposure("form-order", "f1", "control", 2, null),
    ]);
    await formStarted("c1", 1);
    const c1Lead = await lead("c1", 3);
    await formStarted("c3", 30);
    const c3Early = await lead("c3", 40);
    await formStarted("v1", 2);
    const v1Lead = await lead("v1", 4);
    const v1Duplicate = await lead("v1", 6);
    await db.query("UPDATE leads SET duplicate_of = $1 WHERE reference = $2", [v1Lead, v1Duplicate]);
    const v1Test = await lead("v1", 7, { lead: { phone: TEST_LEAD_PHONE } });
    const v1Marked = await lead("v1", 8, { test: true });
    await formStarted("v2", 11);
    const botLead = await lead("bot", 5);
    await insertEvents(
      db,
      [
        sold(c1Lead, 4, "buyer-1", 20),
        sold(c1Lead, 4, "buyer-2", 10),
        returned(c1Lead, 600, "buyer-2", 10),
        sold(c3Early, 41, "buyer-1", 15),
        sold(v1Lead, 5, "buyer-1", 30),
        sold(v1Duplicate, 7, "buyer-1", 99),
        sold(v1Test, 8, "buyer-1", 77),
        sold(v1Marked, 9, "buyer-1", 66),
        sold(botLead, 6, "buyer-1", 50),
        // Arrives after NOW: the results read at NOW do not see it yet, later ones do.
        returned(v1Lead, 2 * 24 * 60, "buyer-1", 30),
      ],
      ZONE,
    );

    // Lead rate experiments: 300 control visitors without a lead and 150 variant visitors with one
    // (skewed: 2:1 against a 50/50 design), and the same with 150 controls (balanced).
    const ids = (prefix: string, count: number) => Array.from({ length: count }, (_, index) => `${prefix}${index}`);
    await insertExposures(db.builder, [
      ...ids("skewed-c", 300).map((id) => exposure("skewed", id, "control", 0, "a1")),
      ...ids("skewed-v", 150).map((id) => exposure("skewed", id, "short", 0, "a1")),
      ...ids("balanced-c", 150).map((id) => exposure("balanced", id, "control", 0, "a1")),
      ...ids("balanced-v", 150).map((id) => exposure("balanced", id, "short", 0, "a1")),
    ]);
    const template = await lead("template", 0);
    await cloneLeads(template, [...ids("skewed-v", 150), ...ids("balanced-v", 150)], 30);
  }, 120_000);
  afterAll(() => db?.close());

  const variant = (variants: VariantResult[], id: string) => variants.find((candidate) => candidate.id === id)!;
  const counts = ({ visitors, formStarts, formCompletions, leads, leadVisitors, soldLeads, sales, revenue, returns, returnedRevenue, netRevenue }: VariantResult) => ({
    visitors,
    formStarts,
    formCompletions,
    leads,
    leadVisitors,
    soldLeads,
    sales,
    revenue,
    returns,
    returnedRevenue,
    netRevenue,
  });

  it("counts each variant's visitors, form starts, new leads after the exposure, sales and revenue less returns", async () => {
    const results = await experimentResults(db, HEADLINE, { now: NOW });
    const { variants } = results.all;
    expect(counts(variant(variants, "control"))).toEqual({ visitors: 3, formStarts: 1, formCompletions: 1, leads: 1, leadVisitors: 1, soldLeads: 1, sales: 2, revenue: 30, returns: 1, returnedRevenue: 10, netRevenue: 20 });
    expect(counts(variant(variants, "short"))).toEqual({ visitors: 2, formStarts: 2, formCompletions: 1, leads: 1, leadVisitors: 1, soldLeads: 1, sales: 1, revenue: 30, returns: 0, returnedRevenue: 0, netRevenue: 30 });
    const control = variant(variants, "control");
    expect(control.formCompletion).toBe(1);
    expect(control.returnRate).toBe(0.5);
    expect(control.netRevenuePerVisitor?.mean).toBeCloseTo(20 / 3, 10);
    expect(control.leadRate?.mean).toBeCloseTo(1 / 3, 10);
    expect(control.vsControl).toBeNull();
    expect(control.verdict).toBeNull();
    const short = variant(variants, "short");
    expect(short.formCompletion).toBe(0.5);
    expect(short.netRevenuePerVisitor?.mean).toBe(15);
    expect(short.vsControl?.netRevenuePerVisitor.difference).toBeCloseTo(15 - 20 / 3, 10);
    // A handful of visitors: no verdict yet, whatever the means say.
    expect(short.verdict).toBe("no_difference_yet");
    expect(short.guardrail).toBe("ok");
    expect(results.all.visitors).toBe(5);
    expect(results.bySid).toBeUndefined();
    expect(results.method).toMatch(/confidence sequences/);
  });

  it("sums each visitor's net revenue before squaring it", async () => {
    // Control's visitors' nets are 20, 0 and 0: Σ net² = 400, not the sales' and return's 20² + 10² + 10².
    const control = variant((await experimentResults(db, HEADLINE, { now: NOW })).all.variants, "control");
    const perVisitor = armEstimate({ n: 3, sum: 20, sumSquares: 400 });
    expect(control.netRevenuePerVisitor).toEqual({ mean: perVisitor.mean, low: perVisitor.low, high: perVisitor.high });
    expect(control.netRevenuePerVisitor?.high).not.toBeCloseTo(armEstimate({ n: 3, sum: 20, sumSquares: 600 }).high, 6);
  });

  it("subtracts a return once it has arrived", async () => {
    const later = variant((await experimentResults(db, HEADLINE, { now: LATER })).all.variants, "short");
    expect(counts(later)).toMatchObject({ sales: 1, revenue: 30, returns: 1, returnedRevenue: 30, netRevenue: 0 });
    expect(later.returnRate).toBe(1);
    expect(later.netRevenuePerVisitor?.mean).toBe(0);
    expect(later.guardrail).toBe("higher");
  });

  it("counts a visitor in every experiment it saw, once in each", async () => {
    const results = await experimentResults(db, FORM, { now: NOW });
    const variants = results.all.variants;
    // v1's lead (after its exposure here at minute 2) counts in this experiment too.
    expect(counts(variant(variants, "coverage-first"))).toEqual({ visitors: 1, formStarts: 1, formCompletions: 1, leads: 1, leadVisitors: 1, soldLeads: 1, sales: 1, revenue: 30, returns: 0, returnedRevenue: 0, netRevenue: 30 });
    expect(variant(variants, "control").visitors).toBe(1);
    // Exposed twice (two pages, two replicas): still one row, one visitor.
    await insertExposures(db.builder, [exposure("form-order", "v1", "coverage-first", 20, "zz")]);
    expect(variant((await experimentResults(db, FORM, { now: NOW })).all.variants, "coverage-first").visitors).toBe(1);
  });

  it("gives the same numbers per source, each visitor under the sid of its first exposure", async () => {
    const results = await experimentResults(db, HEADLINE, { now: NOW, bySid: true });
    expect(results.bySid?.map((group) => [group.sid, group.visitors])).toEqual([["a1", 3], ["b2", 2]]);
    const [a1, b2] = results.bySid!;
    expect(counts(variant(a1!.variants, "control"))).toEqual({ visitors: 2, formStarts: 1, formCompletions: 1, leads: 1, leadVisitors: 1, soldLeads: 1, sales: 2, revenue: 30, returns: 1, returnedRevenue: 10, netRevenue: 20 });
    expect(counts(variant(a1!.variants, "short"))).toMatchObject({ visitors: 1, leads: 1, netRevenue: 30 });
    expect(counts(variant(b2!.variants, "control"))).toMatchObject({ visitors: 1, formStarts: 0, leads: 0, netRevenue: 0 });
    expect(counts(variant(b2!.variants, "short"))).toMatchObject({ visitors: 1, formStarts: 1, formCompletions: 0, leads: 0 });
    // The totals are the same as without --by-sid.
    expect(results.all).toEqual((await experimentResults(db, HEADLINE, { now: NOW })).all);
    // Visitors without a sid are the "" source.
    const form = await experimentResults(db, FORM, { now: NOW, bySid: true });
    expect(form.bySid?.map((group) => group.sid)).toEqual(["", "zz"]);
  });

  it("hides the verdict behind the SRM warning when the split does not match the design", async () => {
    const balanced = await experimentResults(db, BALANCED, { now: NOW });
    const shortBalanced = variant(balanced.all.variants, "short");
    expect(balanced.all.srmFailed).toBe(false);
    expect(balanced.all.srmPValue).toBe(1);
    expect(shortBalanced.leadRate?.mean).toBe(1);
    expect(shortBalanced.verdict).toBe("better");
    expect(balanced.all.warnings).toEqual([]);

    const skewed = await experimentResults(db, SKEWED, { now: NOW });
    expect(skewed.all.variants.map((arm) => arm.visitors)).toEqual([300, 150]);
    expect(skewed.all.srmPValue).toBeLessThan(skewed.srmThreshold);
    expect(skewed.all.srmFailed).toBe(true);
    const shortSkewed = variant(skewed.all.variants, "short");
    // The comparison alone would call it better; the verdict is hidden, and the warning says why.
    expect(shortSkewed.vsControl?.leadRate.verdict).toBe("better");
    expect(shortSkewed.verdict).toBeNull();
    expect(skewed.all.warnings).toHaveLength(1);
    expect(skewed.all.warnings[0]).toMatch(/^Sample ratio mismatch: the visitors per variant \(300 \/ 150\) do not match the designed split \(50 % \/ 50 %\)/);
  });

  it("names exposures to a variant the experiment no longer lists, and counts them nowhere", async () => {
    const renamed = experiment("headline", { variants: [{ id: "control", name: "Control", share: 50, values: {} }, { id: "shorter", name: "Shorter", share: 50, values: { "landing.headline": "Car insurance, cheaper" } }] });
    const results = await experimentResults(db, renamed, { now: NOW });
    expect(results.unlisted).toEqual([{ variant: "short", visitors: 2 }]);
    expect(results.all.variants.map((arm) => [arm.id, arm.visitors])).toEqual([["control", 3], ["shorter", 0]]);
  });

  it("has nothing to say about an experiment nobody saw yet", async () => {
    const results = await experimentResults(db, experiment("unseen"), { now: NOW });
    expect(results.all).toMatchObject({ visitors: 0, srmFailed: false, warnings: [] });
    expect(results.all.variants.map((arm) => [arm.visitors, arm.netRevenuePerVisitor, arm.formCompletion, arm.returnRate, arm.verdict])).toEqual([
      [0, null, null, null, null],
      [0, null, null, null, null],
    ]);
  });
});
