/**
 * The sub-id report, its trend and a click's journey (server/analytics/report.ts), over events
 * written the way the server writes them (insertEvents: the events and the rollup in one
 * statement), on both stores, with every number checked exactly.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertEvents, type EventInput } from "../../server/analytics/store";
import { buyerRows, journey, reportRows, reportTotals, trend, type ReportQuery } from "../../server/analytics/report";
import type { ReportRow } from "../../shared/analytics";
import { allStores, type TestDatabase } from "../support/databases";
import { projectRoot } from "../../tools/production-server";

const TIME_ZONE = "America/New_York";
const D1 = "2026-11-02";
const D2 = "2026-11-03";
const at = (iso: string) => new Date(iso);

/** A row with every counter 0, to spell out only what a case has. */
function row(date: string | null, sid: string | null, counts: Partial<Omit<ReportRow, "date" | "sid">>): ReportRow {
  return {
    date,
    sid,
    clicks: 0,
    unique_clicks: 0,
    zip_submits: 0,
    quote_views: 0,
    form_starts: 0,
    leads: 0,
    duplicates: 0,
    sold: 0,
    returned: 0,
    revenue: 0,
    payout: 0,
    profit: 0,
    cr: 0,
    epc: 0,
    bids: 0,
    bid_total: 0,
    avg_bid: 0,
    revenue_per_lead: 0,
    ...counts,
  };
}

/**
 * Source a1 on D1: t1 clicked twice (two visits, in two batches: 1 unique), two visits without a
 * tid (2 unique), one of them at 22:30 in New York (03:30 UTC the next day: still D1), two leads
 * sold, a duplicate; on D2, t1 again (unique again: a new day) and a return of one sale.
 * Source b2 on D1: one click, one lead sold. No sid on D2: one click. Bots on D1 for a1.
 */
