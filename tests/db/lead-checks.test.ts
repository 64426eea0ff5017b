/**
 * The lead checks' engine on both stores (issue 44, server/checks/engine.ts): a check runs only for
 * a buyer that requires it, at most once per lead (across callers and replicas), its answer about
 * a phone reused for CHECK_CACHE_DAYS, a lead's checks in parallel each within its timeout, and a
 * provider with no answer skipping (or holding) only the buyers that need it. The providers here
 * are programmable CheckProviders, to count calls and hold answers; the real adapters are tested
 * against local fakes of the providers' APIs in tests/http/check-providers.test.ts.
 */
import pino from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { leadRepository, type LeadRecord } from "../../server/db/leads";
import { leadStore } from "../../server/leads/store";
import { leadCheckRepository } from "../../server/db/lead-checks";
import { buyersFileSchema, type Buyer, type LiveSettings } from "../../server/delivery/buyers";
import { createLeadChecks, type LeadChecksOptions } from "../../server/checks/engine";
import type { CheckAnswer, CheckInput, CheckKind, CheckProvider } from "../../server/checks/types";
import { allStores, type TestDatabase } from "../support/databases";
import { createLeadRouting } from "../../server/delivery/routing";
import { createDeliveryPlanner } from "../../server/delivery/plan";
import { createDeliveryWorker } from "../../server/delivery/worker";
import { deliveryRepository } from "../../server/db/deliveries";
import { startBuyerStub, type BuyerStub } from "../../tools/buyer-stub";
import { sampleNewLead, type NewLeadOverrides } from "../../tools/lead-session";
import { CONSENT_DISCLOSURE, CONSENT_DISCLOSURE_SHA256 } from "../../shared/consent-disclosure";

const CERT_ORIGIN = "https://cert.trustedform.com";
const CERT_URL = `${CERT_ORIGIN}/${"a1".repeat(20)}`;
const TOKEN = "0A1B2C3D-4E5F-6A7B-8C9D-0E1F2A3B4C5D";

/** A provider whose answers the test sets, counting its calls and when each started and ended. */
interface Programmed extends CheckProvider {
  calls: CheckInput[];
  spans: { start: number; end: number }[];
  answer: (input: CheckInput) => CheckAnswer | Promise<CheckAnswer>;
}

function programmed(kind: CheckKind, stage: "ping" | "post", cachedByPhone: boolean, answer: Programmed["answer"]): Programmed {
  const provider: Programmed = {
    kind,
    name: `fake-${kind}`,
    stage,
    cachedByPhone,
    calls: [],
    spans: [],
    answer,
    async run(input) {
      provider.calls.push(input);
      const start = performance.now();
      const result = await provider.answer(input);
      provider.spans.push({ start, end: performance.now() });
      return result;
    },
  };
  return provider;
}

const ok = (outcome: string, latencyMs = 5): CheckAnswer => ({ status: "ok", outcome, detail: outcome, latencyMs });
const delayed = (ms: number, answer: CheckAnswer) => () => new Promise<CheckAnswer>((resolve) => setTimeout(() => resolve(answer), ms));

function buyer(id: string, requirements?: object): Buyer {
  return buyersFileSchema.parse({ buyers: [{ id, name: `Buyer ${id}`, url: `https://${id}.example/leads`, secret: `${id}-secret-0123456789abcdef0123456789`, price: 10, ...(requirements ? { requirements } : {}) }] }).buyers[0]!;
}

