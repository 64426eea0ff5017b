/**
 * The analysts' command (docs/analytics.md):
 *   npm run report -- --since 2026-11-01 [--until 2026-12-01] [--by day|sid|day,sid]
 *                     [--format table|csv|json] [--bots] [--sid SID]
 *   npm run report -- buyers [--since 2026-11-01] [--until …] [--format table|csv|json] [--bots] [--sid SID]
 *   npm run report -- screens [--since 2026-11-01] [--until …] [--format table|csv|json] [--bots] [--sid SID]
 * Without --since, each covers the console's default range: the 30 days up to --until (today included);
 * with no arguments at all, that is the sub-id report by day and sid, as the console opens it.
 *   npm run report -- tid CLK123 [--format table|json] [--limit N]
 * Same configuration as the server (DATABASE_URL, or the embedded store in DATA_DIR, through the
 * running server's database process when there is one, decision 033; REPORT_TIME_ZONE for the days).
 * Nothing it prints is personal: campaign ids, visit ids, lead references, counts and money.
 */
import { parseArgs } from "node:util";
import { loadConfig } from "../config";
import { openDatabase } from "../db/database";
import { migrate } from "../db/migrate";
import { buyerRows, journey, reportRows, reportTotals, type ReportQuery } from "../analytics/report";
import { addDays, isDay } from "../analytics/report-days";
import { DEFAULT_DAYS } from "../admin/report-query";
import { dayIn } from "../../shared/formatters";
import { isReportGrouping, reportQueryErrors } from "../analytics/report-query";
import { campaignIdSchema } from "../../shared/campaign";
import { BUYER_REPORT_COLUMNS, REPORT_COLUMNS, REPORT_GROUPINGS, REQUEST_STORED, SCREEN_FUNNEL_COLUMNS, type BuyerReportRow, type JourneyEvent, type ReportRow, type ScreenFunnel } from "../../shared/analytics";
import { screenFunnels } from "../analytics/screen-funnel";
import { csv, runAsScript, UsageError } from "./common";

const USAGE = `Usage:
  npm run report                      the sub-id report of the last ${DEFAULT_DAYS} days (today included), in REPORT_TIME_ZONE
  npm run report -- [--since YYYY-MM-DD] [--until YYYY-MM-DD] [--by ${REPORT_GROUPINGS.join("|")}]
                    [--format table|csv|json] [--bots] [--sid SID]
      the sub-id report for the days [since, until) in REPORT_TIME_ZONE (until defaults to
      tomorrow, so today is in; since to ${DEFAULT_DAYS} days before until, as the console's report);
      by day and sid unless --by says otherwise; bots excluded unless --bots; only one source
      with --sid ("" for traffic without a sid)
  npm run report -- buyers [--since YYYY-MM-DD] [--until YYYY-MM-DD] [--format table|csv|json]
                    [--bots] [--sid SID]
      the per-buyer view of the same days and filters: pings, bids, average bid, wins,
      win rate (wins / bids), returns and revenue net of returns, best revenue first
  npm run report -- screens [--since YYYY-MM-DD] [--until YYYY-MM-DD] [--format table|csv|json]
                    [--bots] [--sid SID]
      where visitors leave the quote form: per question screen, the visits that reached it,
      answered it and left there, for all sources and then per source
  npm run report -- tid CLICK_ID [--format table|json] [--limit N]
      one click's journey: every event of that tid, of its visit and of its lead, in order`;

/** The options each command takes (anything else is a usage mistake). */
const COMMAND_OPTIONS = {
  report: ["since", "until", "by", "format", "bots", "sid"],
  buyers: ["since", "until", "format", "bots", "sid"],
  screens: ["since", "until", "format", "bots", "sid"],
  tid: ["format", "limit"],
} as const;

const JOURNEY_LIMIT_DEFAULT = 1_000;
const JOURNEY_LIMIT_MAX = 100_000;

// ---- the sub-id report -------------------------------------------------------------------

/** How each column is written in the table and the CSV: money in cents, cr to 4 places. */
function columnText(row: ReportRow, column: (typeof REPORT_COLUMNS)[number]): string {
  const value = row[column];
  if (value === null) return "";
  if (column === "revenue" || column === "payout" || column === "profit" || column === "epc" || column === "avg_bid" || column === "revenue_per_lead") return (value as number).toFixed(2);
  if (column === "cr") return (value as number).toFixed(4);
  return String(value);
}

/** Text columns line up on the left, numbers on the right (so digits of the same place align). */
const LEFT_ALIGNED = new Set<string>(["date", "sid"]);