const BATCHES: EventInput[][] = [
  [
    { name: "campaign_hit", at: at("2026-11-02T14:00:00Z"), sid: "a1", tid: "t1", visitId: "v1" },
    { name: "campaign_hit", at: at("2026-11-02T14:05:00Z"), sid: "a1", visitId: "v3" },
    { name: "zip_submitted", at: at("2026-11-02T14:00:10Z"), sid: "a1", tid: "t1", visitId: "v1", detail: "accepted" },
    { name: "quote_page_view", at: at("2026-11-02T14:00:11Z"), sid: "a1", tid: "t1", visitId: "v1", path: "/" },
    { name: "form_started", at: at("2026-11-02T14:00:20Z"), sid: "a1", tid: "t1", visitId: "v1" },
    { name: "form_step_completed", at: at("2026-11-02T14:00:40Z"), sid: "a1", tid: "t1", visitId: "v1", step: 1 },
    { name: "lead_submitted", at: at("2026-11-02T14:02:00Z"), sid: "a1", tid: "t1", visitId: "v1", leadReference: "LD-AAAA-0001" },
    // Its auction: buyer-1 bid 25.50 and won, buyer-3 bid 20, buyer-4 did not answer.
    { name: "buyer_pinged", at: at("2026-11-02T14:02:01Z"), sid: "a1", tid: "t1", visitId: "v1", leadReference: "LD-AAAA-0001", target: "buyer-1", detail: "bid", bid: 25.5 },
    { name: "buyer_pinged", at: at("2026-11-02T14:02:01Z"), sid: "a1", tid: "t1", visitId: "v1", leadReference: "LD-AAAA-0001", target: "buyer-3", detail: "bid", bid: 20 },
    { name: "buyer_pinged", at: at("2026-11-02T14:02:01Z"), sid: "a1", tid: "t1", visitId: "v1", leadReference: "LD-AAAA-0001", target: "buyer-4", detail: "timeout" },
    { name: "lead_sold", at: at("2026-11-02T14:02:05Z"), sid: "a1", tid: "t1", visitId: "v1", leadReference: "LD-AAAA-0001", target: "buyer-1", revenue: 25.5, payout: 10 },
  ],
  [
    { name: "campaign_hit", at: at("2026-11-02T15:00:00Z"), sid: "a1", tid: "t1", visitId: "v2" },
    { name: "campaign_hit", at: at("2026-11-03T03:30:00Z"), sid: "a1", visitId: "v4" },
    { name: "zip_submitted", at: at("2026-11-02T15:00:10Z"), sid: "a1", tid: "t1", visitId: "v2", detail: "accepted" },
    { name: "zip_submitted", at: at("2026-11-02T14:05:10Z"), sid: "a1", visitId: "v3", detail: "accepted" },
    { name: "quote_page_view", at: at("2026-11-02T15:00:11Z"), sid: "a1", tid: "t1", visitId: "v2", path: "/" },
    { name: "quote_page_view", at: at("2026-11-02T14:05:11Z"), sid: "a1", visitId: "v3", path: "/" },
    { name: "form_started", at: at("2026-11-02T14:05:20Z"), sid: "a1", visitId: "v3" },
    { name: "lead_submitted", at: at("2026-11-02T14:07:00Z"), sid: "a1", visitId: "v3", leadReference: "LD-AAAA-0002" },
    { name: "lead_duplicate", at: at("2026-11-02T15:03:00Z"), sid: "a1", tid: "t1", visitId: "v2", leadReference: "LD-AAAA-0003" },
    { name: "lead_sold", at: at("2026-11-02T14:07:05Z"), sid: "a1", visitId: "v3", leadReference: "LD-AAAA-0002", target: "buyer-2", revenue: 30, payout: 12 },
    { name: "buyer_rejected", at: at("2026-11-02T14:07:05Z"), sid: "a1", visitId: "v3", leadReference: "LD-AAAA-0002", target: "buyer-1", detail: "duplicate" },
    { name: "campaign_hit", at: at("2026-11-02T16:00:00Z"), sid: "b2", tid: "t9", visitId: "v9" },
    { name: "zip_submitted", at: at("2026-11-02T16:00:05Z"), sid: "b2", tid: "t9", visitId: "v9", detail: "accepted" },
    { name: "lead_submitted", at: at("2026-11-02T16:03:00Z"), sid: "b2", tid: "t9", visitId: "v9", leadReference: "LD-BBBB-0001" },
    { name: "buyer_pinged", at: at("2026-11-02T16:03:01Z"), sid: "b2", tid: "t9", visitId: "v9", leadReference: "LD-BBBB-0001", target: "buyer-1", detail: "bid", bid: 40 },
    { name: "lead_sold", at: at("2026-11-02T16:03:02Z"), sid: "b2", tid: "t9", visitId: "v9", leadReference: "LD-BBBB-0001", target: "buyer-1", revenue: 40, payout: 15 },
    { name: "postback_sent", at: at("2026-11-02T16:03:03Z"), sid: "b2", tid: "t9", visitId: "v9", leadReference: "LD-BBBB-0001", target: "b2", detail: "sold" },
    // Bots: the same click id twice (1 unique), a ZIP submitted, a refused request.
    { name: "campaign_hit", at: at("2026-11-02T17:00:00Z"), sid: "a1", tid: "tb1", visitId: "vb1", bot: true },
    { name: "campaign_hit", at: at("2026-11-02T17:00:01Z"), sid: "a1", tid: "tb1", visitId: "vb2", bot: true },
    { name: "zip_submitted", at: at("2026-11-02T17:00:02Z"), sid: "a1", tid: "tb1", visitId: "vb1", bot: true, detail: "accepted" },
    { name: "lead_refused", at: at("2026-11-02T17:00:03Z"), sid: "a1", tid: "tb1", visitId: "vb1", bot: true, detail: "too_fast" },
  ],
  [
    { name: "campaign_hit", at: at("2026-11-03T14:00:00Z"), sid: "a1", tid: "t1", visitId: "v5" },
    { name: "quote_page_view", at: at("2026-11-03T14:00:05Z"), sid: "a1", tid: "t1", visitId: "v5", path: "/" },
    { name: "lead_returned", at: at("2026-11-03T18:00:00Z"), sid: "a1", tid: "t1", visitId: "v1", leadReference: "LD-AAAA-0001", target: "buyer-1", revenue: 25.5, payout: 10 },
    { name: "campaign_hit", at: at("2026-11-03T19:00:00Z"), visitId: "v10" },
  ],
];

