/**
 * Writing funnel events: one statement stores a batch in analytics_events AND counts it into the
 * daily rollup (analytics_daily, analytics_click_keys), so the report never disagrees with the
 * events it is made of and a 30-day report reads a few thousand rollup rows, not millions of
 * events (docs/analytics.md). Events of a lead (sales, returns, postbacks) may carry only its
 * reference: its sid, tid and visit id are taken from the lead in the same statement. A lead's
 * source payout is counted once, at its first sale (analytics_paid_leads). Pings, bids, sales and
 * returns are also counted per buyer (analytics_buyer_daily: the report's per-buyer view).
 */
import { sql } from "kysely";
import type { Database } from "../db/database";
import type { AnalyticsEventName } from "../../shared/analytics";

export interface EventInput {
  name: AnalyticsEventName;
  /** When it happened; now when omitted. */
  at?: Date;
  sid?: string | null;
  tid?: string | null;
  visitId?: string | null;
  /** The experiments' visitor id (the qr_vis cookie, migration 24): how results reach a visitor's variant. */
  visitorId?: string | null;
  bot?: boolean;
  gpc?: boolean;
  path?: string | null;
  step?: number | null;
  leadReference?: string | null;
  /** A buyer's id, or a source's sid for a postback. */
  target?: string | null;
  /** An outcome or reason: a short code, never personal details. */
  detail?: string | null;
  /** US dollars: a sale's price (lead_sold) or the price reversed (lead_returned). */
  revenue?: number | null;
  /** US dollars owed to the traffic source for a sale, or reversed by a return. */
  payout?: number | null;
  /** US dollars: a buyer's bid (buyer_pinged). */
  bid?: number | null;
}

/** Longest value kept for free-text fields (paths, details): they are labels, not documents. */
const TEXT_LIMIT = 200;

const cut = (value: string | null | undefined): string | null => (value ? value.slice(0, TEXT_LIMIT) : null);
const money = (value: number | null | undefined): string | null => (value === null || value === undefined || !Number.isFinite(value) ? null : value.toFixed(2));

/** The rollups' counters, in the column order their INSERTs list them. */
const DAILY_COUNTERS = ["clicks", "unique_clicks", "zip_submits", "quote_views", "form_starts", "leads", "duplicates", "sold", "returned", "revenue", "payout", "pings", "bids", "bid_total"];
const BUYER_COUNTERS = ["pings", "bids", "bid_total", "sold", "returned", "revenue"];

/** Our own column names (never input) as SQL: a list, their sums, and "each added to the stored row's". */
const columnList = (columns: readonly string[]) => sql.raw(columns.join(", "));
const sums = (columns: readonly string[]) => sql.raw(columns.map((column) => `sum(${column})`).join(", "));
const addedTo = (alias: string, columns: readonly string[]) => sql.raw(columns.map((column) => `${column} = ${alias}.${column} + EXCLUDED.${column}`).join(", "));

