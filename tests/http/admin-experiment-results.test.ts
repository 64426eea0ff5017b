/**
 * An experiment's results page in the console (GET /experiments/:id/results, issue 45 item 4) on
 * both stores, through the real admin app and the React entry's renderer: the per-variant table,
 * the difference to the control with its interval, the verdict or the SRM warning in its place,
 * the guardrail, the "by source" view, the method sentence; for ops and analysts alike; 404 for an
 * unknown id. Views given to renderAdmin are captured, so numbers are checked exactly.
 */
import { parse as parseHtml, type HTMLElement } from "node-html-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAdminApp } from "../../server/admin/app";
import { analyticsReports } from "../../server/admin/reports";
import { insertExposures, type ExposureRow } from "../../server/db/experiment-exposures";
import { insertEvents } from "../../server/analytics/store";
import { createExperiment } from "../../server/settings/store";
import { experimentSchema, type Experiment } from "../../server/experiments/schema";
import { VERDICT_METHOD } from "../../server/experiments/stats";
import { registerDisclosure } from "../../server/consent/disclosures";
import { disclosureFor } from "../../server/leads/disclosure";
import { leadRepository } from "../../server/db/leads";
import { leadStore } from "../../server/leads/store";
import { renderAdmin } from "../../client/entry-server";
import type { AdminView, ExperimentResultsView } from "../../shared/admin-views";
import { sampleNewLead } from "../../tools/lead-session";
import { allStores, type TestDatabase } from "../support/databases";
import { captureLogs } from "../support/log-capture";
import { adminRequests, capturingRenderAdmin, type Agent, addUsers } from "../support/admin-agent";

const SECRET = "experiment-results-secret-experiment-results";
const OPS = { name: "olivia", password: "olivia's long password" };
const ANALYST = { name: "andy", password: "andy's long password!" };
const T0 = new Date("2026-11-02T15:00:00.000Z");
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

const experiment = (id: string, primaryMetric: Experiment["primaryMetric"]): Experiment =>
  experimentSchema.parse({
    id,
    name: `Headline ${id}`,
    hypothesis: "A shorter headline makes more visitors start the form.",
    status: "running",
    primaryMetric,
    startAt: "2026-11-01T00:00:00Z",
    // Two experiments may not change one knob for the same traffic: each its own source.
    sids: [id],
    variants: [
      { id: "control", name: "Control", share: 50 },
      { id: "short", name: "Short headline", share: 50, values: { "landing.headline": "Cheaper car insurance, fast" } },
    ],
  });

const exposure = (experimentId: string, visitorId: string, variant: string, sid: string): ExposureRow => ({ experiment: experimentId, visitorId, variant, firstAt: at(0), sid, tid: null, bot: false });