const A1_D1 = row(D1, "a1", { clicks: 4, unique_clicks: 3, zip_submits: 3, quote_views: 3, form_starts: 2, leads: 2, duplicates: 1, sold: 2, revenue: 55.5, payout: 22, profit: 33.5, cr: 0.6667, epc: 18.5, bids: 2, bid_total: 45.5, avg_bid: 22.75, revenue_per_lead: 27.75 });
const B2_D1 = row(D1, "b2", { clicks: 1, unique_clicks: 1, zip_submits: 1, leads: 1, sold: 1, revenue: 40, payout: 15, profit: 25, cr: 1, epc: 40, bids: 1, bid_total: 40, avg_bid: 40, revenue_per_lead: 40 });
const NONE_D2 = row(D2, "", { clicks: 1, unique_clicks: 1 });
const A1_D2 = row(D2, "a1", { clicks: 1, unique_clicks: 1, quote_views: 1, returned: 1, revenue: -25.5, payout: -10, profit: -15.5, epc: -25.5 });

const RANGE = { since: "2026-11-01", until: "2026-11-05", includeBots: false } as const;

/** A journey of tid j1 on 2026-10-10, its events written out of order and in separate batches. */
const JOURNEY_BATCHES: EventInput[][] = [
  [
    { name: "lead_sold", at: at("2026-10-10T10:01:02Z"), leadReference: "LD-JJJJ-0001", target: "buyer-1", revenue: 20, payout: 8 },
    { name: "campaign_hit", at: at("2026-10-10T10:00:00Z"), sid: "s9", tid: "j1", visitId: "vj1" },
  ],
  [
    { name: "form_started", at: at("2026-10-10T10:00:05Z"), visitId: "vj1" },
    { name: "quote_page_view", at: at("2026-10-10T10:00:01Z"), sid: "s9", tid: "j1", visitId: "vj1", path: "/" },
    { name: "lead_submitted", at: at("2026-10-10T10:01:00Z"), sid: "s9", tid: "j1", visitId: "vj1", leadReference: "LD-JJJJ-0001" },
  ],
  // Two events in the same millisecond: the one stored first comes first.
  [{ name: "postback_sent", at: at("2026-10-10T10:01:03Z"), leadReference: "LD-JJJJ-0001", target: "s9", detail: "sold" }],
  [{ name: "buyer_rejected", at: at("2026-10-10T10:01:03Z"), leadReference: "LD-JJJJ-0001", target: "buyer-2", detail: "cap" }],
  [
    // Not j1's: another click, a visit without a tid, another lead.
    { name: "campaign_hit", at: at("2026-10-10T09:00:00Z"), sid: "s9", tid: "j2", visitId: "vj2" },
    { name: "campaign_hit", at: at("2026-10-10T09:30:00Z"), sid: "s9", visitId: "vj3" },
    { name: "lead_sold", at: at("2026-10-10T10:01:01Z"), leadReference: "LD-OTHR-0001", target: "buyer-1", revenue: 5, payout: 1 },
  ],
];

/** A SQL block of docs/analytics.md, found by its first line (`-- title`), for the dates and bots asked. */
function docsSql(title: string, replacements: Record<string, string>, includeBots = false): string {
  const docs = readFileSync(path.join(projectRoot, "docs", "analytics.md"), "utf8");
  const block = [...docs.matchAll(/```sql\n([\s\S]*?)```/g)].map((match) => match[1]!).find((text) => text.startsWith(`-- ${title}\n`));
  if (!block) throw new Error(`docs/analytics.md has no SQL block starting "-- ${title}"`);
  const lines = block.split("\n").filter((line) => !(includeBots && line.includes("-- without this line, bots count too")));
  return lines.join("\n").replace(/'[^']*'/g, (literal) => replacements[literal] ?? literal);
}

