/**
 * The console's list of leads (server/db/lead-list.ts) on both stores: each filter, each status
 * as the stored rows define it, newest first, and keyset pages that neither skip nor repeat a
 * lead, even when several arrive in the same instant or new ones arrive between pages.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerDisclosure } from "../../server/consent/disclosures";
import { disclosureFor } from "../../server/leads/disclosure";
import { leadRepository } from "../../server/db/leads";
import { leadStore } from "../../server/leads/store";
import { deliveryRepository, type Completion } from "../../server/db/deliveries";
import { leadListRepository, UnknownCursorError, type LeadListFilter } from "../../server/db/lead-list";
import { TEST_LEAD_PHONE } from "../../server/auction/sandbox";
import { sampleNewLead, type NewLeadOverrides } from "../../tools/lead-session";
import { allStores, type TestDatabase } from "../support/databases";

const T0 = new Date("2026-11-02T15:00:00.000Z");
const minutes = (n: number) => new Date(T0.getTime() + n * 60_000);
type Answer = Omit<Completion, "attemptedAt" | "latencyMs" | "excerpt">;
const ACCEPTED: Answer = { outcome: "accepted", httpStatus: 200, status: "accepted" };
const REJECTED: Answer = { outcome: "rejected", httpStatus: 200, status: "rejected" };

describe.each(allStores())("the leads list ($kind)", (store) => {
  let db: TestDatabase;
  /** Reference by name, for the cases below. */
  const leads: Record<string, { reference: string; phone: string; email: string }> = {};

  /** A lead with buyer deliveries answered as `answers` says, each at `price`; returned buyers afterwards. */
  async function seed(name: string, overrides: NewLeadOverrides, answers: Record<string, Answer> = {}, returned: string[] = []) {
    const input = sampleNewLead(overrides);
    const result = await leadStore(leadRepository(db)).create(input, (lead) => ({
      deliveries: Object.keys(answers).map((buyer) => ({ kind: "buyer" as const, target: buyer, idempotencyKey: `${lead.reference}:${buyer}`, sale: true, price: buyer === "summit" ? 18.5 : 7.25, url: null, capDay: null })),
    }));
    if (!result.created) throw new Error("expected a new lead");
    const deliveries = deliveryRepository(db);
    for (const delivery of await deliveries.claimDue(100, 60_000, new Date(Date.now() + 1_000))) {
      const answer = answers[delivery.target];
      if (delivery.leadReference === result.reference && answer) {
        await deliveries.complete(delivery, { latencyMs: 10, excerpt: null, attemptedAt: new Date(), ...answer, ...(answer.status === "accepted" ? { price: delivery.target === "summit" ? 18.5 : 7.25 } : {}) });
      }
    }
    for (const buyer of returned) expect(await deliveries.recordReturn(result.reference, buyer, "bad number")).toBeDefined();
    leads[name] = { reference: result.reference, phone: input.lead.phone, email: input.lead.email };
  }

  const list = () => leadListRepository(db, { testPhone: TEST_LEAD_PHONE });
  const names = (references: readonly string[]) => references.map((reference) => Object.entries(leads).find(([, lead]) => lead.reference === reference)?.[0]);
  const page = async (filter: LeadListFilter, limit = 50, after?: string) => names((await list().page(filter, limit, after)).rows.map((row) => row.reference));

  beforeAll(async () => {
    db = await store.open();
    await registerDisclosure(db.builder, disclosureFor(undefined));
    await seed("sold", { receivedAt: minutes(0), sid: "fb01", location: { city: "Beverly Hills", state: "CA" } }, { summit: ACCEPTED, harbor: REJECTED });
    await seed("shared", { receivedAt: minutes(1), sid: "fb01", location: { city: "Austin", state: "TX" } }, { summit: ACCEPTED, harbor: ACCEPTED }, ["harbor"]);
    await seed("returned", { receivedAt: minutes(2), sid: "gg02", location: { city: "Austin", state: "TX" } }, { harbor: ACCEPTED }, ["harbor"]);
    await seed("unsold", { receivedAt: minutes(3), sid: "gg02", location: { city: "Beverly Hills", state: "CA" } }, { summit: REJECTED });
    await seed("marked-test", { receivedAt: minutes(4), sid: "fb01", test: true }, { summit: ACCEPTED });
    await seed("test-phone", { receivedAt: minutes(5), sid: "fb01", lead: { phone: TEST_LEAD_PHONE } });
    await seed("old", { receivedAt: minutes(-3 * 24 * 60), sid: "fb01" });
  });
  afterAll(() => db.close());

  const window: LeadListFilter = { since: minutes(-60), until: minutes(60) };

  it("lists the range's leads newest first", async () => {
    expect(await page(window)).toEqual(["test-phone", "marked-test", "unsold", "returned", "shared", "sold"]);
    expect(await page({})).toEqual(["test-phone", "marked-test", "unsold", "returned", "shared", "sold", "old"]);
    expect(await page({ since: minutes(1), until: minutes(3) })).toEqual(["returned", "shared"]);
  });

  it("gives each lead its status from its deliveries and test marks", async () => {
    const { rows } = await list().page(window, 50);
    expect(Object.fromEntries(rows.map((row) => [names([row.reference])[0], row.status]))).toEqual({
      "test-phone": "test",
      "marked-test": "test",
      unsold: "unsold",
      returned: "returned",
      shared: "sold",
      sold: "sold",
    });
    for (const status of ["sold", "unsold", "returned", "test"] as const) expect(await list().count({ ...window, status })).toBe(rows.filter((row) => row.status === status).length);
  });

  it("lists the buyers that bought each lead, with their prices, a return marked", async () => {
    const rows = (await list().page(window, 50)).rows;
    const of = (name: string) => rows.find((row) => row.reference === leads[name]!.reference)!;
    expect(of("sold").purchases).toEqual([{ buyer: "summit", price: 18.5, returned: false }]);
    expect(of("shared").purchases).toEqual([
      { buyer: "summit", price: 18.5, returned: false },
      { buyer: "harbor", price: 7.25, returned: true },
    ]);
    expect(of("unsold").purchases).toEqual([]);
  });

  it("filters by source, state, status and buyer, together", async () => {
    expect(await page({ ...window, sid: "gg02" })).toEqual(["unsold", "returned"]);
    expect(await page({ ...window, state: "TX" })).toEqual(["returned", "shared"]);
    expect(await page({ ...window, status: "sold", state: "TX" })).toEqual(["shared"]);
    expect(await page({ ...window, buyer: "harbor" })).toEqual(["returned", "shared"]);
    expect(await page({ ...window, buyer: "summit", status: "test" })).toEqual(["marked-test"]);
    expect(await page({ ...window, buyer: "nobody" })).toEqual([]);
  });

  it("finds a lead by its phone or email, in the stored forms", async () => {
    expect(await page({ phone: leads.returned!.phone })).toEqual(["returned"]);
    expect(await page({ email: leads.old!.email })).toEqual(["old"]);
    expect(await page({ ...window, email: leads.old!.email })).toEqual([]);
  });

  it("pages by keyset: every lead once, in order, even when several share an instant or new ones arrive", async () => {
    const same = new Date("2026-10-01T12:00:00.000Z");
    for (let i = 0; i < 5; i += 1) await seed(`same-${i}`, { receivedAt: same, sid: "kk03" });
    const filter = { sid: "kk03" };
    const first = await list().page(filter, 2);
    expect(first.more).toBe(true);
    // A new lead arrives between pages: with offsets it would push a lead onto the next page again.
    await seed("newcomer", { receivedAt: new Date("2026-10-01T12:00:01.000Z"), sid: "kk03" });
    const second = await list().page(filter, 2, first.rows.at(-1)!.reference);
    const third = await list().page(filter, 2, second.rows.at(-1)!.reference);
    expect(third.more).toBe(false);
    const seen = [...first.rows, ...second.rows, ...third.rows].map((row) => row.reference);
    expect(new Set(seen).size).toBe(5);
    expect(names(seen).sort()).toEqual(["same-0", "same-1", "same-2", "same-3", "same-4"]);
    // Same instant: the later-stored lead first, on every page.
    expect(names(seen)).toEqual(["same-4", "same-3", "same-2", "same-1", "same-0"]);
    expect(await list().count(filter)).toBe(6);
  });

  it("refuses a cursor that names no lead", async () => {
    await expect(list().page({}, 2, "LD-AAAA-AAAA")).rejects.toBeInstanceOf(UnknownCursorError);
  });

  it("reads a week of a few thousand leads through the received_at index, newest first", async () => {
    // 5,000 copies of a stored lead, five minutes apart: enough that without the index the
    // planner would scan the table. Copied column by column, so the test follows the schema.
    const { rows: columns } = await db.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns WHERE table_name = 'leads' AND column_name NOT IN ('id', 'reference', 'idempotency_key', 'received_at') ORDER BY ordinal_position`,
    );
    const copied = columns.map((column) => `"${column.column_name}"`).join(", ");
    await db.query(
      `INSERT INTO leads (reference, idempotency_key, received_at, ${copied})
       SELECT 'LD-' || lpad(upper(to_hex(n)), 4, 'X') || '-PERF', gen_random_uuid(), timestamptz '2026-01-01' + n * interval '5 minutes', ${copied}
       FROM leads, generate_series(1, 5000) AS n WHERE leads.reference = $1`,
      [leads.old!.reference],
    );
    await db.query("ANALYZE leads");
    const { rows } = await db.query<{ "QUERY PLAN": string }>(
      `EXPLAIN SELECT reference FROM leads WHERE received_at >= $1 AND received_at < $2 AND sid = $3 ORDER BY received_at DESC, id DESC LIMIT 51`,
      [new Date("2026-01-05T00:00:00Z"), new Date("2026-01-12T00:00:00Z"), "fb01"],
    );
    const plan = rows.map((row) => row["QUERY PLAN"]).join("\n");
    expect(plan).toMatch(/(Index Scan (Backward )?using|Bitmap Index Scan on) leads_received_at/);
    expect(plan).not.toMatch(/Seq Scan on leads/);
    expect(await list().count({ since: new Date("2026-01-05T00:00:00Z"), until: new Date("2026-01-12T00:00:00Z") })).toBe(7 * 24 * 12);
  });
});
