/**
 * The database: PostgreSQL when DATABASE_URL is set (the database of record in production),
 * otherwise an embedded PostgreSQL (PGlite) persisted on disk under DATA_DIR, so the README's
 * run command needs no set-up. Both speak the same SQL; code above this module sees one
 * interface and never knows which it has.
 */
import { closeSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { randomBytes } from "node:crypto";
import path from "node:path";
import pg from "pg";
import { PGlite } from "@electric-sql/pglite";

export interface QueryResult<Row> {
  rows: Row[];
}

export interface Queryable {
  /** One statement, with $1… parameters. */
  query<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<Row>>;
}

export interface Database extends Queryable {
  readonly kind: "postgres" | "embedded";
  /** Runs `work` in one transaction: committed if it resolves, rolled back if it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  DATABASE_URL?: string | undefined;
  DATA_DIR: string;
  /** Pool size for PostgreSQL. */
  DATABASE_POOL_SIZE?: number;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.DATABASE_URL
    ? openPostgres(options.DATABASE_URL, options.DATABASE_POOL_SIZE ?? 10)
    : openEmbedded(path.resolve(options.DATA_DIR));
}

async function openPostgres(connectionString: string, max: number): Promise<Database> {
  const pool = new pg.Pool({ connectionString, max, connectionTimeoutMillis: 10_000, idleTimeoutMillis: 30_000 });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on("error", () => {});
  const client = await pool.connect(); // fail fast at boot with the driver's message
  client.release();
  return {
    kind: "postgres",
    query: async <Row,>(sql: string, params?: readonly unknown[]) => (await pool.query(sql, params as unknown[])) as unknown as QueryResult<Row>,
    async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
      const connection = await pool.connect();
      try {
        await connection.query("BEGIN");
        const result = await work({
          query: async <Row,>(sql: string, params?: readonly unknown[]) =>
            (await connection.query(sql, params as unknown[])) as unknown as QueryResult<Row>,
        });
        await connection.query("COMMIT");
        return result;
      } catch (error) {
        await connection.query("ROLLBACK").catch(() => {});
        throw error;
      } finally {
        connection.release();
      }
    },
    close: () => pool.end(),
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
    db = await PGlite.create(path.join(dataDir, "pglite"));
  } catch (error) {
    unlock();
    throw error;
  }
  return {
    kind: "embedded",
    query: async <Row,>(sql: string, params?: readonly unknown[]) => db.query<Row>(sql, params as unknown[]),
    // PGlite runs one transaction at a time; others wait their turn.
    transaction: <T,>(work: (tx: Queryable) => Promise<T>) =>
      db.transaction((tx) => work({ query: async <Row,>(sql: string, params?: readonly unknown[]) => tx.query<Row>(sql, params as unknown[]) })),
    async close() {
      try {
        await db.close();
      } finally {
        unlock();
      }
    },
  };
}