describe.each(allStores())("an experiment's results in the console ($kind)", (store) => {
  let db: TestDatabase;
  let app: ReturnType<typeof createAdminApp>;
  const views: AdminView[] = [];
  let ops: { agent: Agent; csrf: string };
  let analyst: { agent: Agent; csrf: string };
  const { get, signedIn } = adminRequests(() => app);
  const lastResults = () => [...views].reverse().find((view): view is ExperimentResultsView => view.page === "experiment-results")!;

  beforeAll(async () => {
    db = await store.open();
    await registerDisclosure(db.builder, disclosureFor(undefined));
    await addUsers(db, [{ ...OPS, role: "ops" }, { ...ANALYST, role: "analyst" }]);
    await createExperiment(db.builder, experiment("even", "net_revenue_per_visitor"), "test");
    await createExperiment(db.builder, experiment("skewed", "lead_rate"), "test");
    // even: control c1 (sid p1) with a lead sold at 20; short v1 (p1) with a lead sold at 30 and
    // returned, v2 (p2) with nothing: a return rate higher than the control's.
    await insertExposures(db.builder, [exposure("even", "c1", "control", "p1"), exposure("even", "c2", "control", "p2"), exposure("even", "v1", "short", "p1"), exposure("even", "v2", "short", "p2")]);
    const leads = leadStore(leadRepository(db));
    const references: Record<string, string> = {};
    for (const visitor of ["c1", "v1"]) {
      const created = await leads.create(sampleNewLead({ receivedAt: at(5) }), () => ({ deliveries: [] }));
      if (!created.created) throw new Error("expected a new lead");
      await db.query("UPDATE leads SET visitor_id = $1 WHERE reference = $2", [visitor, created.reference]);
      references[visitor] = created.reference;
    }
    await insertEvents(
      db,
      [
        { name: "lead_sold", at: at(6), leadReference: references.c1!, target: "buyer-1", revenue: 20 },
        { name: "lead_sold", at: at(6), leadReference: references.v1!, target: "buyer-1", revenue: 30 },
        { name: "lead_returned", at: at(90), leadReference: references.v1!, target: "buyer-1", revenue: 30 },
      ],
      "America/New_York",
    );
    // skewed: 240 control visitors against 120 in the variant, on a 50/50 design.
    await insertExposures(db.builder, [
      ...Array.from({ length: 240 }, (_, index) => exposure("skewed", `s-c${index}`, "control", "p1")),
      ...Array.from({ length: 120 }, (_, index) => exposure("skewed", `s-v${index}`, "short", "p1")),
    ]);
    const captured = captureLogs({ LOG_LEVEL: "warn", NODE_ENV: "production" });
    // The React entry's renderer itself (no build needed): the page under test is its source.
    app = createAdminApp({ logger: captured.logger, db, renderAdmin: capturingRenderAdmin(async () => renderAdmin, views), secret: SECRET, reports: analyticsReports, config: { ADMIN_SESSION_HOURS: 12, REPORT_TIME_ZONE: "America/New_York", NODE_ENV: "production" } });
    ops = await signedIn(OPS);
    analyst = await signedIn(ANALYST);
  }, 120_000);
  afterAll(() => db?.close());

  const cells = (row: HTMLElement) => row.querySelectorAll("th, td").map((cell) => cell.text.replace(/\s+/g, " ").trim());

  it("shows each variant against the control, the verdict, the guardrail and the method, to ops and analysts", async () => {
    for (const user of [ops, analyst]) {
      const response = await get(user.agent, "/experiments/even/results");
      expect(response.status).toBe(200);
      const view = lastResults();
      expect(view.bySid).toBe(false);
      expect(view.results.all.variants.map((variant) => [variant.id, variant.visitors, variant.leads, variant.revenue, variant.returns, variant.netRevenue])).toEqual([
        ["control", 2, 1, 20, 0, 20],
        ["short", 2, 1, 30, 1, 0],
      ]);
      const document = parseHtml(response.text);
      expect(document.querySelector("h1")?.text).toBe("Results: Headline even (even)");
      const rows = document.querySelectorAll(".experiment-results-table tbody tr");
      expect(rows.map((row) => cells(row).slice(0, 12))).toEqual([
        ["Control (control)", "50%", "2", "0", "–", "1", "50.0%", "1", "$20.00", "0 ($0.00)", "0.0%", "$20.00"],
        ["Short headline (short)", "50%", "2", "0", "–", "1", "50.0%", "1", "$30.00", "1 (-$30.00)", "100.0%", "$0.00"],
      ]);
      const short = cells(rows[1]!);
      // Both its visitors netted $0 (the sale returned): no spread, so no width yet.
      expect(short[12]).toBe("$0.000 $0.000 to $0.000");
      expect(cells(rows[0]!)[12]).toMatch(/^\$10\.000 -\$[\d,.]+ to \$[\d,.]+$/);
      expect(short[13]).toMatch(/^-\$10\.000 \(-100\.0%\) -\$[\d,.]+ to \+\$[\d,.]+$/);
      expect(short.slice(14)).toEqual(["higher, not yet beyond doubt", "No difference yet"]);
      expect(document.querySelector(".experiment-verdicts")?.text.replace(/\s+/g, " ").trim()).toMatch(/^Short headline: no difference yet on net revenue per visitor against Control: -\$10\.000 \(-100\.0%\), interval -\$[\d,.]+ to \+\$[\d,.]+\.$/);
      expect(document.querySelector(".srm-line")?.text.replace(/\s+/g, " ")).toContain("visitors 2 / 2 against the designed 50% / 50%, p = 1.00 (not below 0.001: as designed)");
      expect(response.text).toContain("Guardrail, the return rate (returned sales / sales): Control 0.0%; Short headline 100.0% (higher, not yet beyond doubt). A variant that makes more leads that buyers return is a loss.");
      expect(document.querySelector(".method")?.text).toBe(VERDICT_METHOD);
      expect(document.querySelector('a[href="/experiments/even/results?by=sid"]')?.text).toBe("By source");
    }
  });

  it("adds a table per source with ?by=sid", async () => {
    const response = await get(analyst.agent, "/experiments/even/results?by=sid");
    expect(response.status).toBe(200);
    expect(lastResults().bySid).toBe(true);
    const document = parseHtml(response.text);
    expect(document.querySelectorAll(".experiment-results-group h2").map((heading) => heading.text)).toEqual(["All sources", "Source p1", "Source p2"]);
    const p1 = document.querySelector('.experiment-results-group[data-sid="p1"]')!;
    expect(p1.querySelectorAll("tbody tr").map((row) => cells(row).slice(0, 3))).toEqual([
      ["Control (control)", "50%", "1"],
      ["Short headline (short)", "50%", "1"],
    ]);
    expect(document.querySelector('a[href="/experiments/even/results"]')?.text).toBe("All sources only");
  });

  it("puts the SRM warning where the verdict was when the split does not match the design", async () => {
    const response = await get(ops.agent, "/experiments/skewed/results");
    expect(response.status).toBe(200);
    const group = lastResults().results.all;
    expect(group.srmFailed).toBe(true);
    expect(group.variants[1]!.verdict).toBeNull();
    const document = parseHtml(response.text);
    expect(document.querySelector(".experiment-verdicts")).toBeNull();
    expect(document.querySelector(".status-notice")?.text).toMatch(/^Sample ratio mismatch: the visitors per variant \(240 \/ 120\) do not match the designed split \(50 % \/ 50 %\)/);
    expect(cells(document.querySelectorAll(".experiment-results-table tbody tr")[1]!).at(-1)).toBe("hidden (SRM)");
    expect(document.querySelector(".srm-line")?.text).toContain("(below 0.001: failed, the verdict is hidden)");
  });

  it("answers 404 for an experiment that does not exist", async () => {
    const unknown = await get(analyst.agent, "/experiments/nope/results");
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain("There is no experiment nope.");
    const malformed = await get(ops.agent, "/experiments/Not_An_Id/results");
    expect(malformed.status).toBe(404);
    expect(malformed.text).toContain("There is no experiment with that id.");
  });

  it("needs a session", async () => {
    const response = await get({ cookies: new Map() }, "/experiments/even/results");
    expect(response.status).toBe(303);
  });
});
