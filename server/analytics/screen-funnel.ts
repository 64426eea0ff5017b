/**
 * Where visitors leave the quote form: the funnel per question screen (reached, answered, left),
 * per source and for all sources, from the raw funnel events (`form_started`,
 * `form_step_completed` with the screen in `detail`, `lead_submitted`, `lead_duplicate`).
 * docs/analytics.md ("Where visitors leave the form") defines each number and gives this SQL.
 *
 * The screens and their order are the form's own (shared/lead/fields.ts, SCREEN_IDS), passed to
 * the query as an array, so a new screen or a new order needs no change here. The events say
 * which screens a visit completed, not which one it left on: that is the screen the other
 * visitors went on to from its last completion, so a screen some visitors skip (a follow-up, the
 * first driver's relationship) does not collect the leavers of the screen after it, and a
 * visitor leaving on a second car's screens is counted there. The rollup cannot answer this (a
 * visit's path is a property of the visit, not of a day's counts), so it reads the events of the
 * range once: one scan, grouped by visit, never a join of the events with themselves.
 */
import { sql } from "kysely";
import type { Database } from "../db/database";
import { REQUEST_STORED, type ScreenFunnel, type ScreenFunnelRow } from "../../shared/analytics";
import { SCREEN_IDS } from "../../shared/lead/fields";
import { roundedRatio, type TrendQuery } from "./report";
import { addDays } from "./report-days";

/** What one count of the statement is: it returns every number as (kind, sid, position, count). */
type Kind = "answered" | "left" | "revisits" | "visits" | "leads" | "earlier";

interface CountRow {
  kind: Kind;
  sid: string;
  position: number | string;
  count: number | string;
}

/**
 * The statement of the counts per source (exported so its plan can be checked with EXPLAIN).
 * `occurred_at` bounds the scan with its index: a report day in any time zone lies within a day
 * either side of the same UTC date, and `day` then picks exactly.
 */
export function screenFunnelStatement(query: TrendQuery, screens: readonly string[] = SCREEN_IDS) {
  const from = new Date(`${addDays(query.since, -1)}T00:00:00Z`);
  const to = new Date(`${addDays(query.until, 1)}T00:00:00Z`);
  const sidFilter = query.sid === undefined ? sql`` : sql`AND COALESCE(sid, '') = ${query.sid}`;
  const botFilter = query.includeBots ? sql`` : sql`AND NOT bot`;
  const last = screens.length;
  return sql<CountRow>`
    WITH events AS (
      SELECT id, occurred_at, visit_id, COALESCE(sid, '') AS sid, name, bot,
             -- 1… for a screen of today's flow, 0 for any other (an earlier form's, or none).
             CASE WHEN name = 'form_step_completed' THEN COALESCE(array_position(${[...screens]}::text[], detail), 0) END AS position
        FROM analytics_events
       WHERE occurred_at >= ${from} AND occurred_at < ${to}
         AND day >= ${query.since}::date AND day < ${query.until}::date
         AND name IN ('form_started', 'form_step_completed', 'lead_submitted', 'lead_duplicate')
         AND visit_id IS NOT NULL
         ${sidFilter}
    ),
    visits AS (
      SELECT visit_id,
             -- A visit's events carry the same sid; should one lack it, the visit keeps the one it has.
             max(sid) AS sid,
             bool_or(bot) AS bot,
             bool_or(name IN ('form_started', 'form_step_completed')) AS in_form,
             -- position is NULL on form_started: a visit with starts only is not on an earlier form.
             COALESCE(bool_or(position = 0), false) AS earlier,
             bool_or(name IN ('lead_submitted', 'lead_duplicate')) AS stored,
             -- The screens it completed, in the order it completed them (a second car repeats the
             -- car's screens). Kept with the visit rather than joined back to it: the planner
             -- cannot estimate a WITH query's rows and might plan such a join as a nested loop
             -- (visits × completions; docs/analytics.md, migration 16).
             COALESCE(array_agg(position ORDER BY occurred_at, id) FILTER (WHERE position > 0), '{}') AS path
        FROM events
       GROUP BY visit_id
    ),
    counted AS (
      SELECT * FROM visits WHERE in_form AND NOT earlier ${botFilter}
    ),
    -- Each completion: the how-many-th of its screen in the visit (k), and what the visit completed next.
    steps AS (
      SELECT c.visit_id, c.sid, c.stored, c.path, s.position, s.ord,
             row_number() OVER (PARTITION BY c.visit_id, s.position ORDER BY s.ord) AS k,
             c.path[s.ord + 1] AS next
        FROM counted c CROSS JOIN LATERAL unnest(c.path) WITH ORDINALITY AS s(position, ord)
    ),
    -- Where visitors went on to from the k-th completion of a screen, the most often: a screen
    -- some visitors skip (a follow-up, the relationship of the first driver) is skipped here too.
    going_on AS (
      SELECT DISTINCT ON (position, k) position, k, next
        FROM steps
       WHERE next IS NOT NULL
       GROUP BY position, k, next
       ORDER BY position, k, count(*) DESC, next
    ),
    -- Visits that stored no request, at the screen they stopped on: where visitors went on to from
    -- their last completion, else the next in the flow; the first screen for a visit that completed none.
    leavers AS (
      SELECT sid, 1 AS position, false AS seen FROM counted WHERE NOT stored AND cardinality(path) = 0
      UNION ALL
      SELECT s.sid, COALESCE(g.next, s.position + 1), COALESCE(g.next, s.position + 1) = ANY(s.path)
        FROM steps s LEFT JOIN going_on g ON g.position = s.position AND g.k = s.k
       WHERE NOT s.stored AND s.ord = cardinality(s.path)
    )
    SELECT 'answered' AS kind, sid, position, count(*) AS count FROM steps WHERE k = 1 GROUP BY sid, position
    UNION ALL
    SELECT 'answered', sid, ${last + 1}::int, count(*) FROM counted WHERE stored GROUP BY sid
    UNION ALL
    SELECT 'left', sid, position, count(*) FROM leavers GROUP BY sid, position
    UNION ALL
    -- Leavers who had answered that screen before (they went back): in reached once.
    SELECT 'revisits', sid, position, count(*) FROM leavers WHERE seen GROUP BY sid, position
    UNION ALL
    SELECT 'visits', sid, 0, count(*) FROM counted GROUP BY sid
    UNION ALL
    SELECT 'leads', sid, 0, count(*) FROM counted WHERE stored GROUP BY sid
    UNION ALL
    SELECT 'earlier', sid, 0, count(*) FROM visits WHERE in_form AND earlier ${botFilter} GROUP BY sid
  `;
}

