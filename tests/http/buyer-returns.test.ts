/**
 * POST /api/buyer-returns against the real app, on both stores: a buyer's server reports that it
 * returns a lead it accepted, signing the raw body with its BUYERS_FILE secret. It is a
 * server-to-server call, so none of the browser checks apply (no same-origin, no CSRF); instead
 * every unsigned, badly signed or expired report is refused alike, and only the signing buyer's
 * own accepted delivery can be returned. The answers are the API's one envelope.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { createTestApp, type TestApp } from "../support/app";
import { allStores } from "../support/databases";
import { loadBuyersFile } from "../../server/delivery/buyers";
import { signBody } from "../../server/delivery/signature";
import { deliveryRepository } from "../../server/db/deliveries";
import { leadRepository } from "../../server/db/leads";
import { leadStore } from "../../server/leads/store";
import type { Database } from "../../server/db/database";
import type { DeliveryStatus } from "../../server/db/schema";
import { BUYER_RETURNS_RATE_LIMIT } from "../../server/api/buyer-returns";
import { projectRoot } from "../../tools/production-server";
import { sampleNewLead } from "../../tools/lead-session";

type Response = Awaited<ReturnType<ReturnType<typeof request>["get"]>>;

const BUYERS_FILE = path.join(projectRoot, "deploy", "buyers.example.json");
const SECRET = Object.fromEntries(loadBuyersFile(BUYERS_FILE).buyers.map((buyer) => [buyer.id, buyer.secret])) as Record<"summit" | "harbor", string>;

const MESSAGES = {
  signature: "The request's signature could not be verified.",
  badReport: 'Send a JSON object with "reference" (like LD-7K3M-Q9XD) and "reason" (1 to 500 characters).',
  malformed: "The request body is not valid JSON.",
  type: "Send the request as application/json.",
  tooLarge: "That request was too large.",
  notFound: "No such API endpoint.",
  rateLimited: "Too many requests from your connection. Please wait a few minutes and try again.",
};

/** The one error envelope, JSON, never cached; `extra` for a 404/409's reference. */
function expectEnvelope(response: Response, status: number, error: string, extra: Record<string, unknown> = {}): void {
  expect(response.status).toBe(status);
  expect(response.headers["content-type"]).toMatch(/^application\/json/);
  expect(response.headers["cache-control"]).toBe("no-store");
  expect(response.body).toEqual({ status: "error", error, ...extra });
}

interface Report {
  buyer?: string;
  secret?: string;
  /** When the signature says it was made. */
  at?: Date;
  headers?: Record<string, string>;
  /** Sign this instead of the body sent (a body changed on the way). */
  signed?: string;
}

/** A buyer's signed report, as docs/lead-delivery.md shows it. */
function report(t: TestApp, body: unknown, { buyer = "summit", secret, at = new Date(), headers = {}, signed }: Report = {}) {
  const raw = typeof body === "string" ? body : JSON.stringify(body);
  const key = secret ?? SECRET[buyer as keyof typeof SECRET] ?? "x".repeat(32);
  return request(t.app)
    .post("/api/buyer-returns")
    .set({ "Content-Type": "application/json", "X-Buyer-Id": buyer, "X-Signature": signBody(key, signed ?? raw, at), ...headers })
    .send(raw);
}

/**
 * Stores a lead (from the example's source fb01, with a click id) whose deliveries to these buyers
 * ended as given, as the worker leaves them; returns its reference.
 */
async function leadDeliveredTo(db: Database, outcomes: Partial<Record<string, DeliveryStatus>>, overrides: { tid?: string } = {}): Promise<string> {
  const result = await leadStore(leadRepository(db)).create(sampleNewLead({ sid: "fb01", tid: overrides.tid ?? "click-1" }), (lead) => ({
    deliveries: Object.keys(outcomes).map((buyerId) => ({ kind: "buyer" as const, target: buyerId, idempotencyKey: `${lead.reference}:${buyerId}`, sale: true, price: 18.5, url: null, capDay: null })),
  }));
  if (!result.created) throw new Error("expected a new lead");
  for (const [buyerId, status] of Object.entries(outcomes)) {
    await db.query("UPDATE deliveries SET status = $1, attempts = 1, completed_at = now() WHERE idempotency_key = $2", [status, `${result.reference}:${buyerId}`]);
  }
  return result.reference;
}

