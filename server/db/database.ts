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
import { existsSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import type { PGlite } from "@electric-sql/pglite";
import { CamelCasePlugin, Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient } from "kysely";
import type { Tables } from "./schema";
import { EMBEDDED_SOCKET_PORT, embeddedSocketPath, lockDirectory, openPGlite, StoreInUseError } from "./embedded-store";


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

/**
 * PostgreSQL at DATABASE_URL; otherwise the embedded store in DATA_DIR: opened in this process
 * when no other process has it, or reached through the socket of the database process a running
 * server started (decision 033), so the ops commands work while the site runs.
 */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.DATABASE_URL) return openPostgres({ connectionString: options.DATABASE_URL }, options.DATABASE_POOL_SIZE ?? 10, options.applicationName);
  const dataDir = path.resolve(options.DATA_DIR);
  let unlock: () => void;
  try {
    unlock = lockDirectory(dataDir);
  } catch (error) {
    if (error instanceof StoreInUseError && existsSync(embeddedSocketPath(dataDir))) return connectEmbedded(dataDir, options.DATABASE_POOL_SIZE ?? 1, options.applicationName);
    throw error;
  }
  return openEmbedded(dataDir, unlock);
}

/** The embedded store through its database process's socket (server/db/embedded-relay.ts). */
export async function connectEmbedded(dataDir: string, poolSize: number, applicationName?: string): Promise<Database> {
  const database = await openPostgres({ host: dataDir, port: EMBEDDED_SOCKET_PORT, user: "postgres", database: "postgres" }, poolSize, applicationName);
  return { ...database, kind: "embedded" };
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

async function openPostgres(target: pg.PoolConfig, max: number, applicationName: string | undefined): Promise<Database> {
  const pool = new pg.Pool({
    ...target,
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

async function openEmbedded(dataDir: string, unlock: () => void): Promise<Database> {
  let db: PGlite;
  try {
    db = await openPGlite(dataDir);
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
