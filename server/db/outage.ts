/**
 * A database outage in the log as ops want to read it (issue 41): one warning when this process
 * first finds the database unreachable, and one when it answers again, with how long it lasted and
 * how many requests and claims met it meanwhile. Before, every 503 wrote an error line and every
 * worker poll another (272 error lines in a 31 s PostgreSQL restart), which buried the one fact that
 * mattered and paged whoever alerts on `error`.
 *
 * While an outage lasts, the database is asked `select 1` every `probeMs` (default 1 s); the first
 * answer ends it. Only errors that server/db/unavailable.ts recognises count: any other error is
 * still a fault of ours and logged as one by its caller.
 */
import { sql } from "kysely";
import type { Logger } from "../logger";
import type { Builder } from "./database";

export interface OutageLog {
  /** Something (`where`: "api", "auction", "delivery") met an unreachable database. */
  met(where: string, error: unknown): void;
  /** Whether an outage is in progress (a caller may skip its own line meanwhile). */
  readonly active: boolean;
  /** Stops probing (shutdown); an outage in progress is logged as ended unseen. */
  stop(): void;
}

export interface OutageLogOptions {
  logger: Logger;
  /** Resolves once the database answers. */
  probe: () => Promise<unknown>;
  probeMs?: number;
  now?: () => number;
}

/** The usual probe: one trivial statement. */
export function probeDatabase(db: Builder): () => Promise<unknown> {
  return () => sql`select 1`.execute(db);
}

export function createOutageLog(options: OutageLogOptions): OutageLog {
  const { logger, probe } = options;
  const probeMs = options.probeMs ?? 1_000;
  const now = options.now ?? Date.now;
  let outage: { since: number; met: Record<string, number> } | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const end = (seen: boolean) => {
    if (!outage) return;
    const { since, met } = outage;
    outage = undefined;
    const facts = { event: "database_outage_ended", durationMs: now() - since, met, metTotal: Object.values(met).reduce((sum, count) => sum + count, 0) };
    if (seen) logger.warn(facts, "database answers again");
    else logger.warn({ ...facts, ended: "shutdown" }, "database outage still on at shutdown");
  };

  const schedule = () => {
    timer = setTimeout(() => {
      timer = undefined;
      probe().then(
        () => end(true),
        () => {
          if (outage && !stopped) schedule();
        },
      );
    }, probeMs);
    timer.unref();
  };

  return {
    met(where, error) {
      if (stopped) return;
      if (outage) {
        outage.met[where] = (outage.met[where] ?? 0) + 1;
        return;
      }
      outage = { since: now(), met: { [where]: 1 } };
      logger.warn({ event: "database_outage_started", where, err: error }, "database unreachable: requests are answered 503 and background work waits until it answers again");
      schedule();
    },
    get active() {
      return outage !== undefined;
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      end(false);
    },
  };
}
