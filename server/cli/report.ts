/**
 * The analysts' command (docs/analytics.md):
 *   npm run report -- --since 2026-11-01 [--until 2026-12-01] [--by day|sid|day,sid]
 *                     [--format table|csv|json] [--bots] [--sid SID]
 *   npm run report -- buyers [--since 2026-11-01] [--until …] [--format table|csv|json] [--bots] [--sid SID]
 *   npm run report -- screens [--since 2026-11-01] [--until …] [--format table|csv|json] [--bots] [--sid SID]
 * Without --since, each covers the console's default range: the 30 days up to --until (today included);
 * with no arguments at all, that is the sub-id report by day and sid, as the console opens it.
 *   npm run report -- tid CLK123 [--format table|json] [--limit N]
 *   npm run report -- experiment NAME [--by-sid] [--format table|csv|json]
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
import { experimentResults } from "../experiments/results";
import { loadSettings } from "../settings/store";
import { PRIMARY_METRIC_LABELS, type ComparisonResult, type EstimateResult, type ExperimentResults, type ResultGroup, type VariantResult } from "../../shared/experiment-results";

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
      one click's journey: every event of that tid, of its visit and of its lead, in order
  npm run report -- experiment NAME [--by-sid] [--format table|csv|json]
      an A/B experiment's results (NAME is its id): per variant, visitors, form starts, leads,
      sales, revenue less returns, net revenue per visitor with its interval and the difference
      to the control, the return rate (the guardrail), the SRM check and the verdict; with
      --by-sid, per source too`;

/** The options each command takes (anything else is a usage mistake). */
const COMMAND_OPTIONS = {
  report: ["since", "until", "by", "format", "bots", "sid"],
  buyers: ["since", "until", "format", "bots", "sid"],
  screens: ["since", "until", "format", "bots", "sid"],
  tid: ["format", "limit"],
  experiment: ["format", "by-sid"],
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

// ---- an experiment's results -------------------------------------------------------------

/** The CSV's columns: one line per variant (and per source with --by-sid, after the all-sources lines). */
export const EXPERIMENT_CSV_COLUMNS = [
  "sid", "variant", "control", "share", "visitors", "form_starts", "form_completions", "form_completion", "leads", "lead_visitors",
  "lead_rate", "lead_rate_low", "lead_rate_high", "sold_leads", "sales", "revenue", "returns", "returned_revenue", "net_revenue",
  "net_per_visitor", "net_per_visitor_low", "net_per_visitor_high", "net_diff", "net_diff_low", "net_diff_high", "net_diff_relative",
  "lead_rate_diff", "lead_rate_diff_low", "lead_rate_diff_high", "return_rate", "return_rate_diff", "return_rate_diff_low", "return_rate_diff_high",
  "guardrail", "verdict", "srm_p_value",
] as const;

/** A number to `places` decimals; empty when there is none (no visitors, an unbounded interval end). */
const fixed = (value: number | null | undefined, places: number) => (value === null || value === undefined ? "" : value.toFixed(places));
/** Per-visitor money and rates are small: four places (a tenth of a cent), as cr in the sub-id report. */
const PER_VISITOR_PLACES = 4;
const percentText = (value: number | null | undefined) => (value === null || value === undefined ? "–" : `${(value * 100).toFixed(1)}%`);
const signed = (text: string) => (text.startsWith("-") || text === "" ? text : `+${text}`);
const intervalText = (value: { low: number | null; high: number | null }, format: (value: number) => string) =>
  value.low === null || value.high === null ? "(unbounded)" : `[${format(value.low)}, ${format(value.high)}]`;

const VERDICT_WORDS = { better: "better", worse: "worse", no_difference_yet: "no difference yet" } as const;
const GUARDRAIL_WORDS = { ok: "ok", higher: "higher", worse: "WORSE" } as const;

/** The verdict as a table cell: the control has none; a failed SRM check hides it. */
function verdictText(group: ResultGroup, variant: VariantResult): string {
  if (variant.control) return "(control)";
  if (group.srmFailed) return "hidden: SRM";
  return variant.verdict === null ? "no visitors yet" : VERDICT_WORDS[variant.verdict];
}

function experimentCsvLine(group: ResultGroup, variant: VariantResult): string[] {
  const net = variant.vsControl?.netRevenuePerVisitor;
  const lead = variant.vsControl?.leadRate;
  const returns = variant.vsControl?.returnRate;
  return [
    group.sid ?? "(all)", variant.id, variant.control ? "yes" : "", String(variant.share), String(variant.visitors), String(variant.formStarts), String(variant.formCompletions),
    fixed(variant.formCompletion, 4), String(variant.leads), String(variant.leadVisitors),
    fixed(variant.leadRate?.mean, 4), fixed(variant.leadRate?.low, 4), fixed(variant.leadRate?.high, 4),
    String(variant.soldLeads), String(variant.sales), variant.revenue.toFixed(2), String(variant.returns), variant.returnedRevenue.toFixed(2), variant.netRevenue.toFixed(2),
    fixed(variant.netRevenuePerVisitor?.mean, PER_VISITOR_PLACES), fixed(variant.netRevenuePerVisitor?.low, PER_VISITOR_PLACES), fixed(variant.netRevenuePerVisitor?.high, PER_VISITOR_PLACES),
    fixed(net?.difference, PER_VISITOR_PLACES), fixed(net?.low, PER_VISITOR_PLACES), fixed(net?.high, PER_VISITOR_PLACES), fixed(net?.relative, 4),
    fixed(lead?.difference, 4), fixed(lead?.low, 4), fixed(lead?.high, 4),
    fixed(variant.returnRate, 4), fixed(returns?.difference, 4), fixed(returns?.low, 4), fixed(returns?.high, 4),
    variant.guardrail ?? "", variant.control ? "" : group.srmFailed ? "hidden" : (variant.verdict ?? ""), group.srmPValue.toPrecision(4),
  ];
}

const EXPERIMENT_TABLE_HEADER = ["variant", "visitors", "form_starts", "completion", "leads", "lead_rate", "sold", "revenue", "returns", "return_rate", "net_revenue", "net/visitor", "interval", "vs_control", "vs_interval", "lead_rate_vs", "guardrail", "verdict"];

function experimentTableLine(group: ResultGroup, variant: VariantResult): string[] {
  const money = (value: number) => value.toFixed(PER_VISITOR_PLACES);
  const net = variant.vsControl?.netRevenuePerVisitor;
  const lead = variant.vsControl?.leadRate;
  return [
    `${variant.id} (${variant.share}%)`,
    String(variant.visitors),
    String(variant.formStarts),
    percentText(variant.formCompletion),
    String(variant.leads),
    percentText(variant.leadRate?.mean),
    String(variant.soldLeads),
    variant.revenue.toFixed(2),
    String(variant.returns),
    percentText(variant.returnRate),
    variant.netRevenue.toFixed(2),
    variant.netRevenuePerVisitor ? money(variant.netRevenuePerVisitor.mean) : "–",
    variant.netRevenuePerVisitor ? intervalText(variant.netRevenuePerVisitor, money) : "",
    net ? signed(money(net.difference)) : "",
    net ? intervalText(net, (value) => signed(money(value))) : "",
    lead ? signed(`${(lead.difference * 100).toFixed(1)}pp`) : "",
    variant.guardrail === null ? "" : GUARDRAIL_WORDS[variant.guardrail],
    verdictText(group, variant),
  ];
}

/** The sentence under a table: what the verdict says per variant, or why there is none. */
function verdictLine(results: ExperimentResults, group: ResultGroup): string {
  const metric = PRIMARY_METRIC_LABELS[results.experiment.primaryMetric];
  if (group.srmFailed) return `Verdict (${metric}): hidden, the split failed the SRM check (below).`;
  const said = group.variants
    .filter((variant) => !variant.control)
    .map((variant) => {
      const comparison: ComparisonResult | undefined = results.experiment.primaryMetric === "lead_rate" ? variant.vsControl?.leadRate : variant.vsControl?.netRevenuePerVisitor;
      const relative = comparison?.relative === null || comparison?.relative === undefined ? "" : ` (${signed((comparison.relative * 100).toFixed(1))}%)`;
      return `${variant.id} ${variant.verdict === null ? "no visitors yet" : VERDICT_WORDS[variant.verdict]}${relative}`;
    });
  return `Verdict (${metric}, against ${group.variants[0]?.id ?? "the control"}): ${said.join("; ")}.`;
}

function srmLine(results: ExperimentResults, group: ResultGroup): string {
  const split = group.variants.map((variant) => `${variant.visitors}`).join(" / ");
  const designed = group.variants.map((variant) => `${variant.share}%`).join(" / ");
  return `SRM check: visitors ${split} against ${designed} designed, p = ${group.srmPValue.toPrecision(3)} (${group.srmFailed ? `FAILED: below ${results.srmThreshold}` : `fine: not below ${results.srmThreshold}`}).`;
}

const groupName = (sid: string | null) => (sid === null ? "All sources" : sid === "" ? "Source (none)" : `Source ${sid}`);

function estimateWords(estimate: EstimateResult | null): string {
  return estimate === null ? "–" : estimate.mean.toFixed(PER_VISITOR_PLACES);
}

export function formatExperiment(results: ExperimentResults, format: string): string {
  if (format === "json") return `${JSON.stringify(results, null, 2)}\n`;
  const groups = [results.all, ...(results.bySid ?? [])];
  if (format === "csv") return csv([[...EXPERIMENT_CSV_COLUMNS], ...groups.flatMap((group) => group.variants.map((variant) => experimentCsvLine(group, variant)))]);
  if (format !== "table") throw new UsageError(`Unknown format ${format}: use table, csv or json.`);
  const { experiment } = results;
  const window = `${experiment.status}, from ${experiment.startAt}${experiment.stopAt ? ` to ${experiment.stopAt}` : ""}`;
  const heading = `Experiment ${experiment.id}: ${experiment.name} (${window}); as of ${results.asOf}; primary metric: ${PRIMARY_METRIC_LABELS[experiment.primaryMetric]}`;
  const blocks = groups.map((group) => {
    const lines = group.variants.map((variant) => experimentTableLine(group, variant));
    const perVisitor = group.variants.map((variant) => `${variant.id} ${estimateWords(variant.netRevenuePerVisitor)}`).join(", ");
    return [
      `${groupName(group.sid)}: ${plural(group.visitors, "visitor", "visitors")} (net revenue per visitor: ${perVisitor})`,
      alignedTable(EXPERIMENT_TABLE_HEADER, lines, (column) => column === 0 || column >= 16),
      verdictLine(results, group),
      srmLine(results, group),
      ...group.warnings.map((warning) => `WARNING: ${warning}`),
    ].join("\n");
  });
  const unlisted = results.unlisted.length > 0 ? `\nLeft out: visitors of variants the experiment no longer lists (${results.unlisted.map((entry) => `${entry.variant}: ${entry.visitors}`).join(", ")}).` : "";
  return `${heading}\n\n${blocks.join("\n\n")}\n${unlisted}\nMethod: ${results.method}\n`;
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
      "by-sid": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  // No arguments: the report the console opens on (its default range), as the README promises.
  if (values.help) {
    out(`${USAGE}\n`);
    return 0;
  }
  const [first, ...operands] = positionals;
  if (first !== undefined && first !== "tid" && first !== "buyers" && first !== "screens" && first !== "experiment") throw new UsageError(`Unknown command ${first}.\n${USAGE}`);
  const command = first ?? "report";
  const allowed: readonly string[] = COMMAND_OPTIONS[command];
  for (const option of Object.keys(values)) {
    if (!allowed.includes(option)) {
      if (command === "experiment") throw new UsageError(`--${option} does not apply to an experiment's results (only --by-sid and --format).`);
      if (option === "by-sid") throw new UsageError("--by-sid applies only to an experiment's results (experiment NAME).");
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

  if (command === "experiment") return experimentCommand(operands, format, values["by-sid"] ?? false, out, env);

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

/** `experiment NAME`: the results of the experiment with that id; an unknown id lists the ids there are (exit 1). */
async function experimentCommand(operands: string[], format: string, bySid: boolean, out: (text: string) => void, env: NodeJS.ProcessEnv): Promise<number> {
  const [id, ...extra] = operands;
  if (id === undefined) throw new UsageError("Say which experiment: npm run report -- experiment NAME (its id).");
  if (extra.length > 0) throw new UsageError(`Unexpected ${extra.join(" ")} after the experiment's id.`);
  if (!["table", "csv", "json"].includes(format)) throw new UsageError(`Unknown format ${format}: use table, csv or json.`);
  const db = await openDatabase(loadConfig(env));
  try {
    await migrate(db);
    const { experiments } = await loadSettings(db.builder);
    const experiment = experiments.find((candidate) => candidate.id === id);
    if (!experiment) {
      const known = experiments.map((candidate) => candidate.id);
      // Not a usage mistake (exit 1, as an unknown tid): the id may be right and the store another.
      throw new Error(`No experiment ${id}. ${known.length === 0 ? "There are no experiments." : `The experiments: ${known.join(", ")}.`}`);
    }
    out(formatExperiment(await experimentResults(db, experiment, { bySid, now: new Date() }), format));
    return 0;
  } finally {
    await db.close();
  }
}

runAsScript(import.meta.url, run);
