/**
 * The caps' reservation statement (server/db/buyer-counters.ts) as PostgreSQL receives it: the
 * buyers' rows are taken in buyer id order whatever order the winners or the plan gave, so two
 * statements reserving the same buyers at once never deadlock. (Its arithmetic runs against real
 * databases in the caps tests of tests/db/auction.test.ts and tests/process/settings-replicas.test.ts.)
 */
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from "kysely";
import { describe, expect, it } from "vitest";
import { reserveCounters, type CapReservation } from "../../server/db/buyer-counters";

// A Kysely that compiles for PostgreSQL and never connects.
const compiler = new Kysely<Record<string, never>>({
  dialect: { createAdapter: () => new PostgresAdapter(), createDriver: () => new DummyDriver(), createIntrospector: (db) => new PostgresIntrospector(db), createQueryCompiler: () => new PostgresQueryCompiler() },
});
const periods = { hour: "2026-11-27T10", day: "2026-11-27", week: "2026-W48", month: "2026-11" };
const reservation = (buyerId: string): CapReservation => ({ buyerId, periods, price: 10, caps: { hour: 5 } });

describe("reserveCounters", () => {
  it("lists the buyers in id order, whatever order they came in", () => {
    const { parameters } = reserveCounters([reservation("zenith"), reservation("acme"), reservation("midway")]).compile(compiler);
    const listed = parameters.filter((value) => value === "acme" || value === "midway" || value === "zenith");
    // The VALUES rows first (the rows locked, in that order), then the per-buyer conditions.
    expect(listed.slice(0, 3)).toEqual(["acme", "midway", "zenith"]);
  });
});