function alignedTable(header: readonly string[], lines: string[][], left: (column: number) => boolean): string {
  const all = [[...header], ...lines];
  const widths = header.map((_, column) => Math.max(...all.map((line) => line[column]!.length)));
  return all
    .map((line) => line.map((text, column) => (left(column) ? text.padEnd(widths[column]!) : text.padStart(widths[column]!))).join("  ").trimEnd())
    .join("\n");
}

/** A table's heading words: the days it covers, in which time zone, and its filters. */
function describe(query: ReportQuery & { timeZone: string }): { range: string; filters: string } {
  return {
    range: `${query.since} to ${addDays(query.until, -1)} (${query.timeZone})`,
    filters: `${query.includeBots ? "bots included" : "bots excluded"}${query.sid === undefined ? "" : `, sid ${query.sid === "" ? "(none)" : query.sid}`}`,
  };
}

export function formatReport(rows: ReportRow[], format: string, query: ReportQuery & { timeZone: string }): string {
  const totals = reportTotals(rows);
  if (format === "json") {
    const { since, until, by, includeBots, sid, timeZone } = query;
    return `${JSON.stringify({ since, until, by, bots: includeBots, ...(sid === undefined ? {} : { sid }), timeZone, rows, totals }, null, 2)}\n`;
  }
  if (format === "csv") return csv([[...REPORT_COLUMNS], ...rows.map((row) => REPORT_COLUMNS.map((column) => columnText(row, column)))]);
  if (format !== "table") throw new UsageError(`Unknown format ${format}: use table, csv or json.`);
  const { range, filters } = describe(query);
  if (rows.length === 0) return `No traffic from ${range}, ${filters}.\n`;
  // A table is for people: traffic without a sid is named, and the totals close it.
  const lines = rows.map((row) => REPORT_COLUMNS.map((column) => (column === "sid" && row.sid === "" ? "(none)" : columnText(row, column))));
  const total = REPORT_COLUMNS.map((column, index) => (index === 0 ? "total" : columnText(totals, column)));
  return `Sub-id report, ${range}, by ${query.by}, ${filters}\n\n${alignedTable(REPORT_COLUMNS, [...lines, total], (column) => LEFT_ALIGNED.has(REPORT_COLUMNS[column]!))}\n`;
}

// ---- the per-buyer view ------------------------------------------------------------------

function buyerText(row: BuyerReportRow, column: (typeof BUYER_REPORT_COLUMNS)[number]): string {
  const value = row[column];
  if (value === null) return "";
  if (column === "avg_bid" || column === "revenue") return (value as number).toFixed(2);
  if (column === "win_rate") return (value as number).toFixed(4);
  return String(value);
}

export function formatBuyers(rows: BuyerReportRow[], format: string, query: ReportQuery & { timeZone: string }): string {
  if (format === "json") {
    const { since, until, includeBots, sid, timeZone } = query;
    return `${JSON.stringify({ since, until, bots: includeBots, ...(sid === undefined ? {} : { sid }), timeZone, buyers: rows }, null, 2)}\n`;
  }
  if (format === "csv") return csv([[...BUYER_REPORT_COLUMNS], ...rows.map((row) => BUYER_REPORT_COLUMNS.map((column) => buyerText(row, column)))]);
  if (format !== "table") throw new UsageError(`Unknown format ${format}: use table, csv or json.`);
  const { range, filters } = describe(query);
  if (rows.length === 0) return `No pings or sales from ${range}, ${filters}.\n`;
  const lines = rows.map((row) => BUYER_REPORT_COLUMNS.map((column) => buyerText(row, column)));
  return `Buyers, ${range}, ${filters}\n\n${alignedTable(BUYER_REPORT_COLUMNS, lines, (column) => column === 0)}\n`;
}

// ---- where visitors leave the form ------------------------------------------------------

const sourceName = (sid: string | null) => (sid === null ? "All sources" : sid === "" ? "Source (none)" : `Source ${sid}`);
const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

