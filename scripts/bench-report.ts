/**
 * `npm run bench:report`: does the sub-id report stay fast as events pile up? Loads 5,000,000
 * funnel events into a throwaway PostgreSQL and 500,000 into the embedded store, through the real
 * write path (insertEvents: the events and the daily rollup in one statement, in big batches),
 * then times the report for 30 days by sid and by day and sid (several runs: median and max) and
 * one click's journey, and checks the rollup against the raw events with the SQL analysts are
 * given in docs/analytics.md (timed too: what the report would cost without the rollup).
 * Target: the 30-day report under 2 s on PostgreSQL. Prints a table; writes
 * bench-results/report.json.
 *
 *   npm run bench:report [-- --events 5000000] [--embedded-events 500000] [--runs 7] [--batch 10000]
 *                        [--skip-postgres] [--skip-embedded]
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { openDatabase, type Database, type DatabaseOptions } from "../server/db/database";
import { migrate } from "../server/db/migrate";
import { insertEvents } from "../server/analytics/store";
import { journey, reportRows, type ReportQuery } from "../server/analytics/report";
import { addDays } from "../server/analytics/report-days";
import type { ReportRow } from "../shared/analytics";
import { createTestDatabase, provideAdminUrl } from "../tools/postgres";
import { projectRoot } from "../tools/production-server";
import { generateTraffic } from "./lib/bench-report-events";

const TIME_ZONE = "America/New_York";
const START_DAY = "2026-09-01";
const DAYS = 60;
const SIDS = 50;
/** The last 30 full days of the window. */
const REPORT_RANGE = { since: addDays(START_DAY, DAYS - 30), until: addDays(START_DAY, DAYS) };
const TARGET_MS = 2_000;

const log = (message: string) => process.stderr.write(`[bench:report] ${message}\n`);

interface Timing {
  medianMs: number;
  maxMs: number;
  runs: number;
}

interface StoreResult {
  store: Database["kind"];
  events: number;
  loadSeconds: number;
  eventsPerSecond: number;
  rollupRows: number;
  reportBySid: Timing & { rows: number };
  reportByDaySid: Timing & { rows: number };
  journey: Timing & { tid: string; events: number };
  rawEventsSql: { ms: number; rows: number; matchesRollup: boolean };
}

const round = (ms: number) => Math.round(ms * 10) / 10;

async function timed<T>(work: () => Promise<T>, runs: number): Promise<{ timing: Timing; result: T }> {
  const durations: number[] = [];
  let result!: T;
  for (let run = 0; run < runs; run += 1) {
    const started = performance.now();
    result = await work();
    durations.push(performance.now() - started);
  }
  const sorted = [...durations].sort((a, b) => a - b);
  return { timing: { medianMs: round(sorted[Math.floor(sorted.length / 2)]!), maxMs: round(sorted.at(-1)!), runs }, result };
}

/** Writes the batches with insertEvents, making the next batch while the database stores this one. */
async function load(db: Database, events: number, batchSize: number): Promise<{ seconds: number; journeyTid: string }> {
  const traffic = generateTraffic({ events, start: new Date(`${START_DAY}T05:00:00Z`), days: DAYS, sids: SIDS, batchSize });
  const started = performance.now();
  let written = 0;
  let lastLog = started;
  let pending: Promise<void> = Promise.resolve();
  for (const batch of traffic.batches) {
    await pending;
    pending = insertEvents(db, batch, TIME_ZONE);
    written += batch.length;
    if (performance.now() - lastLog > 10_000) {
      lastLog = performance.now();
      log(`  ${written.toLocaleString("en-US")} events (${Math.round(written / ((lastLog - started) / 1_000)).toLocaleString("en-US")}/s)`);
    }
  }
  await pending;
  const journeyTid = traffic.journeyTid();
  if (!journeyTid) throw new Error("The traffic had no sold lead with a click id to follow.");
  return { seconds: (performance.now() - started) / 1_000, journeyTid };
}

/** The docs' raw-events SQL for the report range, so the benchmark checks what analysts are told. */
async function rawEventsSql(): Promise<string> {
  const docs = await readFile(path.join(projectRoot, "docs", "analytics.md"), "utf8");
  const block = [...docs.matchAll(/```sql\n([\s\S]*?)```/g)].map((match) => match[1]!).find((text) => text.startsWith("-- report by day and sid, from the raw events\n"));
  if (!block) throw new Error("docs/analytics.md has no SQL block for the report from the raw events.");
  return block.replace("'2026-11-01'", `'${REPORT_RANGE.since}'`).replace("'2026-12-01'", `'${REPORT_RANGE.until}'`);
}

function sameRows(raw: Record<string, unknown>[], rows: ReportRow[]): boolean {
  if (raw.length !== rows.length) return false;
  return raw.every((line, index) => {
    const row = rows[index]!;
    return Object.entries(row).every(([column, value]) => (column === "date" ? line.date === value : column === "sid" ? line.sid === value : Number(line[column]) === value));
  });
}

