/**
 * Lead delivery end to end below HTTP, on both stores: a lead stored with its deliveries in one
 * transaction (server/delivery/plan.ts), the worker (server/delivery/worker.ts) sending them to a
 * real local HTTP server playing the buyers and the traffic source (tools/buyer-stub.ts), retries
 * on a clock the test moves, returns and postbacks.
 */
import { registerDisclosure } from "../../server/consent/disclosures";
import { disclosureFor } from "../../server/leads/disclosure";
import pino from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { leadRepository } from "../../server/db/leads";
import { leadStore, type NewLead } from "../../server/leads/store";
import { deliveryRepository } from "../../server/db/deliveries";
import { createDeliveryPlanner } from "../../server/delivery/plan";
import { createLeadRouting } from "../../server/delivery/routing";
import { createDeliveryWorker, type DeliveryWorkerOptions } from "../../server/delivery/worker";
import { returnLead } from "../../server/delivery/returns";
import { suppressionList } from "../../server/privacy/suppression";
import { postbackDelivery, postbackEventId } from "../../server/delivery/payload";
import { buyersFileSchema, type LiveSettings } from "../../server/delivery/buyers";
import { verifySignature } from "../../server/delivery/signature";
import { quoteRidgeOnlyDisclosure } from "../../server/leads/disclosure";
import { allStores, type TestDatabase } from "../support/databases";
import { SAMPLE_ANSWERS, sampleNewLead, type NewLeadOverrides } from "../../tools/lead-session";
import { startBuyerStub, type BuyerStub } from "../../tools/buyer-stub";
import { createEventWriter } from "../../server/analytics/writer";

const SECRETS = { acme: "acme-secret-that-is-at-least-32-chars!!", zenith: "zenith-secret-that-is-at-least-32-chars!" };
const T0 = new Date("2026-11-23T15:00:00Z"); // a Monday, 10:00 in New York

interface LogLine {
  event?: string;
  level: number;
  [key: string]: unknown;
}

