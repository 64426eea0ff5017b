/**
 * The auction through the real store and real HTTP buyers on loopback (issue 16): a lead stored
 * with its auction row is pinged, the bids recorded, the winners' posts queued and sent by the
 * delivery worker with their bid ids; a refused post cascades to the next best bid; a fixed-price
 * buyer takes part with a standing shared bid; a lead whose contact opted out is not auctioned
 * but sent as directed; and two auction workers settling the same auction sell it once.
 */
import http from "node:http";
import pg from "pg";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { pino } from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createAuctioneer, auctionRepository } from "../../server/auction/auctions";
import { buyersFileSchema, type LiveSettings } from "../../server/delivery/buyers";
import { createDeliveryPlanner } from "../../server/delivery/plan";
import { createLeadRouting } from "../../server/delivery/routing";
import { createDeliveryWorker } from "../../server/delivery/worker";
import { signBody, verifySignature } from "../../server/delivery/signature";
import { deliveryRepository } from "../../server/db/deliveries";
import { leadRepository } from "../../server/db/leads";
import { leadStore } from "../../server/leads/store";
import { registerDisclosure } from "../../server/consent/disclosures";
import { disclosureFor } from "../../server/leads/disclosure";
import { allStores, type TestDatabase } from "../support/databases";
import { until } from "../support/processes";
import { SAMPLE_ANSWERS, sampleDrivers, sampleNewLead } from "../../tools/lead-session";
import { TEST_LEAD_PHONE } from "../../server/auction/sandbox";
import type { EventInput } from "../../server/analytics/store";
import type { PingResult } from "../../server/auction/bids";

type PingAnswer = { price: number; type: "exclusive" | "shared" } | null;
interface Stub {
  pingAnswer: PingAnswer;
  postStatus: number;
  pings: string[];
  posts: { body: string; headers: http.IncomingHttpHeaders }[];
}

const secretOf = (id: string) => `${id}-secret-0123456789abcdef0123456789`;
const stubs = new Map<string, Stub>();
let server: http.Server;
let origin = "";

