/**
 * The ping round on the wire (issue 16, server/auction/pinger.ts): real HTTP buyers on loopback,
 * a lead stored and read back as the auction reads it. Each ping is signed with the buyer's secret
 * and carries no personal detail (asserted on the bytes each buyer received); a signed bid is
 * read; a late, unsigned, malformed, silent or refusing buyer counts as no bid, saying why.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pingRound, PING_USER_AGENT } from "../../server/auction/pinger";
import { pingPayload } from "../../server/auction/ping";
import { selectWinners } from "../../server/auction/select";
import { buyerSchema, type Buyer } from "../../server/delivery/buyers";
import { signBody, verifySignature } from "../../server/delivery/signature";
import { leadRepository, type LeadRecord } from "../../server/db/leads";
import { leadStore } from "../../server/leads/store";
import { registerDisclosure } from "../../server/consent/disclosures";
import { disclosureFor } from "../../server/leads/disclosure";
import { embeddedStore, type TestDatabase } from "../support/databases";
import { sampleNewLead } from "../../tools/lead-session";

type Behaviour = { kind: "bid"; price: number; type: "exclusive" | "shared"; delayMs?: number } | { kind: "none" } | { kind: "unsigned" } | { kind: "malformed" } | { kind: "silent" } | { kind: "error" };

interface StubBuyer {
  buyer: Buyer;
  received: { body: string; headers: http.IncomingHttpHeaders }[];
}

const servers: http.Server[] = [];
let db: TestDatabase;
let lead: LeadRecord;

/** A buyer on 127.0.0.1 that answers pings as `behaviour` says. */
async function stubBuyer(id: string, behaviour: Behaviour, extra: Record<string, unknown> = {}): Promise<StubBuyer> {
  const secret = `${id}-secret-0123456789abcdef0123456789`;
  const received: StubBuyer["received"] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ body: Buffer.concat(chunks).toString("utf8"), headers: request.headers });
      const reply = (status: number, body: string, signed: boolean) => {
        response.writeHead(status, { "content-type": "application/json", ...(signed ? { "x-signature": signBody(secret, body) } : {}) });
        response.end(body);
      };
      switch (behaviour.kind) {
        case "bid": {
          const body = JSON.stringify({ bid: { price: behaviour.price, type: behaviour.type, bidId: `${id}-1` } });
          setTimeout(() => reply(200, body, true), behaviour.delayMs ?? 0);
          return;
        }
        case "none":
          return reply(200, JSON.stringify({ bid: null }), false);
        case "unsigned":
          return reply(200, JSON.stringify({ bid: { price: 50, type: "shared", bidId: `${id}-1` } }), false);
        case "malformed":
          return reply(200, "{ bid: 12 }", true);
        case "error":
          return reply(503, "busy", false);
        case "silent":
          return; // never answers
      }
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const buyer = buyerSchema.parse({
    id,
    name: `${id} Insurance`,
    mode: "pingpost",
    pingUrl: `http://127.0.0.1:${port}/ping`,
    postUrl: `http://127.0.0.1:${port}/post`,
    secret,
    price: 0,
    saleTypes: ["exclusive", "shared"],
    pingTimeoutMs: 1_000,
    ...extra,
  });
  return { buyer, received };
}

beforeAll(async () => {
  db = await embeddedStore().open();
  await registerDisclosure(db.builder, disclosureFor(undefined));
  const created = await leadStore(leadRepository(db)).create(sampleNewLead({ tid: "click-7f3k9q2z" }));
  if (!created.created) throw new Error("expected a new lead");
  lead = (await leadRepository(db).findByReference(created.reference))!;
});

afterAll(async () => {
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  await db?.close();
});