/** A row of the docs' SQL as a ReportRow (PostgreSQL's bigint and numeric arrive as text). */
function fromSql(raw: Record<string, unknown>): ReportRow {
  const number = (key: string) => Number(raw[key]);
  return {
    date: raw.date as string,
    sid: raw.sid as string,
    clicks: number("clicks"),
    unique_clicks: number("unique_clicks"),
    zip_submits: number("zip_submits"),
    quote_views: number("quote_views"),
    form_starts: number("form_starts"),
    leads: number("leads"),
    duplicates: number("duplicates"),
    sold: number("sold"),
    returned: number("returned"),
    revenue: number("revenue"),
    payout: number("payout"),
    profit: number("profit"),
    cr: number("cr"),
    epc: number("epc"),
    bids: number("bids"),
    bid_total: number("bid_total"),
    avg_bid: number("avg_bid"),
    revenue_per_lead: number("revenue_per_lead"),
  };
}

/** Sources whose order depends on the collation, on a day of their own. */
const ORDER_BATCH: EventInput[] = ["a1", "B2", "_x", "A1"].map((sid) => ({ name: "campaign_hit", at: at("2026-10-20T15:00:00Z"), sid, visitId: `o-${sid}` }));

describe.each(allStores())("the sub-id report ($kind)", (store) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await store.open();
    for (const batch of [...BATCHES, ...JOURNEY_BATCHES, ORDER_BATCH]) await insertEvents(db, batch, TIME_ZONE);
  });
  afterAll(() => db?.close());

  const report = (query: Partial<ReportQuery> & Pick<ReportQuery, "by">) => reportRows(db, { ...RANGE, ...query });

  it("counts each day and sid, sorted by date then sid (traffic without a sid as \"\")", async () => {
    expect(await report({ by: "day,sid" })).toEqual([A1_D1, B2_D1, NONE_D2, A1_D2]);
  });

  it("adds the sources up per day", async () => {
    expect(await report({ by: "day" })).toEqual([
      row(D1, null, { clicks: 5, unique_clicks: 4, zip_submits: 4, quote_views: 3, form_starts: 2, leads: 3, duplicates: 1, sold: 3, revenue: 95.5, payout: 37, profit: 58.5, cr: 0.75, epc: 23.88, bids: 3, bid_total: 85.5, avg_bid: 28.5, revenue_per_lead: 31.83 }),
      row(D2, null, { clicks: 2, unique_clicks: 2, quote_views: 1, returned: 1, revenue: -25.5, payout: -10, profit: -15.5, epc: -12.75 }),
    ]);
  });

  it("adds the days up per sid, revenue and payout net of returns", async () => {
    expect(await report({ by: "sid" })).toEqual([
      row(null, "", { clicks: 1, unique_clicks: 1 }),
      row(null, "a1", { clicks: 5, unique_clicks: 4, zip_submits: 3, quote_views: 4, form_starts: 2, leads: 2, duplicates: 1, sold: 2, returned: 1, revenue: 30, payout: 12, profit: 18, cr: 0.5, epc: 7.5, bids: 2, bid_total: 45.5, avg_bid: 22.75, revenue_per_lead: 15 }),
      row(null, "b2", { clicks: 1, unique_clicks: 1, zip_submits: 1, leads: 1, sold: 1, revenue: 40, payout: 15, profit: 25, cr: 1, epc: 40, bids: 1, bid_total: 40, avg_bid: 40, revenue_per_lead: 40 }),
    ]);
  });

  it("counts a click id once per day and sid, a visit without one once, and the same click id again on another day", async () => {
    const [a1d1, , , a1d2] = await report({ by: "day,sid" });
    // t1 twice (1) + v3 + v4 (2) on D1; t1 again on D2.
    expect([a1d1!.clicks, a1d1!.unique_clicks]).toEqual([4, 3]);
    expect([a1d2!.clicks, a1d2!.unique_clicks]).toEqual([1, 1]);
  });

  it("puts an event on the day it happened in the report time zone", async () => {
    // v4's click at 03:30 UTC on D2 is 22:30 on D1 in New York.
    const [d1] = await reportRows(db, { since: D1, until: D2, by: "day", includeBots: false });
    expect(d1).toMatchObject({ date: D1, clicks: 5 });
  });

  it("includes bots only when asked", async () => {
    const withBots = await report({ by: "day,sid", includeBots: true });
    expect(withBots).toEqual([
      { ...A1_D1, clicks: 6, unique_clicks: 4, zip_submits: 4, cr: 0.5, epc: 13.88 },
      B2_D1,
      NONE_D2,
      A1_D2,
    ]);
  });

  it("reports [since, until): until is the day after the last one", async () => {
    expect(await report({ by: "day,sid", since: D1, until: D2 })).toEqual([A1_D1, B2_D1]);
    expect(await report({ by: "day,sid", since: D2, until: "2026-11-04" })).toEqual([NONE_D2, A1_D2]);
    expect(await report({ by: "day,sid", since: "2026-11-04", until: "2026-11-30" })).toEqual([]);
  });

  it("sorts sids in byte order, the same on every store and database locale", async () => {
    const rows = await reportRows(db, { since: "2026-10-20", until: "2026-10-21", by: "sid", includeBots: false });
    expect(rows.map((line) => line.sid)).toEqual(["A1", "B2", "_x", "a1"]);
    expect((await trend(db, { since: "2026-10-20", until: "2026-10-21", includeBots: false })).map((series) => series.sid)).toEqual(["A1", "B2", "_x", "a1"]);
  });

  it("keeps to one source with sid, and \"\" picks the traffic without one", async () => {
    expect(await report({ by: "day,sid", sid: "a1" })).toEqual([A1_D1, A1_D2]);
    expect(await report({ by: "day,sid", sid: "" })).toEqual([NONE_D2]);
    expect(await report({ by: "day,sid", sid: "zz" })).toEqual([]);
  });

  it("totals the rows with the ratios of the sums", async () => {
    const totals = reportTotals(await report({ by: "day,sid" }));
    expect(totals).toEqual(
      row(null, null, { clicks: 7, unique_clicks: 6, zip_submits: 4, quote_views: 4, form_starts: 2, leads: 3, duplicates: 1, sold: 3, returned: 1, revenue: 70, payout: 27, profit: 43, cr: 0.5, epc: 11.67, bids: 3, bid_total: 85.5, avg_bid: 28.5, revenue_per_lead: 23.33 }),
    );
    // The same whatever the grouping.
    expect(reportTotals(await report({ by: "sid" }))).toEqual(totals);
    expect(reportTotals(await report({ by: "day" }))).toEqual(totals);
  });

  it("views each buyer: pings, bids, average bid, wins, win rate, returns and revenue net of returns", async () => {
    expect(await buyerRows(db, RANGE)).toEqual([
      { buyer: "buyer-1", pings: 2, bids: 2, avg_bid: 32.75, wins: 2, win_rate: 1, returned: 1, revenue: 40 },
      // A fixed-price buyer is never pinged and never bids: no win rate.
      { buyer: "buyer-2", pings: 0, bids: 0, avg_bid: 0, wins: 1, win_rate: null, returned: 0, revenue: 30 },
      { buyer: "buyer-3", pings: 1, bids: 1, avg_bid: 20, wins: 0, win_rate: 0, returned: 0, revenue: 0 },
      { buyer: "buyer-4", pings: 1, bids: 0, avg_bid: 0, wins: 0, win_rate: null, returned: 0, revenue: 0 },
    ]);
    expect(await buyerRows(db, { ...RANGE, sid: "b2" })).toEqual([{ buyer: "buyer-1", pings: 1, bids: 1, avg_bid: 40, wins: 1, win_rate: 1, returned: 0, revenue: 40 }]);
    expect(await buyerRows(db, { ...RANGE, since: D2, until: "2026-11-04" })).toEqual([{ buyer: "buyer-1", pings: 0, bids: 0, avg_bid: 0, wins: 0, win_rate: null, returned: 1, revenue: -25.5 }]);
  });

  it("draws a trend per sid over every day of the range, zeros included", async () => {
    const zero = (date: string) => ({ date, clicks: 0, leads: 0, revenue: 0 });
    expect(await trend(db, RANGE)).toEqual([
      { sid: "", points: [zero("2026-11-01"), zero(D1), { date: D2, clicks: 1, leads: 0, revenue: 0 }, zero("2026-11-04")] },
      { sid: "a1", points: [zero("2026-11-01"), { date: D1, clicks: 4, leads: 2, revenue: 55.5 }, { date: D2, clicks: 1, leads: 0, revenue: -25.5 }, zero("2026-11-04")] },
      { sid: "b2", points: [zero("2026-11-01"), { date: D1, clicks: 1, leads: 1, revenue: 40 }, zero(D2), zero("2026-11-04")] },
    ]);
    const bots = await trend(db, { ...RANGE, includeBots: true, sid: "a1" });
    expect(bots).toHaveLength(1);
    expect(bots[0]!.points[1]).toEqual({ date: D1, clicks: 6, leads: 2, revenue: 55.5 });
  });

  describe("the SQL in docs/analytics.md", () => {
    const range = { "'2026-11-01'": `'${RANGE.since}'`, "'2026-12-01'": `'${RANGE.until}'` };

    for (const source of ["from the rollup", "from the raw events"]) {
      it(`gives the report's numbers ${source}, bots excluded and included`, async () => {
        for (const includeBots of [false, true]) {
          const { rows } = await db.query(docsSql(`report by day and sid, ${source}`, range, includeBots));
          expect(rows.map(fromSql), `bots ${includeBots}`).toEqual(await reportRows(db, { ...RANGE, by: "day,sid", includeBots }));
        }
      });
    }

    it("gives the per-buyer view", async () => {
      const { rows } = await db.query<Record<string, unknown>>(docsSql("per-buyer view", range));
      const fromDocs = rows.map((raw) => ({
        buyer: raw.buyer,
        pings: Number(raw.pings),
        bids: Number(raw.bids),
        avg_bid: Number(raw.avg_bid),
        wins: Number(raw.wins),
        win_rate: raw.win_rate === null ? null : Number(raw.win_rate),
        returned: Number(raw.returned),
        revenue: Number(raw.revenue),
      }));
      expect(fromDocs).toEqual(await buyerRows(db, RANGE));
    });

    it("gives a click's journey", async () => {
      const { rows } = await db.query<{ occurred_at: Date; name: string }>(docsSql("journey of one click", { "'CLK123'": "'j1'" }));
      expect(rows.map((event) => [event.occurred_at.toISOString(), event.name])).toEqual((await journey(db, "j1")).map((event) => [event.at, event.name]));
    });
  });

  describe("a click's journey", () => {
    it("has every event of the tid, its visit and its lead, in time order", async () => {
      const events = await journey(db, "j1");
      expect(events.map((event) => [event.at, event.name])).toEqual([
        ["2026-10-10T10:00:00.000Z", "campaign_hit"],
        ["2026-10-10T10:00:01.000Z", "quote_page_view"],
        ["2026-10-10T10:00:05.000Z", "form_started"], // the visit's, without the tid
        ["2026-10-10T10:01:00.000Z", "lead_submitted"],
        ["2026-10-10T10:01:02.000Z", "lead_sold"], // the lead's, by its reference only
        ["2026-10-10T10:01:03.000Z", "postback_sent"],
        ["2026-10-10T10:01:03.000Z", "buyer_rejected"],
      ]);
      expect(events[4]).toEqual({
        at: "2026-10-10T10:01:02.000Z",
        name: "lead_sold",
        sid: null,
        tid: null,
        visitId: null,
        bot: false,
        gpc: false,
        path: null,
        step: null,
        leadReference: "LD-JJJJ-0001",
        target: "buyer-1",
        detail: null,
        revenue: 20,
        payout: 8,
        bid: null,
      });
    });

    it("joins the visits of a click seen twice", async () => {
      const events = await journey(db, "t1");
      expect(new Set(events.map((event) => event.visitId))).toEqual(new Set(["v1", "v2", "v5"]));
      expect(events.map((event) => event.name)).toContain("lead_returned");
      expect(events.map((event) => event.at)).toEqual([...events.map((event) => event.at)].sort());
    });

    it("stops at the limit, keeping the first events", async () => {
      expect((await journey(db, "j1", 2)).map((event) => event.name)).toEqual(["campaign_hit", "quote_page_view"]);
    });

    it("is empty for a click id never seen", async () => {
      expect(await journey(db, "nobody")).toEqual([]);
    });
  });
});
