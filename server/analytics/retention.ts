/**
 * How long funnel events are kept: ANALYTICS_RETENTION_DAYS (396 days, 13 months, by default:
 * a year-over-year comparison with a month to spare), as the privacy policy says. Enforced twice:
 * every server deletes expired events a minute after it starts and then every 6 hours (deleting
 * the same rows from several replicas is harmless), and `npm run leads -- purge`, the daily
 * retention job, does it too. The rollup's days go with their events.
 *
 * The schedule's first run is PURGE_FIRST_DELAY_MS after start (not at once: a replica starting
 * is busy enough), then every PURGE_EVERY_MS.
 */
import type { Logger } from "pino";
import type { Database } from "../db/database";
import { dayIn } from "../../shared/formatters";

export const PURGE_FIRST_DELAY_MS = 60_000;
export const PURGE_EVERY_MS = 6 * 60 * 60 * 1_000;

export interface AnalyticsCutoff {
  /** Events that happened before this instant are deleted. */
  before: Date;
  /** Rollup rows of report days before this one ("YYYY-MM-DD") are deleted: those days' events are all gone. */
  beforeDay: string;
}

export function analyticsCutoff(now: Date, retentionDays: number, timeZone: string): AnalyticsCutoff {
  const before = new Date(now.getTime() - retentionDays * 24 * 60 * 60 * 1_000);
  // The cutoff's own day still has events (those after the instant): its rollup row stays.
  return { before, beforeDay: dayIn(before, timeZone) };
}

export interface PurgeCounts {
  events: number;
  days: number;
}

export async function countExpiredAnalytics(db: Database, cutoff: AnalyticsCutoff): Promise<PurgeCounts> {
  const events = await db.builder.selectFrom("analyticsEvents").select((eb) => eb.fn.countAll<string | number>().as("n")).where("occurredAt", "<", cutoff.before).executeTakeFirstOrThrow();
  const days = await db.builder.selectFrom("analyticsDaily").select((eb) => eb.fn.countAll<string | number>().as("n")).where("day", "<", cutoff.beforeDay).executeTakeFirstOrThrow();
  return { events: Number(events.n), days: Number(days.n) };
}

/** Deletes expired events, their rollup rows and click keys, in one transaction. */
export async function purgeAnalytics(db: Database, cutoff: AnalyticsCutoff): Promise<PurgeCounts> {
  return db.builder.transaction().execute(async (tx) => {
    const events = await tx.deleteFrom("analyticsEvents").where("occurredAt", "<", cutoff.before).executeTakeFirst();
    const days = await tx.deleteFrom("analyticsDaily").where("day", "<", cutoff.beforeDay).executeTakeFirst();
    await tx.deleteFrom("analyticsBuyerDaily").where("day", "<", cutoff.beforeDay).execute();
    await tx.deleteFrom("analyticsClickKeys").where("day", "<", cutoff.beforeDay).execute();
    await tx.deleteFrom("analyticsPaidLeads").where("day", "<", cutoff.beforeDay).execute();
    // Experiments' exposures are records of a visit's steps too (the privacy policy's row): the same period.
    await tx.deleteFrom("experimentExposures").where("firstAt", "<", cutoff.before).execute();
    return { events: Number(events.numDeletedRows), days: Number(days.numDeletedRows) };
  });
}

export interface RetentionOptions {
  db: Database;
  logger: Logger;
  retentionDays: number;
  timeZone: string;
  firstDelayMs?: number;
  everyMs?: number;
}

/** The in-process schedule; returns stop(). */
export function scheduleAnalyticsRetention(options: RetentionOptions): () => void {
  const { db, logger, retentionDays, timeZone } = options;
  let timer: NodeJS.Timeout;
  const run = async () => {
    try {
      const cutoff = analyticsCutoff(new Date(), retentionDays, timeZone);
      const deleted = await purgeAnalytics(db, cutoff);
      if (deleted.events > 0 || deleted.days > 0) {
        logger.info({ event: "analytics_purged", ...deleted, before: cutoff.before.toISOString() }, "expired analytics events deleted");
      }
      // The rollup's rows are updated by every batch; PostgreSQL's autovacuum reclaims the old
      // versions, but the embedded store runs no autovacuum: it is done here.
      if (db.kind === "embedded") await db.query("VACUUM analytics_daily, analytics_click_keys, analytics_paid_leads");
    } catch (error) {
      logger.warn({ err: error, event: "analytics_purge_failed" }, "could not delete expired analytics events; will try again");
    }
    timer = setTimeout(() => void run(), options.everyMs ?? PURGE_EVERY_MS);
    timer.unref();
  };
  timer = setTimeout(() => void run(), options.firstDelayMs ?? PURGE_FIRST_DELAY_MS);
  timer.unref();
  return () => clearTimeout(timer);
}