export function formatScreens(funnels: ScreenFunnel[], format: string, query: ReportQuery & { timeZone: string }): string {
  if (format === "json") {
    const { since, until, includeBots, sid, timeZone } = query;
    return `${JSON.stringify({ since, until, bots: includeBots, ...(sid === undefined ? {} : { sid }), timeZone, funnels }, null, 2)}\n`;
  }
  // The CSV is per source only, like the report's (no total line: sum it yourself).
  const sources = funnels.filter((funnel) => funnel.sid !== null);
  if (format === "csv") {
    return csv([
      [...SCREEN_FUNNEL_COLUMNS],
      ...sources.flatMap((funnel) => funnel.screens.map((row) => [funnel.sid ?? "", String(row.position), row.screen, String(row.reached), String(row.answered), String(row.left), row.left_rate.toFixed(4)])),
    ]);
  }
  if (format !== "table") throw new UsageError(`Unknown format ${format}: use table, csv or json.`);
  const { range, filters } = describe(query);
  if (sources.length === 0) return `No quote form traffic from ${range}, ${filters}.\n`;
  // With one source the total would repeat it.
  const shown = sources.length === 1 ? sources : funnels;
  const blocks = shown.map((funnel) => {
    const earlier = funnel.earlier > 0 ? `; ${plural(funnel.earlier, "visit", "visits")} on an earlier form left out` : "";
    const heading = `${sourceName(funnel.sid)}: ${plural(funnel.visits, "visit", "visits")} in the form, ${plural(funnel.leads, "request", "requests")} stored${earlier}`;
    const lines = funnel.screens.map((row) => [row.screen, String(row.reached), String(row.answered), String(row.left), row.left_rate.toFixed(4)]);
    return `${heading}\n${alignedTable(["screen", "reached", "answered", "left", "left_rate"], lines, (column) => column === 0)}`;
  });
  return `Where visitors leave the form, ${range}, ${filters} (the last line, ${REQUEST_STORED}, is the request itself)\n\n${blocks.join("\n\n")}\n`;
}

// ---- one click's journey -----------------------------------------------------------------

/** "2026-11-23 13:40:05.120" (UTC): milliseconds matter here (a form filled in under a second). */
const preciseTime = (iso: string) => iso.slice(0, 23).replace("T", " ");
const money = (value: number | null) => (value === null ? "" : value.toFixed(2));

/**
 * Text that came from outside (a path, a reason) as one harmless table cell: control characters
 * (line breaks, terminal escape sequences) become spaces, and it is cut short.
 */
function cell(text: string | null, max = 40): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
  const flat = (text ?? "").replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

const JOURNEY_HEADER = ["AT (UTC)", "EVENT", "SID", "TID", "VISIT", "BOT", "GPC", "LEAD", "STEP", "TARGET", "DETAIL", "PATH", "REVENUE", "PAYOUT", "BID"];
/** The columns written on the right: step and money. */
const JOURNEY_NUMBERS = new Set([8, 12, 13, 14]);

export function formatJourney(tid: string, events: JourneyEvent[], format: string, limit: number): string {
  if (format === "json") return `${JSON.stringify(events, null, 2)}\n`;
  if (format !== "table") throw new UsageError(`Unknown format ${format}: use table or json.`);
  if (events.length === 0) return `No events with tid ${tid}.\n`;
  const lines = events.map((event) => [
    preciseTime(event.at),
    event.name,
    cell(event.sid),
    cell(event.tid),
    cell(event.visitId),
    event.bot ? "yes" : "",
    event.gpc ? "yes" : "",
    cell(event.leadReference),
    event.step === null ? "" : String(event.step),
    cell(event.target),
    cell(event.detail),
    cell(event.path),
    money(event.revenue),
    money(event.payout),
    money(event.bid),
  ]);
  const more = events.length === limit ? ` (the first ${limit}: raise --limit for more)` : "";
  return `Journey of tid ${tid}: ${events.length} ${events.length === 1 ? "event" : "events"}${more}\n\n${alignedTable(JOURNEY_HEADER, lines, (column) => !JOURNEY_NUMBERS.has(column))}\n`;
}

// ---- the command -------------------------------------------------------------------------

function journeyLimit(value: string | undefined): number {
  if (value === undefined) return JOURNEY_LIMIT_DEFAULT;
  const limit = Number(value);
  if (!/^\d+$/.test(value) || limit < 1 || limit > JOURNEY_LIMIT_MAX) throw new UsageError(`--limit must be a whole number from 1 to ${JOURNEY_LIMIT_MAX}.`);
  return limit;
}

type ReportOptions = { since?: string; until?: string; by?: string; bots?: boolean; sid?: string };

/**
 * A report's query from its options. `today` (the report time zone's day, from the configuration)
 * is only needed for the default --until; without it, everything else is checked.
 */
