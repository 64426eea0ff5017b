/**
 * Delivery in a buyer's own terms (issue 43): a buyer with a posting spec gets its own request
 * (Acme: a form with its key in the query, answered in XML; Bolt: JSON with a bearer token), and
 * its answer is read by its rules: a sale with its price and its lead id, a refusal sent as HTTP
 * 200, an answer no rule reads (tried again, never a sale), a lead missing a required value (not
 * sent, the delivery says which). Buyers without a spec are unchanged (tests/db/delivery.test.ts).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { registerDisclosure } from "../../server/consent/disclosures";
import { disclosureFor } from "../../server/leads/disclosure";
import { leadRepository } from "../../server/db/leads";
import { leadStore } from "../../server/leads/store";
import { deliveryRepository } from "../../server/db/deliveries";
import { createDeliveryPlanner } from "../../server/delivery/plan";
import { createLeadRouting } from "../../server/delivery/routing";
import { createDeliveryWorker } from "../../server/delivery/worker";
import { buyersFileSchema, type LiveSettings } from "../../server/delivery/buyers";
import { allStores, type TestDatabase } from "../support/databases";
import { sampleNewLead, type NewLeadOverrides } from "../../tools/lead-session";
import { ACME_POST, BOLT_POST, EXAMPLE_CREDENTIALS } from "../../tools/buyer-spec-examples";

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

describe.each(allStores())("delivery by a buyer's posting spec ($kind)", (store) => {
  let db: TestDatabase;
  let server: http.Server;
  let origin = "";
  const received: Record<string, Received[]> = { acme: [], bolt: [] };
  const answers: Record<string, Array<{ status: number; body: string; type?: string }>> = { acme: [], bolt: [] };
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });

  const settings = (): LiveSettings =>
    buyersFileSchema.parse({
      buyers: [
        { id: "acme", name: "Acme Auto Agents", url: `${origin}/acme/leads`, secret: "a".repeat(32), price: 12, timeoutMs: 1_000, spec: { post: ACME_POST }, credentials: EXAMPLE_CREDENTIALS.acme },
        { id: "bolt", name: "Bolt Insurance Direct", url: `${origin}/bolt/leads`, secret: "b".repeat(32), price: 10, timeoutMs: 1_000, spec: { post: BOLT_POST }, credentials: EXAMPLE_CREDENTIALS.bolt },
      ],
    });

  async function storeLead(file: LiveSettings, overrides: NewLeadOverrides = {}): Promise<string> {
    const routing = createLeadRouting({ planner: createDeliveryPlanner(() => file) });
    const disclosure = await registerDisclosure(db.builder, disclosureFor(file.buyers));
    const now = new Date();
    const result = await leadStore(leadRepository(db)).create(sampleNewLead({ receivedAt: now, sid: "fb01", ...overrides, consent: { disclosureVersion: disclosure.version, disclosureSha256: disclosure.sha256 } }), (lead) => ({ deliveries: routing.deliveries(lead, true, now, file.buyers.map((buyer) => buyer.id)) }));
    if (!result.created) throw new Error("not created");
    return result.reference;
  }

  beforeAll(async () => {
    db = await store.open();
    server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const buyer = (request.url ?? "").split("/")[1] ?? "";
        received[buyer]?.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers, body: Buffer.concat(chunks).toString("utf8") });
        const answer = answers[buyer]?.shift() ?? { status: 500, body: "" };
        response.writeHead(answer.status, { "content-type": answer.type ?? "application/json" }).end(answer.body);
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
    await db.query("TRUNCATE delivery_attempts, deliveries, buyer_counters, lead_consents, leads, suppressions RESTART IDENTITY CASCADE");
    for (const key of Object.keys(received)) received[key] = [];
    lines.length = 0;
  });

  it("sends each buyer its own request and records its sale, its price and its lead id", async () => {
    const file = settings();
    const reference = await storeLead(file);
    answers.acme = [{ status: 200, type: "application/xml", body: "<response><status>success</status><lead_id>AC-1001</lead_id><price>14.25</price></response>" }];
    answers.bolt = [{ status: 201, body: JSON.stringify({ result: { accepted: true, id: "B-77", payout: "11.00" } }) }];
    const worker = createDeliveryWorker({ db, buyers: () => file, logger, certificateUrl: (lead) => `https://quotes.example/consent/${lead.reference}` });
    expect(await worker.runOnce()).toBe(2);

    const acme = received.acme![0];
    expect(acme).toMatchObject({ method: "POST", url: "/acme/leads?key=acme-test-key-123" });
    expect(acme!.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    const form = new URLSearchParams(acme!.body);
    expect(form.get("LeadID")).toBe(reference);
    expect(form.get("SubID")).toBe("fb01");
    expect(form.get("Phone")).toMatch(/^\d{10}$/);
    expect(form.get("DOB")).toMatch(/^\d{2}\/\d{2}\/\d{4}$/);
    expect(form.get("TCPA_Text")).toContain("Acme Auto Agents");
    const bolt = received.bolt![0];
    expect(bolt!.headers.authorization).toBe("Bearer bolt-test-token-456");
    const json = JSON.parse(bolt!.body) as { source: string; external_id: string; contact: { phone: string }; vehicles: unknown[] };
    expect(json).toMatchObject({ source: "quoteridge", external_id: reference });
    expect(json.contact.phone).toMatch(/^\+1\d{10}$/);
    expect(json.vehicles.length).toBeGreaterThan(0);

    const rows = await deliveryRepository(db).list({ reference });
    expect(rows.map((row) => [row.target, row.status, row.price, row.buyerLeadId])).toEqual([
      ["acme", "accepted", 14.25, "AC-1001"],
      ["bolt", "accepted", 11, "B-77"],
    ]);
    // The request as sent is kept, masked: no credential, no phone in clear.
    const kept = JSON.stringify(rows.map((row) => row.requestSent));
    expect(rows.every((row) => row.requestSent !== null)).toBe(true);
    expect(kept).not.toContain("acme-test-key-123");
    expect(kept).not.toContain("bolt-test-token-456");
    expect(kept).not.toContain(form.get("Phone")!);
    expect(lines.filter((line) => line.event === "lead_delivered").map((line) => line.buyerLeadId)).toEqual(expect.arrayContaining(["AC-1001", "B-77"]));
  });

  it("takes a refusal sent as HTTP 200 for a refusal with its reason, and never an answer no rule reads for a sale", async () => {
    const file = settings();
    const reference = await storeLead(file);
    answers.acme = [{ status: 200, type: "application/xml", body: "<response><status>rejected</status><message>Already have this consumer</message></response>" }];
    answers.bolt = [{ status: 200, body: '{"surprise": true}' }];
    const worker = createDeliveryWorker({ db, buyers: () => file, logger });
    await worker.runOnce();
    const rows = await deliveryRepository(db).list({ reference });
    expect(rows.find((row) => row.target === "acme")).toMatchObject({ status: "rejected", reason: "Already have this consumer", price: 12 });
    const bolt = rows.find((row) => row.target === "bolt")!;
    expect(bolt.status).toBe("pending");
    expect(bolt.lastError).toMatch(/^no answer rule read it/);
    const attempts = await deliveryRepository(db).attempts(bolt.id);
    expect(attempts.at(-1)).toMatchObject({ outcome: "retry", httpStatus: 200 });
    expect(attempts.at(-1)!.excerpt).toContain("surprise");
  });

  it("does not send a lead that lacks a value the buyer requires, and says which value for which buyer", async () => {
    // This Bolt wants the second driver's birth date: a lead with one driver has none to give.
    const file = buyersFileSchema.parse({
      buyers: [{ id: "bolt", name: "Bolt Insurance Direct", url: `${origin}/bolt/leads`, secret: "b".repeat(32), price: 10, spec: { post: { ...BOLT_POST, fields: [...BOLT_POST.fields, { to: "co_applicant.birth_date", from: "driver.2.dateOfBirth" }] } }, credentials: EXAMPLE_CREDENTIALS.bolt }],
    });
    const sample = sampleNewLead().lead;
    const reference = await storeLead(file, { lead: { drivers: sample.drivers.slice(0, 1) } });
    const worker = createDeliveryWorker({ db, buyers: () => file, logger });
    await worker.runOnce();
    const [bolt] = await deliveryRepository(db).list({ reference });
    expect(received.bolt).toHaveLength(0);
    expect(bolt).toMatchObject({ target: "bolt", status: "failed" });
    expect(bolt!.lastError).toBe("not sent: the lead has no driver.2.dateOfBirth for bolt's co_applicant.birth_date");
    expect(lines.find((line) => line.event === "lead_delivery_failed")).toMatchObject({ reference, buyerId: "bolt" });
  });
});
