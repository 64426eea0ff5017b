/**
 * Which errors mean "the database cannot be reached just now" (server/db/unavailable.ts), on the
 * errors `pg` really raises: a closed port, a session ended by pg_terminate_backend during a
 * statement and between two statements of a transaction, a pool kept waiting, a server that never
 * answers, and a PostgreSQL restart, after which the same Database works again by itself. And
 * what the API answers for them: 503 with Retry-After in its one envelope (server/api/errors.ts).
 */
import net from "node:net";
import getPort from "get-port";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openDatabase, type Database } from "../../server/db/database";
import { isDatabaseUnavailable } from "../../server/db/unavailable";
import { DATABASE_UNAVAILABLE_MESSAGE } from "../../server/api/errors";
import { fakeExchange } from "../support/api-exchange";
import { startThrowawayCluster, type ThrowawayCluster } from "../../tools/postgres";

/** What a promise rejected with (fails the test if it resolved). */
async function failure(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error("expected a failure");
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let cluster: ThrowawayCluster;
let db: Database;
/** For pg_terminate_backend; an error listener, as the server's own ending is expected here. */
let admin: pg.Client;

async function openAdmin(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: cluster.url });
  client.on("error", () => {});
  await client.connect();
  return client;
}

beforeAll(async () => {
  cluster = await startThrowawayCluster(); // our own: this file restarts it
  db = await openDatabase({ DATABASE_URL: cluster.url, DATA_DIR: "unused", DATABASE_POOL_SIZE: 4 });
  admin = await openAdmin();
});

afterAll(async () => {
  await admin?.end().catch(() => {});
  await db?.close().catch(() => {});
  await cluster?.stop();
});

