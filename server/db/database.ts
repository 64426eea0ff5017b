/**
 * The database: PostgreSQL when DATABASE_URL is set (the database of record in production),
 * otherwise an embedded PostgreSQL (PGlite) persisted on disk under DATA_DIR, so the README's
 * run command needs no set-up. Both speak the same SQL; code above this module sees one
 * interface and never knows which it has.
 *
 * Repositories query through `builder`, a Kysely query builder typed by server/db/schema.ts
 * (column names in camelCase in TypeScript, snake_case in SQL). `query`/`transaction` take plain
 * SQL, for migrations and tests.
 */
import { closeSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { randomBytes } from "node:crypto";
import path from "node:path";
import pg from "pg";
import type { PGlite } from "@electric-sql/pglite";
import { CamelCasePlugin, Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient } from "kysely";
import type { Tables } from "./schema";

export interface QueryResult<Row> {
  rows: Row[];
}

export interface Queryable {
  /** One statement, with $1… parameters. */
  query<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<Row>>;
}

export type Builder = Kysely<Tables>;

export interface Database extends Queryable {
  readonly kind: "postgres" | "embedded";
  /** The typed query builder; `builder.transaction().execute(...)` for several statements at once. */
  readonly builder: Builder;
  /** Runs `work` in one transaction: committed if it resolves, rolled back if it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** PostgreSQL: the pool's connections now (for the metrics); the embedded store has one session and none. */
  poolStats?(): { total: number; idle: number; waiting: number };
}

export interface DatabaseOptions {
  DATABASE_URL?: string | undefined;
  DATA_DIR: string;
  /** Pool size for PostgreSQL. */
  DATABASE_POOL_SIZE?: number;
  /** PostgreSQL's application_name for the pool's connections (pg_stat_activity shows which pool holds what). */
  applicationName?: string;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.DATABASE_URL
    ? openPostgres(options.DATABASE_URL, options.DATABASE_POOL_SIZE ?? 10, options.applicationName)
    : openEmbedded(path.resolve(options.DATA_DIR));
}

/** PostgreSQL's `date` (a calendar day: a date of birth) stays "YYYY-MM-DD": no time zone may shift it. */
const DATE_OID = 1082;

/** The one implementation over either store's pool: pg's, or the embedded store's single session. */
function overPool(kind: Database["kind"], pool: PostgresPool, onClose: () => Promise<void>): Database {
  const builder = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }), plugins: [new CamelCasePlugin()] });
  const on = (client: PostgresPoolClient): Queryable => ({
    query: async <Row,>(sql: string, params?: readonly unknown[]) => (await client.query<Row>(sql, (params ?? []) as readonly unknown[])) as QueryResult<Row>,
  });
  return {
    kind,
    builder,
    async query<Row>(sql: string, params?: readonly unknown[]) {
      const client = await pool.connect();
      try {
        return await on(client).query<Row>(sql, params);
      } finally {
        client.release();
      }
    },
    async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query("BEGIN", []);
        const result = await work(on(client));
        await client.query("COMMIT", []);
        return result;
      } catch (error) {
        await client.query("ROLLBACK", []).catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    async close() {
      try {
        await builder.destroy(); // ends the pool
      } finally {
        await onClose();
      }
    },
  };
}

async function openPostgres(connectionString: string, max: number, applicationName: string | undefined): Promise<Database> {
  const pool = new pg.Pool({
    connectionString,
    max,
    ...(applicationName ? { application_name: applicationName } : {}),
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    types: { getTypeParser: ((oid: number, format?: "text" | "binary") => (oid === DATE_OID ? (value: string) => value : pg.types.getTypeParser(oid, format))) as typeof pg.types.getTypeParser },
  });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on("error", () => {});
  // A client lent out (a transaction between two statements) whose connection dies emits "error"
  // too, with no listener of pg-pool's then: uncaught, it would end the process on a database
  // restart. Its next statement fails instead (a 503, server/db/unavailable.ts) and pg-pool
  // discards it on release, since it is no longer queryable.
  pool.on("connect", (client) => client.on("error", () => {}));
  const client = await pool.connect(); // fail fast at boot with the driver's message
  client.release();
  return { ...overPool("postgres", pool as unknown as PostgresPool, async () => {}), poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }) };
}

