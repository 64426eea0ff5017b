/**
 * The embedded store's database process and its socket (decision 033, server/db/embedded-relay.ts):
 * PGlite is one session, shared by every connection through the socket. A transaction or an
 * extended-protocol exchange is never interleaved with another connection's statements; a
 * connection that leaves or falls silent mid-transaction is rolled back; the process goes when
 * the server that started it goes.
 */
import net from "node:net";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PGlite } from "@electric-sql/pglite";
import { createRelay, MessageFramer, readyStatus } from "../../server/db/embedded-relay";
import { EMBEDDED_SOCKET_PORT, embeddedSocketPath } from "../../server/db/embedded-store";
import { openDatabase } from "../../server/db/database";
import { freshDataDir, servedDataDir } from "../support/databases";

const SLOW = { timeout: 60_000 };

function client(dir: string): pg.Client {
  const connection = new pg.Client({ host: dir, port: EMBEDDED_SOCKET_PORT, user: "postgres", database: "postgres" });
  connection.on("error", () => {});
  return connection;
}

/** Resolves with `value` when `promise` settles within `ms`, else with "pending". */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | "pending"> {
  return Promise.race([promise, new Promise<"pending">((resolve) => setTimeout(() => resolve("pending"), ms))]);
}

describe("the database process's socket", SLOW, () => {
  let served: Awaited<ReturnType<typeof servedDataDir>>;
  const open: pg.Client[] = [];
  const connect = async () => {
    const connection = client(served.dir);
    open.push(connection);
    await connection.connect();
    return connection;
  };

  beforeAll(async () => {
    served = await servedDataDir();
    const setup = client(served.dir);
    await setup.connect();
    await setup.query("CREATE TABLE IF NOT EXISTS scratch (id serial PRIMARY KEY, note text NOT NULL)");
    await setup.end();
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((connection) => connection.end().catch(() => {})));
    const cleanup = client(served.dir);
    await cleanup.connect();
    await cleanup.query("TRUNCATE scratch");
    await cleanup.end();
  });
  afterAll(() => served.remove());

  it("is a socket only its owner may open, in DATA_DIR, held by the process named in the lock", async () => {
    const socket = embeddedSocketPath(served.dir);
    expect(existsSync(socket)).toBe(true);
    const { statSync } = await import("node:fs");
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    expect(readFileSync(path.join(served.dir, "quote-site.lock"), "utf8")).toBe(String(served.process.pid));
  });

  it("keeps another connection's statement out of an open transaction until it ends", async () => {
    const a = await connect();
    const b = await connect();
    await a.query("BEGIN");
    await a.query("INSERT INTO scratch (note) VALUES ($1)", ["uncommitted"]);
    const counted = b.query<{ n: string }>("SELECT count(*) AS n FROM scratch");
    // Inside one shared session, b's statement would run in a's transaction and see its row.
    expect(await within(counted, 300)).toBe("pending");
    await a.query("INSERT INTO scratch (note) VALUES ($1)", ["still a's"]);
    await a.query("ROLLBACK");
    expect((await counted).rows[0]!.n).toBe("0");
  });

  it("answers many connections' parameterised statements each with their own results", async () => {
    const pool = new pg.Pool({ host: served.dir, port: EMBEDDED_SOCKET_PORT, user: "postgres", database: "postgres", max: 6 });
    const connection = { query: pool.query.bind(pool) } as Pick<pg.Pool, "query">;
    const work = Array.from({ length: 240 }, async (_, index) => {
      if (index % 3 === 0) {
        const inserted = await connection.query<{ note: string }>("INSERT INTO scratch (note) VALUES ($1) RETURNING note", [`note ${index}`]);
        return inserted.rows[0]!.note === `note ${index}`;
      }
      const answered = await connection.query<{ doubled: number; text: string }>("SELECT $1::int * 2 AS doubled, $2::text AS text", [index, `q${index}`]);
      return answered.rows[0]!.doubled === index * 2 && answered.rows[0]!.text === `q${index}`;
    });
    expect((await Promise.all(work)).every(Boolean)).toBe(true);
    await pool.end();
    const check = await connect();
    expect((await check.query<{ n: string }>("SELECT count(*) AS n FROM scratch")).rows[0]!.n).toBe("80");
  });

  it("rolls back the transaction of a connection that goes away, and the others go on", async () => {
    const a = await connect();
    const b = await connect();
    await a.query("BEGIN");
    await a.query("INSERT INTO scratch (note) VALUES ('abandoned')");
    const counted = b.query<{ n: string }>("SELECT count(*) AS n FROM scratch");
    expect(await within(counted, 200)).toBe("pending");
    // The process holding the connection dies: its socket closes without a word.
    (a as unknown as { connection: { stream: net.Socket } }).connection.stream.destroy();
    expect((await counted).rows[0]!.n).toBe("0");
    const c = await connect();
    expect((await c.query<{ open: boolean }>("SELECT pg_current_xact_id_if_assigned() IS NOT NULL AS open")).rows[0]!.open).toBe(false);
  });

  it("lets an ops command open the store while the process holds it (through the socket)", async () => {
    const db = await openDatabase({ DATA_DIR: served.dir });
    try {
      await db.query("INSERT INTO scratch (note) VALUES ('from a command')");
      expect(db.kind).toBe("embedded");
      const seen = await connect();
      expect((await seen.query("SELECT note FROM scratch")).rows).toEqual([{ note: "from a command" }]);
    } finally {
      await db.close();
    }
  });

  it("answers an SSL request with N and a bad first message by closing the connection", async () => {
    const socket = net.connect(embeddedSocketPath(served.dir));
    await new Promise((resolve) => socket.once("connect", resolve));
    const ssl = Buffer.alloc(8);
    ssl.writeInt32BE(8, 0);
    ssl.writeInt32BE(80877103, 4);
    socket.write(ssl);
    const answer = await new Promise<Buffer>((resolve) => socket.once("data", resolve));
    expect(answer.toString()).toBe("N");
    const closed = new Promise((resolve) => socket.once("close", resolve));
    const bad = Buffer.alloc(8);
    bad.writeInt32BE(2, 0); // a length shorter than its own header
    socket.write(bad);
    await closed;
    // And the store still answers.
    const after = await connect();
    expect((await after.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
  });
});

describe("the relay in-process", SLOW, () => {
  it("closes a connection that holds a transaction and says nothing for the idle limit, rolling it back", async () => {
    const data = await freshDataDir();
    const db = await PGlite.create(path.join(data.dir, "pglite"));
    const relay = createRelay({ db, idleHoldMs: 300 });
    const server = net.createServer((socket) => relay.accept(socket));
    const socketPath = embeddedSocketPath(data.dir);
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    try {
      const a = client(data.dir);
      const b = client(data.dir);
      await a.connect();
      await b.connect();
      await a.query("CREATE TABLE held (id int)");
      await a.query("BEGIN");
      await a.query("INSERT INTO held VALUES (1)");
      const ended = new Promise((resolve) => a.once("end", resolve));
      const counted = b.query<{ n: string }>("SELECT count(*) AS n FROM held");
      expect((await counted).rows[0]!.n).toBe("0");
      await ended;
      await b.end();
    } finally {
      server.close();
      await relay.close();
      await db.close();
      await data.remove();
    }
  });
});

describe("the relay after a fault of its own", SLOW, () => {
  it("reports it, ends the connection it was serving, and serves the others", async () => {
    const data = await freshDataDir();
    const real = await PGlite.create(path.join(data.dir, "pglite"));
    // A backend answer the relay cannot read (none is expected from PGlite): its loop throws.
    const faulty = {
      execProtocolRaw: (message: Uint8Array, options?: { syncToFs?: boolean }) =>
        Buffer.from(message).includes(Buffer.from("SELECT 'fault'")) ? Promise.resolve(null as unknown as Uint8Array) : real.execProtocolRaw(message, options),
    } as unknown as PGlite; // only execProtocolRaw is used by the relay
    const problems: string[] = [];
    const relay = createRelay({ db: faulty, onProblem: (event) => problems.push(event) });
    const server = net.createServer((socket) => relay.accept(socket));
    await new Promise<void>((resolve) => server.listen(embeddedSocketPath(data.dir), resolve));
    try {
      const a = client(data.dir);
      const b = client(data.dir);
      await a.connect();
      await b.connect();
      await expect(a.query("SELECT 'fault'")).rejects.toThrow();
      expect(problems).toContain("embedded_relay_error");
      expect((await b.query("SELECT 2 AS two")).rows).toEqual([{ two: 2 }]);
      await b.end();
    } finally {
      server.close();
      await relay.close();
      await real.close();
      await data.remove();
    }
  });
});

describe("the protocol framing", () => {
  it("splits a stream cut anywhere into the startup message and typed messages", () => {
    const startup = Buffer.alloc(8);
    startup.writeInt32BE(8, 0);
    startup.writeInt32BE(196608, 4);
    const query = Buffer.concat([Buffer.from("Q"), Buffer.from([0, 0, 0, 13]), Buffer.from("SELECT 1\0")]);
    const sync = Buffer.from([0x53, 0, 0, 0, 4]);
    const stream = Buffer.concat([startup, query, sync]);
    for (let cut = 1; cut < stream.length; cut += 1) {
      const framer = new MessageFramer();
      const messages: Buffer[] = [];
      for (const part of [stream.subarray(0, cut), stream.subarray(cut)]) {
        framer.push(part);
        for (let next = framer.next(); next; next = framer.next()) {
          if (next.initial) framer.markStarted();
          messages.push(next.message);
        }
      }
      expect(messages.map((message) => message.toString("hex"))).toEqual([startup, query, sync].map((message) => message.toString("hex")));
    }
  });

  it("reads the transaction status from a response ending with ReadyForQuery, and nothing else", () => {
    expect(readyStatus(Buffer.from([0x43, 0, 0, 0, 4, 0x5a, 0, 0, 0, 5, 0x49]))).toBe("I");
    expect(readyStatus(Buffer.from([0x5a, 0, 0, 0, 5, 0x54]))).toBe("T");
    expect(readyStatus(Buffer.from([0x5a, 0, 0, 0, 5, 0x45]))).toBe("E");
    expect(readyStatus(Buffer.from([0x31, 0, 0, 0, 4]))).toBeUndefined();
    expect(readyStatus(Buffer.alloc(0))).toBeUndefined();
  });
});
