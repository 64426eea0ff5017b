/**
 * `npm run report -- experiment NAME` (server/cli/report.ts) against both stores: the results
 * table with its verdict, SRM and method lines, per source with --by-sid, the CSV and JSON, an
 * unknown id (exit 1, naming the experiments there are) and the command line's mistakes. The
 * store is seeded and closed before each command opens it, as in production.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../server/cli/report";
import { insertEvents } from "../../server/analytics/store";
import { insertExposures } from "../../server/db/experiment-exposures";
import { createExperiment } from "../../server/settings/store";
import { experimentSchema } from "../../server/experiments/schema";
import { registerDisclosure } from "../../server/consent/disclosures";
import { disclosureFor } from "../../server/leads/disclosure";
import { leadRepository } from "../../server/db/leads";
import { leadStore } from "../../server/leads/store";
import { VERDICT_METHOD } from "../../server/experiments/stats";
import { sampleNewLead } from "../../tools/lead-session";
import { commandStores, withCommandStore, type CommandStore } from "../support/databases";
import { projectRoot } from "../../tools/production-server";

const ZONE = "America/New_York";
const SCRIPT = path.join(projectRoot, "server", "cli", "report.ts");
const T0 = new Date("2026-11-02T15:00:00.000Z");
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

const HEADLINE = experimentSchema.parse({
  id: "headline",
  name: "Shorter headline",
  hypothesis: "A shorter headline makes more visitors start the form.",
  status: "running",
  startAt: "2026-11-01T00:00:00Z",
  variants: [
    { id: "control", name: "Control", share: 50 },
    { id: "short", name: "Short headline", share: 50, values: { "landing.headline": "Cheaper car insurance, fast" } },
  ],
});

async function runReport(argv: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; text: string }> {
  let text = "";
  const code = await run(argv, (chunk) => (text += chunk), env);
  return { code, text };
}

describe.each(commandStores({ REPORT_TIME_ZONE: ZONE }))("npm run report -- experiment ($kind)", ({ make }) => {
  let store: CommandStore;

  beforeAll(async () => {
    store = await make();
    await withCommandStore(store, async (db) => {
      await registerDisclosure(db.builder, disclosureFor(undefined));
      await createExperiment(db.builder, HEADLINE, "test");
      // Control: c1 (a1) sends a lead sold at 20 and 10, the 10 returned; c2 (b2) nothing.
      // Short headline: v1 (a1) sends a lead sold at 30; v2 (a1) nothing; a bot counts nowhere.
      await insertExposures(db.builder, [
        { experiment: "headline", visitorId: "c1", variant: "control", firstAt: at(0), sid: "a1", tid: null, bot: false },
        { experiment: "headline", visitorId: "c2", variant: "control", firstAt: at(0), sid: "b2", tid: null, bot: false },
        { experiment: "headline", visitorId: "v1", variant: "short", firstAt: at(0), sid: "a1", tid: null, bot: false },
        { experiment: "headline", visitorId: "v2", variant: "short", firstAt: at(0), sid: "a1", tid: null, bot: false },
        { experiment: "headline", visitorId: "robot", variant: "short", firstAt: at(0), sid: "a1", tid: null, bot: true },
      ]);
      const leads = leadStore(leadRepository(db));
      const reference: Record<string, string> = {};
      for (const visitor of ["c1", "v1"]) {
        const created = await leads.create(sampleNewLead({ receivedAt: at(5) }), () => ({ deliveries: [] }));
        if (!created.created) throw new Error("expected a new lead");
        await db.query("UPDATE leads SET visitor_id = $1 WHERE reference = $2", [visitor, created.reference]);
        reference[visitor] = created.reference;
      }
      await insertEvents(db, [{ name: "form_started", at: at(1), visitId: "visit-c1" }, { name: "form_started", at: at(1), visitId: "visit-v2" }], ZONE);
      await db.query("UPDATE analytics_events SET visitor_id = substr(visit_id, 7) WHERE visit_id LIKE 'visit-%'");
      await insertEvents(
        db,
        [
          { name: "lead_sold", at: at(6), leadReference: reference.c1!, target: "buyer-1", revenue: 20, payout: 5 },
          { name: "lead_sold", at: at(6), leadReference: reference.c1!, target: "buyer-2", revenue: 10 },
          { name: "lead_returned", at: at(60), leadReference: reference.c1!, target: "buyer-2", revenue: 10 },
          { name: "lead_sold", at: at(6), leadReference: reference.v1!, target: "buyer-1", revenue: 30, payout: 5 },
        ],
        ZONE,
      );
    });
  }, 120_000);
  afterAll(() => store?.remove());

  it("prints one row per variant, the verdict naming the method, and the SRM line", async () => {
    const { code, text } = await runReport(["experiment", "headline"], store.env);
    expect(code).toBe(0);
    const lines = text.split("\n");
    expect(lines[0]).toMatch(/^Experiment headline: Shorter headline \(running, from 2026-11-01T00:00:00Z\); as of \d{4}-\d\d-\d\dT[\d:.]+Z; primary metric: net revenue per visitor$/);
    expect(lines[2]).toBe("All sources: 4 visitors (net revenue per visitor: control 10.0000, short 15.0000)");
    expect(lines[3]!.split(/ {2,}/)).toEqual(["variant", "visitors", "form_starts", "completion", "leads", "lead_rate", "sold", "revenue", "returns", "return_rate", "net_revenue", "net/visitor", "interval", "vs_control", "vs_interval", "lead_rate_vs", "guardrail", "verdict"]);
    const control = lines[4]!.split(/ {2,}/);
    expect(control.slice(0, 12)).toEqual(["control (50%)", "2", "1", "100.0%", "1", "50.0%", "1", "30.00", "1", "50.0%", "20.00", "10.0000"]);
    expect(control.at(-1)).toBe("(control)");
    const short = lines[5]!.split(/ {2,}/);
    expect(short.slice(0, 12)).toEqual(["short (50%)", "2", "1", "0.0%", "1", "50.0%", "1", "30.00", "0", "0.0%", "30.00", "15.0000"]);
    expect(short.slice(13)).toEqual([expect.stringMatching(/^\+5\.0000$/), expect.stringMatching(/^\[-[\d.]+, \+[\d.]+\]$/), "+0.0pp", "ok", "no difference yet"]);
    expect(lines[6]).toBe("Verdict (net revenue per visitor, against control): short no difference yet (+50.0%).");
    expect(lines[7]).toBe("SRM check: visitors 2 / 2 against 50% / 50% designed, p = 1.00 (fine: not below 0.001).");
    expect(text.trimEnd().split("\n").at(-1)).toBe(`Method: ${VERDICT_METHOD}`);
  });

  it("adds a table per source with --by-sid, and gives CSV and JSON", async () => {
    const { text } = await runReport(["experiment", "headline", "--by-sid"], store.env);
    expect(text).toContain("\nSource a1: 3 visitors (net revenue per visitor: control 20.0000, short 15.0000)\n");
    expect(text).toContain("\nSource b2: 1 visitor (net revenue per visitor: control 0.0000, short –)\n");
    // b2 has one control visitor and none in the variant: a split no design explains.
    expect(text).toContain("SRM check: visitors 1 / 0 against 50% / 50% designed, p = 0.317 (fine: not below 0.001).");

    const csvText = (await runReport(["experiment", "headline", "--by-sid", "--format", "csv"], store.env)).text;
    const [header, ...rows] = csvText.trimEnd().split("\r\n");
    expect(header!.split(",").slice(0, 6)).toEqual(["sid", "variant", "control", "share", "visitors", "form_starts"]);
    expect(rows.map((row) => row.split(",").slice(0, 5))).toEqual([
      ["(all)", "control", "yes", "50", "2"],
      ["(all)", "short", "", "50", "2"],
      ["a1", "control", "yes", "50", "1"],
      ["a1", "short", "", "50", "2"],
      ["b2", "control", "yes", "50", "1"],
      ["b2", "short", "", "50", "0"],
    ]);
    const columns = header!.split(",");
    const short = Object.fromEntries(rows[1]!.split(",").map((cell, index) => [columns[index], cell]));
    expect(short).toMatchObject({ revenue: "30.00", returns: "0", net_revenue: "30.00", net_per_visitor: "15.0000", net_diff: "5.0000", verdict: "no_difference_yet", guardrail: "ok" });

    const json = JSON.parse((await runReport(["experiment", "headline", "--format", "json"], store.env)).text);
    expect(json.experiment).toMatchObject({ id: "headline", primaryMetric: "net_revenue_per_visitor" });
    expect(json.all.variants.map((variant: { id: string; netRevenue: number }) => [variant.id, variant.netRevenue])).toEqual([["control", 20], ["short", 30]]);
    expect(json.method).toBe(VERDICT_METHOD);
    expect(json.bySid).toBeUndefined();
  });

  it("refuses an unknown experiment, naming the ones there are, and mistakes in the command line", async () => {
    await expect(runReport(["experiment", "nope"], store.env)).rejects.toThrow("No experiment nope. The experiments: headline.");
    await expect(runReport(["experiment"], store.env)).rejects.toThrow("Say which experiment: npm run report -- experiment NAME (its id).");
    await expect(runReport(["experiment", "headline", "--since", "2026-11-01"], store.env)).rejects.toThrow("--since does not apply to an experiment's results (only --by-sid and --format).");
    await expect(runReport(["experiment", "headline", "--format", "xml"], store.env)).rejects.toThrow("Unknown format xml: use table, csv or json.");
    await expect(runReport(["buyers", "--by-sid"], store.env)).rejects.toThrow("--by-sid applies only to an experiment's results (experiment NAME).");
  });

  it("runs as a script: an unknown experiment on stderr, exit 1", () => {
    const script = (...argv: string[]) =>
      spawnSync(process.execPath, ["--import", "tsx", SCRIPT, ...argv], { cwd: projectRoot, env: { PATH: process.env.PATH, ...store.env }, encoding: "utf8", timeout: 30_000 });
    const unknown = script("experiment", "nope");
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toBe("No experiment nope. The experiments: headline.\n");
    expect(unknown.stdout).toBe("");
    const done = script("experiment", "headline", "--format", "csv");
    expect(done.stderr).toBe("");
    expect(done.status).toBe(0);
    expect(done.stdout.split("\r\n")[1]!.split(",").slice(0, 5)).toEqual(["(all)", "control", "yes", "50", "2"]);
  });
});
