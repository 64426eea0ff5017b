/**
 * Fresh, isolated databases for tests, one helper per store, so one suite runs against both:
 *
 *   describe.each([embeddedStore(), postgresStore()])("… ($kind)", (store) => {
 *     let db: Database;
 *     beforeAll(async () => { db = await store.open(); });
 *     afterAll(() => db.close()); // also deletes it
 *   });
 *
 * The embedded store gets a new temporary DATA_DIR (removed on close); PostgreSQL gets a new
 * `test_<random>` database on the run's server (see global-setup.ts), dropped on close.
 * For tests that start the real server: freshPostgresUrl() and freshDataDir().
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { inject } from "vitest";
import { openDatabase, type Database, type DatabaseOptions, type Queryable } from "../../server/db/database";
import { migrate } from "../../server/db/migrate";
import { createTestDatabase } from "../../tools/postgres";
import { startEmbeddedProcess, type EmbeddedProcess } from "../../server/db/embedded-process";
import { createLogger } from "../../server/logger";

export interface OpenOptions {
  /** Apply the migrations (default true). */
  migrate?: boolean;
}

/** A database of its own: close() closes it and then deletes it. */
export interface TestDatabase extends Database {
  /** How to reach the same database again: its DATABASE_URL or its DATA_DIR. */
  readonly location: DatabaseOptions;
}

export interface TestStore {
  readonly kind: Database["kind"];
  open(options?: OpenOptions): Promise<TestDatabase>;
}

/** The admin URL from global-setup.ts (TEST_DATABASE_URL or the throwaway cluster). */
export function postgresAdminUrl(): string {
  const url = inject("postgresAdminUrl");
  if (!url) throw new Error("No PostgreSQL for this test run: this test file must be in a project of vitest.config.ts whose globalSetup is tests/support/global-setup.ts.");
  return url;
}

export interface FreshDataDir {
  dir: string;
  remove(): Promise<void>;
}

/** A new, empty temporary directory to use as DATA_DIR. */
export async function freshDataDir(): Promise<FreshDataDir> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "quote-site-data-"));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

export interface FreshPostgres {
  /** DATABASE_URL of a new, empty (unmigrated) database. */
  url: string;
  /** Drops it WITH (FORCE), so connections left open do not matter. */
  drop(): Promise<void>;
}

/** A new, empty PostgreSQL database on the test server (e.g. to start the real server with DATABASE_URL). */
export async function freshPostgresUrl(): Promise<FreshPostgres> {
  const database = await createTestDatabase(postgresAdminUrl());
  return { url: database.url, drop: () => database.drop() };
}

function wrap(db: Database, location: TestDatabase["location"], cleanup: () => Promise<void>): TestDatabase {
  let closed = false;
  return {
    kind: db.kind,
    location,
    builder: db.builder,
    query: <Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]) => db.query<Row>(sql, params),
    transaction: <T,>(work: (tx: Queryable) => Promise<T>) => db.transaction(work),
    async close() {
      if (closed) return;
      closed = true;
      try {
        await db.close();
      } finally {
        await cleanup();
      }
    },
  };
}

async function prepare(db: Database, options: OpenOptions): Promise<void> {
  if (options.migrate ?? true) await migrate(db);
}

export function embeddedStore(): TestStore {
  return {
    kind: "embedded",
    async open(options = {}) {
      const data = await freshDataDir();
      let db: Database | undefined;
      try {
        db = await openDatabase({ DATA_DIR: data.dir });
        await prepare(db, options);
      } catch (error) {
        await db?.close().catch(() => {});
        await data.remove();
        throw error;
      }
      return wrap(db, { DATA_DIR: data.dir }, data.remove);
    },
  };
}

export function postgresStore(): TestStore {
  return {
    kind: "postgres",
    async open(options = {}) {
      const database = await freshPostgresUrl();
      let db: Database | undefined;
      try {
        db = await openDatabase({ DATABASE_URL: database.url, DATA_DIR: "unused" });
        await prepare(db, options);
      } catch (error) {
        await db?.close().catch(() => {});
        await database.drop();
        throw error;
      }
      return wrap(db, { DATABASE_URL: database.url, DATA_DIR: "unused" }, database.drop);
    },
  };
}

/** Both stores, for describe.each. */
export function allStores(): TestStore[] {
  return [embeddedStore(), postgresStore()];
}

/** A fresh store an ops command reaches through its environment (DATA_DIR or DATABASE_URL), and how to remove it. */
export interface CommandStore {
  env: NodeJS.ProcessEnv;
  options: DatabaseOptions;
  remove(): Promise<void>;
}

/** Opens a command's store, migrated, for `work`, and closes it again (so the command can open it next). */
export async function withCommandStore<T>(store: Pick<CommandStore, "options">, work: (db: Database) => Promise<T>): Promise<T> {
  const db = await openDatabase(store.options);
  try {
    await migrate(db);
    return await work(db);
  } finally {
    await db.close();
  }
}

/** The database process's source, run under tsx: these tests need no build. */
const EMBEDDED_MAIN = path.join(import.meta.dirname, "..", "..", "server", "db", "embedded-main.ts");

/**
 * A DATA_DIR held as a running site holds it (decision 033): its database process serves it, so
 * every opener, an ops command or the test itself, goes through its socket. remove() stops the
 * process, then deletes the directory.
 */
export async function servedDataDir(): Promise<FreshDataDir & { process: EmbeddedProcess }> {
  const data = await freshDataDir();
  const logger = createLogger({ LOG_LEVEL: "warn", NODE_ENV: "production" });
  try {
    const served = await startEmbeddedProcess({ script: EMBEDDED_MAIN, dataDir: data.dir, logger });
    return {
      dir: data.dir,
      process: served,
      async remove() {
        await served.stop();
        await data.remove();
      },
    };
  } catch (error) {
    await data.remove();
    throw error;
  }
}

export type CommandStoreKind = "embedded" | "postgres" | "embedded, site running";

/**
 * The stores for the ops commands' tests (describe.each); `extraEnv` goes into each command's
 * environment. With `running`, also the embedded store while a site holds it.
 */
export function commandStores(extraEnv: NodeJS.ProcessEnv = {}, options: { running?: boolean } = {}): { kind: CommandStoreKind; make(): Promise<CommandStore> }[] {
  const running = {
    kind: "embedded, site running" as const,
    async make(): Promise<CommandStore> {
      const data = await servedDataDir();
      return { env: { DATA_DIR: data.dir, ...extraEnv }, options: { DATA_DIR: data.dir }, remove: data.remove };
    },
  };
  return [
    ...(options.running ? [running] : []),
    {
      kind: "embedded",
      async make() {
        const data = await freshDataDir();
        return { env: { DATA_DIR: data.dir, ...extraEnv }, options: { DATA_DIR: data.dir }, remove: data.remove };
      },
    },
    {
      kind: "postgres",
      async make() {
        const database = await freshPostgresUrl();
        const options = { DATABASE_URL: database.url, DATA_DIR: "unused" };
        return { env: { ...options, ...extraEnv }, options, remove: database.drop };
      },
    },
  ];
}
