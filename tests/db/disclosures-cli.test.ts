/**
 * `npm run privacy-requests -- disclosures` (server/cli/privacy-requests.ts): which buyer got which
 * of a person's leads, when and at what price, for an access or Shine the Light request, against
 * both stores. Leads are stored through the lead repository and their deliveries scheduled in a
 * transaction, as the lead service does; the worker's outcomes are recorded through the delivery
 * repository. Each step closes the store before the command opens it (the embedded store allows
 * one opener).
 */
import { registerDisclosure } from "../../server/consent/disclosures";
import { disclosureFor } from "../../server/leads/disclosure";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../server/cli/privacy-requests";
import type { Database } from "../../server/db/database";
import { deliveryRepository, scheduleDeliveries, type NewDelivery } from "../../server/db/deliveries";
import { leadRepository } from "../../server/db/leads";
import { leadStore } from "../../server/leads/store";
import { commandStores, withCommandStore, type CommandStore } from "../support/databases";
import { sampleNewLead, type NewLeadOverrides } from "../../tools/lead-session";

type Location = CommandStore;

const LOCATIONS = commandStores();

const SECRET = "disclosures-test-secret-0123456789abcdef";
const BUYERS = {
  buyers: [
    { id: "acme", name: "Acme Insurance Agency", url: "https://buyer.example/acme", secret: SECRET, price: 18.5 },
    { id: "harbor", name: "Harbor Insurance Group", url: "https://buyer.example/harbor", secret: SECRET, price: 12 },
  ],
};

const at = (time: string) => new Date(`2026-03-0${time}Z`);
const T = {
  lead1: at("2T10:00:00.000"),
  lead2: at("3T11:00:00.000"),
  other: at("3T12:00:00.000"),
  acmeAccepted: at("2T10:00:01.250"),
  beltRejected: at("2T10:00:02.000"),
  postbackAccepted: at("2T10:00:03.000"),
  acmeReturned: at("4T09:30:00.000"),
  unreachable: at("3T11:00:01.000"),
};

const PERSON = { email: "ana.person@example.com", phone: "+14155550111" };

/** Stores a lead (the shared sample, with these answers) and returns its reference. */
async function storeLead(db: Database, overrides: NewLeadOverrides): Promise<string> {
  const result = await leadStore(leadRepository(db)).create(sampleNewLead(overrides));
  if (!result.created) throw new Error("expected a new lead");
  return result.reference;
}

/** Schedules deliveries for a stored lead inside a transaction, as the lead service does in the lead's own. */
async function schedule(db: Database, reference: string, deliveries: NewDelivery[]): Promise<void> {
  const { id } = await db.builder.selectFrom("leads").select("id").where("reference", "=", reference).executeTakeFirstOrThrow();
  await db.builder.transaction().execute((tx) => scheduleDeliveries(tx, { id, reference }, deliveries));
}

const buyer = (reference: string, target: string, sale: boolean, price: number | null): NewDelivery => ({
  kind: "buyer",
  target,
  idempotencyKey: `${reference}:${target}`,
  sale,
  price,
  url: null,
  capDay: null,
  dueAt: new Date("2026-01-01T00:00:00Z"),
});