/** Stores `events` and counts them into the rollup, in one statement (so: all or nothing). */
export async function insertEvents(db: Database, events: readonly EventInput[], timeZone: string): Promise<void> {
  if (events.length === 0) return;
  const now = new Date();
  const column = <T,>(pick: (event: EventInput) => T) => events.map(pick);
  await sql`
    WITH given AS (
      SELECT i.occurred_at, (i.occurred_at AT TIME ZONE ${timeZone}::text)::date AS day, i.name,
             CASE WHEN i.lead_reference IS NOT NULL AND i.sid IS NULL AND i.tid IS NULL THEN l.sid ELSE i.sid END AS sid,
             CASE WHEN i.lead_reference IS NOT NULL AND i.sid IS NULL AND i.tid IS NULL THEN l.tid ELSE i.tid END AS tid,
             COALESCE(i.visit_id, l.visit_id) AS visit_id,
             COALESCE(i.visitor_id, l.visitor_id) AS visitor_id,
             i.bot, i.gpc, i.path, i.step, i.lead_reference, i.target, i.detail, i.revenue, i.payout, i.bid, i.n
        FROM unnest(
               ${column((event) => (event.at ?? now).toISOString())}::timestamptz[],
               ${column((event) => event.name)}::text[],
               ${column((event) => event.sid ?? null)}::text[],
               ${column((event) => event.tid ?? null)}::text[],
               ${column((event) => event.visitId ?? null)}::text[],
               ${column((event) => event.visitorId ?? null)}::text[],
               ${column((event) => event.bot ?? false)}::boolean[],
               ${column((event) => event.gpc ?? false)}::boolean[],
               ${column((event) => cut(event.path))}::text[],
               ${column((event) => event.step ?? null)}::smallint[],
               ${column((event) => event.leadReference ?? null)}::text[],
               ${column((event) => cut(event.target))}::text[],
               ${column((event) => cut(event.detail))}::text[],
               ${column((event) => money(event.revenue))}::numeric[],
               ${column((event) => money(event.payout))}::numeric[],
               ${column((event) => money(event.bid))}::numeric[]
             ) WITH ORDINALITY AS i (occurred_at, name, sid, tid, visit_id, visitor_id, bot, gpc, path, step, lead_reference, target, detail, revenue, payout, bid, n)
        LEFT JOIN leads l ON i.lead_reference IS NOT NULL AND l.reference = i.lead_reference
    ),
    -- A lead's source is paid once, at its first sale (as its postback reports it once): only the
    -- first lead_sold of a lead not paid for before keeps its payout.
    paid AS (
      INSERT INTO analytics_paid_leads (lead_reference, day)
      SELECT DISTINCT ON (lead_reference) lead_reference, day FROM given
       WHERE name = 'lead_sold' AND lead_reference IS NOT NULL AND payout IS NOT NULL
       ORDER BY lead_reference, n
      ON CONFLICT DO NOTHING
      RETURNING lead_reference
    ),
    input AS (
      SELECT g.occurred_at, g.day, g.name, g.sid, g.tid, g.visit_id, g.visitor_id, g.bot, g.gpc, g.path, g.step, g.lead_reference, g.target, g.detail, g.revenue,
             -- The first sale of each lead in the batch, by a window (a correlated subquery here
             -- was estimated at rows² and, past a few thousand events, made PostgreSQL JIT-compile
             -- the statement: 1.3 s of compiling for a 10,000-event statement).
             CASE WHEN g.name <> 'lead_sold' THEN g.payout
                  WHEN g.n = min(g.n) FILTER (WHERE g.name = 'lead_sold') OVER (PARTITION BY g.lead_reference)
                   AND g.lead_reference IN (SELECT lead_reference FROM paid) THEN g.payout END AS payout,
             g.bid, g.n
        FROM given g
    ),
    stored AS (
      INSERT INTO analytics_events (occurred_at, day, name, sid, tid, visit_id, visitor_id, bot, gpc, path, step, lead_reference, target, detail, revenue, payout, bid)
      -- In the order recorded: ids then follow the order events happened in.
      SELECT occurred_at, day, name, sid, tid, visit_id, visitor_id, bot, gpc, path, step, lead_reference, target, detail, revenue, payout, bid FROM input ORDER BY n
    ),
    -- The per-buyer view: each buyer's pings, bids, sales and returns, sorted (lock order, as below).
    per_buyer AS (
      INSERT INTO analytics_buyer_daily AS b (day, sid, bot, buyer, ${columnList(BUYER_COUNTERS)})
      SELECT day, COALESCE(sid, ''), bot, target,
             count(*) FILTER (WHERE name = 'buyer_pinged'),
             count(*) FILTER (WHERE name = 'buyer_pinged' AND bid IS NOT NULL),
             COALESCE(sum(bid) FILTER (WHERE name = 'buyer_pinged'), 0),
             count(*) FILTER (WHERE name = 'lead_sold'),
             count(*) FILTER (WHERE name = 'lead_returned'),
             COALESCE(sum(revenue) FILTER (WHERE name = 'lead_sold'), 0) - COALESCE(sum(revenue) FILTER (WHERE name = 'lead_returned'), 0)
        FROM input
       WHERE name IN ('buyer_pinged', 'lead_sold', 'lead_returned') AND target IS NOT NULL
       GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
      ON CONFLICT (day, sid, bot, buyer) DO UPDATE SET ${addedTo("b", BUYER_COUNTERS)}
    ),
    clicks AS (
      SELECT day, COALESCE(sid, '') AS sid, COALESCE(tid, visit_id) AS key, bool_and(bot) AS bot
        FROM input WHERE name = 'campaign_hit' AND COALESCE(tid, visit_id) IS NOT NULL
       GROUP BY 1, 2, 3
    ),
    -- A click key seen before on the same day and sid is not a unique click. Sorted, so replicas
    -- writing at once take the rows' locks in the same order.
    fresh AS (
      INSERT INTO analytics_click_keys (day, sid, key, bot)
      SELECT day, sid, key, bot FROM clicks ORDER BY day, sid, key
      ON CONFLICT DO NOTHING
      RETURNING day, sid, bot
    ),
    counted AS (
      SELECT day, COALESCE(sid, '') AS sid, bot,
             count(*) FILTER (WHERE name = 'campaign_hit') AS clicks,
             count(*) FILTER (WHERE name = 'campaign_hit' AND tid IS NULL AND visit_id IS NULL) AS unique_clicks,
             count(*) FILTER (WHERE name = 'zip_submitted') AS zip_submits,
             count(*) FILTER (WHERE name = 'quote_page_view') AS quote_views,
             count(*) FILTER (WHERE name = 'form_started') AS form_starts,
             count(*) FILTER (WHERE name = 'lead_submitted') AS leads,
             count(*) FILTER (WHERE name = 'lead_duplicate') AS duplicates,
             count(*) FILTER (WHERE name = 'lead_sold') AS sold,
             count(*) FILTER (WHERE name = 'lead_returned') AS returned,
             COALESCE(sum(revenue) FILTER (WHERE name = 'lead_sold'), 0) - COALESCE(sum(revenue) FILTER (WHERE name = 'lead_returned'), 0) AS revenue,
             COALESCE(sum(payout) FILTER (WHERE name = 'lead_sold'), 0) - COALESCE(sum(payout) FILTER (WHERE name = 'lead_returned'), 0) AS payout,
             count(*) FILTER (WHERE name = 'buyer_pinged') AS pings,
             count(*) FILTER (WHERE name = 'buyer_pinged' AND bid IS NOT NULL) AS bids,
             COALESCE(sum(bid) FILTER (WHERE name = 'buyer_pinged'), 0) AS bid_total
        FROM input GROUP BY 1, 2, 3
      UNION ALL
      SELECT day, sid, bot, 0, count(*), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
        FROM fresh
       GROUP BY 1, 2, 3
    )
    INSERT INTO analytics_daily AS d (day, sid, bot, ${columnList(DAILY_COUNTERS)})
    SELECT day, sid, bot, ${sums(DAILY_COUNTERS)}
      FROM counted GROUP BY day, sid, bot ORDER BY day, sid, bot
    ON CONFLICT (day, sid, bot) DO UPDATE SET ${addedTo("d", DAILY_COUNTERS)}
  `.execute(db.builder);
}