beforeAll(async () => {
  server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const [, kind, id] = /^\/(ping|post)\/([a-z0-9-]+)$/.exec(request.url ?? "") ?? [];
      const stub = id ? stubs.get(id) : undefined;
      if (!stub || !kind || !id) {
        response.writeHead(404).end();
        return;
      }
      if (kind === "ping") {
        stub.pings.push(body);
        const answer = JSON.stringify({ bid: stub.pingAnswer && { ...stub.pingAnswer, bidId: `${id}-bid-${stub.pings.length}` } });
        response.writeHead(200, { "content-type": "application/json", "x-signature": signBody(secretOf(id), answer) }).end(answer);
        return;
      }
      stub.posts.push({ body, headers: request.headers });
      response.writeHead(stub.postStatus, { "content-type": "application/json" }).end(stub.postStatus === 200 ? "{}" : JSON.stringify({ reason: "not this one" }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function buyer(id: string, pingAnswer: PingAnswer, extra: Record<string, unknown> = {}, postStatus = 200) {
  stubs.set(id, { pingAnswer, postStatus, pings: [], posts: [] });
  return { id, name: `${id} Insurance`, mode: "pingpost", pingUrl: `${origin}/ping/${id}`, postUrl: `${origin}/post/${id}`, secret: secretOf(id), price: 0, saleTypes: ["exclusive", "shared"], ...extra };
}

describe.each(allStores())("the auction ($kind)", (store) => {
  let db: TestDatabase;
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });

  beforeAll(async () => {
    db = await store.open();
  });
  afterAll(async () => {
    await db?.close();
  });
  beforeEach(async () => {
    await db.query("TRUNCATE auction_pings, auctions, delivery_attempts, deliveries, buyer_counters, lead_consents, leads, suppressions RESTART IDENTITY CASCADE");
    stubs.clear();
    lines.length = 0;
  });

  /** Stores a lead as the lead service does: named buyers in its disclosure, an auction when a ping/post buyer may bid. */
  async function storeLead(file: LiveSettings, overrides: Parameters<typeof sampleNewLead>[0] = {}): Promise<string> {
    const disclosure = await registerDisclosure(db.builder, disclosureFor(file.buyers));
    const routing = createLeadRouting({ planner: createDeliveryPlanner(() => file), buyers: () => file });
    const named = file.buyers.map((one) => one.id);
    const now = new Date();
    const result = await leadStore(leadRepository(db)).create(
      sampleNewLead({ receivedAt: now, sid: "a1", ...overrides, consent: { disclosureVersion: disclosure.version, disclosureSha256: disclosure.sha256 } }),
      (lead) => {
        const auction = routing.auction(lead, true, now, named);
        return { deliveries: auction ? [] : routing.deliveries(lead, true, now, named), ...(auction ? { auction } : {}) };
      },
    );
    if (!result.created) throw new Error("not created");
    return result.reference;
  }

  const auctioneer = (file: LiveSettings, extra: Partial<Parameters<typeof createAuctioneer>[0]> = {}) => createAuctioneer({ db, buyers: () => file, logger, deadlineMs: 500, ...extra });
  // The delivery worker records each post's end on its auction (sold, or cascading); the auction
  // then claims a cascading one from its table, as the two do when they poll.
  const poster = (file: LiveSettings, auctions: ReturnType<typeof auctioneer>) => {
    const worker = createDeliveryWorker({ db, buyers: () => file, logger });
    return {
      async runOnce() {
        const sent = await worker.runOnce();
        await auctions.runOnce();
        return sent;
      },
    };
  };
  const sold = async (reference: string) =>
    (await deliveryRepository(db).list({ reference })).filter((delivery) => delivery.kind === "buyer").map((delivery) => [delivery.target, delivery.saleType, delivery.price, delivery.bidId, delivery.status]);

  it("sells to one exclusive bidder when its bid beats the shared ones together, posting with its bid id", async () => {
    const file = buyersFileSchema.parse({ buyers: [buyer("excl", { price: 30, type: "exclusive" }), buyer("share-a", { price: 12, type: "shared" }), buyer("share-b", { price: 11.5, type: "shared" })] });
    const reference = await storeLead(file);
    expect((await auctionRepository(db).find(reference))?.status).toBe("pending");
    const auctions = auctioneer(file);
    expect(await auctions.runOnce()).toBe(1);
    expect(await sold(reference)).toEqual([["excl", "exclusive", 30, "excl-bid-1", "pending"]]);
    expect(await poster(file, auctions).runOnce()).toBe(1);
    expect(await sold(reference)).toEqual([["excl", "exclusive", 30, "excl-bid-1", "accepted"]]);
    const [post] = stubs.get("excl")!.posts;
    expect(verifySignature(secretOf("excl"), String(post!.headers["x-signature"]), post!.body)).toBe("ok");
    expect(JSON.parse(post!.body)).toMatchObject({ reference, sale: true, price: 30, auction: { saleType: "exclusive", bidId: "excl-bid-1" }, lead: { firstName: "Ana" } });
    expect(stubs.get("share-a")!.posts).toEqual([]);
    expect((await auctionRepository(db).find(reference))?.status).toBe("sold");
    const pings = await auctionRepository(db).pings((await auctionRepository(db).find(reference))!.id);
    expect(pings.map((ping) => [ping.buyerId, ping.outcome, ping.price])).toEqual([
      ["excl", "bid", 30],
      ["share-a", "bid", 12],
      ["share-b", "bid", 11.5],
    ]);
    expect(lines.find((line) => line.event === "auction_decided")).toMatchObject({ reference, pinged: 3, bids: 3, saleType: "exclusive" });
  });

  it("sells shared to the best bidders, a fixed-price buyer among them, at most maxShared", async () => {
    const file = buyersFileSchema.parse({
      buyers: [
        buyer("excl", { price: 20, type: "exclusive" }),
        buyer("share-a", { price: 12, type: "shared" }),
        buyer("share-b", { price: 9, type: "shared" }),
        buyer("share-c", { price: 3, type: "shared" }),
        { id: "fixed", name: "Fixed Price Agency", url: `${origin}/post/fixed`, secret: secretOf("fixed"), price: 7 },
      ],
      auction: { maxShared: 3 },
    });
    stubs.set("fixed", { pingAnswer: null, postStatus: 200, pings: [], posts: [] });
    const reference = await storeLead(file);
    const auctions = auctioneer(file);
    await auctions.runOnce();
    // 12 + 9 + 7 = 28 beats 20; share-c (3) is fourth.
    expect(await sold(reference)).toEqual([
      ["share-a", "shared", 12, "share-a-bid-1", "pending"],
      ["share-b", "shared", 9, "share-b-bid-1", "pending"],
      ["fixed", "shared", 7, null, "pending"],
    ]);
    expect(stubs.get("fixed")!.pings).toEqual([]);
    await poster(file, auctions).runOnce();
    expect(JSON.parse(stubs.get("fixed")!.posts[0]!.body)).toMatchObject({ price: 7, auction: { saleType: "shared", bidId: null } });
  });

  it("skips a winner whose hourly cap or dollar budget is reached, choosing again without it, and prices a fixed-price buyer's standing bid by its rules", async () => {
    const file = buyersFileSchema.parse({
      buyers: [
        buyer("excl", { price: 30, type: "exclusive" }, { caps: { hour: 1 } }),
        buyer("excl-2", { price: 25, type: "exclusive" }, { budget: { day: 40 } }),
        { id: "fixed", name: "Fixed Price Agency", url: `${origin}/post/fixed`, secret: secretOf("fixed"), price: 7, priceRules: [{ label: "Homeowners", when: { homeowner: true }, add: 30 }] },
      ],
    });
    stubs.set("fixed", { pingAnswer: null, postStatus: 200, pings: [], posts: [] });
    const auctions = auctioneer(file);
    const first = await storeLead(file);
    await auctions.runOnce();
    // fixed bids 7 + 30 = 37 for a homeowner's lead (the sample household owns its home): more than any exclusive bid.
    expect(await sold(first)).toEqual([["fixed", "shared", 37, null, "pending"]]);
    const [fixedDelivery] = (await deliveryRepository(db).list({ reference: first })).filter((delivery) => delivery.target === "fixed");
    expect(fixedDelivery!.priceReason).toBe("its fixed price as a standing bid of $37.00 won the auction");
    const renter = { lead: { ...SAMPLE_ANSWERS, residence: "rent" } } as Parameters<typeof sampleNewLead>[0];
    const second = await storeLead(file, renter);
    await auctions.runOnce();
    expect(await sold(second)).toEqual([["excl", "exclusive", 30, "excl-bid-2", "pending"]]);
    // excl's hour is full: excl-2 (25 of its 40 a day) takes the next one, then its budget is spent.
    const third = await storeLead(file, renter);
    await auctions.runOnce();
    expect(await sold(third)).toEqual([["excl-2", "exclusive", 25, "excl-2-bid-3", "pending"]]);
    const fourth = await storeLead(file, renter);
    await auctions.runOnce();
    expect(await sold(fourth)).toEqual([["fixed", "shared", 7, null, "pending"]]);
  });

  it("cascades a refused post to the next best bid while the bids are valid", async () => {
    const file = buyersFileSchema.parse({ buyers: [buyer("excl", { price: 40, type: "exclusive" }, {}, 400), buyer("excl-2", { price: 25, type: "exclusive" }), buyer("share-a", { price: 10, type: "shared" })] });
    const reference = await storeLead(file);
    const auctions = auctioneer(file);
    await auctions.runOnce();
    const posting = poster(file, auctions);
    await posting.runOnce();
    expect(await sold(reference)).toEqual([
      ["excl", "exclusive", 40, "excl-bid-1", "rejected"],
      ["excl-2", "exclusive", 25, "excl-2-bid-1", "pending"],
    ]);
    await posting.runOnce();
    expect((await sold(reference)).at(-1)).toEqual(["excl-2", "exclusive", 25, "excl-2-bid-1", "accepted"]);
    expect((await auctionRepository(db).find(reference))?.status).toBe("sold");
    expect(lines.find((line) => line.event === "auction_cascaded")).toMatchObject({ reference, after: ["excl"], saleType: "exclusive" });
  });

  it("pings and sells only to the buyers whose filters take the lead, and sends an opted-out lead only to those", async () => {
    const file = buyersFileSchema.parse({
      buyers: [
        buyer("no-dui", { price: 40, type: "exclusive" }, { filters: { dui: false } }),
        buyer("share-a", { price: 12, type: "shared" }),
        { id: "fixed", name: "Fixed Price Agency", url: `${origin}/post/fixed`, secret: secretOf("fixed"), price: 7, filters: { zipPrefixes: { exclude: ["90"] } } },
        { id: "fixed-b", name: "Other Fixed Agency", url: `${origin}/post/fixed-b`, secret: secretOf("fixed-b"), price: 5, filters: { driverAge: { min: 30 } } },
      ],
    });
    const dui = { lead: { drivers: sampleDrivers({ dui: true }) } };
    const reference = await storeLead(file, dui);
    await auctioneer(file).runOnce();
    // no-dui's filter keeps it from the ping (it would have won exclusive at 40); fixed's excludes 90210.
    expect(stubs.get("no-dui")!.pings).toEqual([]);
    expect(await sold(reference)).toEqual([
      ["share-a", "shared", 12, "share-a-bid-1", "pending"],
      ["fixed-b", "shared", 5, null, "pending"],
    ]);
    const pings = await auctionRepository(db).pings((await auctionRepository(db).find(reference))!.id);
    expect(pings.map((ping) => ping.buyerId)).toEqual(["share-a", "fixed-b"]);

    const optedOut = await storeLead(file, dui);
    await auctioneer(file, { salesAllowed: (leads) => Promise.resolve(leads.map(() => false)) }).runOnce();
    expect((await deliveryRepository(db).list({ reference: optedOut })).map((delivery) => [delivery.target, delivery.sale])).toEqual([
      ["share-a", false],
      ["fixed-b", false],
    ]);

    // Without a DUI the same buyers file sells exclusive to no-dui: only its filter kept it out.
    const clean = await storeLead(file);
    await auctioneer(file).runOnce();
    expect(await sold(clean)).toEqual([["no-dui", "exclusive", 40, "no-dui-bid-1", "pending"]]);
  });

  it("ends unsold without a valid bid, and sends a lead whose contact opted out only as directed, not sold", async () => {
    const file = buyersFileSchema.parse({ buyers: [buyer("excl", null), buyer("share-a", { price: 0.5, type: "shared" })], sources: [{ sid: "a1", payout: 1, floor: 1 }] });
    const reference = await storeLead(file);
    await auctioneer(file).runOnce();
    expect(await sold(reference)).toEqual([]);
    expect(await auctionRepository(db).find(reference)).toMatchObject({ status: "unsold", reason: "no valid bid" });
    const pings = await auctionRepository(db).pings((await auctionRepository(db).find(reference))!.id);
    expect(pings.map((ping) => [ping.buyerId, ping.outcome])).toEqual([
      ["excl", "no_bid"],
      ["share-a", "below_floor"],
    ]);

    const optedOut = await storeLead(file);
    await auctioneer(file, { salesAllowed: (leads) => Promise.resolve(leads.map(() => false)) }).runOnce();
    expect((await deliveryRepository(db).list({ reference: optedOut })).map((delivery) => [delivery.target, delivery.sale, delivery.price, delivery.saleType])).toEqual([
      ["excl", false, null, null],
      ["share-a", false, null, null],
    ]);
    expect(stubs.get("excl")!.pings).toHaveLength(1);
    expect(await auctionRepository(db).find(optedOut)).toMatchObject({ status: "unsold", reason: "not for sale: the visitor opted out (GPC or the suppression list)" });
  });

  it("offers a test lead ((201) 555-0199) to sandbox buyers only, and a real lead never to them; a test sale pays no source", async () => {
    const file = buyersFileSchema.parse({
      buyers: [
        buyer("live", { price: 30, type: "exclusive" }),
        buyer("trial", { price: 5, type: "exclusive" }, { sandbox: true }),
        { id: "trial-post", name: "Trial Post Agency", url: `${origin}/post/trial-post`, secret: secretOf("trial-post"), price: 2, sandbox: true },
      ],
      sources: [{ sid: "a1", payout: 4, postbackUrl: `${origin}/postback?tid={tid}` }],
    });
    stubs.set("trial-post", { pingAnswer: null, postStatus: 200, pings: [], posts: [] });
    const test = await storeLead(file, { lead: { phone: TEST_LEAD_PHONE } });
    const real = await storeLead(file);
    const recorded: EventInput[] = [];
    const auctions = auctioneer(file, { analytics: { record: (event) => recorded.push(event) } });
    await auctions.runOnce();
    // The report counts the real lead's ping and bid, never the test lead's.
    expect(recorded.map((event) => [event.name, event.leadReference, event.target, event.detail, event.bid])).toEqual([["buyer_pinged", real, "live", "bid", 30]]);
    expect(stubs.get("trial")!.pings).toHaveLength(1);
    expect(stubs.get("live")!.pings).toHaveLength(1);
    expect(JSON.parse(stubs.get("trial")!.pings[0]!)).toMatchObject({ test: true });
    expect(JSON.parse(stubs.get("live")!.pings[0]!)).toMatchObject({ test: false });
    expect(await sold(test)).toEqual([["trial", "exclusive", 5, "trial-bid-1", "pending"]]);
    expect(await sold(real)).toEqual([["live", "exclusive", 30, "live-bid-1", "pending"]]);
    await poster(file, auctions).runOnce();
    // The real sale tells its source; the test sale does not.
    const postbacks = (reference: string) => deliveryRepository(db).list({ reference }).then((rows) => rows.filter((row) => row.kind === "postback").length);
    expect(await postbacks(real)).toBe(1);
    expect(await postbacks(test)).toBe(0);
    // Without a sandbox bidder, a test lead goes by fixed price to sandbox buyers only.
    const postOnly = buyersFileSchema.parse({ buyers: [file.buyers[2], { id: "prod-post", name: "Prod Post Agency", url: `${origin}/post/prod-post`, secret: secretOf("prod-post"), price: 9 }] });
    const fixed = await storeLead(postOnly, { lead: { phone: TEST_LEAD_PHONE } });
    expect((await deliveryRepository(db).list({ reference: fixed })).map((row) => row.target)).toEqual(["trial-post"]);
    // Ops marked a lead a test (an ops test link, server/leads/test-link.ts): the same, whatever its contact details.
    const marked = await storeLead(file, { test: true });
    await auctioneer(file).runOnce();
    expect(await sold(marked)).toEqual([["trial", "exclusive", 5, "trial-bid-2", "pending"]]);
    expect(stubs.get("live")!.pings).toHaveLength(1);
  });

  it.runIf(store.kind === "postgres")("sells once when two workers settle the same auction at the same time", async () => {
    const file = buyersFileSchema.parse({ buyers: [buyer("excl", { price: 30, type: "exclusive" }), buyer("share-a", { price: 12, type: "shared" })] });
    const reference = await storeLead(file);
    const auction = (await auctionRepository(db).find(reference))!;
    await db.query("UPDATE auctions SET status = 'pinging' WHERE id = $1", [auction.id]);
    await auctionRepository(db).recordPings(auction.id, [
      { buyerId: "excl", outcome: "bid", latencyMs: 10, httpStatus: 200, detail: null, bid: { buyerId: "excl", price: 30, type: "exclusive", bidId: "x1", priority: 0, answeredAfterMs: 10 } },
      { buyerId: "share-a", outcome: "bid", latencyMs: 12, httpStatus: 200, detail: null, bid: { buyerId: "share-a", price: 12, type: "shared", bidId: "s1", priority: 0, answeredAfterMs: 12 } },
    ], new Date());
    const settle = () => auctionRepository(db).settle(auction.id, { buyers: file, now: new Date(), saleAllowed: true });
    const outcomes = await Promise.all(Array.from({ length: 8 }, settle));
    expect(outcomes.filter((outcome) => outcome.outcome === "decided")).toHaveLength(1);
    expect(await sold(reference)).toEqual([["excl", "exclusive", 30, "x1", "pending"]]);
    // The database refuses a second live exclusive delivery for the lead whatever the code does.
    await expect(
      db.query("INSERT INTO deliveries (lead_reference, kind, target, idempotency_key, sale, sale_type) VALUES ($1, 'buyer', 'share-a', 'other-key', true, 'exclusive')", [reference]),
    ).rejects.toThrow(/deliveries_one_live_exclusive/);
  });

  /** A round's answers as a worker would hand them to settle: each a bid with this round's bid id. */
  const round = (tag: string, bids: Array<[string, number, "exclusive" | "shared"]>): PingResult[] =>
    bids.map(([buyerId, price, type], index) => ({ buyerId, outcome: "bid", latencyMs: 10 + index, httpStatus: 200, detail: null, bid: { buyerId, price, type, bidId: `${buyerId}-${tag}`, priority: 0, answeredAfterMs: 10 + index } }));
  /**
   * The statements `work` sends to PostgreSQL (each client.query of pg, BEGIN and COMMIT included).
   * The embedded store runs PGlite inside the test process without pg's client: counted as null there.
   */
  async function statementsOf<T>(work: () => Promise<T>): Promise<{ result: T; statements: number | null }> {
    const spy = vi.spyOn(pg.Client.prototype, "query");
    try {
      const result = await work();
      return { result, statements: store.kind === "postgres" ? spy.mock.calls.length : null };
    } finally {
      spy.mockRestore();
    }
  }
  const claimedAuction = async (reference: string) => {
    const auction = (await auctionRepository(db).find(reference))!;
    await db.query("UPDATE auctions SET status = 'pinging' WHERE id = $1", [auction.id]);
    return { ...auction, status: "pinging" as const };
  };

  it("writes the first settlement (the round's pings, the decision, the winners' posts) in one statement; replicas racing their own rounds sell once", async () => {
    const file = buyersFileSchema.parse({ buyers: [buyer("excl", { price: 30, type: "exclusive" }), buyer("share-a", { price: 12, type: "shared" }), buyer("share-b", { price: 11, type: "shared" })] });
    const reference = await storeLead(file);
    const claimed = await claimedAuction(reference);
    const repository = auctionRepository(db);
    const at = new Date();
    const { result, statements } = await statementsOf(() =>
      repository.settle(claimed.id, { buyers: file, now: new Date(), saleAllowed: true, claimed, pings: { at, results: round("r1", [["excl", 10, "exclusive"], ["share-a", 12, "shared"], ["share-b", 11, "shared"]]) } }),
    );
    expect(statements).toBe(store.kind === "postgres" ? 1 : null);
    expect(result).toMatchObject({ outcome: "decided", queued: 2, sale: { type: "shared" } });
    expect(await sold(reference)).toEqual([
      ["share-a", "shared", 12, "share-a-r1", "pending"],
      ["share-b", "shared", 11, "share-b-r1", "pending"],
    ]);
    const decided = (await repository.find(reference))!;
    expect(decided).toMatchObject({ status: "decided", saleType: "shared", reason: null });
    expect(decided.pingedAt?.getTime()).toBe(at.getTime());
    expect(decided.bidsExpireAt?.getTime()).toBe(at.getTime() + file.auction.bidLifetimeMs);
    expect((await repository.pings(claimed.id)).map((ping) => [ping.buyerId, ping.outcome, ping.price, ping.bidId])).toEqual([
      ["excl", "bid", 10, "excl-r1"],
      ["share-a", "bid", 12, "share-a-r1"],
      ["share-b", "bid", 11, "share-b-r1"],
    ]);
    // Another replica's round for the same auction (its lease had run out) writes nothing at all: not its pings, not its sale.
    const late = await repository.settle(claimed.id, { buyers: file, now: new Date(), saleAllowed: true, claimed, pings: { at: new Date(), results: round("r2", [["excl", 40, "exclusive"]]) } });
    expect(late.outcome).toBe("unchanged");
    expect((await repository.pings(claimed.id)).map((ping) => ping.bidId)).toEqual(["excl-r1", "share-a-r1", "share-b-r1"]);

    // Eight rounds settling one auction at once: one sale, one round's pings.
    const raced = await storeLead(file, { lead: { email: "raced@example.com", phone: "(415) 555-0142" } });
    const racing = await claimedAuction(raced);
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, index) => repository.settle(racing.id, { buyers: file, now: new Date(), saleAllowed: true, claimed: racing, pings: { at: new Date(), results: round(`w${index}`, [["excl", 30 + index, "exclusive"]]) } })),
    );
    expect(outcomes.filter((outcome) => outcome.outcome === "decided")).toHaveLength(1);
    const pings = await repository.pings(racing.id);
    expect(pings).toHaveLength(1);
    expect(await sold(raced)).toEqual([["excl", "exclusive", pings[0]!.price, pings[0]!.bidId, "pending"]]);
  });

  it("ends a first round without a sale in one statement, and leaves a winner with caps, or a lead that is gone, to the transaction", async () => {
    const file = buyersFileSchema.parse({ buyers: [buyer("capped", { price: 30, type: "exclusive" }, { caps: { hour: 5 } }), buyer("open", { price: 12, type: "shared" })] });
    const repository = auctionRepository(db);
    // No valid bid: unsold, its pings kept, one statement.
    const none = await claimedAuction(await storeLead(file));
    const unsold = await statementsOf(() =>
      repository.settle(none.id, { buyers: file, now: new Date(), saleAllowed: true, claimed: none, pings: { at: new Date(), results: [{ buyerId: "open", outcome: "no_bid", latencyMs: 5, httpStatus: 200, detail: null, bid: null }] } }),
    );
    expect(unsold).toEqual({ statements: store.kind === "postgres" ? 1 : null, result: { outcome: "unsold", reason: "no valid bid" } });
    expect((await repository.pings(none.id)).map((ping) => ping.outcome)).toEqual(["no_bid"]);
    expect((await repository.find(none.leadReference))?.status).toBe("unsold");
    // The capped winner's slot is reserved under a savepoint in the transaction: more than one statement, and its counter counts it.
    const capped = await claimedAuction(await storeLead(file, { lead: { email: "capped@example.com", phone: "(415) 555-0143" } }));
    const reserved = await statementsOf(() =>
      repository.settle(capped.id, { buyers: file, now: new Date(), saleAllowed: true, claimed: capped, pings: { at: new Date(), results: round("c", [["capped", 30, "exclusive"], ["open", 12, "shared"]]) } }),
    );
    if (store.kind === "postgres") expect(reserved.statements).toBeGreaterThan(1);
    expect(reserved.result).toMatchObject({ outcome: "decided", sale: { type: "exclusive" } });
    expect(Number((await db.query<{ n: string }>("SELECT count(*) AS n FROM deliveries WHERE target = 'capped' AND cap_keys IS NOT NULL")).rows[0]?.n)).toBe(1);
    // The lead was erased after the claim: the one statement writes nothing, the transaction ends it unsold.
    const gone = await claimedAuction(await storeLead(file, { lead: { email: "gone@example.com", phone: "(415) 555-0144" } }));
    await db.query("UPDATE auctions SET lead_id = NULL WHERE id = $1", [gone.id]);
    const settled = await repository.settle(gone.id, { buyers: file, now: new Date(), saleAllowed: true, claimed: gone, pings: { at: new Date(), results: round("g", [["open", 12, "shared"]]) } });
    expect(settled).toEqual({ outcome: "unsold", reason: "the lead is gone" });
    expect(await sold(gone.leadReference)).toEqual([]);
  });

  it.runIf(store.kind === "postgres")("claims again for new work, not at every auction's or post's end, while there is room", async () => {
    const file = buyersFileSchema.parse({ buyers: [buyer("excl", { price: 30, type: "exclusive" })] });
    const counted = vi.spyOn(pg.Client.prototype, "query");
    const auctions = auctioneer(file, { pollMs: 60_000 });
    const worker = createDeliveryWorker({ db, buyers: () => file, logger, pollMs: 60_000, batchWindowMs: 1 });
    const claimsOf = (prefix: string) => counted.mock.calls.filter(([text]) => typeof text === "string" && text.trimStart().startsWith(prefix)).length;
    try {
      const reference = await storeLead(file);
      auctions.start();
      expect(await until(async () => (await auctionRepository(db).find(reference))?.status === "decided", 5_000)).toBe(true);
      worker.start();
      expect(await until(async () => (await auctionRepository(db).find(reference))?.status === "sold", 5_000)).toBe(true);
      // Both have long ended their work: more time would show a claim made at an end.
      await new Promise((resolve) => setTimeout(resolve, 300));
      // The auction: its start-up claim only. The delivery worker: its claim and the one after its batch window.
      expect(claimsOf("UPDATE auctions SET status = CASE")).toBe(1);
      expect(claimsOf('update "deliveries" set "status"')).toBe(2);
    } finally {
      counted.mockRestore();
      await auctions.stop();
      await worker.stop();
    }
  });

  it("sends a sale's postback to its source at once, not at the worker's next poll", async () => {
    const file = buyersFileSchema.parse({ buyers: [buyer("excl", { price: 30, type: "exclusive" })], sources: [{ sid: "a1", payout: 4, postbackUrl: `${origin}/postback?tid={tid}` }] });
    const worker = createDeliveryWorker({ db, buyers: () => file, logger, pollMs: 60_000, batchWindowMs: 1 });
    const auctions = auctioneer(file, { pollMs: 60_000, onQueued: () => worker.nudge() });
    try {
      worker.start();
      const reference = await storeLead(file);
      auctions.start();
      const postbackTried = async () => (await deliveryRepository(db).list({ reference })).some((delivery) => delivery.kind === "postback" && delivery.attempts > 0);
      expect(await until(postbackTried, 5_000)).toBe(true);
    } finally {
      await auctions.stop();
      await worker.stop();
    }
  });

  it.runIf(store.kind === "postgres")("writes a post's end again when PostgreSQL ends its statement to break a deadlock, so the sale is recorded, not sent again later", async () => {
    const file = buyersFileSchema.parse({ buyers: [buyer("excl", { price: 30, type: "exclusive" })] });
    const reference = await storeLead(file);
    await auctioneer(file).runOnce();
    const auction = (await auctionRepository(db).find(reference))!;
    const [delivery] = (await deliveryRepository(db).list({ reference })).filter((row) => row.kind === "buyer");
    // Another session (another replica's statement) holds the auction's row...
    const other = new pg.Client({ connectionString: db.location.DATABASE_URL });
    await other.connect();
    try {
      await other.query("BEGIN");
      await other.query("SELECT id FROM auctions WHERE id = $1 FOR NO KEY UPDATE", [auction.id]);
      // ...so the worker's record of the accepted post, having updated the delivery, waits for it.
      const sending = createDeliveryWorker({ db, buyers: () => file, logger }).runOnce();
      const waiting = async () => (await other.query("SELECT 1 FROM pg_stat_activity WHERE pg_blocking_pids(pid) @> ARRAY[pg_backend_pid()]")).rowCount === 1;
      expect(await until(waiting, 5_000)).toBe(true);
      // Then it wants the delivery the worker holds: a deadlock, which the worker's statement (waiting first) is ended to break.
      await other.query("UPDATE deliveries SET last_error = last_error WHERE id = $1", [delivery!.id]);
      await other.query("COMMIT");
      await sending;
    } finally {
      await other.end();
    }
    expect(lines.filter((line) => line.event === "delivery_worker_error")).toEqual([]);
    expect(await sold(reference)).toEqual([["excl", "exclusive", 30, "excl-bid-1", "accepted"]]);
    expect((await auctionRepository(db).find(reference))?.status).toBe("sold");
  });

  it.skipIf(store.kind !== "postgres")("polls for auctions while a buyer bids, and only on a wake-up (or every 30 s) while none does", async () => {
    const bidding = buyersFileSchema.parse({ buyers: [buyer("excl", { price: 30, type: "exclusive" })] });
    const postOnly = buyersFileSchema.parse({ buyers: [{ id: "poster", name: "Poster Insurance", url: "http://127.0.0.1:9/post", secret: secretOf("poster"), price: 5 }] });
    const paused = buyersFileSchema.parse({ buyers: [buyer("excl", { price: 30, type: "exclusive" }, { status: "paused" })] });
    const claimsIn = async (file: LiveSettings) => {
      const auctions = auctioneer(file, { pollMs: 10 });
      const { statements } = await statementsOf(async () => {
        auctions.start();
        await sleep(300);
        await auctions.stop();
      });
      return statements ?? 0;
    };
    // A claim is one statement: about 30 in 300 ms at a 10 ms poll.
    expect(await claimsIn(bidding)).toBeGreaterThan(10);
    // The first look at start only (a server with post buyers alone logged 125 claim errors in an outage).
    expect(await claimsIn(postOnly)).toBeLessThanOrEqual(1);
    expect(await claimsIn(paused)).toBeLessThanOrEqual(1);
  });
});