describe.each(LOCATIONS)("npm run privacy-requests -- disclosures ($kind)", ({ make }) => {
  let location: Location;
  let buyersDir: string;
  let buyersFile: string;
  const refs: Record<string, string> = {};

  async function cli(env: NodeJS.ProcessEnv, ...argv: string[]) {
    let output = "";
    const code = await run(argv, (text) => (output += text), { ...location.env, ...env });
    return { code, output };
  }

  beforeAll(async () => {
    location = await make();
    buyersDir = await mkdtemp(path.join(os.tmpdir(), "disclosures-buyers-"));
    buyersFile = path.join(buyersDir, "buyers.json");
    await writeFile(buyersFile, JSON.stringify(BUYERS));
    await withCommandStore(location, async (db) => {
      await registerDisclosure(db.builder, disclosureFor(undefined));
      // The person's first lead, sold: Acme accepts (and returns it later), "belt" (no longer in
      // BUYERS_FILE) rejects it, and the traffic source hears of the sale.
      refs.lead1 = await storeLead(db, { receivedAt: T.lead1, lead: PERSON });
      const lead1 = refs.lead1;
      await schedule(db, lead1, [
        buyer(lead1, "acme", true, 18.5),
        buyer(lead1, "belt", true, 9),
        { kind: "postback", target: "fb01", idempotencyKey: `${lead1}:postback:fb01`, sale: true, price: null, url: "https://network.example/pb?tid=b2", capDay: null, dueAt: new Date("2026-01-01T00:00:00Z") },
      ]);
      // A second lead by the same phone with another email, sent with GPC: not sold, not yet reached.
      refs.lead2 = await storeLead(db, { receivedAt: T.lead2, gpc: true, lead: { email: "ana.work@example.com", phone: PERSON.phone } });
      await schedule(db, refs.lead2, [buyer(refs.lead2, "acme", false, null)]);
      // Someone else's lead.
      refs.other = await storeLead(db, { receivedAt: T.other, lead: { email: "someone@example.com", phone: "+14155550222" } });
      await schedule(db, refs.other, [buyer(refs.other, "acme", true, 18.5)]);

      const deliveries = deliveryRepository(db);
      const claimed = await deliveries.claimDue(10, 60_000, new Date("2026-03-05T00:00:00Z"));
      expect(claimed).toHaveLength(5);
      const find = (reference: string, target: string) => claimed.find((delivery) => delivery.leadReference === reference && delivery.target === target)!;
      const done = (attemptedAt: Date, status: "accepted" | "rejected" | "pending", outcome: "accepted" | "rejected" | "network_error", httpStatus: number | null, extra = {}) => ({
        attemptedAt,
        status,
        outcome,
        httpStatus,
        latencyMs: 40,
        excerpt: null,
        ...extra,
      });
      expect(await deliveries.complete(find(lead1, "acme"), done(T.acmeAccepted, "accepted", "accepted", 200, { price: 21 }))).toBe(true);
      expect(await deliveries.complete(find(lead1, "belt"), done(T.beltRejected, "rejected", "rejected", 400, { reason: "duplicate lead" }))).toBe(true);
      expect(await deliveries.complete(find(lead1, "fb01"), done(T.postbackAccepted, "accepted", "accepted", 200))).toBe(true);
      expect(await deliveries.complete(find(refs.lead2, "acme"), done(T.unreachable, "pending", "network_error", null, { nextAttemptAt: new Date("2026-03-06T00:00:00Z"), error: "ECONNREFUSED" }))).toBe(true);
      expect(await deliveries.complete(find(refs.other, "acme"), done(T.acmeAccepted, "accepted", "accepted", 200))).toBe(true);
      expect(await deliveries.recordReturn(lead1, "acme", "disconnected phone", T.acmeReturned)).toBeDefined();
    });
  });
  afterAll(async () => {
    await location?.remove();
    await rm(buyersDir, { recursive: true, force: true });
  });

  it("lists every delivery of the person's leads as CSV, with the buyers' names, sale, price and times", async () => {
    const { code, output } = await cli({ BUYERS_FILE: buyersFile, CSRF_SECRET: SECRET }, "disclosures", "--email", "Ana.Person@Example.com", "--phone", "(415) 555-0111");
    expect(code).toBe(0);
    const lines = output.split("\r\n");
    expect(lines.pop()).toBe("");
    expect(lines[0]).toBe("lead_reference,lead_received_at,kind,recipient_id,recipient_name,status,sale,price,scheduled_at,sent_at,attempts,accepted_at,returned_at,reason");
    const rows = lines.slice(1).map((line) => line.split(","));
    expect(rows.map((row) => [row[0], row[3]])).toEqual(
      expect.arrayContaining([
        [refs.lead1, "acme"],
        [refs.lead1, "belt"],
        [refs.lead1, "fb01"],
        [refs.lead2, "acme"],
      ]),
    );
    expect(rows).toHaveLength(4);
    const row = (reference: string, target: string) => rows.find((cells) => cells[0] === reference && cells[3] === target)!;
    expect(row(refs.lead1!, "acme")).toEqual([
      refs.lead1,
      T.lead1.toISOString(),
      "buyer",
      "acme",
      "Acme Insurance Agency",
      "returned",
      "true",
      "21.00",
      expect.stringMatching(/^\d{4}-/),
      T.acmeAccepted.toISOString(),
      "1",
      T.acmeAccepted.toISOString(),
      T.acmeReturned.toISOString(),
      "disconnected phone",
    ]);
    expect(row(refs.lead1!, "belt").slice(3)).toEqual(["belt", "belt", "rejected", "true", "9.00", expect.any(String), T.beltRejected.toISOString(), "1", "", "", "duplicate lead"]);
    expect(row(refs.lead1!, "fb01").slice(2, 7)).toEqual(["postback", "fb01", "fb01", "accepted", "true"]);
    // Sent with GPC: not sold, no price; the buyer was never reached.
    expect(row(refs.lead2!, "acme").slice(1)).toEqual([T.lead2.toISOString(), "buyer", "acme", "Acme Insurance Agency", "pending", "false", "", expect.any(String), "", "1", "", "", ""]);
    expect(output).not.toContain(refs.other);
  });

  it("finds leads by email or by phone alone, and writes JSON", async () => {
    const byEmail = JSON.parse((await cli({}, "disclosures", "--email", PERSON.email, "--format", "json")).output) as Array<Record<string, unknown>>;
    expect(byEmail.map((row) => row.lead_reference)).toEqual([refs.lead1, refs.lead1, refs.lead1]);
    const acme = byEmail.find((row) => row.recipient_id === "acme");
    // Without BUYERS_FILE the id stands for the name.
    expect(acme).toMatchObject({ kind: "buyer", recipient_name: "acme", status: "returned", sale: true, price: 21, attempts: 1, accepted_at: T.acmeAccepted.toISOString(), returned_at: T.acmeReturned.toISOString(), reason: "disconnected phone" });

    const byPhone = JSON.parse((await cli({}, "disclosures", "--phone", "415.555.0111", "--format", "json")).output) as Array<Record<string, unknown>>;
    expect(new Set(byPhone.map((row) => row.lead_reference))).toEqual(new Set([refs.lead1, refs.lead2]));
    expect(byPhone.find((row) => row.lead_reference === refs.lead2)).toMatchObject({ sale: false, price: null, sent_at: null, accepted_at: null });
  });

  it("takes the email address or phone number on its own (`disclosures EMAIL|PHONE`), and refuses it beside --email/--phone", async () => {
    const byEmail = JSON.parse((await cli({}, "disclosures", "Ana.Person@Example.com", "--format", "json")).output) as Array<Record<string, unknown>>;
    expect(byEmail.map((row) => row.lead_reference)).toEqual([refs.lead1, refs.lead1, refs.lead1]);
    const byPhone = JSON.parse((await cli({}, "disclosures", "(415) 555-0111", "--format", "json")).output) as Array<Record<string, unknown>>;
    expect(new Set(byPhone.map((row) => row.lead_reference))).toEqual(new Set([refs.lead1, refs.lead2]));
    await expect(cli({}, "disclosures", PERSON.email, "--phone", PERSON.phone)).rejects.toThrow(/on its own, or with --email\/--phone, not both/);
    await expect(cli({}, "disclosures", "not-a-phone")).rejects.toThrow(/not a US phone number/);
  });

  it("still names the recipients once the lead itself is gone after its 3 years: the consent record keeps the contact for 5", async () => {
    await withCommandStore(location, (db) => db.query("DELETE FROM leads WHERE reference = $1", [refs.lead1]));
    const rows = JSON.parse((await cli({ BUYERS_FILE: buyersFile, CSRF_SECRET: SECRET }, "disclosures", PERSON.email, "--format", "json")).output) as Array<Record<string, unknown>>;
    expect(rows.map((row) => [row.lead_reference, row.recipient_name, row.lead_received_at])).toEqual(
      expect.arrayContaining([
        [refs.lead1, "Acme Insurance Agency", T.lead1.toISOString()],
        [refs.lead1, "belt", T.lead1.toISOString()],
        [refs.lead1, "fb01", T.lead1.toISOString()],
      ]),
    );
    expect(rows).toHaveLength(3);
  });

  it("answers with no rows for a person with no leads, and refuses a bad contact or format", async () => {
    expect(await cli({}, "disclosures", "--email", "nobody@example.com")).toEqual({
      code: 0,
      output: "lead_reference,lead_received_at,kind,recipient_id,recipient_name,status,sale,price,scheduled_at,sent_at,attempts,accepted_at,returned_at,reason\r\n",
    });
    expect((await cli({}, "disclosures", "--email", "nobody@example.com", "--format", "json")).output).toBe("[]\n");
    await expect(cli({}, "disclosures")).rejects.toThrow(/Give an email address or a phone number/);
    await expect(cli({}, "disclosures", "--phone", "12")).rejects.toThrow(/not a US phone number/);
    await expect(cli({}, "disclosures", "--email", PERSON.email, "--format", "table")).rejects.toThrow(/csv or json/);
  });
});