const deliveriesOf = async (t: TestApp, reference: string) => deliveryRepository(await t.services.db()).list({ reference });

describe.each(allStores())("POST /api/buyer-returns ($kind)", (store) => {
  let t: TestApp;
  let db: Database;

  beforeAll(async () => {
    t = await createTestApp({}, { store, buyersFile: BUYERS_FILE });
    db = await t.services.db();
  });
  afterAll(async () => {
    await t.services.close();
  });

  it("returns the signing buyer's accepted lead: 200, the delivery returned with its reason, a lead_returned event", async () => {
    const reference = await leadDeliveredTo(db, { summit: "accepted" });
    const response = await report(t, { reference, reason: "Disconnected number" });
    expect(response.status).toBe(200);
    expect(response.headers["cache-control"]).toBe("no-store");
    expect(response.body).toEqual({ status: "returned", reference });

    const [delivery] = (await deliveriesOf(t, reference)).filter((row) => row.kind === "buyer");
    expect(delivery).toMatchObject({ target: "summit", status: "returned", reason: "Disconnected number" });
    expect(delivery!.returnedAt).toBeInstanceOf(Date);
    expect(t.events("lead_returned").at(-1)).toMatchObject({ level: "info", reference, buyerId: "summit", via: "api", price: 18.5, requestId: expect.any(String) });
  });

  it("tells the traffic source by a status=returned postback once no buyer keeps the lead", async () => {
    const reference = await leadDeliveredTo(db, { summit: "accepted", harbor: "accepted" }, { tid: "click-77" });
    expect((await report(t, { reference, reason: "Duplicate in our CRM" })).status).toBe(200);
    // Harbor still keeps it: the source's conversion stands.
    expect((await deliveriesOf(t, reference)).filter((row) => row.kind === "postback")).toEqual([]);

    expect((await report(t, { reference, reason: "Wrong number" }, { buyer: "harbor" })).status).toBe(200);
    const postbacks = (await deliveriesOf(t, reference)).filter((row) => row.kind === "postback");
    expect(postbacks).toHaveLength(1);
    expect(postbacks[0]).toMatchObject({
      target: "fb01",
      status: "pending",
      idempotencyKey: `${reference}:postback:returned`,
      url: "http://127.0.0.1:4100/postback?tid=click-77&payout=6.00&status=returned",
    });
  });

  it("answers 409 with the reference when the lead was already returned (a repeated report changes nothing)", async () => {
    const reference = await leadDeliveredTo(db, { summit: "accepted" });
    expect((await report(t, { reference, reason: "Disconnected number" })).status).toBe(200);
    expectEnvelope(await report(t, { reference, reason: "Disconnected number, again" }), 409, `Lead ${reference} was already returned.`, { reference });
    const [delivery] = await deliveriesOf(t, reference);
    expect(delivery).toMatchObject({ status: "returned", reason: "Disconnected number" });
  });

  it("answers 404 when the signing buyer has no accepted delivery of that lead: another buyer's, rejected, failed, unknown", async () => {
    const harborOnly = await leadDeliveredTo(db, { harbor: "accepted" });
    expectEnvelope(await report(t, { reference: harborOnly, reason: "Not ours" }), 404, `You have no accepted delivery of lead ${harborOnly}.`, { reference: harborOnly });
    const refused = await leadDeliveredTo(db, { summit: "rejected" });
    expectEnvelope(await report(t, { reference: refused, reason: "x" }), 404, `You have no accepted delivery of lead ${refused}.`, { reference: refused });
    const deadLettered = await leadDeliveredTo(db, { summit: "failed" });
    expectEnvelope(await report(t, { reference: deadLettered, reason: "x" }), 404, `You have no accepted delivery of lead ${deadLettered}.`, { reference: deadLettered });
    expectEnvelope(await report(t, { reference: "LD-0000-0000", reason: "x" }), 404, "You have no accepted delivery of lead LD-0000-0000.", { reference: "LD-0000-0000" });
    // Harbor's delivery was not touched by Summit's report.
    expect((await deliveriesOf(t, harborOnly))[0]).toMatchObject({ target: "harbor", status: "accepted", reason: null });
  });

  it("accepts a reference in lower case and a reason with spaces around it", async () => {
    const reference = await leadDeliveredTo(db, { summit: "accepted" });
    const response = await report(t, { reference: reference.toLowerCase(), reason: "  Fake name  " });
    expect(response.body).toEqual({ status: "returned", reference });
    expect((await deliveriesOf(t, reference))[0]).toMatchObject({ status: "returned", reason: "Fake name" });
  });
});