describe.each(allStores())("lead checks ($kind)", (store) => {
  let db: TestDatabase;
  const logger = pino({ level: "silent" });
  let providers: Map<CheckKind, Programmed>;

  function engine(options: Partial<LeadChecksOptions> = {}) {
    return createLeadChecks({ db, providers, certOrigin: CERT_ORIGIN, timeoutMs: 300, cacheDays: 7, logger, ...options });
  }

  async function storedLead(overrides: NewLeadOverrides = {}): Promise<LeadRecord> {
    const result = await leadStore(leadRepository(db)).create(sampleNewLead({ consent: { trustedFormCertUrl: CERT_URL, leadidToken: TOKEN }, ...overrides }));
    if (!result.created) throw new Error("not created");
    const lead = (await leadRepository(db).findByReferences([result.reference])).get(result.reference);
    if (!lead) throw new Error("not found");
    return lead;
  }

  beforeAll(async () => {
    db = await store.open();
  });
  afterAll(async () => {
    await db?.close();
  });
  beforeEach(async () => {
    await db.query("TRUNCATE delivery_attempts, deliveries, buyer_counters, lead_checks, check_cache, lead_consents, leads RESTART IDENTITY CASCADE");
    // The sample lead's consent points at the disclosure version the sample names: stored here as it is.
    await db.query("INSERT INTO consent_disclosures (version, sha256, text) VALUES ($1, $2, 'the sample disclosure') ON CONFLICT DO NOTHING", [CONSENT_DISCLOSURE.version, CONSENT_DISCLOSURE_SHA256]);
    providers = new Map<CheckKind, Programmed>([
      ["trustedform", programmed("trustedform", "post", false, () => ok("retained"))],
      ["jornaya", programmed("jornaya", "ping", false, () => ok("authentic"))],
      ["litigator", programmed("litigator", "post", true, () => ok("clean"))],
      ["dnc", programmed("dnc", "post", true, () => ok("clean"))],
      ["line_type", programmed("line_type", "post", true, () => ok("mobile"))],
    ]);
  });

  const callsOf = (kind: CheckKind) => providers.get(kind)!.calls.length;
  const totalCalls = () => [...providers.values()].reduce((sum, provider) => sum + provider.calls.length, 0);

  it("runs nothing and writes nothing when no buyer has requirements", async () => {
    const lead = await storedLead();
    const gates = await engine().gate(lead, [buyer("plain"), buyer("other")], "post");
    expect([...gates.values()]).toEqual([{ pass: true }, { pass: true }]);
    expect(totalCalls()).toBe(0);
    expect(await leadCheckRepository(db.builder).of(lead.reference)).toEqual([]);
  });

  it("runs only the checks the buyers require, and before a ping only those without contact details", async () => {
    const lead = await storedLead();
    const buyers = [buyer("strict", { leadid: "authentic", litigatorClean: true, lineTypes: ["mobile"] }), buyer("plain")];
    const ping = await engine().gate(lead, buyers, "ping");
    expect(ping.get("strict")).toEqual({ pass: true });
    expect([callsOf("jornaya"), callsOf("litigator"), callsOf("line_type"), callsOf("dnc"), callsOf("trustedform")]).toEqual([1, 0, 0, 0, 0]);
    const post = await engine().gate(lead, buyers, "post");
    expect(post.get("strict")).toEqual({ pass: true });
    // The LeadiD answer from before the ping is read, not asked again; the phone's checks run now.
    expect([callsOf("jornaya"), callsOf("litigator"), callsOf("line_type"), callsOf("dnc"), callsOf("trustedform")]).toEqual([1, 1, 1, 0, 0]);
    const rows = await leadCheckRepository(db.builder).of(lead.reference);
    expect(rows.map((row) => [row.kind, row.status, row.outcome, row.calls])).toEqual(
      expect.arrayContaining([
        ["jornaya", "ok", "authentic", 1],
        ["litigator", "ok", "clean", 1],
        ["line_type", "ok", "mobile", 1],
      ]),
    );
    expect(rows).toHaveLength(3);
    // The providers got the ten digits and the lead's own values.
    expect(providers.get("litigator")!.calls[0]).toMatchObject({ reference: lead.reference, phone: lead.phone.slice(2), state: lead.state, trustedFormCertUrl: CERT_URL, leadidToken: TOKEN });
  });

  it("runs a lead's checks in parallel", async () => {
    for (const kind of ["trustedform", "litigator", "dnc", "line_type"] as const) providers.get(kind)!.answer = delayed(60, ok(kind === "trustedform" ? "retained" : kind === "line_type" ? "mobile" : "clean"));
    const lead = await storedLead();
    const gates = await engine().gate(lead, [buyer("strict", { trustedForm: "retained", litigatorClean: true, noDnc: true, lineTypes: ["mobile"] })], "post");
    expect(gates.get("strict")).toEqual({ pass: true });
    const spans = ["trustedform", "litigator", "dnc", "line_type"].map((kind) => providers.get(kind as CheckKind)!.spans[0]!);
    // Every call started before any of them ended.
    expect(Math.max(...spans.map((span) => span.start))).toBeLessThan(Math.min(...spans.map((span) => span.end)));
  });

  it("calls a provider at most once per lead, however many buyers and workers ask at once", async () => {
    providers.get("litigator")!.answer = delayed(40, ok("clean"));
    const lead = await storedLead();
    const buyers = [buyer("one", { litigatorClean: true }), buyer("two", { litigatorClean: true })];
    const first = engine();
    const second = engine(); // another replica's engine: no shared memory, only the table
    await Promise.all([first.gate(lead, buyers, "post"), first.gate(lead, [buyers[0]!], "post"), second.gate(lead, buyers, "post")]);
    await first.gate(lead, buyers, "post");
    expect(callsOf("litigator")).toBe(1);
    const [row] = await leadCheckRepository(db.builder).of(lead.reference);
    expect(row).toMatchObject({ kind: "litigator", status: "ok", calls: 1 });
  });

  it("starts a winner's checks ahead of its post: the post's gate shares the calls in flight, and later gates read them from memory", async () => {
    providers.get("line_type")!.answer = delayed(40, ok("mobile"));
    const lead = await storedLead();
    const winner = buyer("winner", { lineTypes: ["mobile"], litigatorClean: true });
    const checks = engine();
    checks.prefetch(lead, [winner], "post");
    const gates = await checks.gate(lead, [winner], "post");
    expect(gates.get("winner")).toEqual({ pass: true });
    expect([callsOf("line_type"), callsOf("litigator")]).toEqual([1, 1]);
    // A cascade's post, or a second winner's, asks again: no call and no statement (the rows were read once).
    await db.query("DELETE FROM lead_checks WHERE lead_reference = $1", [lead.reference]);
    expect((await checks.gate(lead, [winner], "post")).get("winner")).toEqual({ pass: true });
    expect([callsOf("line_type"), callsOf("litigator")]).toEqual([1, 1]);
  });

  it("reuses a phone's answers for a later lead within CHECK_CACHE_DAYS, and not when the cache is off", async () => {
    const first = await storedLead();
    const strict = buyer("strict", { litigatorClean: true, lineTypes: ["mobile"], leadid: "authentic" });
    await engine().gate(first, [strict], "post");
    const again = await storedLead({ lead: { phone: first.phone } });
    const gates = await engine().gate(again, [strict], "post");
    expect(gates.get("strict")).toEqual({ pass: true });
    expect([callsOf("litigator"), callsOf("line_type")]).toEqual([1, 1]);
    // LeadiD is about the lead's own token, never cached by phone.
    expect(callsOf("jornaya")).toBe(2);
    const rows = await leadCheckRepository(db.builder).of(again.reference);
    expect(rows.filter((row) => row.cached).map((row) => row.kind).sort()).toEqual(["line_type", "litigator"]);
    const third = await storedLead({ lead: { phone: first.phone } });
    await engine({ cacheDays: 0 }).gate(third, [strict], "post");
    expect([callsOf("litigator"), callsOf("line_type")]).toEqual([2, 2]);
  });

  it("fails only the buyers whose requirement the answer does not meet, with the reason", async () => {
    providers.get("litigator")!.answer = () => ok("listed");
    providers.get("line_type")!.answer = () => ok("landline");
    const lead = await storedLead();
    const gates = await engine().gate(lead, [buyer("clean-only", { litigatorClean: true }), buyer("mobile-only", { lineTypes: ["mobile"] }), buyer("landlines", { lineTypes: ["landline", "fixedVoip"] }), buyer("plain")], "post");
    expect(gates.get("clean-only")).toMatchObject({ pass: false, wait: false, requirement: "litigator", reason: expect.stringContaining("listed") });
    expect(gates.get("mobile-only")).toMatchObject({ pass: false, requirement: "line_type", reason: expect.stringContaining("landline") });
    expect(gates.get("landlines")).toEqual({ pass: true });
    expect(gates.get("plain")).toEqual({ pass: true });
  });

  it("counts a slow or down provider as no answer: skip, or wait when the buyer says so, and asks again next time", async () => {
    providers.get("dnc")!.answer = () => new Promise(() => {}); // never answers: the engine's own guard ends it
    const lead = await storedLead();
    const gates = await engine({ timeoutMs: 100 }).gate(lead, [buyer("skips", { noDnc: true }), buyer("waits", { noDnc: true, whenUnavailable: "wait" })], "post");
    expect(gates.get("skips")).toMatchObject({ pass: false, wait: false, requirement: "dnc", reason: expect.stringContaining("no answer (timeout)") });
    expect(gates.get("waits")).toMatchObject({ pass: false, wait: true });
    const [row] = await leadCheckRepository(db.builder).of(lead.reference);
    expect(row).toMatchObject({ status: "unavailable", outcome: "timeout" });
    providers.get("dnc")!.answer = () => ok("clean");
    const later = await engine().gate(lead, [buyer("waits", { noDnc: true, whenUnavailable: "wait" })], "post");
    expect(later.get("waits")).toEqual({ pass: true });
    expect(callsOf("dnc")).toBe(2);
    // An unavailable answer is never cached for the phone.
    expect(Number((await db.query<{ n: string }>("SELECT count(*) AS n FROM check_cache WHERE kind = 'dnc' AND outcome = 'timeout'")).rows[0]!.n)).toBe(0);
  });

  it("a check without a configured provider, and a certificate or token of the wrong shape, fail the buyers needing them without a call", async () => {
    providers.delete("trustedform");
    const lead = await storedLead({ consent: { trustedFormCertUrl: "https://evil.example/steal", leadidToken: "not-a-token" } });
    const gates = await engine().gate(lead, [buyer("retains", { trustedForm: "retained" }), buyer("claims", { trustedForm: "certificate" }), buyer("token", { leadid: "token" })], "ping");
    expect(gates.get("claims")).toMatchObject({ pass: false, reason: expect.stringContaining(`is not on ${CERT_ORIGIN}`) });
    expect(gates.get("token")).toMatchObject({ pass: false, reason: expect.stringContaining("LeadiD token is not a 36-character") });
    const post = await engine().gate(lead, [buyer("retains", { trustedForm: "retained" })], "post");
    expect(post.get("retains")).toMatchObject({ pass: false, reason: expect.stringContaining("no trustedform provider is configured") });
    expect(totalCalls()).toBe(0);
  });

  it("claims again a check left running by a worker that died", async () => {
    const lead = await storedLead();
    await db.query("INSERT INTO lead_checks (lead_reference, kind, provider, status, started_at) VALUES ($1, 'litigator', 'fake-litigator', 'running', now() - interval '1 hour')", [lead.reference]);
    const gates = await engine().gate(lead, [buyer("strict", { litigatorClean: true })], "post");
    expect(gates.get("strict")).toEqual({ pass: true });
    expect(callsOf("litigator")).toBe(1);
  });

  describe("before a post (the delivery worker)", () => {
    let stub: BuyerStub;
    const SECRET = "patient-secret-that-is-at-least-32-chars";
    let clock: Date;
    beforeAll(async () => {
      stub = await startBuyerStub({ buyers: { patient: SECRET, hasty: SECRET } });
    });
    afterAll(async () => {
      await stub?.stop();
    });

    async function leadWithDeliveries(file: LiveSettings): Promise<string> {
      const routing = createLeadRouting({ planner: createDeliveryPlanner(() => file) });
      const result = await leadStore(leadRepository(db)).create(sampleNewLead({ receivedAt: clock }), (lead) => ({ deliveries: routing.deliveries(lead, true, clock, file.buyers.map((buyer) => buyer.id)) }));
      if (!result.created) throw new Error("not created");
      return result.reference;
    }

    it("waits for a check that had no answer when the buyer says so, skips it otherwise, and sends once the provider answers", async () => {
      stub.reset();
      clock = new Date("2026-11-23T15:00:00Z");
      const file = buyersFileSchema.parse({
        buyers: [
          { id: "patient", name: "Patient Agency", url: stub.url("patient"), secret: SECRET, price: 10, requirements: { litigatorClean: true, whenUnavailable: "wait" } },
          { id: "hasty", name: "Hasty Agency", url: stub.url("hasty"), secret: SECRET, price: 10, requirements: { litigatorClean: true } },
        ],
      });
      const reference = await leadWithDeliveries(file);
      providers.get("litigator")!.answer = () => ({ status: "unavailable", outcome: "down", detail: "HTTP 503", latencyMs: 3 });
      const worker = createDeliveryWorker({ db, buyers: () => file, logger, now: () => clock, checks: engine() });
      await worker.runOnce();
      const status = async () => Object.fromEntries((await deliveryRepository(db).list({ reference })).map((delivery) => [delivery.target, [delivery.status, delivery.lastError]]));
      expect(await status()).toEqual({
        patient: ["pending", expect.stringContaining("requires a clean litigator check; the check had no answer (down): waiting")],
        hasty: ["failed", expect.stringContaining("not sent: hasty requires a clean litigator check; the check had no answer (down)")],
      });
      expect(stub.received("patient")).toHaveLength(0);
      // The provider is back: the waiting post asks again at its next try, and goes.
      providers.get("litigator")!.answer = () => ok("clean");
      clock = new Date(clock.getTime() + 60_000);
      await worker.runOnce();
      expect((await status()).patient![0]).toBe("accepted");
      expect(stub.received("patient")).toHaveLength(1);
      expect(stub.received("hasty")).toHaveLength(0);
      expect(callsOf("litigator")).toBe(2);
    });
  });
});