function reportQuery(values: ReportOptions, today?: string): ReportQuery {
  // Without --since, the console's default range: the 30 days before --until (tomorrow unless given,
  // so today is in). Until today is known, a fixed valid range stands in: it is checked again with it.
  if (values.since === undefined) {
    if (values.until !== undefined && !isDay(values.until)) throw new UsageError(`--until must be a date like 2026-11-01.`);
    const end = values.until ?? (today === undefined ? "2000-01-31" : addDays(today, 1));
    return reportQuery({ ...values, since: addDays(end, -DEFAULT_DAYS), until: end }, today);
  }
  // Until a default is known, a day after since stands in for it: the range is checked again with it.
  const until = values.until ?? (today === undefined ? addDays(values.since, 1) : addDays(today, 1));
  const by = values.by ?? "day,sid";
  const errors = reportQueryErrors({ since: values.since, until, by, sid: values.sid }).map((error) => error.replace(/^(since|until|by|sid) /, "--$1 ").replace("after since", "after --since"));
  if (values.until === undefined && today !== undefined && errors.some((error) => error.startsWith("--until must be after"))) {
    throw new UsageError(`--since ${values.since} is after today (${today} in the report time zone): say --until too.`);
  }
  if (errors.length > 0) throw new UsageError(errors.join("\n"));
  if (!isReportGrouping(by)) throw new UsageError(`--by must be one of ${REPORT_GROUPINGS.join(", ")}.`);
  return { since: values.since, until, by, includeBots: values.bots ?? false, ...(values.sid === undefined ? {} : { sid: values.sid }) };
}

/** The click id of `tid CLICK_ID`, checked. */
function clickId(operands: string[]): string {
  const [tid, ...extra] = operands;
  if (tid === undefined) throw new UsageError("Say which click: npm run report -- tid CLICK_ID.");
  if (extra.length > 0) throw new UsageError(`Unexpected ${extra.join(" ")} after the click id.`);
  if (!campaignIdSchema.safeParse(tid).success) throw new UsageError(`${tid} is not a click id: 1–64 letters, digits or - _ . ~.`);
  return tid;
}

export async function run(argv: string[], out: (text: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      since: { type: "string" },
      until: { type: "string" },
      by: { type: "string" },
      format: { type: "string" },
      bots: { type: "boolean" },
      sid: { type: "string" },
      limit: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  // No arguments: the report the console opens on (its default range), as the README promises.
  if (values.help) {
    out(`${USAGE}\n`);
    return 0;
  }
  const [first, ...operands] = positionals;
  if (first !== undefined && first !== "tid" && first !== "buyers" && first !== "screens") throw new UsageError(`Unknown command ${first}.\n${USAGE}`);
  const command = first ?? "report";
  const allowed: readonly string[] = COMMAND_OPTIONS[command];
  for (const option of Object.keys(values)) {
    if (!allowed.includes(option)) {
      throw new UsageError(command === "tid" ? `--${option} does not apply to a journey.` : option === "by" ? `--by does not apply to the ${command === "buyers" ? "per-buyer view" : "screens view (it is per source)"}.` : `--${option} applies only to a journey (tid CLICK_ID).`);
    }
  }
  const format = values.format ?? "table";

  // Every mistake in the command line is found before the configuration is read or a store opened.
  if (command === "tid") {
    const tid = clickId(operands);
    if (!["table", "json"].includes(format)) throw new UsageError(`Unknown format ${format}: use table or json.`);
    const limit = journeyLimit(values.limit);
    const db = await openDatabase(loadConfig(env));
    try {
      await migrate(db);
      const events = await journey(db, tid, limit);
      out(formatJourney(tid, events, format, limit));
      // Like grep: nothing found is exit 1, so a script can tell.
      return events.length > 0 ? 0 : 1;
    } finally {
      await db.close();
    }
  }

  if (operands.length > 0) throw new UsageError(`Unexpected ${operands.join(" ")}.`);
  if (!["table", "csv", "json"].includes(format)) throw new UsageError(`Unknown format ${format}: use table, csv or json.`);
  reportQuery(values);
  const config = loadConfig(env);
  const timeZone = config.REPORT_TIME_ZONE;
  const query = reportQuery(values, dayIn(new Date(), timeZone));
  const db = await openDatabase(config);
  try {
    await migrate(db);
    const described = { ...query, timeZone };
    if (command === "buyers") out(formatBuyers(await buyerRows(db, query), format, described));
    else if (command === "screens") out(formatScreens(await screenFunnels(db, query), format, described));
    else out(formatReport(await reportRows(db, query), format, described));
    return 0;
  } finally {
    await db.close();
  }
}

runAsScript(import.meta.url, run);