describe("POST /api/buyer-returns: who may report", () => {
  let t: TestApp;
  let reference: string;

  beforeAll(async () => {
    t = await createTestApp({}, { buyersFile: BUYERS_FILE });
    reference = await leadDeliveredTo(await t.services.db(), { summit: "accepted", harbor: "accepted" });
  });
  afterAll(async () => {
    await t.services.close();
  });

  const body = () => ({ reference, reason: "Disconnected number" });

  it.each([
    ["no X-Signature", (): Report => ({ headers: { "X-Signature": "" } }), "missing"],
    ["a signature by another buyer's secret", (): Report => ({ secret: SECRET.harbor }), "mismatch"],
    ["a signature made 6 minutes ago (a replay)", (): Report => ({ at: new Date(Date.now() - 6 * 60_000) }), "expired"],
    ["a signature made 6 minutes ahead", (): Report => ({ at: new Date(Date.now() + 6 * 60_000) }), "expired"],
    ["a signature of another body (changed on the way)", (): Report => ({ signed: JSON.stringify({ reference, reason: "something else" }) }), "mismatch"],
    ["a malformed signature header", (): Report => ({ headers: { "X-Signature": "sha256=deadbeef" } }), "malformed"],
    ["an unknown buyer", (): Report => ({ buyer: "acme" }), "unknown_caller"],
    ["no X-Buyer-Id", (): Report => ({ headers: { "X-Buyer-Id": "" } }), "unknown_caller"],
  ])("refuses %s with 401 and the same message, returning nothing", async (_name, options, verdict) => {
    const response = await report(t, body(), options());
    expectEnvelope(response, 401, MESSAGES.signature);
    expect(response.headers["www-authenticate"]).toBe('X-Signature realm="api"');
    expect(t.events("signature_refused").at(-1)).toMatchObject({ level: "warn", path: "/api/buyer-returns", verdict });
    expect((await deliveriesOf(t, reference)).map((row) => row.status)).toEqual(["accepted", "accepted"]);
  });

  it("refuses a signature over the parsed-and-reserialised body: the raw bytes are what is signed", async () => {
    const raw = `{ "reference": "${reference}",  "reason": "Disconnected number" }`;
    const response = await report(t, raw, { signed: JSON.stringify(JSON.parse(raw)) });
    expectEnvelope(response, 401, MESSAGES.signature);
  });

  it("needs no CSRF token, cookie or same-origin headers: a buyer's server calls from its own origin", async () => {
    const response = await report(t, body(), { buyer: "harbor", headers: { Origin: "https://harbor.example", "Sec-Fetch-Site": "cross-site" } });
    expect(response.status).toBe(200);
    expect(response.headers["set-cookie"]).toBeUndefined();
  });

  it("is the same endpoint for every buyer: each returns only its own delivery", async () => {
    expect((await report(t, body())).status).toBe(200);
    expect((await deliveriesOf(t, reference)).map((row) => [row.kind, row.target, row.status])).toEqual([
      ["buyer", "summit", "returned"],
      ["buyer", "harbor", "returned"],
      // Neither keeps it now: the source hears of it.
      ["postback", "fb01", "pending"],
    ]);
  });

  it("never logs a buyer's secret, a signature, or the reason's text (a buyer's free text may name the person)", () => {
    const raw = t.rawLogs();
    expect(t.events("lead_returned").length).toBeGreaterThan(0);
    expect(raw).not.toContain("Disconnected number");
    expect(raw).not.toContain(SECRET.summit);
    expect(raw).not.toContain(SECRET.harbor);
    expect(raw).not.toMatch(/v1=[0-9a-f]{64}/);
  });
});

