/**
 * The per-client budgets' shared counters (server/http/rate-limit-store.ts, issue 12): on
 * PostgreSQL every replica counts in one table, exactly, under concurrency; windows restart;
 * addresses are stored only as keyed hashes; expired rows are swept; the embedded store keeps
 * express-rate-limit's memory store; and while the database is away or slow a per-process limit
 * stands in (issue 41), until the shared count answers again.
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import express from "express";
import request from "supertest";
import type { ErrorRequestHandler } from "express";
import type { Options } from "express-rate-limit";
import { openDatabase, type Database, type Queryable } from "../../server/db/database";
import { createHttpLogger, type Logger } from "../../server/logger";
import { captureLogs } from "../support/log-capture";
import { clientBudgets } from "../../server/http/rate-limit";
import { budgetStoresFor, clientKeyHasher, PostgresRateLimitStore, type BudgetStores } from "../../server/http/rate-limit-store";
import { clientErrorStatus } from "../../server/http/http-error";
import { embeddedStore, freshPostgresUrl, postgresStore, type TestDatabase } from "../support/databases";

const SECRET = "rate-limit-test-secret-0123456789abcdef";
const hashKey = clientKeyHasher(SECRET);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function storeOver(db: Queryable, budget: string, windowMs: number, options: { cleanupChance?: number; timeoutMs?: number } = {}): PostgresRateLimitStore {
  const store = new PostgresRateLimitStore(db, budget, hashKey, { cleanupChance: 0, ...options });
  store.init({ windowMs } as Options);
  return store;
}

interface CapturedLogger {
  logger: Logger;
  lines: Array<Record<string, unknown>>;
}

function capturedLogger(): CapturedLogger {
  const { logger, lines } = captureLogs();
  return { logger, lines };
}

/** The events budget behind one POST route, with the app's 429 for a refusal. Clients: X-Forwarded-For (from loopback). */
function limitedApp(logger: Logger, limit: number, stores: BudgetStores | undefined): express.Express {
  const app = express();
  app.set("trust proxy", "loopback");
  app.use(createHttpLogger(logger));
  const budgets = clientBudgets({ LEAD_RATE_LIMIT: limit, EVENTS_RATE_LIMIT: limit, PRIVACY_RATE_LIMIT: limit }, stores);
  app.post("/beacon", budgets.events, (_req, res) => {
    res.sendStatus(204);
  });
  const answer: ErrorRequestHandler = (error: unknown, _req, res, _next) => {
    res.sendStatus(clientErrorStatus(error) ?? 500);
  };
  app.use(answer);
  return app;
}

async function statuses(app: express.Express, count: number, client = "198.51.100.1"): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < count; i += 1) seen.push((await request(app).post("/beacon").set("X-Forwarded-For", client)).status);
  return seen;
}

const STAND_IN_MESSAGE = "rate limit store unavailable: a per-process limit stands in (each process counts its clients on its own)";

