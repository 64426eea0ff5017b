/**
 * The funnel events' writer: requests hand it events and go on at once; it writes them to the
 * database in batches, every ANALYTICS_FLUSH_MS or as soon as a batch fills, off the request path.
 * Its buffer is bounded (ANALYTICS_BUFFER_MAX): while the database is slow or down, events wait
 * there and are written when it answers again; past the bound, new events are dropped, counted
 * and logged — a visitor is never slowed down or refused because of analytics. stop() (on
 * SIGTERM) writes everything still buffered before the database closes.
 */
import type { Logger } from "pino";
import type { Database } from "../db/database";
import { insertEvents, type EventInput } from "./store";

/** What request handlers, the delivery worker and the ops commands record events through. */
export interface EventRecorder {
  record(event: EventInput): void;
}

export interface EventWriterStats {
  /** Waiting in memory to be written. */
  buffered: number;
  written: number;
  /** Refused because the buffer was full (or the writer had stopped). */
  dropped: number;
  /** Batch writes that failed (their events stayed buffered and were tried again). */
  failedWrites: number;
}

/** A bounded buffer written in batches off the request path (funnel events; experiment exposures, server/experiments/exposure.ts). */
export interface BatchWriter<T> {
  record(item: T): void;
  /** Writes what is buffered now; resolves when done (a failed write leaves the items buffered). */
  flush(): Promise<void>;
  /** Stops the timer and writes everything buffered, trying until `deadlineMs` has passed. */
  stop(deadlineMs?: number): Promise<void>;
  stats(): EventWriterStats;
}

export type EventWriter = BatchWriter<EventInput> & EventRecorder;

interface WriterSettings {
  logger: Logger;
  maxBuffer: number;
  flushMs: number;
  /** Events per statement (default DEFAULT_BATCH_SIZE). */
  batchSize?: number;
}

/**
 * Events per statement. Building and sending a batch runs on the event loop that answers
 * visitors: 1,000 events held it for 11–31 ms at a time, 250 for 1.5–3.5 ms, for about the same
 * database work per event (decision 024).
 */
export const DEFAULT_BATCH_SIZE = 250;

/** Where batches go: insertEvents into `db` (days in `timeZone`), or a write of the caller's (tests fail or slow it). */
export type EventWriterOptions = WriterSettings & ({ db: Database; timeZone: string } | { write: (events: readonly EventInput[]) => Promise<void> });

/** How often a run of drops is reported (one log line per interval, with the count). */
const DROP_LOG_INTERVAL_MS = 10_000;
/** Pause between tries while stopping with a database that does not answer. */
const STOP_RETRY_MS = 200;

export function createEventWriter(options: EventWriterOptions): EventWriter {
  const write = "write" in options ? options.write : (events: readonly EventInput[]) => insertEvents(options.db, events, options.timeZone);
  return createBatchWriter<EventInput>({ ...options, write, stamp: (event) => (event.at ? event : { ...event, at: new Date() }), logEvents: ANALYTICS_LOG_EVENTS });
}

/** The log lines' event names of one writer (docs/logging.md). */
export interface BatchLogEvents {
  /** What the items are, in the log lines' messages. */
  label: string;
  dropped: string;
  failed: string;
  lost: string;
}
const ANALYTICS_LOG_EVENTS: BatchLogEvents = { label: "analytics events", dropped: "analytics_events_dropped", failed: "analytics_write_failed", lost: "analytics_events_lost" };

export interface BatchWriterOptions<T> extends WriterSettings {
  write: (items: readonly T[]) => Promise<void>;
  /** Fixes what must be fixed when an item is recorded (an event's time); default: kept as given. */
  stamp?: (item: T) => T;
  logEvents: BatchLogEvents;
}

export function createBatchWriter<T>(options: BatchWriterOptions<T>): BatchWriter<T> {
  const { logger, maxBuffer, flushMs, write, logEvents } = options;
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const stamp = options.stamp ?? ((item: T) => item);
  let buffer: T[] = [];
  let written = 0;
  let dropped = 0;
  let failedWrites = 0;
  let stopped = false;
  let running: Promise<void> | undefined;
  let soon: NodeJS.Immediate | undefined;
  let unreportedDrops = 0;
  let lastDropLog = 0;

  const reportDrops = (force: boolean) => {
    if (unreportedDrops === 0) return;
    const now = Date.now();
    if (!force && now - lastDropLog < DROP_LOG_INTERVAL_MS) return;
    logger.warn({ event: logEvents.dropped, dropped: unreportedDrops, droppedTotal: dropped, maxBuffer }, `${logEvents.label}: buffer full, dropped`);
    unreportedDrops = 0;
    lastDropLog = now;
  };

  const drop = (count: number) => {
    dropped += count;
    unreportedDrops += count;
    reportDrops(false);
  };

  /** One pass: batches until the buffer is empty or a write fails. */
  async function writeBuffered(): Promise<void> {
    while (buffer.length > 0) {
      const batch = buffer.slice(0, batchSize);
      try {
        await write(batch);
      } catch (error) {
        failedWrites += 1;
        logger.warn({ err: error, event: logEvents.failed, events: batch.length, buffered: buffer.length }, `could not store ${logEvents.label}; will try again`);
        return;
      }
      // Only now are they out of the buffer: a crash of the write keeps them for the next try.
      buffer = buffer.slice(batch.length);
      written += batch.length;
    }
  }

  function flush(): Promise<void> {
    // One pass at a time; a flush asked for during a pass runs after it.
    const next = (running ?? Promise.resolve()).then(writeBuffered);
    const tracked = next.finally(() => {
      if (running === tracked) running = undefined;
      reportDrops(false);
    });
    running = tracked;
    return tracked;
  }

  const timer = setInterval(() => void flush(), flushMs);
  timer.unref();

  return {
    record(item) {
      if (stopped || buffer.length >= maxBuffer) {
        drop(1);
        return;
      }
      buffer.push(stamp(item));
      // A full batch goes now, not at the next tick (once per turn of the event loop).
      if (buffer.length >= batchSize && !soon) {
        soon = setImmediate(() => {
          soon = undefined;
          void flush();
        });
      }
    },
    flush,
    async stop(deadlineMs = 5_000) {
      stopped = true;
      clearInterval(timer);
      if (soon) clearImmediate(soon);
      const deadline = Date.now() + deadlineMs;
      await flush();
      while (buffer.length > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, STOP_RETRY_MS));
        await flush();
      }
      if (buffer.length > 0) {
        logger.error({ event: logEvents.lost, lost: buffer.length }, `${logEvents.label} could not be stored before shutdown`);
        drop(buffer.length);
        buffer = [];
      }
      reportDrops(true);
    },
    stats: () => ({ buffered: buffer.length, written, dropped, failedWrites }),
  };
}
