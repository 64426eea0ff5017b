/**
 * The experiment_exposures table (migration 24): the only module with its SQL. One row per
 * experiment and visitor, the first exposure's: a later one (another page view, another replica,
 * a batch written twice after a failed flush) changes nothing, so visitors count once.
 */
import { sql } from "kysely";
import type { Builder } from "./database";

export interface ExposureRow {
  experiment: string;
  visitorId: string;
  variant: string;
  firstAt: Date;
  sid: string | null;
  tid: string | null;
  bot: boolean;
}

/** Stores a batch in one statement; rows already there (same experiment and visitor) are kept as they were. */
export async function insertExposures(db: Builder, rows: readonly ExposureRow[]): Promise<void> {
  if (rows.length === 0) return;
  const column = <T,>(pick: (row: ExposureRow) => T) => rows.map(pick);
  // unnest keeps it one statement of fixed text whatever the batch's size (as the analytics writer's).
  // DISTINCT ON: a batch may hold one visitor twice (two replicas' memories are not shared, nor
  // are two tabs' first requests); ON CONFLICT cannot touch one row twice in a statement.
  await sql`
    INSERT INTO experiment_exposures (experiment, visitor_id, variant, first_at, sid, tid, bot)
    SELECT DISTINCT ON (experiment, visitor_id) experiment, visitor_id, variant, first_at, sid, tid, bot
      FROM unnest(
             ${column((row) => row.experiment)}::text[],
             ${column((row) => row.visitorId)}::text[],
             ${column((row) => row.variant)}::text[],
             ${column((row) => row.firstAt.toISOString())}::timestamptz[],
             ${column((row) => row.sid)}::text[],
             ${column((row) => row.tid)}::text[],
             ${column((row) => row.bot)}::boolean[]
           ) WITH ORDINALITY AS i (experiment, visitor_id, variant, first_at, sid, tid, bot, n)
     ORDER BY experiment, visitor_id, n
    ON CONFLICT (experiment, visitor_id) DO NOTHING`.execute(db);
}
