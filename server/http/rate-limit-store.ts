/**
 * Where the per-client budgets count (server/http/rate-limit.ts). On PostgreSQL every replica
 * counts in one table (migration 9), so N replicas allow each limit once, not N times; on the
 * embedded store (one process by construction) express-rate-limit keeps its own memory store.
 *
 * - One statement per hit: an upsert that restarts the window when it has passed and returns the
 *   count, so concurrent replicas count exactly, on the database's clock (no skew between hosts).
 * - Client keys are addresses, which are personal data: the table holds an HMAC-SHA-256 of each,
 *   keyed from the CSRF secret (every replica has the same one). A plain SHA-256 would not do:
 *   there are only 2^32 IPv4 addresses, and hashing them all takes minutes.
 * - Expired rows are deleted by a sweep that about one increment in CLEANUP_CHANCE⁻¹ starts,
 *   without waiting for it: no timer to stop, and the table holds about one window of clients.
 * - A per-process stand-in (issue 41): when the database is away or slow (over STORE_TIMEOUT_MS)
 *   the hit is counted in express-rate-limit's own MemoryStore instead (StoreWithStandIn): the same
 *   budget per client, in this process only, so N replicas allow a client at most N times the limit
 *   meanwhile. Bounded, and an honest visitor is never refused because the store failed: the
 *   budget is per client. A warn line says so at most once per WARN_INTERVAL_MS. Once the database
 *   answers, its count is used again; the stand-in's counts expire with their window (kept, not
 *   dropped, so a database that fails every other call still bounds a client).
 */
import { createHmac } from "node:crypto";
import { MemoryStore, type ClientRateLimitInfo, type Options, type Store } from "express-rate-limit";
import type { Database, Queryable } from "../db/database";
import type { Logger } from "../logger";

const CLEANUP_CHANCE = 1 / 50;
const STORE_TIMEOUT_MS = 1_000;
const WARN_INTERVAL_MS = 60_000;
/** Until init() gives the limiter's window (express-rate-limit calls it at once). */
const DEFAULT_WINDOW_MS = 60_000;

/** The express-rate-limit options one budget's limiter takes from here. */
export type BudgetStoreOptions = Partial<Pick<Options, "store" | "passOnStoreError" | "logger">>;
/** A new store per budget: express-rate-limit refuses a store shared by two limiters. */
export type BudgetStores = (budget: string) => BudgetStoreOptions;

/** A failure of the shared store itself (as opposed to the library's own warnings): the stand-in counts the hit. */
export class RateLimitStoreError extends Error {
  constructor(
    readonly budget: string,
    cause: unknown,
  ) {
    super(`rate limit store for ${budget} failed`, { cause });
    this.name = "RateLimitStoreError";
  }
}

export interface PostgresStoreOptions {
  /** Probability that an increment starts the sweep of this budget's expired rows. */
  cleanupChance?: number;
  /** Past this, a call fails (and the per-process stand-in counts the hit). */
  timeoutMs?: number;
}

interface HitRow {
  hits: number;
  reset_at: Date;
}

/** The keyed hash stored instead of the client's key; its own subkey, so the CSRF secret is never used raw. */
export function clientKeyHasher(secret: string | Buffer): (key: string) => string {
  const subkey = createHmac("sha256", secret).update("rate-limit client key").digest();
  return (key) => createHmac("sha256", subkey).update(key).digest("base64url");
}

/** One budget's counters in rate_limit_hits. */
export class PostgresRateLimitStore implements Store {
  /** Keys counted here count for every replica (express-rate-limit's double-count check reads this). */
  readonly localKeys = false;
  readonly prefix: string;
  private windowMs = DEFAULT_WINDOW_MS;
  private readonly cleanupChance: number;
  private readonly timeoutMs: number;

  constructor(
    private readonly db: Queryable,
    private readonly budget: string,
    private readonly hashKey: (key: string) => string,
    options: PostgresStoreOptions = {},
  ) {
    this.prefix = `${budget}:`;
    this.cleanupChance = options.cleanupChance ?? CLEANUP_CHANCE;
    this.timeoutMs = options.timeoutMs ?? STORE_TIMEOUT_MS;
  }

  init(options: Pick<Options, "windowMs">): void {
    this.windowMs = options.windowMs;
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    if (Math.random() < this.cleanupChance) void this.removeExpired().catch(() => {}); // housekeeping: the next sweep retries
    const { rows } = await this.run<HitRow>(
      `INSERT INTO rate_limit_hits AS current (budget, client_key, hits, reset_at)
       VALUES ($1, $2, 1, now() + $3::double precision * interval '1 millisecond')
       ON CONFLICT (budget, client_key) DO UPDATE SET
         hits = CASE WHEN current.reset_at <= now() THEN 1 ELSE current.hits + 1 END,
         reset_at = CASE WHEN current.reset_at <= now() THEN EXCLUDED.reset_at ELSE current.reset_at END
       RETURNING hits, reset_at`,
      [this.budget, this.hashKey(key), this.windowMs],
    );
    const row = rows[0];
    if (!row) throw new RateLimitStoreError(this.budget, new Error("the upsert returned no row"));
    return { totalHits: Number(row.hits), resetTime: new Date(row.reset_at) };
  }

