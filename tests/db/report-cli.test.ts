/**
 * `npm run report` (server/cli/report.ts) against both stores: the sub-id report as a table, CSV
 * and JSON, its filters, the default --until (today is in), a click's journey, and the exit
 * codes of the script itself. The command opens the store from its environment, as in
 * production; the embedded store can only be open once, so the events are written and the store
 * closed before the command runs.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../server/cli/report";
import { insertEvents, type EventInput } from "../../server/analytics/store";
import { addDays } from "../../server/analytics/report-days";
import { openDatabase } from "../../server/db/database";
import { migrate } from "../../server/db/migrate";
import { dayIn } from "../../shared/formatters";
import { commandStores, type CommandStore } from "../support/databases";
import { projectRoot } from "../../tools/production-server";

const TIME_ZONE = "America/New_York";
const SCRIPT = path.join(projectRoot, "server", "cli", "report.ts");
const at = (iso: string) => new Date(iso);

const EVENTS: EventInput[] = [
  { name: "campaign_hit", at: at("2026-11-02T14:00:00Z"), sid: "a1", tid: "t1", visitId: "v1" },
  { name: "quote_page_view", at: at("2026-11-02T14:00:04.250Z"), sid: "a1", tid: "t1", visitId: "v1", path: "/" },
  { name: "lead_submitted", at: at("2026-11-02T14:02:00Z"), sid: "a1", tid: "t1", visitId: "v1", leadReference: "LD-AAAA-0001" },
  { name: "buyer_pinged", at: at("2026-11-02T14:02:01Z"), sid: "a1", tid: "t1", leadReference: "LD-AAAA-0001", target: "buyer-1", detail: "bid", bid: 20 },
  { name: "lead_sold", at: at("2026-11-02T14:02:05Z"), sid: "a1", tid: "t1", leadReference: "LD-AAAA-0001", target: "buyer-1", revenue: 20, payout: 8 },
  { name: "campaign_hit", at: at("2026-11-02T16:00:00Z"), sid: "a1", tid: "tb", visitId: "vb", bot: true },
  { name: "campaign_hit", at: at("2026-11-03T15:00:00Z"), sid: "b2", visitId: "v2" },
  { name: "campaign_hit", at: at("2026-11-03T15:30:00Z"), visitId: "v3" },
];

async function runReport(argv: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; text: string }> {
  let text = "";
  const code = await run(argv, (chunk) => (text += chunk), env);
  return { code, text };
}

describe.each(commandStores({ REPORT_TIME_ZONE: TIME_ZONE }, { running: true }))("npm run report ($kind)", ({ make }) => {
  let store: CommandStore;
  const today = () => dayIn(new Date(), TIME_ZONE);

  beforeAll(async () => {
    store = await make();
    const db = await openDatabase(store.options);
    try {
      await migrate(db);
      await insertEvents(db, EVENTS, TIME_ZONE);
      // A click now, on a source of its own: the default --until must include today.
      await insertEvents(db, [{ name: "campaign_hit", sid: "now", tid: "tnow", visitId: "vnow" }], TIME_ZONE);
    } finally {
      await db.close();
    }
  });
  afterAll(() => store?.remove());

  const range = ["--since", "2026-11-01", "--until", "2026-11-05"];

  it("writes the report by day and sid as CSV", async () => {
    expect(await runReport([...range, "--format", "csv"], store.env)).toEqual({
      code: 0,
      text:
        "date,sid,clicks,unique_clicks,zip_submits,quote_views,form_starts,leads,duplicates,sold,returned,revenue,payout,profit,cr,epc,bids,avg_bid,revenue_per_lead\r\n" +
        "2026-11-02,a1,1,1,0,1,0,1,0,1,0,20.00,8.00,12.00,1.0000,20.00,1,20.00,20.00\r\n" +
        "2026-11-03,,1,1,0,0,0,0,0,0,0,0.00,0.00,0.00,0.0000,0.00,0,0.00,0.00\r\n" +
        "2026-11-03,b2,1,1,0,0,0,0,0,0,0,0.00,0.00,0.00,0.0000,0.00,0,0.00,0.00\r\n",
    });
  });

  it("groups by sid or day, keeps to one sid, and counts bots with --bots", async () => {
    const json = async (...argv: string[]) => JSON.parse((await runReport([...range, "--format", "json", ...argv], store.env)).text);
    const bySid = await json("--by", "sid");
    expect(bySid.rows.map((row: { sid: string; clicks: number }) => [row.sid, row.clicks])).toEqual([["", 1], ["a1", 1], ["b2", 1]]);
    expect(bySid).toMatchObject({ since: "2026-11-01", until: "2026-11-05", by: "sid", bots: false, timeZone: TIME_ZONE, totals: { clicks: 3, unique_clicks: 3, leads: 1, revenue: 20 } });
    const byDay = await json("--by", "day");
    expect(byDay.rows.map((row: { date: string; sid: null; clicks: number }) => [row.date, row.sid, row.clicks])).toEqual([["2026-11-02", null, 1], ["2026-11-03", null, 2]]);
    expect((await json("--sid", "a1", "--bots")).rows).toEqual([
      { date: "2026-11-02", sid: "a1", clicks: 2, unique_clicks: 2, zip_submits: 0, quote_views: 1, form_starts: 0, leads: 1, duplicates: 0, sold: 1, returned: 0, revenue: 20, payout: 8, profit: 12, cr: 0.5, epc: 10, bids: 1, bid_total: 20, avg_bid: 20, revenue_per_lead: 20 },
    ]);
    expect((await json("--sid", "")).rows.map((row: { date: string }) => row.date)).toEqual(["2026-11-03"]);
  });

  it("prints a table with a total line", async () => {
    const { code, text } = await runReport(range, store.env);
    expect(code).toBe(0);
    const lines = text.trimEnd().split("\n");
    expect(lines[0]).toBe(`Sub-id report, 2026-11-01 to 2026-11-04 (${TIME_ZONE}), by day,sid, bots excluded`);
    expect(lines.slice(3).map((line) => line.split(/ {2,}/).slice(0, 4))).toEqual([
      ["2026-11-02", "a1", "1", "1"],
      ["2026-11-03", "(none)", "1", "1"],
      ["2026-11-03", "b2", "1", "1"],
      ["total", "3", "3", "0"],
    ]);
  });

  it("includes today when --until is left out", async () => {
    const { text } = await runReport(["--since", addDays(today(), -1), "--sid", "now", "--format", "csv"], store.env);
    expect(text.split("\r\n")[1]).toBe(`${today()},now,1,1,0,0,0,0,0,0,0,0.00,0.00,0.00,0.0000,0.00,0,0.00,0.00`);
  });

  it("follows one click: its events, its visit's and its lead's, in order", async () => {
    const { code, text } = await runReport(["tid", "t1"], store.env);
    expect(code).toBe(0);
    const lines = text.trimEnd().split("\n");
    expect(lines[0]).toBe("Journey of tid t1: 5 events");
    expect(lines.slice(3).map((line) => line.split(/ {2,}/).slice(0, 2))).toEqual([
      ["2026-11-02 14:00:00.000", "campaign_hit"],
      ["2026-11-02 14:00:04.250", "quote_page_view"],
      ["2026-11-02 14:02:00.000", "lead_submitted"],
      ["2026-11-02 14:02:01.000", "buyer_pinged"],
      ["2026-11-02 14:02:05.000", "lead_sold"],
    ]);
    const json = JSON.parse((await runReport(["tid", "t1", "--format", "json", "--limit", "2"], store.env)).text);
    expect(json.map((event: { name: string }) => event.name)).toEqual(["campaign_hit", "quote_page_view"]);
  });

  it("views each buyer: pings, bids, average bid, wins, win rate, returns, revenue", async () => {
    expect(await runReport(["buyers", ...range, "--format", "csv"], store.env)).toEqual({ code: 0, text: "buyer,pings,bids,avg_bid,wins,win_rate,returned,revenue\r\nbuyer-1,1,1,20.00,1,1.0000,0,20.00\r\n" });
    expect(await runReport(["buyers", ...range, "--sid", "b2"], store.env)).toEqual({ code: 0, text: `No pings or sales from 2026-11-01 to 2026-11-04 (${TIME_ZONE}), bots excluded, sid b2.\n` });
  });

  it("uses the console's default range without --since: the 30 days up to --until, or up to today", async () => {
    expect(await runReport(["buyers", "--until", "2026-11-05", "--format", "csv"], store.env)).toEqual({ code: 0, text: "buyer,pings,bids,avg_bid,wins,win_rate,returned,revenue\r\nbuyer-1,1,1,20.00,1,1.0000,0,20.00\r\n" });
    const today = new Intl.DateTimeFormat("en-CA", { timeZone: TIME_ZONE }).format(new Date());
    expect(await runReport(["buyers", "--sid", "zz"], store.env)).toEqual({ code: 0, text: `No pings or sales from ${addDays(today, -29)} to ${today} (${TIME_ZONE}), bots excluded, sid zz.\n` });
    expect((await runReport(["--sid", "zz"], store.env)).code).toBe(0);
    // With no arguments at all: the same report (before, the usage and exit 2).
    const bare = await runReport([], store.env);
    expect(bare.code).toBe(0);
    expect(bare.text).toContain(`Sub-id report, ${addDays(today, -29)} to ${today} (${TIME_ZONE}), by day,sid, bots excluded`);
    await expect(runReport(["buyers", "--until", "soon"], store.env)).rejects.toThrow("--until must be a date like 2026-11-01.");
  });

  it("exits 1 for a click id never seen", async () => {
    expect(await runReport(["tid", "nobody"], store.env)).toEqual({ code: 1, text: "No events with tid nobody.\n" });
  });

  it("runs as a script: the report on stdout, exit 0; a mistake on stderr, exit 2", () => {
    const script = (...argv: string[]) =>
      spawnSync(process.execPath, ["--import", "tsx", SCRIPT, ...argv], { cwd: projectRoot, env: { PATH: process.env.PATH, ...store.env }, encoding: "utf8", timeout: 30_000 });
    const done = script(...range, "--by", "sid", "--format", "csv");
    expect(done.stderr).toBe("");
    expect(done.status).toBe(0);
    expect(done.stdout.split("\r\n")[2]).toBe(",a1,1,1,0,1,0,1,0,1,0,20.00,8.00,12.00,1.0000,20.00,1,20.00,20.00");
    const mistake = script("--since", "2026-11-31");
    expect(mistake.status).toBe(2);
    expect(mistake.stderr).toBe("--since must be a date like 2026-11-01.\n");
    expect(mistake.stdout).toBe("");
  });
});
