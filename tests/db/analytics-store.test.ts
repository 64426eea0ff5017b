/**
 * Storing funnel events (server/analytics/store.ts) and deleting expired ones
 * (server/analytics/retention.ts), on both stores: the rollup always equals the events it counts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { insertEvents, type EventInput } from "../../server/analytics/store";
import { analyticsCutoff, countExpiredAnalytics, purgeAnalytics } from "../../server/analytics/retention";
import { createEventWriter } from "../../server/analytics/writer";
import { leadRepository } from "../../server/db/leads";
import { leadStore } from "../../server/leads/store";
import { allStores, type TestDatabase } from "../support/databases";
import { sampleNewLead } from "../../tools/lead-session";
import pino from "pino";
import { registerDisclosure } from "../../server/consent/disclosures";
import { disclosureFor } from "../../server/leads/disclosure";

const ZONE = "America/New_York";
/** 10:00 in New York on Nov 20; 03:00 UTC on Nov 21 is still Nov 20 there. */
const NOV20 = new Date("2026-11-20T15:00:00Z");
const NOV20_LATE = new Date("2026-11-21T03:00:00Z");
const NOV21 = new Date("2026-11-21T15:00:00Z");

interface DailyRow {
  day: string;
  sid: string;
  bot: boolean;
  clicks: number;
  unique_clicks: number;
  zip_submits: number;
  quote_views: number;
  form_starts: number;
  leads: number;
  duplicates: number;
  sold: number;
  returned: number;
  revenue: number;
  payout: number;
}

async function daily(db: TestDatabase): Promise<DailyRow[]> {
  const { rows } = await db.query<Record<string, unknown>>("SELECT * FROM analytics_daily ORDER BY day, sid, bot");
  return rows.map((row) => ({
    day: String(row.day instanceof Date ? row.day.toISOString().slice(0, 10) : row.day),
    sid: String(row.sid),
    bot: Boolean(row.bot),
    ...Object.fromEntries(
      ["clicks", "unique_clicks", "zip_submits", "quote_views", "form_starts", "leads", "duplicates", "sold", "returned", "revenue", "payout"].map((key) => [key, Number(row[key])]),
    ),
  })) as DailyRow[];
}

const zeros = { clicks: 0, unique_clicks: 0, zip_submits: 0, quote_views: 0, form_starts: 0, leads: 0, duplicates: 0, sold: 0, returned: 0, revenue: 0, payout: 0 };