describe("isDatabaseUnavailable, on what pg really raises", { timeout: 60_000 }, () => {
  it("a port with nothing listening: ECONNREFUSED, from the pool and from openDatabase", async () => {
    const port = await getPort({ host: "127.0.0.1" });
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const pool = new pg.Pool({ connectionString: url });
    const fromPool = await failure(pool.connect());
    await pool.end();
    expect(fromPool.code).toBe("ECONNREFUSED");
    expect(isDatabaseUnavailable(fromPool)).toBe(true);
    const fromOpen = await failure(openDatabase({ DATABASE_URL: url, DATA_DIR: "unused" }));
    expect(isDatabaseUnavailable(fromOpen)).toBe(true);
  });

  it("a session ended by pg_terminate_backend during a statement: 57P01 admin_shutdown", async () => {
    const sleeping = failure(db.query("SELECT pg_sleep(30) AS sleeping"));
    await vi.waitFor(async () => {
      const { rows } = await admin.query("SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE query LIKE '%AS sleeping' AND pid <> pg_backend_pid()");
      expect(rows).toEqual([{ ended: true }]);
    });
    const error = await sleeping;
    expect(error).toBeInstanceOf(pg.DatabaseError);
    expect(error.code).toBe("57P01");
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it("a session ended between two statements of a transaction: the next one fails as unavailable, and the process lives on", async () => {
    // Without an error listener on lent-out clients (server/db/database.ts), the driver's "error"
    // event here would be uncaught, and vitest would fail this file with it.
    const error = await failure(
      db.transaction(async (tx) => {
        const { rows } = await tx.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
        await admin.query("SELECT pg_terminate_backend($1)", [rows[0]!.pid]);
        await sleep(300); // the client sits idle in its transaction while the server ends it
        await tx.query("SELECT 1");
      }),
    );
    expect(error.message).toMatch(/^(Connection terminated unexpectedly|Client has encountered a connection error and is not queryable)$/);
    expect(isDatabaseUnavailable(error)).toBe(true);
    // The dead client was not put back in the pool: the next statements get live ones.
    for (let i = 0; i < 6; i += 1) expect((await db.query<{ one: number }>("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
  });

  it("every connection of the pool busy past connectionTimeoutMillis: pg-pool's timeout", async () => {
    const pool = new pg.Pool({ connectionString: cluster.url, max: 1, connectionTimeoutMillis: 200 });
    const held = await pool.connect();
    const error = await failure(pool.connect());
    held.release();
    await pool.end();
    expect(error.message).toBe("timeout exceeded when trying to connect");
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it("a server that takes the connection but never answers: pg-pool's connection timeout", async () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as net.AddressInfo;
    const pool = new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`, connectionTimeoutMillis: 300 });
    const error = await failure(pool.connect());
    await pool.end();
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
    expect(error.message).toBe("Connection terminated due to connection timeout");
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it("the shapes pg gives the other SQLSTATEs of a server going away (57P02, 57P03, class 08), and Node's AggregateError", () => {
    const databaseError = (code: string, message: string) => Object.assign(new pg.DatabaseError(message, 0, "error"), { code });
    expect(isDatabaseUnavailable(databaseError("57P03", "the database system is starting up"))).toBe(true);
    expect(isDatabaseUnavailable(databaseError("57P03", "the database system is shutting down"))).toBe(true);
    expect(isDatabaseUnavailable(databaseError("57P02", "terminating connection because of crash of another server process"))).toBe(true);
    expect(isDatabaseUnavailable(databaseError("08006", "connection failure"))).toBe(true);
    expect(isDatabaseUnavailable(databaseError("08P01", "protocol violation"))).toBe(true);
    const refused = (address: string) => Object.assign(new Error(`connect ECONNREFUSED ${address}`), { code: "ECONNREFUSED", syscall: "connect" });
    expect(isDatabaseUnavailable(Object.assign(new AggregateError([refused("::1:5432"), refused("127.0.0.1:5432")]), { code: "ECONNREFUSED" }))).toBe(true);
    // The embedded store's socket while its database process starts again; any other missing file is ours.
    expect(isDatabaseUnavailable(Object.assign(new Error("connect ENOENT /data/.s.PGSQL.5432"), { code: "ENOENT", syscall: "connect" }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error("ENOENT: no such file or directory, open 'x'"), { code: "ENOENT", syscall: "open" }))).toBe(false);
    expect(isDatabaseUnavailable(new AggregateError([refused("::1:5432"), refused("127.0.0.1:5432")]))).toBe(true);
    expect(isDatabaseUnavailable(new Error("wrapped", { cause: Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }) }))).toBe(true);
  });

  it("not: SQL the server refused, a constraint, bad input, our own errors, however they are worded", async () => {
    for (const sql of ["SELEC 1", "SELECT 'x'::int", "SELECT 1/0", "SELECT * FROM no_such_table"]) {
      const error = await failure(db.query(sql));
      expect(error).toBeInstanceOf(pg.DatabaseError);
      expect(isDatabaseUnavailable(error), sql).toBe(false);
    }
    const duplicate = await failure(db.transaction(async (tx) => {
      await tx.query("CREATE TEMP TABLE once2 (id int PRIMARY KEY)");
      await tx.query("INSERT INTO once2 VALUES (1), (1)");
    }));
    expect(duplicate.code).toBe("23505");
    expect(isDatabaseUnavailable(duplicate)).toBe(false);
    // A statement timeout is slowness of ours, not an unreachable server: 500 as before.
    const cancelled = await failure(db.transaction(async (tx) => {
      await tx.query("SET LOCAL statement_timeout = 50");
      await tx.query("SELECT pg_sleep(1)");
    }));
    expect(cancelled.code).toBe("57014");
    expect(isDatabaseUnavailable(cancelled)).toBe(false);
    for (const other of [new Error("connection refused to 10.0.0.5:5432"), new Error("Connection terminated"), new Error("Could not allocate a unique lead reference"), "ECONNREFUSED", null, undefined, { code: 57 }]) {
      expect(isDatabaseUnavailable(other), String(other)).toBe(false);
    }
  });

  it("a restart: a statement in flight gets 57P01, statements meanwhile fail as unavailable (ECONNREFUSED while down), and the same Database works again afterwards", async () => {
    const inFlight = failure(db.query("SELECT pg_sleep(30) AS in_flight"));
    await vi.waitFor(async () => {
      const { rows } = await admin.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE '%AS in_flight' AND pid <> pg_backend_pid()");
      expect(rows).toEqual([{ n: 1 }]);
    });
    let back = false;
    const restarted = cluster.restart(1_500).then(() => (back = true));
    // Statements all through the restart: while it stops, while nothing listens, while it starts.
    const meanwhile: Array<Error & { code?: string }> = [];
    while (!back) {
      await db.query("SELECT 1").catch((error: Error) => meanwhile.push(error));
      await sleep(50);
    }
    await restarted;
    admin = await openAdmin();

    const first = await inFlight;
    expect(first.code).toBe("57P01");
    expect(isDatabaseUnavailable(first)).toBe(true);
    expect(meanwhile.map((error) => error.code)).toContain("ECONNREFUSED");
    for (const error of meanwhile) expect(isDatabaseUnavailable(error), `${error.code}: ${error.message}`).toBe(true);
    // The pool dropped its dead clients (idle ones through its "error" listener) and connects anew.
    const results = await Promise.all(Array.from({ length: 8 }, () => db.query<{ one: number }>("SELECT 1 AS one")));
    expect(results.map((result) => result.rows[0]?.one)).toEqual(Array(8).fill(1));
  });
});

describe("the API's answer to a database that cannot be reached", () => {
  it("is 503 with Retry-After: 2 in the one error envelope, no-store, logged at warn as database_unavailable", async () => {
    const port = await getPort({ host: "127.0.0.1" });
    const pool = new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
    const error = await failure(pool.connect());
    await pool.end();

    const { log, sent, handle } = fakeExchange({}, false, { baseUrl: "/api", path: "/leads" });
    handle(error);

    expect(sent).toEqual({
      status: 503,
      body: { status: "error", error: DATABASE_UNAVAILABLE_MESSAGE },
      headers: { "cache-control": "no-store", "retry-after": "2" },
    });
    expect(log.warn).toHaveBeenCalledWith({ event: "database_unavailable", path: "/api/leads", err: error }, "database unavailable");
    expect(log.error).not.toHaveBeenCalled();
  });
});
