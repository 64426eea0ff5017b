/**
 * Exposures (issue 45, docs/experiments.md, "Assignment and exposure"): the first time a visitor
 * sees an experiment's surface, with the variant they got and the campaign ids they came with. The
 * results count visitors per variant from these rows (one per experiment and visitor), so an
 * exposure is recorded where the variant is shown: the landing page (server/pages/render.ts) and
 * the quote form's session (server/api/leads.ts).
 *
 * Recording never slows the answer: rows go to a bounded buffer written in batches, one statement
 * each, like the funnel events (server/analytics/writer.ts). A visitor already recorded by this
 * process is not buffered again (most page views are not a visitor's first); the table's key makes
 * a repeat from another replica or a restarted process harmless.
 */
import type { Application, Request } from "express";
import type { Logger } from "pino";
import { LRUCache } from "lru-cache";
import { createBatchWriter, type BatchWriter } from "../analytics/writer";
import { insertExposures, type ExposureRow } from "../db/experiment-exposures";
import type { Builder } from "../db/database";
import type { Assignment } from "../../shared/experiments";

export interface Exposure {
  experiment: string;
  variant: string;
  visitorId: string;
  sid?: string | null | undefined;
  tid?: string | null | undefined;
  /** A crawler's or a script's (the report's rule): stored, and left out of the results. */
  bot?: boolean | undefined;
  /** When it happened; now when omitted. */
  at?: Date | undefined;
}

export interface ExposureRecorder {
  record(exposure: Exposure): void;
}

export type ExposureWriter = BatchWriter<ExposureRow> & ExposureRecorder;

/**
 * Visitor–experiment pairs this process remembers having buffered: a returning visitor's next
 * page views within the hour add nothing. Not more: a larger memory is old-generation heap the
 * collector traces on every full mark (100,000 cost each new visitor's click measurably); the
 * table's key makes a pair forgotten and seen again harmless.
 */
const REMEMBERED = 10_000;

export interface ExposureWriterOptions {
  logger: Logger;
  maxBuffer: number;
  flushMs: number;
  batchSize?: number;
  /** Where batches go: the store's builder, or a write of the caller's (tests). */
  db?: Builder;
  write?: (rows: readonly ExposureRow[]) => Promise<void>;
}

export function createExposureWriter(options: ExposureWriterOptions): ExposureWriter {
  const { db } = options;
  const write = options.write ?? (db ? (rows: readonly ExposureRow[]) => insertExposures(db, rows) : undefined);
  if (!write) throw new Error("createExposureWriter: give db or write");
  const batches = createBatchWriter<ExposureRow>({
    logger: options.logger,
    maxBuffer: options.maxBuffer,
    flushMs: options.flushMs,
    ...(options.batchSize ? { batchSize: options.batchSize } : {}),
    write,
    logEvents: { label: "experiment exposures", dropped: "experiment_exposures_dropped", failed: "experiment_exposures_write_failed", lost: "experiment_exposures_lost" },
  });
  const seen = new LRUCache<string, true>({ max: REMEMBERED });
  return {
    ...batches,
    record(exposure: Exposure | ExposureRow) {
      if ("firstAt" in exposure) {
        batches.record(exposure);
        return;
      }
      const key = `${exposure.experiment}\n${exposure.visitorId}`;
      if (seen.has(key)) return;
      seen.set(key, true);
      batches.record({
        experiment: exposure.experiment,
        visitorId: exposure.visitorId,
        variant: exposure.variant,
        firstAt: exposure.at ?? new Date(),
        sid: exposure.sid ?? null,
        tid: exposure.tid ?? null,
        bot: exposure.bot === true,
      });
    },
  };
}

/** Each app's recorder (createApp registers it, server/experiments/visitor.ts); an app without one records none. */
const recorders = new WeakMap<Application, ExposureRecorder>();

export function attachExposureRecorder(app: Application, recorder: ExposureRecorder): void {
  recorders.set(app, recorder);
}

/**
 * Records one exposure through the request's app (the form's session calls this with its own
 * assignments). Returns at once; the row is written with the next batch.
 */
export function recordExposure(req: Request, exposure: Exposure): void {
  recorders.get(req.app)?.record(exposure);
}

/** Records an exposure for each of a visitor's assignments (nothing for a visitor without an id). */
export function recordExposures(
  req: Request,
  visitor: { visitorId: string | undefined; assignments: readonly Assignment[]; bot?: boolean },
  campaign: { sid?: string | null | undefined; tid?: string | null | undefined },
  at: Date = new Date(),
): void {
  const { visitorId } = visitor;
  if (!visitorId) return;
  const recorder = recorders.get(req.app);
  if (!recorder) return;
  for (const { experiment, variant } of visitor.assignments) recorder.record({ experiment, variant, visitorId, sid: campaign.sid, tid: campaign.tid, bot: visitor.bot === true, at });
}