  async decrement(key: string): Promise<void> {
    await this.run(
      "UPDATE rate_limit_hits SET hits = hits - 1 WHERE budget = $1 AND client_key = $2 AND hits > 0 AND reset_at > now()",
      [this.budget, this.hashKey(key)],
    );
  }

  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    const { rows } = await this.run<HitRow>("SELECT hits, reset_at FROM rate_limit_hits WHERE budget = $1 AND client_key = $2 AND reset_at > now()", [
      this.budget,
      this.hashKey(key),
    ]);
    const row = rows[0];
    return row ? { totalHits: Number(row.hits), resetTime: new Date(row.reset_at) } : undefined;
  }

  async resetKey(key: string): Promise<void> {
    await this.run("DELETE FROM rate_limit_hits WHERE budget = $1 AND client_key = $2", [this.budget, this.hashKey(key)]);
  }

  async resetAll(): Promise<void> {
    await this.run("DELETE FROM rate_limit_hits WHERE budget = $1", [this.budget]);
  }

  /** Deletes this budget's rows whose window has passed; resolves with how many. */
  async removeExpired(): Promise<number> {
    const { rows } = await this.run<{ removed: number }>(
      "WITH gone AS (DELETE FROM rate_limit_hits WHERE budget = $1 AND reset_at <= now() RETURNING 1) SELECT count(*)::integer AS removed FROM gone",
      [this.budget],
    );
    return Number(rows[0]?.removed ?? 0);
  }

  /** One statement within the time limit; any failure becomes a RateLimitStoreError. */
  private async run<Row>(sql: string, params: unknown[]): Promise<{ rows: Row[] }> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    try {
      return await Promise.race([this.db.query<Row>(sql, params), timeout]);
    } catch (error) {
      throw error instanceof RateLimitStoreError ? error : new RateLimitStoreError(this.budget, error);
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * One budget's counters: in PostgreSQL (`shared`), or, for a call that fails with a
 * RateLimitStoreError (the database is away, or over its time limit), in this process's
 * MemoryStore, keyed the same way. Each failure goes to `reportFailure` (rateLimitLogger's
 * `error`, which throttles it). Every call tries the database first, so its count is used again as
 * soon as it answers. A decrement goes where it can too: one for a hit counted by the stand-in
 * that reaches the database after it came back gives back one hit there (at most one per request
 * that straddles the recovery).
 */
export class StoreWithStandIn implements Store {
  /** As the shared store: keys count for every replica (the stand-in is the exception, during an outage). */
  readonly localKeys = false;
  readonly prefix: string;
  private readonly standIn = new MemoryStore();

  constructor(
    private readonly shared: PostgresRateLimitStore,
    private readonly reportFailure: (error: RateLimitStoreError) => void,
  ) {
    this.prefix = shared.prefix;
  }

  init(options: Options): void {
    this.shared.init(options);
    this.standIn.init(options); // its sweep timer is unref'd: nothing to stop at exit
  }

  increment(key: string): Promise<ClientRateLimitInfo> {
    return this.either(
      () => this.shared.increment(key),
      () => this.standIn.increment(key),
    );
  }

  decrement(key: string): Promise<void> {
    return this.either(
      () => this.shared.decrement(key),
      () => this.standIn.decrement(key),
    );
  }

  get(key: string): Promise<ClientRateLimitInfo | undefined> {
    return this.either(
      () => this.shared.get(key),
      () => this.standIn.get(key),
    );
  }

  /** Both: a reset client starts from zero wherever it is counted next. */
  async resetKey(key: string): Promise<void> {
    await this.standIn.resetKey(key);
    await this.either(
      () => this.shared.resetKey(key),
      async () => {},
    );
  }

  async resetAll(): Promise<void> {
    await this.standIn.resetAll();
    await this.either(
      () => this.shared.resetAll(),
      async () => {},
    );
  }

  shutdown(): void {
    this.standIn.shutdown();
  }

  private async either<T>(shared: () => Promise<T>, standIn: () => Promise<T>): Promise<T> {
    try {
      return await shared();
    } catch (error) {
      if (!(error instanceof RateLimitStoreError)) throw error;
      this.reportFailure(error);
      return standIn();
    }
  }
}

/**
 * express-rate-limit's complaints, as our log lines. Shared store failures (the per-process
 * stand-in counted the hit) are one warn line per interval for all budgets together, with how
 * many were not logged since.
 */
export function rateLimitLogger(logger: Logger, intervalMs = WARN_INTERVAL_MS): (budget: string) => NonNullable<BudgetStoreOptions["logger"]> {
  let lastWarnAt = -Infinity;
  let unlogged = 0;
  return (budget) => ({
    warn: (error, message) => logger.warn({ err: error, event: "rate_limit_warning", budget }, message ?? "rate limiter warning"),
    error(error, message) {
      if (!(error instanceof RateLimitStoreError)) {
        logger.error({ err: error, event: "rate_limit_error", budget }, message ?? "rate limiter error");
        return;
      }
      const now = Date.now();
      if (now - lastWarnAt < intervalMs) {
        unlogged += 1;
        return;
      }
      logger.warn(
        { err: error.cause, event: "rate_limit_store_unavailable", budget, unloggedSinceLast: unlogged },
        "rate limit store unavailable: a per-process limit stands in (each process counts its clients on its own)",
      );
      lastWarnAt = now;
      unlogged = 0;
    },
  });
}

/**
 * The stores for clientBudgets(): PostgreSQL's table, with the per-process stand-in, when the
 * database is PostgreSQL; nothing (express-rate-limit's memory store) on the embedded store, which
 * only one process can open. passOnStoreError stays as the last resort: only an error that is not
 * the shared store's failure (a bug) would reach the library, and it lets that request through.
 */
export function budgetStoresFor(db: Database, secret: string | Buffer, logger: Logger, options: PostgresStoreOptions = {}): BudgetStores | undefined {
  if (db.kind !== "postgres") return undefined;
  const hashKey = clientKeyHasher(secret);
  const loggerFor = rateLimitLogger(logger);
  return (budget) => {
    const logger = loggerFor(budget);
    return {
      store: new StoreWithStandIn(new PostgresRateLimitStore(db, budget, hashKey, options), (error) => logger.error(error)),
      passOnStoreError: true,
      logger,
    };
  };
}