describe.each(allStores())("lead delivery ($kind)", (store) => {
  let db: TestDatabase;
  let stub: BuyerStub;
  let clock: Date;
  let lines: LogLine[];
  const logger = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line) as LogLine) });
  const events = (name: string) => lines.filter((line) => line.event === name);

  function buyersFile(overrides: { acme?: object; zenith?: object; sources?: object[] } = {}): LiveSettings {
    return buyersFileSchema.parse({
      buyers: [
        { id: "acme", name: "Acme Insurance Agency", url: stub.url("acme"), secret: SECRETS.acme, states: ["CA", "NY"], price: 18.5, timeoutMs: 500, ...overrides.acme },
        { id: "zenith", name: "Zenith Auto Group", url: stub.url("zenith"), secret: SECRETS.zenith, price: 12, timeoutMs: 500, ...overrides.zenith },
      ],
      sources: overrides.sources ?? [{ sid: "a1", payout: 6, postbackUrl: stub.postbackUrl() }],
    });
  }

  /** Stores a lead the way the lead service does when delivery is on. */
  async function storeLead(file: LiveSettings, overrides: NewLeadOverrides = {}, sale = true): Promise<string> {
    const routing = createLeadRouting({ planner: createDeliveryPlanner(() => file) });
    const input: NewLead = sampleNewLead({ receivedAt: clock, ...overrides });
    const result = await leadStore(leadRepository(db)).create(input, (lead) => ({ deliveries: routing.deliveries(lead, sale, clock, file.buyers.map((buyer) => buyer.id)) }));
    if (!result.created) throw new Error("not created");
    return result.reference;
  }

  function worker(file: LiveSettings, options: Partial<DeliveryWorkerOptions> = {}) {
    return createDeliveryWorker({ db, buyers: () => file, logger, now: () => clock, certificateUrl: (lead, buyerId) => `https://quotes.example/consent/${lead.reference}?b=${buyerId}`, ...options });
  }

  const later = (ms: number) => (clock = new Date(clock.getTime() + ms));
  const deliveriesOf = (reference: string) => deliveryRepository(db).list({ reference });

  beforeAll(async () => {
    db = await store.open();
    stub = await startBuyerStub({ buyers: SECRETS });
  });
  afterAll(async () => {
    await stub?.stop();
    await db?.close();
  });
  beforeEach(async () => {
    await db.query("TRUNCATE delivery_attempts, deliveries, buyer_counters, lead_consents, leads, suppressions RESTART IDENTITY CASCADE");
    await registerDisclosure(db.builder, disclosureFor(undefined));
    stub.reset();
    clock = T0;
    lines = [];
  });

  it("sends a signed lead with a stable Idempotency-Key and its consent link, records it, and fires the source's postback once", async () => {
    const file = buyersFile();
    const reference = await storeLead(file, { location: { city: "Beverly Hills", state: "CA" }, sid: "a1", tid: "CLICK-42" });
    expect((await deliveriesOf(reference)).map((delivery) => [delivery.target, delivery.status])).toEqual([
      ["acme", "pending"],
      ["zenith", "pending"],
    ]);
    const sending = worker(file);
    expect(await sending.runOnce()).toBe(2);

    const [received] = stub.received("acme");
    expect(received?.signature).toBe("ok");
    expect(verifySignature(SECRETS.acme, String(received?.headers["x-signature"]), received!.rawBody)).toBe("ok");
    expect(verifySignature(SECRETS.zenith, String(received?.headers["x-signature"]), received!.rawBody)).toBe("mismatch");
    expect(received?.idempotencyKey).toBe(`${reference}:acme`);
    const body = received?.json as { reference: string; sale: boolean; price: number; lead: Record<string, unknown>; consent: { certificateUrl: string; disclosureVersion: number } };
    expect(body).toMatchObject({ reference, sale: true, price: 18.5, lead: { state: "CA", firstName: "Ana", vehicleMake: "Toyota" } });
    // Every vehicle and driver, exactly as stored, and the household's insurance facts (issue 13).
    expect(body.lead).toMatchObject({ vehicles: SAMPLE_ANSWERS.vehicles, drivers: SAMPLE_ANSWERS.drivers, insuredFor: "1_3y", coverage: "standard", residence: "own" });
    expect(body.consent.certificateUrl).toBe(`https://quotes.example/consent/${reference}?b=acme`);
    // When the visitor may be called travels with the lead: 90210's zone, California's (federal) hours.
    expect(received?.json).toMatchObject({ callingRules: { timeZone: "America/Los_Angeles", state: "CA", hours: { mon: { start: "08:00", end: "21:00" } }, maxCallsPer24h: null } });
    expect(body.consent.disclosureVersion).toBe(quoteRidgeOnlyDisclosure().version);

    const delivered = await deliveriesOf(reference);
    expect(delivered.filter((delivery) => delivery.kind === "buyer").map((delivery) => [delivery.target, delivery.status, delivery.price])).toEqual([
      ["acme", "accepted", 18.5],
      ["zenith", "accepted", 12],
    ]);
    expect(await deliveryRepository(db).attempts(delivered[0]!.id)).toEqual([expect.objectContaining({ outcome: "accepted", httpStatus: 200 })]);
    expect(events("lead_delivered")).toHaveLength(2);
    expect(JSON.stringify(events("lead_delivered"))).not.toMatch(/Ana|@|\+1/);

    // Two buyers accepted; the source hears of the sale once.
    expect(await sending.runOnce()).toBe(1);
    expect(stub.postbacks().map((postback) => postback.query)).toEqual([{ tid: "CLICK-42", payout: "6.00", status: "sold" }]);
    // With its event id as Idempotency-Key, for a source whose URL has no {event_id}.
    expect(stub.postbacks()[0]?.idempotencyKey).toBe(postbackEventId(`${reference}:postback:sold`));
    expect(await sending.runOnce()).toBe(0);
  });

  it("tells the buyer a Florida panhandle lead's calling rules: Central time, Florida's 8 a.m.–8 p.m. and three calls a day, with the laws", async () => {
    const file = buyersFile({ acme: { states: ["FL"] } });
    const reference = await storeLead(file, { location: { city: "Pensacola", state: "FL" }, lead: { zip: "32501" } });
    await worker(file).runOnce();
    const [received] = stub.received("acme");
    expect(received?.json).toMatchObject({ reference, lead: { zip: "32501", state: "FL" } });
    const rules = (received?.json as { callingRules: Record<string, unknown> }).callingRules;
    expect(rules).toMatchObject({ timeZone: "America/Chicago", state: "FL", maxCallsPer24h: 3, hours: { sat: { start: "08:00", end: "20:00" }, sun: { start: "08:00", end: "20:00" } } });
    expect(rules.sources).toEqual(["47 CFR § 64.1200(c)(1) (Telephone Consumer Protection Act rules)", "Fla. Stat. § 501.616(6) (Florida Telephone Solicitation Act)"]);
  });

  it("takes the time zone stored with the lead, and looks one up from the ZIP only for a lead stored without it", async () => {
    const file = buyersFile({ acme: { states: ["FL"] } });
    // Stored with its ZIP's zone (the lead service does): that zone, whatever the ZIP table says.
    const stored = await storeLead(file, { location: { city: "Pensacola", state: "FL", timeZone: "America/Chicago" }, lead: { zip: "33101" } });
    // Stored before migration 19: no zone with it, so the ZIP's (Miami: Eastern).
    const older = await storeLead(file, { location: { city: "Miami", state: "FL" }, lead: { zip: "33101" } });
    await worker(file).runOnce();
    const zoneOf = (reference: string) => (stub.received("acme").find((lead) => (lead.json as { reference: string }).reference === reference)?.json as { callingRules: { timeZone: string } }).callingRules.timeZone;
    expect(zoneOf(stored)).toBe("America/Chicago");
    expect(zoneOf(older)).toBe("America/New_York");
  });

  it("retries 500 twice with backoff, then is accepted once, every attempt recorded with the same key", async () => {
    const file = buyersFile({ sources: [] }); // no postbacks in the queue
    stub.script("acme", [{ status: 500 }, { status: 503, headers: { "retry-after": "30" } }]);
    const reference = await storeLead(file);
    const sending = worker(file);
    await sending.runOnce();
    const [first] = (await deliveriesOf(reference)).filter((delivery) => delivery.target === "acme");
    expect(first).toMatchObject({ status: "pending", attempts: 1, lastError: "HTTP 500" });
    const wait = first!.nextAttemptAt.getTime() - clock.getTime();
    expect(wait).toBeGreaterThanOrEqual(1_000);
    expect(wait).toBeLessThanOrEqual(2_000);
    expect(await sending.runOnce()).toBe(0); // not due yet
    later(wait);
    await sending.runOnce();
    const [second] = (await deliveriesOf(reference)).filter((delivery) => delivery.target === "acme");
    expect(second!.nextAttemptAt.getTime() - clock.getTime()).toBe(30_000); // Retry-After honoured
    later(30_000);
    await sending.runOnce();
    const [done] = (await deliveriesOf(reference)).filter((delivery) => delivery.target === "acme");
    expect(done).toMatchObject({ status: "accepted", attempts: 3 });
    expect((await deliveryRepository(db).attempts(done!.id)).map((attempt) => [attempt.outcome, attempt.httpStatus])).toEqual([
      ["retry", 500],
      ["retry", 503],
      ["accepted", 200],
    ]);
    expect(new Set(stub.received("acme").map((lead) => lead.idempotencyKey))).toEqual(new Set([`${reference}:acme`]));
    expect(events("lead_delivery_retry")).toHaveLength(2);
  });

  it("stores each sale, refusal, return and postback for the report: revenue per sale, the source's payout once per lead", async () => {
    const file = buyersFile();
    const analytics = createEventWriter({ db, timeZone: "America/New_York", logger, maxBuffer: 1_000, flushMs: 60_000 });
    await db.query("DELETE FROM analytics_events");
    await db.query("DELETE FROM analytics_daily");
    await db.query("DELETE FROM analytics_paid_leads");
    const sending = worker(file, { analytics });
    const california = { city: "Beverly Hills", state: "CA" };
    const first = await storeLead(file, { location: california, sid: "a1", tid: "CLICK-7", visitId: "visit-7" });
    const second = await storeLead(file, { location: california, sid: "a1", tid: "CLICK-8" });
    await sending.runOnce(); // acme and zenith buy both
    await sending.runOnce(); // one postback per lead
    stub.script("zenith", [{ status: 400, body: { reason: "no coverage" } }]);
    const third = await storeLead(file, { location: { city: "Austin", state: "TX" }, sid: "a1", tid: "CLICK-9" }); // zenith only
    await sending.runOnce();
    await returnLead({ db, buyers: file, logger, analytics }, { reference: second, buyerId: "zenith", reason: "wrong number", via: "api" }, clock);
    await analytics.stop();

    const { rows } = await db.query<{ name: string; lead_reference: string; sid: string; tid: string; visit_id: string | null; revenue: string | number | null; payout: string | number | null }>(
      "SELECT name, lead_reference, sid, tid, visit_id, revenue, payout FROM analytics_events",
    );
    const label = new Map([[first, "first"], [second, "second"], [third, "third"]]);
    const summary = new Map<string, { count: number; revenue: number; payout: number; paidRows: number }>();
    for (const row of rows) {
      const key = `${row.name} ${label.get(row.lead_reference)}`;
      const entry = summary.get(key) ?? { count: 0, revenue: 0, payout: 0, paidRows: 0 };
      entry.count += 1;
      entry.revenue += Number(row.revenue ?? 0);
      entry.payout += Number(row.payout ?? 0);
      entry.paidRows += row.payout === null ? 0 : 1;
      summary.set(key, entry);
    }
    expect(Object.fromEntries([...summary].sort(([a], [b]) => a.localeCompare(b)))).toEqual({
      "buyer_rejected third": { count: 1, revenue: 0, payout: 0, paidRows: 0 },
      // acme keeps the second lead: its source stays paid.
      "lead_returned second": { count: 1, revenue: 12, payout: 0, paidRows: 0 },
      // Sold to two buyers each, but the source is paid once per lead.
      "lead_sold first": { count: 2, revenue: 30.5, payout: 6, paidRows: 1 },
      "lead_sold second": { count: 2, revenue: 30.5, payout: 6, paidRows: 1 },
      "postback_sent first": { count: 1, revenue: 0, payout: 0, paidRows: 0 },
      "postback_sent second": { count: 1, revenue: 0, payout: 0, paidRows: 0 },
    });
    // Each carries its lead's campaign and visit, taken from the lead.
    expect(rows.filter((row) => row.lead_reference === first).every((row) => row.sid === "a1" && row.tid === "CLICK-7" && row.visit_id === "visit-7")).toBe(true);
    const { rows: day } = await db.query<{ sold: string | number; returned: string | number; revenue: string | number; payout: string | number }>("SELECT sold, returned, revenue, payout FROM analytics_daily WHERE sid = 'a1'");
    expect(day.map((row) => [Number(row.sold), Number(row.returned), Number(row.revenue), Number(row.payout)])).toEqual([[4, 1, 49, 12]]);
  });

  it("keeps a 400 as rejected with the buyer's reason, never retried, and gives the daily slot back", async () => {
    const file = buyersFile({ acme: { dailyCap: 1 }, sources: [] });
    stub.script("acme", [{ status: 400, body: { reason: "outside our service area" } }]);
    const first = await storeLead(file);
    const sending = worker(file);
    await sending.runOnce();
    expect((await deliveriesOf(first)).find((delivery) => delivery.target === "acme")).toMatchObject({ status: "rejected", reason: "outside our service area", attempts: 1 });
    later(3_600_000);
    expect(await sending.runOnce()).toBe(0);
    expect(stub.received("acme")).toHaveLength(1);
    expect(events("lead_rejected_by_buyer")).toHaveLength(1);
    // The cap's one slot came back: the next lead goes to acme.
    const second = await storeLead(file);
    expect((await deliveriesOf(second)).map((delivery) => delivery.target)).toContain("acme");
  });

  it("delivers when a buyer that was down comes back, and times out a slow buyer before retrying", async () => {
    const file = buyersFile({ sources: [] }); // no postbacks in the queue
    stub.script("zenith", [{ status: 200, delayMs: 2_000 }]);
    await stub.stop();
    const reference = await storeLead(file);
    const sending = worker(file);
    await sending.runOnce();
    const outcomes = async () => Object.fromEntries(await Promise.all((await deliveriesOf(reference)).map(async (delivery) => [delivery.target, (await deliveryRepository(db).attempts(delivery.id)).map((attempt) => attempt.outcome)])));
    expect(await outcomes()).toEqual({ acme: ["network_error"], zenith: ["network_error"] });
    await stub.restart();
    later(10_000);
    await sending.runOnce();
    expect(await outcomes()).toEqual({ acme: ["network_error", "accepted"], zenith: ["network_error", "timeout"] });
    later(10_000);
    await sending.runOnce();
    expect(await outcomes()).toEqual({ acme: ["network_error", "accepted"], zenith: ["network_error", "timeout", "accepted"] });
  });

  it("dead-letters after the last try, logs it at error level, and sends it again when told to", async () => {
    const file = buyersFile();
    stub.script("acme", [{ status: 502 }, { status: 502 }]);
    const reference = await storeLead(file);
    const sending = worker(file, { retry: { maxAttempts: 2 } });
    await sending.runOnce();
    later(60_000);
    await sending.runOnce();
    expect((await deliveriesOf(reference)).find((delivery) => delivery.target === "acme")).toMatchObject({ status: "failed", attempts: 2 });
    expect(events("lead_delivery_failed")).toEqual([expect.objectContaining({ level: 50, buyerId: "acme", reference })]);
    expect(await deliveryRepository(db).retry(reference, "acme", clock)).toBe(1);
    await sending.runOnce();
    expect((await deliveriesOf(reference)).find((delivery) => delivery.target === "acme")).toMatchObject({ status: "accepted" });
  });

  it("goes only to buyers of the lead's state, under their daily cap, and open by their schedule", async () => {
    // Zenith takes leads 12:00–18:00 on weekdays in Chicago: at T0 it is 09:00 there.
    const file = buyersFile({ acme: { dailyCap: 2 }, zenith: { schedule: { timeZone: "America/Chicago", days: ["mon", "tue", "wed", "thu", "fri"], from: "12:00", to: "18:00" } } });
    const texas = await storeLead(file, { location: { city: "Austin", state: "TX" } });
    expect(await deliveriesOf(texas)).toEqual([]);
    const references = [await storeLead(file), await storeLead(file), await storeLead(file)];
    const targets = await Promise.all(references.map(async (reference) => (await deliveriesOf(reference)).map((delivery) => delivery.target)));
    expect(targets).toEqual([["acme"], ["acme"], []]);
    later(4 * 3_600_000); // 13:00 in Chicago
    expect((await deliveriesOf(await storeLead(file))).map((delivery) => delivery.target)).toEqual(["zenith"]);
  });

  it("skips a buyer whose filters exclude the lead (its ZIP, a driver's age at the time of offer) and still delivers to the others", async () => {
    // The sample's drivers were born in 1988 and 1990: at T0 the oldest is 38.
    const file = buyersFile({ acme: { filters: { zips: { exclude: ["90210"] } } }, zenith: { filters: { driverAge: { max: 37 }, coverage: ["standard"] } } });
    expect((await deliveriesOf(await storeLead(file))).map((delivery) => delivery.target)).toEqual([]);
    const elsewhere = await storeLead(file, { lead: { zip: "90211" } });
    expect((await deliveriesOf(elsewhere)).map((delivery) => delivery.target)).toEqual(["acme"]);
    // Without the age filter zenith takes it: only the filter kept it out.
    const younger = buyersFile({ acme: { filters: { zips: { exclude: ["90210"] } } }, zenith: { filters: { driverAge: { max: 38 }, coverage: ["standard"] } } });
    expect((await deliveriesOf(await storeLead(younger))).map((delivery) => delivery.target)).toEqual(["zenith"]);
  });

  it("keeps each buyer's own cap when several capped buyers take the same lead", async () => {
    const file = buyersFile({ acme: { dailyCap: 1 }, zenith: { dailyCap: 2 } });
    const references = [await storeLead(file), await storeLead(file), await storeLead(file)];
    const targets = await Promise.all(references.map(async (reference) => (await deliveriesOf(reference)).map((delivery) => delivery.target).sort()));
    expect(targets).toEqual([["acme", "zenith"], ["zenith"], []]);
  });

  it("wakes at once when told a lead was stored, however long its idle poll", async () => {
    const file = buyersFile();
    const idle = worker(file, { pollMs: 60_000 });
    idle.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 200)); // it has looked, found nothing, and sleeps
      await storeLead(file);
      idle.nudge();
      expect(await stub.waitForLeads("acme", 1, 10_000)).toHaveLength(1);
    } finally {
      await idle.stop();
    }
  });

  it("says how many deliveries each new lead queued (the replica's worker is woken only when there are some)", async () => {
    const file = buyersFile();
    const routing = createLeadRouting({ planner: createDeliveryPlanner(() => file) });
    const create = (overrides: NewLeadOverrides) => leadStore(leadRepository(db)).create(sampleNewLead({ receivedAt: clock, ...overrides }), (lead) => ({ deliveries: routing.deliveries(lead, true, clock, file.buyers.map((buyer) => buyer.id)) }));
    const counts = [
      await create({ lead: { phone: "+14155550166" } }),
      await create({ lead: { phone: "+14155550166" } }),
      await create({ location: { city: "Austin", state: "TX" } }),
    ].map((result) => (result.created ? result.deliveries : -1));
    expect(counts).toEqual([2, 0, 1]);
  });

  it("records several results in one statement: each its own state and attempt, a refused capped buyer's slot back, an accepted sale's postback, a stale claim refused", async () => {
    const file = buyersFile({ acme: { dailyCap: 5 } });
    const [first, second] = [await storeLead(file, { tid: "CLICK-1" }), await storeLead(file, { tid: "CLICK-2" })];
    const repository = deliveryRepository(db);
    const claimed = await repository.claimDue(10, 60_000, clock);
    const find = (reference: string, target: string) => claimed.find((delivery) => delivery.leadReference === reference && delivery.target === target)!;
    const base = { httpStatus: 200, latencyMs: 40, excerpt: null, attemptedAt: clock };
    const sold = find(first!, "acme");
    const results = await repository.completeMany([
      { delivery: sold, done: { ...base, outcome: "accepted", status: "accepted", price: 21, sale: true }, followUp: postbackDelivery(file.sources, { reference: first!, sid: "a1", tid: "CLICK-1" }, "sold", clock)! },
      { delivery: find(first!, "zenith"), done: { ...base, httpStatus: 400, outcome: "rejected", status: "rejected", reason: "duplicate lead" } },
      { delivery: find(second!, "acme"), done: { ...base, httpStatus: 503, outcome: "retry", status: "failed", error: "HTTP 503" } },
      { delivery: { ...find(second!, "zenith"), attempts: 7 }, done: { ...base, outcome: "accepted", status: "accepted" } },
    ]);
    expect(results).toEqual([true, true, true, false]);
    const state = async (reference: string) => (await deliveriesOf(reference)).map((delivery) => [delivery.kind, delivery.target, delivery.status, delivery.price, delivery.reason, delivery.lastError]);
    expect(await state(first!)).toEqual([
      ["buyer", "acme", "accepted", 21, null, null],
      ["buyer", "zenith", "rejected", 12, "duplicate lead", null],
      ["postback", "a1", "pending", 6, null, null],
    ]);
    expect(await state(second!)).toEqual([
      ["buyer", "acme", "failed", 18.5, null, "HTTP 503"],
      ["buyer", "zenith", "sending", 12, null, null],
    ]);
    expect((await repository.attempts(sold.id)).map((attempt) => [attempt.outcome, attempt.httpStatus])).toEqual([["accepted", 200]]);
    const { rows } = await db.query<{ count: number }>("SELECT day_count AS count FROM buyer_counters WHERE buyer_id = 'acme'");
    expect(rows.map((row) => Number(row.count))).toEqual([1]); // two taken, the failed one's given back
  });

  it("does not deliver a duplicate of a recent lead", async () => {
    const file = buyersFile();
    const first = await storeLead(file, { lead: { phone: "+14155550199" } });
    const repeat = await storeLead(file, { lead: { phone: "+14155550199" } });
    expect((await deliveriesOf(first)).length).toBe(2);
    expect(await deliveriesOf(repeat)).toEqual([]);
  });

  it("sends a lead that may not be sold (GPC or opted out) as not for sale: no price, no postback", async () => {
    const file = buyersFile();
    const reference = await storeLead(file, { gpc: true, tid: "CLICK-7" }, false);
    const sending = worker(file);
    await sending.runOnce();
    const body = stub.received("acme")[0]?.json as { sale: boolean; price: number | null };
    expect(body).toMatchObject({ sale: false, price: null });
    expect((await deliveriesOf(reference)).map((delivery) => [delivery.status, delivery.sale, delivery.price])).toEqual([
      ["accepted", false, null],
      ["accepted", false, null],
    ]);
    expect(await sending.runOnce()).toBe(0);
    expect(stub.postbacks()).toEqual([]);
  });

  it("stores a lead whose phone is already on the suppression list with its deliveries not for sale", async () => {
    const file = buyersFile();
    await suppressionList(db).add({ phone: "+14155550177" }, "phone");
    const reference = await storeLead(file, { lead: { phone: "+14155550177" } });
    expect((await deliveriesOf(reference)).map((delivery) => [delivery.target, delivery.sale, delivery.price])).toEqual([
      ["acme", false, null],
      ["zenith", false, null],
    ]);
    const other = await storeLead(file);
    expect((await deliveriesOf(other)).map((delivery) => [delivery.sale, delivery.price])).toEqual([
      [true, 18.5],
      [true, 12],
    ]);
  });

  it("checks the suppression list again before sending: a contact that opted out meanwhile is no longer sold", async () => {
    const file = buyersFile();
    const reference = await storeLead(file, { tid: "CLICK-8" });
    await worker(file, { salesAllowed: async (leads) => leads.map(() => false) }).runOnce();
    expect((stub.received("acme")[0]?.json as { sale: boolean }).sale).toBe(false);
    expect((await deliveriesOf(reference)).map((delivery) => [delivery.sale, delivery.price])).toEqual([
      [false, null],
      [false, null],
    ]);
  });

  it("reverses a return: the delivery is returned, and the source hears status=returned once no buyer keeps the lead", async () => {
    const file = buyersFile();
    const reference = await storeLead(file, { tid: "CLICK-9" });
    const sending = worker(file);
    await sending.runOnce();
    await sending.runOnce(); // the sold postback
    const deps = { db, buyers: file, logger };
    expect(await returnLead(deps, { reference, buyerId: "acme", reason: "wrong number", via: "cli" }, clock)).toMatchObject({ kind: "returned", price: 18.5 });
    expect(await returnLead(deps, { reference, buyerId: "acme", reason: "again", via: "cli" }, clock)).toEqual({ kind: "already_returned" });
    expect(await returnLead(deps, { reference: "LD-0000-0000", buyerId: "acme", reason: "x", via: "cli" }, clock)).toEqual({ kind: "not_found" });
    expect(await sending.runOnce()).toBe(0); // zenith still keeps it
    await returnLead(deps, { reference, buyerId: "zenith", reason: "duplicate in our system", via: "api" }, clock);
    expect(await sending.runOnce()).toBe(1);
    expect(stub.postbacks().map((postback) => postback.query.status)).toEqual(["sold", "returned"]);
    expect((await deliveriesOf(reference)).filter((delivery) => delivery.kind === "buyer").map((delivery) => delivery.status)).toEqual(["returned", "returned"]);
    expect(events("lead_returned")).toHaveLength(2);
  });

  it("gives every call of a postback one event id, in {event_id} and as Idempotency-Key, and the lead's returned postback another", async () => {
    const file = buyersFile({ sources: [{ sid: "a1", payout: 6, postbackUrl: stub.postbackUrl("tid={tid}&status={status}&event_id={event_id}") }] });
    const reference = await storeLead(file, { tid: "CLICK-5" });
    const sending = worker(file);
    await sending.runOnce(); // both buyers accept
    stub.scriptPostbacks([{ status: 503 }]);
    await sending.runOnce(); // the sold postback: 503, tried again
    later(2_000);
    await sending.runOnce(); // 200
    const deps = { db, buyers: file, logger };
    await returnLead(deps, { reference, buyerId: "acme", reason: "wrong number", via: "cli" }, clock);
    await returnLead(deps, { reference, buyerId: "zenith", reason: "wrong number", via: "cli" }, clock);
    await sending.runOnce(); // the returned postback

    const calls = stub.postbacks().map((postback) => [postback.query.status, postback.query.event_id, postback.idempotencyKey]);
    const sold = postbackEventId(`${reference}:postback:sold`);
    const returned = postbackEventId(`${reference}:postback:returned`);
    expect(calls).toEqual([
      ["sold", sold, sold],
      ["sold", sold, sold],
      ["returned", returned, returned],
    ]);
    expect(sold).not.toBe(returned);
    expect(events("postback_retry").map((line) => line.eventId)).toEqual([sold]);
    expect(events("postback_sent").map((line) => [line.status, line.eventId, line.attempt])).toEqual([
      ["sold", sold, 2],
      ["returned", returned, 1],
    ]);
  });

  it("calls a postback again, same event id, when the worker that called it died before recording it: once its own lease ends, not the slowest buyer's", async () => {
    // acme may take a minute to answer: a buyer's lease is 70 s. A postback's is its timeout + 10 s.
    const file = buyersFile({ acme: { timeoutMs: 60_000 } });
    const reference = await storeLead(file, { tid: "CLICK-6" });
    await worker(file).runOnce();
    stub.scriptPostbacks(["hang"]); // the source got the call; the answer never reaches the worker
    const dying = worker(file, { postbackTimeoutMs: 1_000 });
    const died = dying.runOnce();
    const [first] = await stub.waitForPostbacks(1, 5_000);
    later(12_000); // past the postback's 11 s lease, well within a buyer's 70 s
    expect(await worker(file, { postbackTimeoutMs: 1_000 }).runOnce()).toBe(1);
    await died; // its call timed out: too late to record, the claim is no longer its own
    const [, again] = stub.postbacks();
    expect(again?.query.event_id).toBe(first?.query.event_id);
    expect(again?.idempotencyKey).toBe(first?.idempotencyKey);
    expect(again?.repeat).toBe(true);
    const [postback] = (await deliveriesOf(reference)).filter((delivery) => delivery.kind === "postback");
    expect(postback).toMatchObject({ status: "accepted", attempts: 2 });
    expect((await deliveryRepository(db).attempts(postback!.id)).map((attempt) => attempt.outcome)).toEqual(["accepted"]);
    expect(events("postback_sent")).toHaveLength(1);
    expect(events("postback_retry")).toEqual([]);
  });

  it("sends a delivery again, with the same key, when the replica that claimed it died mid-send (its lease ran out)", async () => {
    const file = buyersFile({ sources: [] }); // no postbacks in the queue
    const reference = await storeLead(file);
    const claimed = await deliveryRepository(db).claimDue(10, 60_000, clock); // a replica claims, then dies
    expect(claimed).toHaveLength(2);
    const sending = worker(file);
    expect(await sending.runOnce()).toBe(0); // the lease still holds
    later(61_000);
    expect(await sending.runOnce()).toBe(2);
    expect((await deliveriesOf(reference)).map((delivery) => [delivery.status, delivery.attempts])).toEqual([
      ["accepted", 2],
      ["accepted", 2],
    ]);
    expect(stub.received("acme").map((lead) => lead.idempotencyKey)).toEqual([`${reference}:acme`]);
  });

  it("counts caps per hour, week and month in the buyer's time zone, and starts a new period at 0", async () => {
    const file = buyersFile({ acme: { caps: { hour: 1, week: 3 } }, zenith: { caps: { month: 2 }, timeZone: "America/Los_Angeles" } });
    const targets = async () => (await deliveriesOf(await storeLead(file))).map((delivery) => delivery.target).sort();
    expect(await targets()).toEqual(["acme", "zenith"]);
    expect(await targets()).toEqual(["zenith"]); // acme's hour is full; zenith's month now too
    expect(await targets()).toEqual([]);
    later(3_600_000); // 11:00 in New York: a new hour for acme
    expect(await targets()).toEqual(["acme"]);
    later(3_600_000);
    expect(await targets()).toEqual(["acme"]); // its third lead of the week
    later(3_600_000);
    expect(await targets()).toEqual([]); // the week is full
    later(7 * 86_400_000); // the next Monday: a new week; the same month for zenith
    expect(await targets()).toEqual(["acme"]);
    later(8 * 86_400_000); // December in Los Angeles
    expect(await targets()).toEqual(["acme", "zenith"]);
  });

  it("stops at a dollar budget per day: a lead that would pass it is skipped, one that fits is still taken", async () => {
    // acme pays 18.50, 22.50 for a homeowner: with $41 a day, two homeowners (45) would pass it; a homeowner and a renter (41) fit.
    const file = buyersFile({ acme: { budget: { day: 41 }, priceRules: [{ label: "Homeowners", when: { homeowner: true }, add: 4 }] }, zenith: { budget: { day: 10 } } });
    const targets = async (overrides: NewLeadOverrides = {}) => (await deliveriesOf(await storeLead(file, overrides))).map((delivery) => [delivery.target, delivery.price]);
    // zenith's $12 never fits its $10 a day: never offered.
    expect(await targets()).toEqual([["acme", 22.5]]); // the sample household owns its home
    expect(await targets()).toEqual([]); // 22.50 + 22.50 > 41
    const renter = { lead: { ...SAMPLE_ANSWERS, residence: "rent" } } as NewLeadOverrides;
    expect(await targets(renter)).toEqual([["acme", 18.5]]); // 22.50 + 18.50 = 41
    expect(await targets(renter)).toEqual([]);
  });

  it("prices each lead by the buyer's rules and keeps how the price was reached with the delivery", async () => {
    const file = buyersFile({
      acme: { price: 12, priceRules: [{ label: "Homeowners", when: { homeowner: true }, add: 4 }, { label: "California", when: { states: ["CA"] }, add: -1.5 }, { label: "Texas", when: { states: ["TX"] }, add: 9 }] },
    });
    const [acme] = (await deliveriesOf(await storeLead(file))).filter((delivery) => delivery.target === "acme");
    expect(acme).toMatchObject({ price: 14.5, priceReason: "base $12.00 + Homeowners +$4.00 + California −$1.50" });
    const sending = worker(file);
    await sending.runOnce();
    expect((stub.received("acme")[0]!.json as { price?: number }).price).toBe(14.5);
  });

  it("offers nothing to a paused or archived buyer, and still sends what it was already given", async () => {
    const file = buyersFile();
    const before = await storeLead(file);
    const paused = buyersFileSchema.parse({ ...file, buyers: file.buyers.map((buyer) => (buyer.id === "acme" ? { ...buyer, status: "paused" } : { ...buyer, status: "archived" })) });
    expect(await deliveriesOf(await storeLead(paused))).toEqual([]);
    await worker(paused).runOnce();
    expect(stub.received("acme").map((lead) => lead.reference)).toEqual([before]);
    expect(stub.received("zenith").map((lead) => lead.reference)).toEqual([before]);
  });

  it("signs with the old and the new secret while a rotation overlaps, then with the new one only", async () => {
    const rotated = "acme-new-secret-that-is-at-least-32-chars";
    const file = buyersFile({ acme: { secret: rotated, previousSecret: SECRETS.acme, previousSecretUntil: new Date(Date.now() + 3_600_000).toISOString() }, sources: [] });
    await storeLead(file);
    await worker(file, { now: () => new Date() }).runOnce();
    const [during] = stub.received("acme");
    expect(during!.signature).toBe("ok"); // the stub still holds the old secret
    expect(verifySignature(rotated, during!.headers["x-signature"] as string, during!.rawBody)).toBe("ok");
    const over = buyersFile({ acme: { secret: rotated, previousSecret: SECRETS.acme, previousSecretUntil: new Date(Date.now() - 1_000).toISOString() }, sources: [] });
    await storeLead(over, { lead: { ...SAMPLE_ANSWERS, email: "other.person@example.com", phone: "4155550177" } } as NewLeadOverrides);
    await worker(over, { now: () => new Date() }).runOnce();
    expect(stub.received("acme")[1]!.signature).toBe("mismatch");
  });

  it("pays and calls back no archived source", async () => {
    const file = buyersFile({ sources: [{ sid: "a1", payout: 6, postbackUrl: stub.postbackUrl(), status: "archived" }] });
    await storeLead(file, { tid: "CLICK-1" });
    const sending = worker(file);
    await sending.runOnce();
    expect(await sending.runOnce()).toBe(0);
    expect(stub.postbacks()).toEqual([]);
  });
});
