/**
 * Ping/post in a buyer's own terms (issue 43, item 4): Cobalt is pinged with only what its ping
 * spec maps from a lead without contact details, its bid (amount, bid id) is read by its answer
 * rules, and the post to it carries that bid id where its post spec says. A ping the lead cannot
 * fill is not sent; an answer no rule reads is no bid.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createAuctioneer } from "../../server/auction/auctions";
import { buyersFileSchema, type LiveSettings } from "../../server/delivery/buyers";
import { createDeliveryPlanner } from "../../server/delivery/plan";
import { createLeadRouting } from "../../server/delivery/routing";
import { createDeliveryWorker } from "../../server/delivery/worker";
import { deliveryRepository } from "../../server/db/deliveries";
import { leadRepository } from "../../server/db/leads";
import { leadStore } from "../../server/leads/store";
import { registerDisclosure } from "../../server/consent/disclosures";
import { disclosureFor } from "../../server/leads/disclosure";
import { allStores, type TestDatabase } from "../support/databases";
import { sampleNewLead } from "../../tools/lead-session";
import { COBALT_PING, COBALT_POST, EXAMPLE_CREDENTIALS } from "../../tools/buyer-spec-examples";

describe.each(allStores())("ping/post by a buyer's own specs ($kind)", (store) => {
  let db: TestDatabase;
  let server: http.Server;
  let origin = "";
  const pings: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];
  const posts: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];
  let pingAnswer = "";
  const logger = pino({ level: "silent" });

  const settings = (ping: object = COBALT_PING): LiveSettings =>
    buyersFileSchema.parse({
      buyers: [{ id: "cobalt", name: "Cobalt Exchange", mode: "pingpost", saleTypes: ["exclusive"], url: `${origin}/cobalt/post`, pingUrl: `${origin}/cobalt/ping`, secret: "c".repeat(32), price: 0, spec: { ping, post: COBALT_POST }, credentials: EXAMPLE_CREDENTIALS.cobalt }],
    });

  async function storeLead(file: LiveSettings): Promise<string> {
    const disclosure = await registerDisclosure(db.builder, disclosureFor(file.buyers));
    const routing = createLeadRouting({ planner: createDeliveryPlanner(() => file), buyers: () => file });
    const named = file.buyers.map((one) => one.id);
    const now = new Date();
    const result = await leadStore(leadRepository(db)).create(sampleNewLead({ receivedAt: now, consent: { disclosureVersion: disclosure.version, disclosureSha256: disclosure.sha256 } }), (lead) => {
      const auction = routing.auction(lead, true, now, named);
      return { deliveries: auction ? [] : routing.deliveries(lead, true, now, named), ...(auction ? { auction } : {}) };
    });
    if (!result.created) throw new Error("not created");
    return result.reference;
  }

  beforeAll(async () => {
    db = await store.open();
    server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const entry = { headers: request.headers, body: Buffer.concat(chunks).toString("utf8") };
        if (request.url === "/cobalt/ping") {
          pings.push(entry);
          response.writeHead(200, { "content-type": "application/json" }).end(pingAnswer);
        } else {
          posts.push(entry);
          response.writeHead(200, { "content-type": "application/json" }).end('{"status":"sold"}');
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await db?.close();
  });
  beforeEach(async () => {
    await db.query("TRUNCATE auction_pings, auctions, delivery_attempts, deliveries, buyer_counters, lead_consents, leads, suppressions RESTART IDENTITY CASCADE");
    pings.length = 0;
    posts.length = 0;
  });

  it("pings without contact details, reads the bid by its rules and posts with the bid id", async () => {
    const file = settings();
    const reference = await storeLead(file);
    pingAnswer = JSON.stringify({ status: "bid", bid_id: "CP-9", amount: 9.75 });
    const auctions = createAuctioneer({ db, buyers: () => file, logger, deadlineMs: 1_000 });
    expect(await auctions.runOnce()).toBe(1);
    expect(pings).toHaveLength(1);
    expect(pings[0]!.headers["x-api-key"]).toBe("cobalt-test-key-789");
    const ping = JSON.parse(pings[0]!.body) as Record<string, unknown>;
    expect(Object.keys(ping).sort()).toEqual(["driver_count", "homeowner", "insured", "sr22", "state", "vehicle_count", "youngest_driver_age", "zip"]);
    const lead = sampleNewLead().lead;
    expect(pings[0]!.body).not.toContain(lead.drivers[0]!.lastName);

    const worker = createDeliveryWorker({ db, buyers: () => file, logger });
    expect(await worker.runOnce()).toBe(1);
    expect(posts).toHaveLength(1);
    const post = JSON.parse(posts[0]!.body) as Record<string, unknown>;
    expect(post.bid_id).toBe("CP-9");
    expect(post.phone).toMatch(/^\d{10}$/);
    const [delivery] = await deliveryRepository(db).list({ reference });
    expect(delivery).toMatchObject({ target: "cobalt", status: "accepted", price: 9.75, bidId: "CP-9", saleType: "exclusive" });
    // The ping is kept as sent (masked: no credential) with an excerpt of the answer, for the lead's page.
    const [kept] = (await db.query<{ request_sent: { url: string; headers: Record<string, string>; body: string }; answer_excerpt: string }>("SELECT request_sent, answer_excerpt FROM auction_pings")).rows;
    expect(kept!.request_sent.url).toBe(`${origin}/cobalt/ping`);
    expect(JSON.stringify(kept!.request_sent)).not.toContain("cobalt-test-key-789");
    expect(kept!.request_sent.body).toContain('"vehicle_count"');
    expect(kept!.answer_excerpt).toContain("CP-9");
  });

  it("counts an answer no rule reads as no bid (malformed), and a no_bid as no bid: the lead goes unsold", async () => {
    for (const [answer, outcome] of [['{"status":"maybe"}', "malformed"], ['{"status":"no_bid"}', "no_bid"]] as const) {
      await db.query("TRUNCATE auction_pings, auctions, delivery_attempts, deliveries, lead_consents, leads RESTART IDENTITY CASCADE");
      const file = settings();
      await storeLead(file);
      pingAnswer = answer;
      await createAuctioneer({ db, buyers: () => file, logger, deadlineMs: 1_000 }).runOnce();
      const { rows } = await db.query<{ outcome: string; status: string }>("SELECT p.outcome, a.status FROM auction_pings p JOIN auctions a ON a.id = p.auction_id");
      expect(rows).toEqual([{ outcome, status: "unsold" }]);
    }
  });

  it("does not send a ping the lead cannot fill: not_sent, with the value it lacks", async () => {
    const file = settings({ ...COBALT_PING, fields: [...COBALT_PING.fields, { to: "third_vehicle_year", from: "vehicle.3.year" }] });
    await storeLead(file);
    await createAuctioneer({ db, buyers: () => file, logger, deadlineMs: 1_000 }).runOnce();
    expect(pings).toHaveLength(0);
    const { rows } = await db.query<{ outcome: string; detail: string }>("SELECT outcome, detail FROM auction_pings");
    expect(rows).toEqual([{ outcome: "not_sent", detail: "the lead has no vehicle.3.year for its third_vehicle_year" }]);
  });
});