/**
 * PGlite is one PostgreSQL session: whoever holds it (a statement, or a transaction from BEGIN
 * to COMMIT) holds it alone, and the others wait their turn in order.
 */
function singleSessionPool(db: PGlite): PostgresPool {
  let queue: Promise<void> = Promise.resolve();
  let endTurn: () => void = () => {};
  // One client object, as a pool hands out the same connection again (Kysely keys its state by it).
  const session = {
    async query<R>(sql: string, parameters: readonly unknown[]) {
      const result = await db.query<R>(sql, parameters as unknown[]);
      const command = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? "";
      return { command, rowCount: result.affectedRows ?? result.rows.length, rows: result.rows };
    },
    release: () => endTurn(),
  } as PostgresPoolClient;
  return {
    async connect(): Promise<PostgresPoolClient> {
      let release!: () => void;
      const turn = new Promise<void>((resolve) => (release = resolve));
      const previous = queue;
      queue = previous.then(() => turn);
      await previous;
      endTurn = release;
      return session;
    },
    async end() {},
  };
}

/**
 * PGlite is one PostgreSQL backend inside this process: two processes must never open the same
 * directory. A lock file holding our pid guards it (a stale lock from a dead process is taken over).
 */
const lockedHere = new Set<string>();

function lockDirectory(dataDir: string): () => void {
  if (lockedHere.has(dataDir)) throw new Error(`The embedded database in ${dataDir} is already open in this process.`);
  mkdirSync(dataDir, { recursive: true });
  const lockPath = path.join(dataDir, "quote-site.lock");
  const inUse = (holder: string, cause?: unknown) =>
    new Error(`The embedded database in ${dataDir} is in use by process ${holder}. Stop it first, or set DATABASE_URL.`, { cause });
  for (let attempt = 0; attempt < 5; attempt += 1) {
    try {
      const fd = openSync(lockPath, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      lockedHere.add(dataDir);
      return () => {
        lockedHere.delete(dataDir);
        rmSync(lockPath, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = readFileSync(lockPath, "utf8").trim();
      const pid = Number(holder);
      // Our own pid here means a previous run with the same pid (pid 1 in a container): stale.
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) throw inUse(holder, error);
      // Stale. Move it aside atomically and check it is still the lock judged stale: another
      // process may have taken it over in between, and its fresh lock must survive.
      const aside = `${lockPath}.stale-${process.pid}-${randomBytes(4).toString("hex")}`;
      try {
        renameSync(lockPath, aside);
      } catch (renameError) {
        if ((renameError as NodeJS.ErrnoException).code === "ENOENT") continue;
        throw renameError;
      }
      const moved = readFileSync(aside, "utf8").trim();
      if (moved !== holder) {
        // Put the other process's lock back (link never overwrites) and give way.
        try {
          linkSync(aside, lockPath);
        } finally {
          rmSync(aside, { force: true });
        }
        throw inUse(moved, error);
      }
      rmSync(aside, { force: true });
    }
  }
  throw new Error(`Could not lock ${dataDir}`);
}

/** Whether a process with this pid exists (EPERM: it exists, but belongs to another user). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function openEmbedded(dataDir: string): Promise<Database> {
  const unlock = lockDirectory(dataDir);
  let db: PGlite;
  try {
    // Loaded only here: a server on PostgreSQL never loads PGlite's WebAssembly module.
    const { PGlite, types: pgliteTypes } = await import("@electric-sql/pglite");
    db = await PGlite.create(path.join(dataDir, "pglite"), { parsers: { [pgliteTypes.DATE]: (value: string) => value } });
  } catch (error) {
    unlock();
    throw error;
  }
  return overPool("embedded", singleSessionPool(db), async () => {
    try {
      await db.close();
    } finally {
      unlock();
    }
  });
}