/** An empty funnel: every screen of the flow, then the request, all zero. */
function emptyFunnel(sid: string | null, screens: readonly string[]): ScreenFunnel {
  return {
    sid,
    visits: 0,
    leads: 0,
    earlier: 0,
    screens: [...screens, REQUEST_STORED].map((screen, index) => ({ screen, position: index + 1, reached: 0, answered: 0, left: 0, left_rate: 0 })),
  };
}

/** reached and left_rate, from answered, left and the leavers who had answered the screen before. */
function finish(funnel: ScreenFunnel, revisits: readonly number[]): ScreenFunnel {
  const screens = funnel.screens.map((row, index): ScreenFunnelRow => {
    const reached = row.answered + row.left - (revisits[index] ?? 0);
    return { ...row, reached, left_rate: roundedRatio(row.left, reached, 4) };
  });
  return { ...funnel, screens };
}

/**
 * The funnel per question screen for [since, until): all sources added up first (sid null), then
 * one funnel per source with form traffic, in byte order of the sid ("" for none first). Bots
 * (a visit with any event flagged as a bot) are left out unless `includeBots`.
 * `screens` is the flow (SCREEN_IDS); tests may pass another.
 */
export async function screenFunnels(db: Database, query: TrendQuery, screens: readonly string[] = SCREEN_IDS): Promise<ScreenFunnel[]> {
  const bySid = new Map<string, ScreenFunnel>();
  const total = emptyFunnel(null, screens);
  /** Per funnel, per line: leavers counted in answered too. */
  const revisits = new Map<ScreenFunnel, number[]>([[total, []]]);
  const { rows } = await screenFunnelStatement(query, screens).execute(db.builder);
  for (const row of rows) {
    const funnel = bySid.get(row.sid) ?? emptyFunnel(row.sid, screens);
    if (!bySid.has(row.sid)) {
      bySid.set(row.sid, funnel);
      revisits.set(funnel, []);
    }
    const count = Number(row.count);
    const index = Number(row.position) - 1;
    for (const target of [funnel, total]) {
      if (row.kind === "visits" || row.kind === "leads" || row.kind === "earlier") target[row.kind] += count;
      else if (row.kind === "revisits") {
        const seen = revisits.get(target)!;
        seen[index] = (seen[index] ?? 0) + count;
      } else target.screens[index]![row.kind] += count;
    }
  }
  const sources = [...bySid.values()].sort((a, b) => (a.sid! < b.sid! ? -1 : a.sid! > b.sid! ? 1 : 0));
  return [total, ...sources].map((funnel) => finish(funnel, revisits.get(funnel)!));
}
