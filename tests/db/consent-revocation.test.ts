/**
 * Consent revocation (issue 16; the FCC's revocation rule) through the real store and a real HTTP
 * buyer: a `revoke_consent` request, however it arrived, marks the person's consent records
 * revoked, stops what was not yet sent, and queues a signed `consent.revoked` webhook to each buyer
 * that received the lead, retried until accepted; its honour-by date is 10 business days; other
 * people's leads are untouched.
 */
import { randomUUID } from "node:crypto";
import { pino } from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { storePrivacyRequest } from "../../server/privacy/requests";
import { addBusinessDays } from "../../server/privacy/deadlines";
import { buyersFileSchema, type LiveSettings } from "../../server/delivery/buyers";
import { createDeliveryWorker } from "../../server/delivery/worker";
import { verifySignature } from "../../server/delivery/signature";
import { deliveryRepository, scheduleDeliveries } from "../../server/db/deliveries";
import { leadRepository } from "../../server/db/leads";
import { leadStore } from "../../server/leads/store";
import { registerDisclosure } from "../../server/consent/disclosures";
import { disclosureFor } from "../../server/leads/disclosure";
import { findCertificateForBuyer } from "../../server/consent/records";
import { allStores, type TestDatabase } from "../support/databases";
import { sampleNewLead } from "../../tools/lead-session";
import { startBuyerStub, type BuyerStub } from "../../tools/buyer-stub";

const SECRETS = { acme: "acme-secret-that-is-at-least-32-chars!!", zenith: "zenith-secret-that-is-at-least-32-chars!" };

describe.each(allStores())("consent revocation ($kind)", (store) => {
  let db: TestDatabase;
  let stub: BuyerStub;
  let file: LiveSettings;
  const logger = pino({ level: "silent" });

  beforeAll(async () => {
    db = await store.open();
    stub = await startBuyerStub({ buyers: SECRETS });
    file = buyersFileSchema.parse({
      buyers: [
        { id: "acme", name: "Acme Insurance Agency", url: stub.url("acme"), secret: SECRETS.acme, price: 18.5, timeoutMs: 500 },
        { id: "zenith", name: "Zenith Auto Group", url: stub.url("zenith"), secret: SECRETS.zenith, price: 12, timeoutMs: 500 },
      ],
    });
  });
  afterAll(async () => {
    await stub?.stop();
    await db?.close();
  });
  beforeEach(async () => {
    await db.query("TRUNCATE delivery_attempts, deliveries, lead_consents, leads, privacy_requests, suppressions RESTART IDENTITY CASCADE");
    await registerDisclosure(db.builder, disclosureFor(undefined));
    stub.reset();
  });

  /** A lead with an accepted delivery to acme and one to zenith not yet sent. */
  async function soldLead(phone: string): Promise<string> {
    const created = await leadStore(leadRepository(db)).create(sampleNewLead({ lead: { phone } }));
    if (!created.created) throw new Error("expected a new lead");
    const { id } = await db.builder.selectFrom("leads").select("id").where("reference", "=", created.reference).executeTakeFirstOrThrow();
    await db.builder.transaction().execute((tx) =>
      scheduleDeliveries(tx, { id, reference: created.reference }, ["acme", "zenith"].map((target) => ({ kind: "buyer", target, idempotencyKey: `${created.reference}:${target}`, sale: true, price: 10, url: null, capDay: null, dueAt: new Date(Date.now() + 3_600_000) }))),
    );
    await db.query("UPDATE deliveries SET status = 'accepted', completed_at = now() WHERE idempotency_key = $1", [`${created.reference}:acme`]);
    return created.reference;
  }

  it("revokes the person's consent, stops what was not sent, and tells each buyer that has the lead until it accepts", async () => {
    const reference = await soldLead("+14155550161");
    const other = await soldLead("+14155550162");
    const receivedAt = new Date();
    const stored = await storePrivacyRequest(db, { submissionId: randomUUID(), requestType: "revoke_consent", phone: "+14155550161", gpc: false, receivedAt, dueAt: addBusinessDays(receivedAt, 10) }, "phone");
    expect(stored).toMatchObject({ created: true, webhooks: 1 });
    const revocation = stored.created ? stored.reference : "";

    const rows = async (ref: string) => (await deliveryRepository(db).list({ reference: ref })).map((delivery) => [delivery.kind, delivery.target, delivery.status, delivery.reason]);
    expect(await rows(reference)).toEqual([
      ["buyer", "acme", "accepted", null],
      ["buyer", "zenith", "failed", `consent revoked (${revocation})`],
      ["revocation", "acme", "pending", null],
    ]);
    expect(await rows(other)).toEqual([
      ["buyer", "acme", "accepted", null],
      ["buyer", "zenith", "pending", null],
    ]);

    // The buyer's endpoint is down at first: the webhook is tried again until it is accepted.
    stub.script("acme", [{ status: 503 }, { status: 200 }]);
    const worker = createDeliveryWorker({ db, buyers: () => file, logger, retry: { baseDelayMs: 1, maxDelayMs: 1 } });
    await worker.runOnce();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await worker.runOnce();
    const webhooks = stub.received("acme");
    expect(webhooks.map((webhook) => webhook.answer)).toEqual([503, 200]);
    expect(webhooks[1]!.headers["x-event"]).toBe("consent.revoked");
    expect(webhooks[1]!.idempotencyKey).toBe(`${reference}:acme:revoked`);
    expect(verifySignature(SECRETS.acme, String(webhooks[1]!.headers["x-signature"]), webhooks[1]!.rawBody)).toBe("ok");
    const body = webhooks[1]!.json as Record<string, string>;
    expect(body).toEqual({ event: "consent.revoked", reference, revokedAt: receivedAt.toISOString(), honorBy: addBusinessDays(receivedAt, 10).toISOString(), revocation });
    expect((await rows(reference)).at(-1)).toEqual(["revocation", "acme", "accepted", null]);
    expect(stub.received("zenith")).toEqual([]);

    // The consent certificate says so.
    const { rows: consent } = await db.query<{ certificate_id: string }>("SELECT certificate_id FROM lead_consents WHERE lead_reference = $1", [reference]);
    const certificate = await findCertificateForBuyer(db.builder, consent[0]!.certificate_id, "acme");
    expect(certificate).toMatchObject({ revokedAt: receivedAt, revocationReference: revocation });
    const { rows: untouched } = await db.query<{ revoked_at: Date | null }>("SELECT revoked_at FROM lead_consents WHERE lead_reference = $1", [other]);
    expect(untouched).toEqual([{ revoked_at: null }]);
  });

  it("answers a revocation for a person with no lead the same way, queueing nothing", async () => {
    const receivedAt = new Date();
    const stored = await storePrivacyRequest(db, { submissionId: randomUUID(), requestType: "revoke_consent", email: "nobody@example.com", gpc: false, receivedAt, dueAt: addBusinessDays(receivedAt, 10) }, "web_form");
    expect(stored).toMatchObject({ created: true, webhooks: 0, suppressed: false });
  });
});
