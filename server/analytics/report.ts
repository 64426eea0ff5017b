/**
 * The sub-id report, its funnel and trend, and one click's journey: what `npm run report` prints
 * and the operations console draws. Rows come from the daily rollup (analytics_daily), never from
 * the raw events, so a 30-day report reads a few thousand rows however many millions of events
 * there are; docs/analytics.md defines every column and gives the same numbers as SQL.
 */
import { sql } from "kysely";
import type { Database } from "../db/database";
import type { BuyerReportRow, JourneyEvent, ReportGrouping, ReportRow } from "../../shared/analytics";
import type { TrendSeries } from "../../shared/admin-views";
import { addDays, daysBetween } from "./report-days";

export interface ReportQuery {
  /** First day, "YYYY-MM-DD" in the report time zone. */
  since: string;
  /** The day after the last one (exclusive), like `npm run leads -- export`. */
  until: string;
  by: ReportGrouping;
  /** Whether events flagged as bots count too (the rollup's bot rows). */
  includeBots: boolean;
  /** Only this source ("" for traffic without a sid). */
  sid?: string;
}

/** What the trend needs of a report query (its grouping does not matter: a trend is per day and sid). */
export type TrendQuery = Omit<ReportQuery, "by">;

/** The counters a report row adds up, as the rollup names them. */
const COUNTS = ["clicks", "uniqueClicks", "zipSubmits", "quoteViews", "formStarts", "leads", "duplicates", "sold", "returned", "bids"] as const;
type Count = (typeof COUNTS)[number];

/** Dollars as whole cents (the rollup's sums are exact decimals; this undoes binary fractions). */
const toCents = (dollars: number) => Math.round(dollars * 100);
const cents = (value: number) => toCents(value) / 100;

/**
 * `numerator / denominator` (integers) rounded to `places` decimals half away from zero, in
 * integer arithmetic, so it is exactly what PostgreSQL's round(numeric, places) gives for the SQL
 * in docs/analytics.md (binary floating point would round 1.005 down); 0 without a denominator.
 */
export function roundedRatio(numerator: number, denominator: number, places: number): number {
  if (denominator <= 0) return 0;
  const scale = 10 ** places;
  const scaled = Math.abs(numerator) * scale;
  let quotient = Math.floor(scaled / denominator);
  let remainder = scaled - quotient * denominator;
  // The division above is floating point: nudge it to the exact integer quotient.
  while (remainder < 0) [quotient, remainder] = [quotient - 1, remainder + denominator];
  while (remainder >= denominator) [quotient, remainder] = [quotient + 1, remainder - denominator];
  if (2 * remainder >= denominator) quotient += 1;
  return (Math.sign(numerator) * quotient) / scale || 0;
}

type Derived = "profit" | "cr" | "epc" | "avg_bid" | "revenue_per_lead";

/** A row's derived columns (profit, cr, epc, avg_bid, revenue_per_lead) from its sums, rounded as the report shows them. */
function withRatios(row: Omit<ReportRow, Derived>): ReportRow {
  const revenue = toCents(row.revenue);
  const payout = toCents(row.payout);
  const bidTotal = toCents(row.bid_total);
  return {
    ...row,
    revenue: revenue / 100,
    payout: payout / 100,
    profit: (revenue - payout) / 100,
    cr: roundedRatio(row.leads, row.unique_clicks, 4),
    // revenue in cents / clicks, to 2 places = dollars per click, to the cent.
    epc: roundedRatio(revenue, row.unique_clicks * 100, 2),
    bid_total: bidTotal / 100,
    avg_bid: roundedRatio(bidTotal, row.bids * 100, 2),
    revenue_per_lead: roundedRatio(revenue, row.leads * 100, 2),
  };
}

/** The rollup rows in range, with the bot and sid filters: the one WHERE of the report and the trend. */
function dailyInRange(db: Database, query: TrendQuery) {
  let select = db.builder
    .selectFrom("analyticsDaily")
    .where("day", ">=", query.since)
    .where("day", "<", query.until);
  if (!query.includeBots) select = select.where("bot", "=", false);
  if (query.sid !== undefined) select = select.where("sid", "=", query.sid);
  return select;
}