describe("POST /api/buyer-returns: bad bodies", () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({}, { buyersFile: BUYERS_FILE });
  });
  afterAll(async () => {
    await t.services.close();
  });

  it.each([
    ["not JSON", "reference=LD-7K3M-Q9XD"],
    ["cut short", '{"reference": "LD-7K3M-Q9XD"'],
    ["a bare string", '"LD-7K3M-Q9XD"'],
  ])("refuses a signed body that is %s with 400", async (_name, raw) => {
    expectEnvelope(await report(t, raw), 400, MESSAGES.malformed);
  });

  it.each([
    ["an array", [{ reference: "LD-7K3M-Q9XD", reason: "x" }]],
    ["no reason", { reference: "LD-7K3M-Q9XD" }],
    ["an empty reason", { reference: "LD-7K3M-Q9XD", reason: "   " }],
    ["a reason over 500 characters", { reference: "LD-7K3M-Q9XD", reason: "x".repeat(501) }],
    ["a reason that is not text", { reference: "LD-7K3M-Q9XD", reason: 42 }],
    ["no reference", { reason: "Disconnected number" }],
    ["a reference of another form", { reference: "LD-7K3M-Q9X", reason: "x" }],
    ["a reference sent twice", { reference: ["LD-7K3M-Q9XD", "LD-7K3M-Q9XE"], reason: "x" }],
  ])("refuses a signed report with %s with 400", async (_name, body) => {
    expectEnvelope(await report(t, body), 400, MESSAGES.badReport);
  });

  it("takes a reason of exactly 500 characters (and answers 404 for a lead the buyer never had)", async () => {
    const response = await report(t, { reference: "LD-7K3M-Q9XD", reason: "x".repeat(500) });
    expect(response.status).toBe(404);
  });

  it.each([
    ["text/plain", {}],
    ["application/x-www-form-urlencoded", {}],
    ["application/json; charset=latin1", {}],
  ])("refuses a %s body with 415", async (type) => {
    expectEnvelope(await report(t, { reference: "LD-7K3M-Q9XD", reason: "x" }, { headers: { "Content-Type": type } }), 415, MESSAGES.type);
  });

  it("takes application/json; charset=utf-8", async () => {
    expect((await report(t, { reference: "LD-7K3M-Q9XD", reason: "x" }, { headers: { "Content-Type": "application/json; charset=utf-8" } })).status).toBe(404);
  });

  it("refuses a body over 2 KB with 413, before looking at the signature", async () => {
    expectEnvelope(await report(t, { reference: "LD-7K3M-Q9XD", reason: "x".repeat(2100) }, { headers: { "X-Signature": "" } }), 413, MESSAGES.tooLarge);
  });

  it("has no GET", async () => {
    expectEnvelope(await request(t.app).get("/api/buyer-returns"), 404, MESSAGES.notFound);
  });
});

describe("POST /api/buyer-returns without BUYERS_FILE", () => {
  it("is not there: a JSON 404, whatever is sent", async () => {
    const t = await createTestApp();
    try {
      expectEnvelope(await report(t, { reference: "LD-7K3M-Q9XD", reason: "x" }), 404, MESSAGES.notFound);
    } finally {
      await t.services.close();
    }
  });
});

describe("POST /api/buyer-returns: the per-client budget", () => {
  it(`allows ${BUYER_RETURNS_RATE_LIMIT} reports per client per 10 minutes, counted before the body is read; then 429`, async () => {
    const t = await createTestApp({}, { buyersFile: BUYERS_FILE });
    try {
      // The cheapest refusals (no body type) still spend the budget: it is counted first.
      for (let sent = 0; sent < BUYER_RETURNS_RATE_LIMIT; sent += 1) {
        const response = await request(t.app).post("/api/buyer-returns");
        if (response.status !== 415) throw new Error(`request ${sent + 1} answered ${response.status}`);
      }
      const over = await report(t, { reference: "LD-7K3M-Q9XD", reason: "x" });
      expectEnvelope(over, 429, MESSAGES.rateLimited);
      expect(over.headers["ratelimit-policy"]).toMatch(new RegExp(`\\bq=${BUYER_RETURNS_RATE_LIMIT}\\b.*\\bw=600\\b`));
      expect(over.headers["ratelimit"]).toMatch(/\br=0\b/);
      expect(t.events("buyer_returns_rate_limited")).toHaveLength(1);
    } finally {
      await t.services.close();
    }
  });
});