describe("a ping round against buyers on loopback", () => {
  let stubs: Record<string, StubBuyer>;
  let results: Awaited<ReturnType<typeof pingRound>>;

  beforeAll(async () => {
    stubs = {
      exclusive: await stubBuyer("exclusive", { kind: "bid", price: 30, type: "exclusive" }),
      sharedA: await stubBuyer("shared-a", { kind: "bid", price: 12, type: "shared" }),
      sharedB: await stubBuyer("shared-b", { kind: "bid", price: 11.5, type: "shared" }),
      slow: await stubBuyer("slow", { kind: "bid", price: 99, type: "exclusive", delayMs: 900 }),
      none: await stubBuyer("none", { kind: "none" }),
      unsigned: await stubBuyer("unsigned", { kind: "unsigned" }),
      malformed: await stubBuyer("malformed", { kind: "malformed" }),
      silent: await stubBuyer("silent", { kind: "silent" }),
      error: await stubBuyer("error", { kind: "error" }),
    };
    const payload = pingPayload(lead, "ping-1", { test: false, now: new Date() });
    results = await pingRound(Object.values(stubs).map((stub) => stub.buyer), payload, { deadlineMs: 400, floor: 1 });
  });

  it("reads each answer: bids, and no bid with the reason", () => {
    expect(Object.fromEntries(results.map((result) => [result.buyerId, result.outcome]))).toEqual({
      exclusive: "bid",
      "shared-a": "bid",
      "shared-b": "bid",
      slow: "timeout",
      none: "no_bid",
      unsigned: "unsigned",
      malformed: "malformed",
      silent: "timeout",
      error: "http_error",
    });
    const bids = results.flatMap((result) => (result.bid ? [result.bid] : []));
    expect(bids.map((bid) => [bid.buyerId, bid.price, bid.type, bid.bidId])).toEqual([
      ["exclusive", 30, "exclusive", "exclusive-1"],
      ["shared-a", 12, "shared", "shared-a-1"],
      ["shared-b", 11.5, "shared", "shared-b-1"],
    ]);
    // 30 beats 12 + 11.5: the exclusive bid wins alone.
    expect(selectWinners(bids, { maxShared: 4 })).toMatchObject({ type: "exclusive", winners: [{ buyerId: "exclusive", bidId: "exclusive-1" }] });
  });

  it("signs every ping with the buyer's own secret, as deliveries are signed", () => {
    for (const stub of Object.values(stubs)) {
      expect(stub.received, stub.buyer.id).toHaveLength(1);
      const [{ body, headers }] = stub.received as [StubBuyer["received"][number]];
      expect(headers["user-agent"]).toBe(PING_USER_AGENT);
      expect(headers["idempotency-key"]).toBe(`ping-1:${stub.buyer.id}`);
      expect(verifySignature(stub.buyer.secret, headers["x-signature"] as string, body)).toBe("ok");
      expect(verifySignature(stubs.exclusive!.buyer.secret === stub.buyer.secret ? "another-secret-0123456789abcdef0123" : stubs.exclusive!.buyer.secret, headers["x-signature"] as string, body)).toBe("mismatch");
    }
  });

  it("puts no personal detail on the wire: no name, phone, email, street, date of birth, VIN or click id", () => {
    const drivers = lead.drivers ?? [];
    const digits = lead.phone.replace(/\D/g, "");
    const forbidden = [
      ...drivers.flatMap((driver) => [driver.firstName, driver.lastName, driver.dateOfBirth]),
      lead.email,
      lead.email.split("@")[0]!,
      lead.phone,
      digits.slice(-10),
      `(${digits.slice(-10, -7)}) ${digits.slice(-7, -4)}-${digits.slice(-4)}`,
      lead.streetAddress,
      "Main St",
      ...(lead.vehicles ?? []).flatMap((vehicle) => (vehicle.vin ? [vehicle.vin] : [])),
      "click-7f3k9q2z",
      lead.reference,
      lead.consent!.ip,
    ];
    expect(forbidden.filter(Boolean).length).toBeGreaterThan(10);
    for (const stub of Object.values(stubs)) {
      const { body } = stub.received[0]!;
      for (const value of forbidden) expect(body, `${stub.buyer.id} received ${value}`).not.toContain(value);
      const ping = JSON.parse(body) as Record<string, unknown>;
      expect(Object.keys(ping).sort()).toEqual(["consent", "coverage", "currentInsurer", "currentlyInsured", "city", "drivers", "insuredFor", "pingId", "residence", "source", "state", "test", "vehicles", "zip"].sort());
      expect(ping).toMatchObject({ zip: "90210", city: "Beverly Hills", state: "CA", source: { sid: "a1" }, test: false });
      expect((ping.drivers as Array<Record<string, unknown>>).map((driver) => typeof driver.age)).toEqual(["number", "number"]);
      expect((ping.consent as Record<string, unknown>).disclosureSha256).toBe(lead.consent!.disclosureSha256);
    }
  });
});

describe("a ping round with buyers held by their checks (issue 44)", () => {
  it("pings a buyer without requirements at once, one whose checks passed once they answer, within the same deadline, and none that failed them", async () => {
    const open = await stubBuyer("open", { kind: "bid", price: 10, type: "shared" });
    const checked = await stubBuyer("checked", { kind: "bid", price: 12, type: "shared", delayMs: 150 }, { pingTimeoutMs: 1_000 });
    const refused = await stubBuyer("refused", { kind: "bid", price: 50, type: "exclusive" });
    const payload = pingPayload(lead, "ping-held", { test: false, now: new Date() });
    let clockMs = 0;
    const asked: string[] = [];
    const results = await pingRound([open.buyer, checked.buyer, refused.buyer], payload, {
      deadlineMs: 400,
      floor: 1,
      // The round's clock: 300 ms pass while the checks run, so "checked" has 100 ms left, less than its 150 ms answer.
      clock: () => clockMs,
      hold: (buyer) => {
        asked.push(buyer.id);
        if (buyer.id === "open") return undefined;
        return new Promise((resolve) =>
          setTimeout(() => {
            clockMs = 300;
            resolve(buyer.id === "refused" ? "requires an authentic LeadiD; the check failed (not_authentic)" : undefined);
          }, 20),
        );
      },
    });
    expect(asked.sort()).toEqual(["checked", "open", "refused"]);
    expect(Object.fromEntries(results.map((result) => [result.buyerId, [result.outcome, result.detail]]))).toEqual({
      open: ["bid", null],
      // Its checks took 300 ms of the 400 ms round: the rest was too little for its 150 ms answer.
      checked: ["timeout", "no answer within 100 ms"],
      refused: ["not_sent", "requires an authentic LeadiD; the check failed (not_authentic)"],
    });
    expect(refused.received).toHaveLength(0);
    expect(open.received).toHaveLength(1);
    expect(checked.received).toHaveLength(1);
  });
});
