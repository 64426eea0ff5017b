/**
 * Where visitors leave the quote form: the funnel per question screen (reached, answered, left),
 * per source and for all sources, from the raw funnel events (`form_started`,
 * `form_step_completed` with the screen in `detail`, `lead_submitted`, `lead_duplicate`).
 * docs/analytics.md ("Where visitors leave the form") defines each number and gives this SQL.
 *
 * The screens and their order are the form's own (shared/lead/fields.ts, SCREEN_IDS), passed to
 * the query as an array, so a new screen or a new order needs no change here. The rollup cannot
 * answer this (a visit's furthest screen is a property of the visit, not of a day's counts), so
 * it reads the events of the range once: one scan, grouped by visit, never a join of the events
 * with themselves.
 */
import { sql } from "kysely";
import type { Database } from "../db/database";
import { REQUEST_STORED, type ScreenFunnel, type ScreenFunnelRow } from "../../shared/analytics";
import { SCREEN_IDS } from "../../shared/lead/fields";
import { roundedRatio, type TrendQuery } from "./report";
import { addDays } from "./report-days";

/** What one count of the statement is: it returns every number as (kind, sid, position, count). */
type Kind = "answered" | "left" | "visits" | "leads" | "earlier";

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
      SELECT visit_id, COALESCE(sid, '') AS sid, name, bot,
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
             COALESCE(max(position), 0) AS furthest,
             bool_or(name IN ('lead_submitted', 'lead_duplicate')) AS stored,
             -- The screens it answered, each once however often. Kept with the visit rather than
             -- joined back to it: the planner cannot estimate a WITH query's rows and might plan
             -- that join as a nested loop (visits × answers; docs/analytics.md, migration 16).
             array_agg(DISTINCT position) FILTER (WHERE position > 0) AS answers
        FROM events
       GROUP BY visit_id
    ),
    counted AS (
      SELECT * FROM visits WHERE in_form ${botFilter}
    )
    SELECT 'answered' AS kind, sid, answered.position, count(*) AS count
      FROM counted CROSS JOIN LATERAL unnest(answers) AS answered(position)
     WHERE NOT earlier
     GROUP BY sid, answered.position
    UNION ALL
    -- Left at the screen after the furthest one answered (the first screen: none answered).
    SELECT 'left', sid, furthest + 1, count(*) FROM counted WHERE NOT earlier AND NOT stored GROUP BY sid, furthest
    UNION ALL
    SELECT 'answered', sid, ${last + 1}::int, count(*) FROM counted WHERE NOT earlier AND stored GROUP BY sid
    UNION ALL
    SELECT 'visits', sid, 0, count(*) FROM counted WHERE NOT earlier GROUP BY sid
    UNION ALL
    SELECT 'leads', sid, 0, count(*) FROM counted WHERE NOT earlier AND stored GROUP BY sid
    UNION ALL
    SELECT 'earlier', sid, 0, count(*) FROM counted WHERE earlier GROUP BY sid
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

/** reached and left_rate, from answered and left. */
function finish(funnel: ScreenFunnel): ScreenFunnel {
  const screens = funnel.screens.map((row): ScreenFunnelRow => {
    const reached = row.answered + row.left;
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
  const { rows } = await screenFunnelStatement(query, screens).execute(db.builder);
  for (const row of rows) {
    const funnel = bySid.get(row.sid) ?? emptyFunnel(row.sid, screens);
    bySid.set(row.sid, funnel);
    const count = Number(row.count);
    for (const target of [funnel, total]) {
      if (row.kind === "visits" || row.kind === "leads" || row.kind === "earlier") target[row.kind] += count;
      else target.screens[Number(row.position) - 1]![row.kind] += count;
    }
  }
  const sources = [...bySid.values()].sort((a, b) => (a.sid! < b.sid! ? -1 : a.sid! > b.sid! ? 1 : 0));
  return [total, ...sources].map(finish);
}