describe.each(allStores())("the analytics event store ($kind)", (store) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await store.open();
    // A lead's consent names the disclosure it was shown.
    await registerDisclosure(db.builder, disclosureFor(undefined));
  });
  afterAll(() => db.close());
  beforeEach(async () => {
    await db.query("DELETE FROM analytics_events");
    await db.query("DELETE FROM analytics_daily");
    await db.query("DELETE FROM analytics_click_keys");
  });

  it("counts each event into its report day (in the report's time zone), sid and bot flag", async () => {
    await insertEvents(
      db,
      [
        { name: "campaign_hit", at: NOV20, sid: "a1", tid: "t1", visitId: "v1" },
        { name: "campaign_hit", at: NOV20_LATE, sid: "a1", tid: "t2", visitId: "v2" },
        { name: "campaign_hit", at: NOV21, sid: "a1", tid: "t3", visitId: "v3" },
        { name: "campaign_hit", at: NOV20, sid: "a1", tid: "bot1", visitId: "v4", bot: true },
        { name: "zip_submitted", at: NOV20, sid: "a1", tid: "t1", visitId: "v1", detail: "accepted" },
        { name: "quote_page_view", at: NOV20, sid: "a1", tid: "t1", visitId: "v1" },
        { name: "form_started", at: NOV20, sid: "a1", tid: "t1", visitId: "v1" },
        { name: "form_step_completed", at: NOV20, sid: "a1", tid: "t1", visitId: "v1", step: 1 },
        { name: "lead_submitted", at: NOV20, sid: "a1", tid: "t1", visitId: "v1", leadReference: "LD-AAAA-AAAA" },
        { name: "lead_duplicate", at: NOV20, sid: "a1", tid: "t2", visitId: "v2", leadReference: "LD-AAAA-BBBB" },
        { name: "campaign_hit", at: NOV20, visitId: "v5" },
      ],
      ZONE,
    );
    expect(await daily(db)).toEqual([
      { day: "2026-11-20", sid: "", bot: false, ...zeros, clicks: 1, unique_clicks: 1 },
      { day: "2026-11-20", sid: "a1", bot: false, ...zeros, clicks: 2, unique_clicks: 2, zip_submits: 1, quote_views: 1, form_starts: 1, leads: 1, duplicates: 1 },
      { day: "2026-11-20", sid: "a1", bot: true, ...zeros, clicks: 1, unique_clicks: 1 },
      { day: "2026-11-21", sid: "a1", bot: false, ...zeros, clicks: 1, unique_clicks: 1 },
    ]);
    const { rows } = await db.query<{ n: number | string }>("SELECT count(*) AS n FROM analytics_events");
    expect(Number(rows[0]!.n)).toBe(11);
  });

  it("counts a click key once a day: the same tid again (in the same batch or a later one) is not unique; no tid falls back to the visit", async () => {
    await insertEvents(db, [
      { name: "campaign_hit", at: NOV20, sid: "a1", tid: "t1", visitId: "v1" },
      { name: "campaign_hit", at: NOV20, sid: "a1", tid: "t1", visitId: "v2" },
      { name: "campaign_hit", at: NOV20, sid: "a1", visitId: "v3" },
      { name: "campaign_hit", at: NOV20, sid: "a1", visitId: "v4" },
    ], ZONE);
    await insertEvents(db, [
      { name: "campaign_hit", at: NOV20, sid: "a1", tid: "t1", visitId: "v5" },
      { name: "campaign_hit", at: NOV20, sid: "a1", visitId: "v3" },
      // Another day: a new unique click for the same tid.
      { name: "campaign_hit", at: NOV21, sid: "a1", tid: "t1", visitId: "v6" },
    ], ZONE);
    expect((await daily(db)).map((row) => [row.day, row.clicks, row.unique_clicks])).toEqual([
      ["2026-11-20", 6, 3],
      ["2026-11-21", 1, 1],
    ]);
  });

  it("counts a full batch of new click keys as unique under each click's own bot flag, and keeps the flag with the key", async () => {
    // 250 new keys in one statement (the writer's batch), every third a bot's, over two sources;
    // then the same keys again: clicks, not unique ones.
    const batch: EventInput[] = Array.from({ length: 250 }, (_, index) => ({ name: "campaign_hit", at: NOV20, sid: index % 2 === 0 ? "s0" : "s1", tid: `t${index}`, visitId: `v${index}`, bot: index % 3 === 0 }));
    await insertEvents(db, batch, ZONE);
    await insertEvents(db, batch, ZONE);
    const expected = (sid: string, bot: boolean) => batch.filter((event) => event.sid === sid && event.bot === bot).length;
    expect((await daily(db)).map((row) => [row.sid, row.bot, row.clicks, row.unique_clicks])).toEqual([
      ["s0", false, 2 * expected("s0", false), expected("s0", false)],
      ["s0", true, 2 * expected("s0", true), expected("s0", true)],
      ["s1", false, 2 * expected("s1", false), expected("s1", false)],
      ["s1", true, 2 * expected("s1", true), expected("s1", true)],
    ]);
    const { rows } = await db.query<{ key: string; bot: boolean }>("SELECT key, bot FROM analytics_click_keys ORDER BY key");
    expect(rows).toHaveLength(250);
    expect(rows.filter((row) => row.bot).map((row) => row.key).sort()).toEqual(batch.filter((event) => event.bot).map((event) => event.tid).sort());
  });

  it("takes a lead's sid, tid and visit from the lead for its sales and returns, and nets revenue and payout of returns", async () => {
    const stored = await leadStore(leadRepository(db)).create(sampleNewLead({ sid: "src9", tid: "clk9", visitId: "visit9" }));
    if (!stored.created) throw new Error("lead not stored");
    const reference = stored.reference;
    await insertEvents(db, [
      { name: "lead_sold", at: NOV20, leadReference: reference, target: "b1", revenue: 30, payout: 12 },
      { name: "lead_sold", at: NOV20, leadReference: reference, target: "b2", revenue: 20.5, payout: 12 },
      // b1 keeps the lead: its source stays paid.
      { name: "lead_returned", at: NOV20, leadReference: reference, target: "b2", revenue: 20.5 },
      { name: "postback_sent", at: NOV20, leadReference: reference, target: "src9", detail: "sold" },
    ], ZONE);
    // Sold twice, but the source is paid once per lead, at its first sale.
    expect(await daily(db)).toEqual([{ day: "2026-11-20", sid: "src9", bot: false, ...zeros, sold: 2, returned: 1, revenue: 30, payout: 12 }]);
    const { rows: sales } = await db.query<{ target: string; payout: string | number | null }>("SELECT target, payout FROM analytics_events WHERE name = 'lead_sold' ORDER BY id");
    expect(sales.map((sale) => [sale.target, sale.payout === null ? null : Number(sale.payout)])).toEqual([["b1", 12], ["b2", null]]);
    // A later batch selling it again pays nothing more; the last buyer returning it reverses the payout.
    await insertEvents(db, [
      { name: "lead_sold", at: NOV21, leadReference: reference, target: "b3", revenue: 10, payout: 12 },
      { name: "lead_returned", at: NOV21, leadReference: reference, target: "b1", revenue: 30, payout: 12 },
    ], ZONE);
    expect((await daily(db)).map((row) => [row.day, row.sold, row.returned, row.revenue, row.payout])).toEqual([
      ["2026-11-20", 2, 1, 30, 12],
      ["2026-11-21", 1, 1, -20, -12],
    ]);
    const { rows } = await db.query<{ sid: string; tid: string; visit_id: string | null }>("SELECT DISTINCT sid, tid, visit_id FROM analytics_events");
    expect(rows).toEqual([{ sid: "src9", tid: "clk9", visit_id: "visit9" }]);
  });

  it("keeps exact counts when several writers store the same keys at once", async () => {
    const batch = (offset: number): EventInput[] =>
      Array.from({ length: 200 }, (_, i) => ({ name: "campaign_hit", at: NOV20, sid: `s${i % 5}`, tid: `t${(i + offset) % 50}`, visitId: `v${offset}-${i}` }));
    await Promise.all([0, 7, 13, 21].map((offset) => insertEvents(db, batch(offset), ZONE)));
    const rows = await daily(db);
    expect(rows.reduce((sum, row) => sum + row.clicks, 0)).toBe(800);
    // Keys are (sid, tid): i % 5 and (i + offset) % 50 — count the distinct pairs the batches made.
    const keys = new Set([0, 7, 13, 21].flatMap((offset) => Array.from({ length: 200 }, (_, i) => `s${i % 5}/t${(i + offset) % 50}`)));
    expect(rows.reduce((sum, row) => sum + row.unique_clicks, 0)).toBe(keys.size);
  });

  it("through the writer: what is recorded is stored once flushed, and nothing is written twice", async () => {
    const writer = createEventWriter({ db, timeZone: ZONE, logger: pino({ level: "silent" }), maxBuffer: 1_000, flushMs: 60_000, batchSize: 7 });
    for (let i = 0; i < 30; i += 1) writer.record({ name: "quote_page_view", at: NOV20, sid: "w1", visitId: `v${i}` });
    await writer.stop();
    expect(await daily(db)).toEqual([{ day: "2026-11-20", sid: "w1", bot: false, ...zeros, quote_views: 30 }]);
  });

  it("deletes events past the retention period with their days' rollup rows, and keeps the rest", async () => {
    const now = new Date("2026-11-23T12:00:00Z");
    const old = new Date("2025-10-01T12:00:00Z");
    await insertEvents(db, [
      { name: "campaign_hit", at: old, sid: "a1", tid: "old" },
      { name: "campaign_hit", at: NOV20, sid: "a1", tid: "new" },
    ], ZONE);
    const cutoff = analyticsCutoff(now, 396, ZONE);
    expect(cutoff.beforeDay).toBe("2025-10-23");
    expect(await countExpiredAnalytics(db, cutoff)).toEqual({ events: 1, days: 1 });
    expect(await purgeAnalytics(db, cutoff)).toEqual({ events: 1, days: 1 });
    expect((await daily(db)).map((row) => row.day)).toEqual(["2026-11-20"]);
    const { rows } = await db.query<{ tid: string }>("SELECT tid FROM analytics_events");
    expect(rows).toEqual([{ tid: "new" }]);
    const { rows: keys } = await db.query<{ key: string }>("SELECT key FROM analytics_click_keys");
    expect(keys).toEqual([{ key: "new" }]);
  });
});