/** The sub-id report for [since, until): one row per day, per sid, or per day and sid, sorted by date then sid. */
export async function reportRows(db: Database, query: ReportQuery): Promise<ReportRow[]> {
  const byDay = query.by !== "sid";
  const bySid = query.by !== "day";
  const rows = await dailyInRange(db, query)
    .select((eb) => [
      byDay ? eb.ref("day").as("day") : sql<null>`NULL::date`.as("day"),
      bySid ? eb.ref("sid").as("sid") : sql<null>`NULL::text`.as("sid"),
      ...COUNTS.map((column) => eb.fn.sum<string | number>(column).as(column)),
      eb.fn.sum<string | number>("revenue").as("revenue"),
      eb.fn.sum<string | number>("payout").as("payout"),
      eb.fn.sum<string | number>("bidTotal").as("bidTotal"),
    ])
    .$if(byDay, (select) => select.groupBy("day").orderBy("day"))
    // Byte order: the same on every store and database locale ("B2" before "a1"), as JavaScript sorts.
    .$if(bySid, (select) => select.groupBy("sid").orderBy(sql`sid COLLATE "C"`))
    .execute();
  return rows.map((row) => {
    const count = (column: Count) => Number(row[column]);
    return withRatios({
      date: row.day,
      sid: row.sid,
      clicks: count("clicks"),
      unique_clicks: count("uniqueClicks"),
      zip_submits: count("zipSubmits"),
      quote_views: count("quoteViews"),
      form_starts: count("formStarts"),
      leads: count("leads"),
      duplicates: count("duplicates"),
      sold: count("sold"),
      returned: count("returned"),
      revenue: Number(row.revenue),
      payout: Number(row.payout),
      bids: count("bids"),
      bid_total: Number(row.bidTotal),
    });
  });
}

/** The rows added up (date and sid null), with the ratios of the sums (not the sum of the ratios). */
export function reportTotals(rows: readonly ReportRow[]): ReportRow {
  const sum = (column: keyof Omit<ReportRow, "date" | "sid" | Derived>) => rows.reduce((total, row) => total + row[column], 0);
  return withRatios({
    date: null,
    sid: null,
    clicks: sum("clicks"),
    unique_clicks: sum("unique_clicks"),
    zip_submits: sum("zip_submits"),
    quote_views: sum("quote_views"),
    form_starts: sum("form_starts"),
    leads: sum("leads"),
    duplicates: sum("duplicates"),
    sold: sum("sold"),
    returned: sum("returned"),
    revenue: sum("revenue"),
    payout: sum("payout"),
    bids: sum("bids"),
    bid_total: sum("bid_total"),
  });
}

/**
 * The per-buyer view for [since, until) (the sid and bot filters apply; grouping does not): each
 * buyer's pings, bids, average bid, wins, win rate, returns and revenue net of returns, from the
 * rollup (analytics_buyer_daily), best revenue first.
 */
export async function buyerRows(db: Database, query: TrendQuery): Promise<BuyerReportRow[]> {
  let select = db.builder.selectFrom("analyticsBuyerDaily").where("day", ">=", query.since).where("day", "<", query.until);
  if (!query.includeBots) select = select.where("bot", "=", false);
  if (query.sid !== undefined) select = select.where("sid", "=", query.sid);
  const rows = await select
    .select((eb) => [
      "buyer",
      eb.fn.sum<string | number>("pings").as("pings"),
      eb.fn.sum<string | number>("bids").as("bids"),
      eb.fn.sum<string | number>("bidTotal").as("bidTotal"),
      eb.fn.sum<string | number>("sold").as("sold"),
      eb.fn.sum<string | number>("returned").as("returned"),
      eb.fn.sum<string | number>("revenue").as("revenue"),
    ])
    .groupBy("buyer")
    .execute();
  return rows
    .map((row) => {
      const bids = Number(row.bids);
      const wins = Number(row.sold);
      return {
        buyer: row.buyer,
        pings: Number(row.pings),
        bids,
        avg_bid: roundedRatio(toCents(Number(row.bidTotal)), bids * 100, 2),
        wins,
        win_rate: bids > 0 ? roundedRatio(wins, bids, 4) : null,
        returned: Number(row.returned),
        revenue: cents(Number(row.revenue)),
      };
    })
    .sort((a, b) => b.revenue - a.revenue || (a.buyer < b.buyer ? -1 : a.buyer > b.buyer ? 1 : 0));
}

/** What a report without bots leaves out (issue 42, item 6): bots' clicks, leads and funnel events. */
export interface BotsLeftOut {
  clicks: number;
  leads: number;
  /** Clicks, ZIP submits, quote page views, form starts and leads together. */
  events: number;
}

/**
 * The bots' share of [since, until) (the sid filter applies): the rollup's bot rows, which the
 * report and the trend leave out unless asked. A page that shows "nothing" says what it hid.
 */