/** A TCP relay to PostgreSQL that can be cut (open sessions end, new ones are dropped) and restored. */
interface SwitchableRelay {
  /** `url` with the relay's port. */
  url: string;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

async function relayTo(url: string): Promise<SwitchableRelay> {
  const target = new URL(url);
  const sockets = new Set<net.Socket>();
  let down = false;
  const server = net.createServer((client) => {
    client.on("error", () => {});
    if (down) {
      client.destroy();
      return;
    }
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    upstream.on("error", () => client.destroy());
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    client.pipe(upstream).pipe(client);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const relayed = new URL(url);
  relayed.hostname = "127.0.0.1";
  relayed.port = String((server.address() as net.AddressInfo).port);
  return {
    url: relayed.toString(),
    cut() {
      down = true;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      down = false;
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe("the PostgreSQL rate limit store", () => {
  let db: TestDatabase;
  /** A second pool on the same database: another replica. */
  let replica: Database;

  beforeAll(async () => {
    db = await postgresStore().open();
    replica = await openDatabase(db.location);
  });
  afterAll(async () => {
    await replica?.close();
    await db?.close();
  });

  it("counts every hit exactly when two replicas increment at once", async () => {
    const first = storeOver(db, "exact", 60_000);
    const second = storeOver(replica, "exact", 60_000);
    const results = await Promise.all(Array.from({ length: 120 }, (_, i) => (i % 2 === 0 ? first : second).increment("198.51.100.4")));
    expect(results.map((result) => result.totalHits).sort((a, b) => a - b)).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
    expect(new Set(results.map((result) => result.resetTime?.getTime())).size).toBe(1);
    expect((await second.get("198.51.100.4"))?.totalHits).toBe(120);
  });

  it("restarts the window once it has passed", async () => {
    const store = storeOver(db, "window", 300);
    const first = await store.increment("198.51.100.5");
    expect((await store.increment("198.51.100.5")).totalHits).toBe(2);
    await sleep(400);
    expect(await store.get("198.51.100.5")).toBeUndefined();
    const restarted = await store.increment("198.51.100.5");
    expect(restarted.totalHits).toBe(1);
    expect(restarted.resetTime!.getTime()).toBeGreaterThan(first.resetTime!.getTime());
  });

  it("keeps budgets and clients apart, and gives back what decrement and resetKey take", async () => {
    const leads = storeOver(db, "apart-leads", 60_000);
    const privacy = storeOver(db, "apart-privacy", 60_000);
    await leads.increment("198.51.100.6");
    await leads.increment("198.51.100.6");
    await leads.increment("198.51.100.7");
    expect((await privacy.increment("198.51.100.6")).totalHits).toBe(1);
    await leads.decrement("198.51.100.6");
    expect((await leads.get("198.51.100.6"))?.totalHits).toBe(1);
    await leads.resetKey("198.51.100.6");
    expect(await leads.get("198.51.100.6")).toBeUndefined();
    expect((await leads.get("198.51.100.7"))?.totalHits).toBe(1);
    expect((await privacy.get("198.51.100.6"))?.totalHits).toBe(1);
  });

  it("stores a keyed hash of the address, never the address", async () => {
    await storeOver(db, "hashed", 60_000).increment("203.0.113.77");
    const { rows } = await db.query<{ client_key: string }>("SELECT client_key FROM rate_limit_hits WHERE budget = 'hashed'");
    expect(rows.map((row) => row.client_key)).toEqual([hashKey("203.0.113.77")]);
    const everything = JSON.stringify((await db.query("SELECT * FROM rate_limit_hits")).rows);
    expect(everything).not.toContain("203.0.113.77");
    // Keyed: without the secret, hashing every address finds nothing.
    expect(clientKeyHasher("another-secret-0123456789abcdef")("203.0.113.77")).not.toBe(rows[0]!.client_key);
  });

  it("sweeps a budget's expired rows while it counts, and leaves live ones and other budgets' alone", async () => {
    const shortLived = storeOver(db, "sweep", 100);
    await shortLived.increment("198.51.100.10");
    await shortLived.increment("198.51.100.11");
    await storeOver(db, "sweep-other", 100).increment("198.51.100.10");
    await sleep(200);
    const sweeping = storeOver(db, "sweep", 60_000, { cleanupChance: 1 });
    await sweeping.increment("198.51.100.12");
    const keysOf = async (budget: string) =>
      (await db.query<{ client_key: string }>("SELECT client_key FROM rate_limit_hits WHERE budget = $1", [budget])).rows.map((row) => row.client_key);
    await expect.poll(() => keysOf("sweep")).toEqual([hashKey("198.51.100.12")]);
    expect(await keysOf("sweep-other")).toEqual([hashKey("198.51.100.10")]);
    expect(await storeOver(db, "sweep-other", 100).removeExpired()).toBe(1);
  });

  it("refuses the request over the limit in an app, counting in the table", async () => {
    const { logger } = capturedLogger();
    const app = limitedApp(logger, 3, budgetStoresFor(db, SECRET, logger));
    expect(await statuses(app, 5)).toEqual([204, 204, 204, 429, 429]);
    const { rows } = await db.query<{ hits: number }>("SELECT hits FROM rate_limit_hits WHERE budget = 'events'");
    expect(rows.map((row) => row.hits)).toEqual([5]);
  });
});

describe("the embedded store", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await embeddedStore().open();
  });
  afterAll(() => db?.close());

  it("keeps express-rate-limit's memory store: the limit holds and the table stays empty", async () => {
    const { logger } = capturedLogger();
    const stores = budgetStoresFor(db, SECRET, logger);
    expect(stores).toBeUndefined();
    expect(await statuses(limitedApp(logger, 2, stores), 4)).toEqual([204, 204, 429, 429]);
    expect((await db.query("SELECT * FROM rate_limit_hits")).rows).toEqual([]);
  });
});

describe("when the database is away", () => {
  it("a per-process limit stands in: the same budget per client, and one warn line per interval", async () => {
    const gone = await freshPostgresUrl();
    const db = await openDatabase({ DATABASE_URL: gone.url, DATA_DIR: "unused" });
    try {
      await gone.drop(); // WITH (FORCE): the pool's sessions end, and reconnecting fails
      const { logger, lines } = capturedLogger();
      const app = limitedApp(logger, 2, budgetStoresFor(db, SECRET, logger));
      expect(await statuses(app, 5, "198.51.100.20")).toEqual([204, 204, 429, 429, 429]);
      // The budget is per client: another one is not refused.
      expect(await statuses(app, 1, "198.51.100.21")).toEqual([204]);
      const warnings = lines.filter((line) => line.event === "rate_limit_store_unavailable");
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ level: "warn", budget: "events", unloggedSinceLast: 0, msg: STAND_IN_MESSAGE });
      expect(lines.filter((line) => line.level === "error")).toEqual([]);
    } finally {
      await db.close();
    }
  });

  it("the stand-in counts when the database does not answer in time", async () => {
    // A PostgreSQL whose every statement hangs (only `kind` and `query` are used by the stores).
    const hanging = { kind: "postgres", query: () => new Promise<never>(() => {}) } as Pick<Database, "kind" | "query"> as Database;
    const { logger, lines } = capturedLogger();
    const started = Date.now();
    expect(await statuses(limitedApp(logger, 1, budgetStoresFor(hanging, SECRET, logger, { timeoutMs: 50 })), 3)).toEqual([204, 429, 429]);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(lines.filter((line) => line.event === "rate_limit_store_unavailable")).toHaveLength(1);
  });
});

describe("a database that goes away and comes back", () => {
  let db: TestDatabase;
  let relay: SwitchableRelay;
  /** The app's pool, through the relay. */
  let relayed: Database;

  beforeAll(async () => {
    db = await postgresStore().open();
    relay = await relayTo(db.location.DATABASE_URL!);
    relayed = await openDatabase({ DATABASE_URL: relay.url, DATA_DIR: "unused" });
  });
  afterAll(async () => {
    await relayed?.close();
    await relay?.close();
    await db?.close();
  });

  const hitsOf = async (client: string) =>
    (await db.query<{ hits: number }>("SELECT hits FROM rate_limit_hits WHERE budget = 'events' AND client_key = $1", [hashKey(client)])).rows.map((row) => row.hits);

  it("refuses one client over the limit meanwhile, not another, then counts in the table again", async () => {
    const { logger, lines } = capturedLogger();
    const app = limitedApp(logger, 3, budgetStoresFor(relayed, SECRET, logger));
    const client = "203.0.113.30";
    const other = "203.0.113.31";

    expect(await statuses(app, 1, client)).toEqual([204]);
    expect(await hitsOf(client)).toEqual([1]);

    relay.cut();
    // Counted in this process from zero: the (limit + 1)th is refused; another client is not.
    expect(await statuses(app, 4, client)).toEqual([204, 204, 204, 429]);
    expect(await statuses(app, 2, other)).toEqual([204, 204]);
    expect(lines.filter((line) => line.event === "rate_limit_store_unavailable")).toHaveLength(1);

    relay.restore();
    // The shared count again: 1 before the outage, so two more pass (the stand-in's 4 would refuse at once).
    expect(await statuses(app, 3, client)).toEqual([204, 204, 429]);
    expect(await hitsOf(client)).toEqual([4]);
    expect(await statuses(app, 1, other)).toEqual([204]);
    expect(await hitsOf(other)).toEqual([1]);
    expect(lines.filter((line) => line.level === "error")).toEqual([]);
  });
});
