/**
 * The per-process stand-in for the shared rate limit store (server/http/rate-limit-store.ts,
 * issue 41), over a fake database that can fail: each call tries the shared store first, a
 * RateLimitStoreError sends it to the memory store and is reported, and the memory counts outlive
 * a recovery (they expire with their window). The real PostgreSQL side: tests/db/rate-limit-store.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { Options } from "express-rate-limit";
import type { Queryable } from "../../server/db/database";
import { clientKeyHasher, PostgresRateLimitStore, RateLimitStoreError, StoreWithStandIn } from "../../server/http/rate-limit-store";

/** A database whose counter answers `sharedHits` while up, and rejects while down. */
function switchable() {
  const state = { down: false, sharedHits: 7, statements: [] as string[] };
  const query = async (sql: string) => {
    state.statements.push(sql.trim().split(/\s+/)[0]!);
    if (state.down) throw new Error("connect ECONNREFUSED 127.0.0.1:5432");
    return { rows: [{ hits: state.sharedHits, reset_at: new Date(Date.now() + 60_000) }] };
  };
  const db = { query } as unknown as Queryable;
  const reported: RateLimitStoreError[] = [];
  const store = new StoreWithStandIn(new PostgresRateLimitStore(db, "leads", clientKeyHasher("secret-0123456789abcdef0123456789"), { cleanupChance: 0 }), (error) => reported.push(error));
  store.init({ windowMs: 60_000 } as Options);
  return { state, store, reported };
}

describe("StoreWithStandIn", () => {
  it("counts in the shared store while it answers, and reports nothing", async () => {
    const { store, reported } = switchable();
    expect((await store.increment("198.51.100.1")).totalHits).toBe(7);
    expect(store.localKeys).toBe(false);
    expect(store.prefix).toBe("leads:");
    expect(reported).toEqual([]);
  });

  it("counts per client in memory while the shared store fails, reporting each failure", async () => {
    const { state, store, reported } = switchable();
    state.down = true;
    const hits = [];
    for (let i = 0; i < 3; i += 1) hits.push((await store.increment("198.51.100.1")).totalHits);
    expect(hits).toEqual([1, 2, 3]);
    expect((await store.increment("198.51.100.2")).totalHits).toBe(1);
    await store.decrement("198.51.100.1");
    expect((await store.get("198.51.100.1"))?.totalHits).toBe(2);
    expect(reported).toHaveLength(6);
    expect(reported.every((error) => error instanceof RateLimitStoreError && error.budget === "leads")).toBe(true);
  });

  it("goes back to the shared count once it answers, and keeps the memory count for the next failure in the window", async () => {
    const { state, store } = switchable();
    state.down = true;
    await store.increment("198.51.100.1");
    await store.increment("198.51.100.1");
    state.down = false;
    expect((await store.increment("198.51.100.1")).totalHits).toBe(7);
    state.down = true;
    expect((await store.increment("198.51.100.1")).totalHits).toBe(3);
  });

  it("resets a client in both stores", async () => {
    const { state, store } = switchable();
    state.down = true;
    await store.increment("198.51.100.1");
    state.down = false;
    state.statements.length = 0;
    await store.resetKey("198.51.100.1");
    expect(state.statements).toEqual(["DELETE"]);
    state.down = true;
    expect((await store.increment("198.51.100.1")).totalHits).toBe(1);
  });
});