async function benchStore(kind: Database["kind"], location: DatabaseOptions, events: number, batchSize: number, runs: number): Promise<StoreResult> {
  const db = await openDatabase(location);
  try {
    await migrate(db);
    log(`${kind}: loading ${events.toLocaleString("en-US")} events through insertEvents, ${batchSize.toLocaleString("en-US")} a statement…`);
    const loaded = await load(db, events, batchSize);
    // Fresh planner statistics, as autovacuum would have by the time anyone reads a report.
    await db.query("ANALYZE");
    const rollupRows = Number((await db.query<{ n: string }>("SELECT count(*) AS n FROM analytics_daily")).rows[0]!.n);
    const query = (by: ReportQuery["by"]): ReportQuery => ({ ...REPORT_RANGE, by, includeBots: false });
    log(`${kind}: timing the 30-day report (${REPORT_RANGE.since} to ${REPORT_RANGE.until}), ${runs} runs each…`);
    const bySid = await timed(() => reportRows(db, query("sid")), runs);
    const byDaySid = await timed(() => reportRows(db, query("day,sid")), runs);
    const trail = await timed(() => journey(db, loaded.journeyTid), runs);
    log(`${kind}: the same report from the raw events (docs/analytics.md)…`);
    const sql = await rawEventsSql();
    const rawStarted = performance.now();
    const raw = await db.query(sql);
    const rawMs = performance.now() - rawStarted;
    return {
      store: kind,
      events,
      loadSeconds: Math.round(loaded.seconds * 10) / 10,
      eventsPerSecond: Math.round(events / loaded.seconds),
      rollupRows,
      reportBySid: { ...bySid.timing, rows: bySid.result.length },
      reportByDaySid: { ...byDaySid.timing, rows: byDaySid.result.length },
      journey: { ...trail.timing, tid: loaded.journeyTid, events: trail.result.length },
      rawEventsSql: { ms: round(rawMs), rows: raw.rows.length, matchesRollup: sameRows(raw.rows, byDaySid.result) },
    };
  } finally {
    await db.close();
  }
}

function printTable(results: StoreResult[]): void {
  const lines = [
    ["store", "events", "load", "events/s", "by sid (median / max)", "by day,sid (median / max)", "journey (median)", "raw-events SQL", "raw = rollup"],
    ...results.map((r) => [
      r.store,
      r.events.toLocaleString("en-US"),
      `${r.loadSeconds} s`,
      r.eventsPerSecond.toLocaleString("en-US"),
      `${r.reportBySid.medianMs} / ${r.reportBySid.maxMs} ms`,
      `${r.reportByDaySid.medianMs} / ${r.reportByDaySid.maxMs} ms`,
      `${r.journey.medianMs} ms (${r.journey.events} events)`,
      `${r.rawEventsSql.ms} ms`,
      r.rawEventsSql.matchesRollup ? "yes" : "NO",
    ]),
  ];
  const widths = lines[0]!.map((_, column) => Math.max(...lines.map((line) => line[column]!.length)));
  process.stdout.write(`${lines.map((line) => line.map((text, column) => text.padEnd(widths[column]!)).join("  ").trimEnd()).join("\n")}\n`);
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      events: { type: "string", default: "5000000" },
      "embedded-events": { type: "string", default: "500000" },
      runs: { type: "string", default: "7" },
      batch: { type: "string", default: "10000" },
      "skip-postgres": { type: "boolean" },
      "skip-embedded": { type: "boolean" },
    },
  });
  const count = (name: string, value: string) => {
    const number = Number(value);
    if (!Number.isInteger(number) || number < 1) throw new Error(`--${name} must be a positive whole number.`);
    return number;
  };
  const events = count("events", values.events);
  const embeddedEvents = count("embedded-events", values["embedded-events"]);
  const runs = count("runs", values.runs);
  const batch = count("batch", values.batch);
  const startedAt = new Date();
  const results: StoreResult[] = [];

  if (!values["skip-embedded"]) {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "bench-report-"));
    try {
      results.push(await benchStore("embedded", { DATA_DIR: dataDir }, embeddedEvents, batch, runs));
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }
  if (!values["skip-postgres"]) {
    log("postgres: starting PostgreSQL (TEST_DATABASE_URL, or a throwaway cluster)…");
    const admin = await provideAdminUrl();
    try {
      const database = await createTestDatabase(admin.url);
      try {
        results.push(await benchStore("postgres", { DATABASE_URL: database.url, DATA_DIR: "unused" }, events, batch, runs));
      } finally {
        await database.drop();
      }
    } finally {
      await admin.stop();
    }
  }

  printTable(results);
  const postgres = results.find((result) => result.store === "postgres");
  const verdict = postgres ? (postgres.reportBySid.maxMs < TARGET_MS && postgres.reportByDaySid.maxMs < TARGET_MS ? "PASS" : "MISS") : "not measured";
  process.stdout.write(`\n30-day report on PostgreSQL under ${TARGET_MS / 1_000} s: ${verdict}\n`);
  const file = path.join(projectRoot, "bench-results", "report.json");
  await mkdir(path.dirname(file), { recursive: true });
  const environment = { node: process.version, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? "unknown", totalMemoryMiB: Math.round(os.totalmem() / 1024 / 1024) };
  const settings = { timeZone: TIME_ZONE, window: { since: START_DAY, days: DAYS }, sids: SIDS, reportRange: REPORT_RANGE, batch, runs, targetMs: TARGET_MS };
  await writeFile(file, `${JSON.stringify({ startedAt: startedAt.toISOString(), finishedAt: new Date().toISOString(), environment, settings, results, verdict }, null, 2)}\n`);
  log(`results written to ${path.relative(projectRoot, file)}`);
  // A report, not a test: a miss is in the output; only a broken benchmark exits 1.
  return results.every((result) => result.rawEventsSql.matchesRollup) ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`[bench:report] FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