export async function botsLeftOut(db: Database, query: Omit<TrendQuery, "includeBots">): Promise<BotsLeftOut> {
  let select = db.builder.selectFrom("analyticsDaily").where("day", ">=", query.since).where("day", "<", query.until).where("bot", "=", true);
  if (query.sid !== undefined) select = select.where("sid", "=", query.sid);
  const row = await select
    .select((eb) => [
      eb.fn.sum<string | number | null>("clicks").as("clicks"),
      eb.fn.sum<string | number | null>("leads").as("leads"),
      eb.fn.sum<string | number | null>(sql`clicks + zip_submits + quote_views + form_starts + leads`).as("events"),
    ])
    .executeTakeFirst();
  return { clicks: Number(row?.clicks ?? 0), leads: Number(row?.leads ?? 0), events: Number(row?.events ?? 0) };
}

export interface FunnelStage {
  stage: string;
  count: number;
}

/** The funnel of a range, widest first: clicks → unique clicks → ZIP → quote page → form started → leads → sold. */
export function funnel(totals: ReportRow): FunnelStage[] {
  return [
    { stage: "Clicks", count: totals.clicks },
    { stage: "Unique clicks", count: totals.unique_clicks },
    { stage: "ZIP submits", count: totals.zip_submits },
    { stage: "Quote page views", count: totals.quote_views },
    { stage: "Form starts", count: totals.form_starts },
    { stage: "Leads", count: totals.leads },
    { stage: "Sold", count: totals.sold },
  ];
}

/**
 * Clicks, leads and net revenue per day for each sid with traffic in range (series by sid, every
 * day of the range present, zeros included, so a chart's lines share one axis and gaps show as 0).
 */
export async function trend(db: Database, query: TrendQuery): Promise<TrendSeries[]> {
  const rows = await dailyInRange(db, query)
    .select((eb) => ["day", "sid", eb.fn.sum<string | number>("clicks").as("clicks"), eb.fn.sum<string | number>("leads").as("leads"), eb.fn.sum<string | number>("revenue").as("revenue")])
    .groupBy(["sid", "day"])
    .orderBy(sql`sid COLLATE "C"`)
    .orderBy("day")
    .execute();
  const days = Array.from({ length: Math.max(0, daysBetween(query.since, query.until)) }, (_, index) => addDays(query.since, index));
  const bySid = new Map<string, Map<string, { clicks: number; leads: number; revenue: number }>>();
  for (const row of rows) {
    const series = bySid.get(row.sid) ?? new Map();
    series.set(row.day, { clicks: Number(row.clicks), leads: Number(row.leads), revenue: cents(Number(row.revenue)) });
    bySid.set(row.sid, series);
  }
  return [...bySid].map(([sid, points]) => ({
    sid,
    points: days.map((date) => ({ date, ...(points.get(date) ?? { clicks: 0, leads: 0, revenue: 0 }) })),
  }));
}

/**
 * One click's journey: every event with this tid, plus the events of the same visit(s) (a page
 * view that came before the tid was known, say) and of the leads those events name (deliveries,
 * returns and postbacks may carry only the lead's reference), once each, in the order they
 * happened. At most `limit` events (the first ones).
 *
 * The three sets are gathered by id with UNION, so each uses its own index (tid, visit_id,
 * lead_reference) instead of one OR that PostgreSQL could only answer by scanning every event.
 */
export async function journey(db: Database, tid: string, limit = 1000): Promise<JourneyEvent[]> {
  const events = db.builder.selectFrom("analyticsEvents");
  const visits = events.select("visitId").where("tid", "=", tid).where("visitId", "is not", null);
  const references = events
    .select("leadReference")
    .where("tid", "=", tid)
    .where("leadReference", "is not", null)
    .union(events.select("leadReference").where("visitId", "in", visits).where("leadReference", "is not", null));
  const ids = events
    .select("id")
    .where("tid", "=", tid)
    .union(events.select("id").where("visitId", "in", visits))
    .union(events.select("id").where("leadReference", "in", references));
  const rows = await events
    .selectAll()
    .where("id", "in", ids)
    .orderBy("occurredAt")
    .orderBy("id")
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    at: row.occurredAt.toISOString(),
    name: row.name,
    sid: row.sid,
    tid: row.tid,
    visitId: row.visitId,
    bot: row.bot,
    gpc: row.gpc,
    path: row.path,
    step: row.step,
    leadReference: row.leadReference,
    target: row.target,
    detail: row.detail,
    revenue: row.revenue === null ? null : Number(row.revenue),
    payout: row.payout === null ? null : Number(row.payout),
    bid: row.bid === null ? null : Number(row.bid),
  }));
}
