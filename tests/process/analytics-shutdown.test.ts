/**
 * The funnel events' writer in the real production process (server/analytics/writer.ts): events
 * still buffered when SIGTERM arrives are written before the process exits (none lost), and a
 * buffer that overflows drops — and counts and logs — only what did not fit.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProductionServer } from "../../tools/production-server";
import { freshPostgresUrl, type FreshPostgres } from "../support/databases";
import { openDatabase, type Database } from "../../server/db/database";
import { DEFAULT_BATCH_SIZE } from "../../server/analytics/writer";

let database: FreshPostgres;
let db: Database;

beforeAll(async () => {
  database = await freshPostgresUrl();
}, 60_000);

afterAll(async () => {
  await db?.close();
  await database?.drop();
});

async function clicks(tidPrefix: string): Promise<number> {
  db ??= await openDatabase({ DATABASE_URL: database.url, DATA_DIR: "unused" });
  const { rows } = await db.query<{ n: string | number }>("SELECT count(*) AS n FROM analytics_events WHERE name = 'campaign_hit' AND tid LIKE $1", [`${tidPrefix}%`]);
  return Number(rows[0]!.n);
}

/** `count` ad clicks, each with its own click id, a few at a time. */
async function sendClicks(origin: string, tidPrefix: string, count: number): Promise<void> {
  const queue = Array.from({ length: count }, (_, i) => i);
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
        const response = await fetch(`${origin}/zipcode?sid=sig&tid=${tidPrefix}${i}`, { signal: AbortSignal.timeout(10_000) });
        expect(response.status).toBe(200);
        await response.arrayBuffer();
      }
    }),
  );
}

describe("the event writer in the production process", () => {
  it("writes every buffered event on SIGTERM before exiting", async () => {
    // A flush interval longer than the test, and fewer events than a batch: only the shutdown's
    // flush can store these.
    const count = DEFAULT_BATCH_SIZE - 50;
    const server = await startProductionServer({ DATABASE_URL: database.url, ANALYTICS_FLUSH_MS: "60000", ANALYTICS_BUFFER_MAX: "5000" });
    try {
      await sendClicks(server.origin, "term-", count);
      expect(await clicks("term-")).toBe(0);
      server.child.kill("SIGTERM");
      expect(await server.exited).toEqual({ code: 0, signal: null });
    } finally {
      await server.stop();
    }
    expect(await clicks("term-")).toBe(count);
  }, 90_000);

  it("drops, counts and logs only what overflows the buffer", async () => {
    const server = await startProductionServer({ DATABASE_URL: database.url, ANALYTICS_FLUSH_MS: "60000", ANALYTICS_BUFFER_MAX: "100" });
    try {
      await sendClicks(server.origin, "over-", 130);
      server.child.kill("SIGTERM");
      expect(await server.exited).toEqual({ code: 0, signal: null });
    } finally {
      await server.stop();
    }
    expect(await clicks("over-")).toBe(100);
    const dropped = server.logs.filter((line) => line.event === "analytics_events_dropped").reduce((sum, line) => sum + Number(line.dropped), 0);
    expect(dropped).toBe(30);
  }, 90_000);
});
