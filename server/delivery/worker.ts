/**
 * The delivery worker, one in each replica: it claims due deliveries from the outbox
 * (server/db/deliveries.ts; a row is claimed by one replica at a time, and a replica that dies
 * mid-send leaves a lease that runs out, so another sends it again with the same
 * Idempotency-Key), POSTs each lead to its buyer signed with the buyer's secret, calls traffic
 * sources' postbacks (at least once, each with an event id the source deduplicates on), records
 * every attempt and retries what failed for a reason that may pass (408, 429, 5xx, timeouts,
 * network errors) with exponential backoff and jitter.
 */
import type { Logger } from "pino";
import type { Database } from "../db/database";
import { leadRepository, type LeadRecord } from "../db/leads";
import { deliveryRepository, type Completion, type CompletionItem, type DeliveryRecord, type NewDelivery } from "../db/deliveries";
import { activeSecrets, type Buyer, type LiveSettings } from "./buyers";
import { deliveryOutcomes } from "../metrics";
import { signBody, SIGNATURE_HEADER } from "./signature";
import { deliveryPayload, postbackDelivery, postbackEventId, responseExcerpt, sourcePayout, type DeliveryPayload } from "./payload";
import { isTestLead } from "../auction/sandbox";
import { send, type Exchange, type SendResult } from "./http-send";
import { httpSpecOf, type CompiledHttpSpec, type RenderedRequest } from "./spec";
import type { SentRequest } from "../db/schema";
import type { EventRecorder } from "../analytics/writer";
import { isDatabaseUnavailable } from "../db/unavailable";
import type { OutageLog } from "../db/outage";
import { createClaimLoop } from "../workers/claim-loop";
import { createZipDirectory } from "../zip-codes";
import type { Wakeups } from "../workers/wakeups";
import type { LeadChecks } from "../checks/engine";
import { requiresAnything } from "../checks/requirements";

export interface RetryPolicy {
  /** Tries before a delivery is dead-lettered ("failed"). */
  maxAttempts: number;
  /** The first retry's delay; each next one doubles, with jitter, up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is cut to it. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 10, baseDelayMs: 2_000, maxDelayMs: 600_000, maxRetryAfterMs: 3_600_000 };

export interface DeliveryWorkerOptions {
  db: Database;
  /** Where an unreachable database is told once per outage (server/db/outage.ts) instead of a line per claim. */
  outage?: OutageLog;
  /** The settings in force (server/settings/directory.ts): read at each send, so a change applies to the next one. Paused and archived buyers' queued deliveries are still sent. */
  buyers: () => LiveSettings;
  logger: Logger;
  /** The consent certificate link a buyer gets with the lead; null when there is none. */
  certificateUrl?: (lead: LeadRecord, buyerId: string) => string | null;
  /**
   * Checked again before each delivery, for a claimed batch at once: a contact suppressed since
   * submit is no longer sold. One answer per lead, in order.
   */
  salesAllowed?: (leads: readonly LeadRecord[]) => Promise<boolean[]>;
  concurrency?: number;
  /** How long an idle worker waits before looking for due deliveries again (a lead stored by this replica wakes it at once). */
  pollMs?: number;
  /**
   * After a claim that found work, how long to let more gather before the next (so a busy worker
   * claims, reads leads and checks the suppression list for batches, not one lead at a time).
   */
  batchWindowMs?: number;
  /** Results that come within this long of each other are recorded by one statement. */
  recordWindowMs?: number;
  retry?: Partial<RetryPolicy>;
  postbackTimeoutMs?: number;
  /** Where sales, refusals, failures and postbacks are stored for the report (server/analytics/). */
  analytics?: EventRecorder;
  now?: () => Date;
  /**
   * Wakes the auction when an auction's post was refused or failed: recording it marked the
   * auction cascading (server/db/deliveries.ts), which the auction claims from its table.
   */
  wakeups?: Wakeups;
  /**
   * The checks a buyer's requirements need, run (or read: at most once per lead) before its post
   * (server/checks/engine.ts). A lead that fails one is not posted to that buyer: the delivery
   * ends `failed` with the reason (an auction's goes to the next bid); with no answer from a
   * provider, it fails the same way, or waits and is tried again when the buyer says "wait".
   */
  checks?: LeadChecks;
}

export interface DeliveryWorker {
  start(): void;
  /** Stops claiming and waits for the sends in flight (each bounded by its buyer's timeout). */
  stop(): Promise<void>;
  /** Claims and sends what is due once; resolves when those sends are recorded (tests, ops). */
  runOnce(): Promise<number>;
  /** A lead was just stored with deliveries due now: an idle worker looks at once rather than at its next poll. */
  nudge(): void;
}

/** PostgreSQL ended a statement to break a deadlock (40P01) or a serialization conflict (40001): it wrote nothing, and may simply run again. */
export function isLockConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "40P01" || code === "40001";
}

/** The delay before try number `attempt + 1`: base × 2^(attempt−1), capped, with full jitter in its upper half. */
export function backoffMs(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** Retry-After in seconds or as an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: Date): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}

function jsonObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** What a buyer's answer means for its delivery (exported for the console's test lead, server/admin/buyer-test-lead.ts). */
export type Verdict =
  | { outcome: "accepted"; price: number | null; buyerLeadId?: string | null }
  | { outcome: "rejected"; reason: string; buyerLeadId?: string | null }
  | { outcome: Exclude<SendResult["outcome"], "accepted" | "rejected">; excerpt?: string; error?: string; buyerLeadId?: undefined };

/** Our own contract: 2xx accepted (a `price` in the JSON answer wins), 4xx refused (its `reason`), the rest tried again. */
export function quoteridgeVerdict(result: SendResult): Verdict {
  if (result.outcome === "accepted") {
    const offered = jsonObject(result.body).price;
    return { outcome: "accepted", price: typeof offered === "number" && Number.isFinite(offered) && offered >= 0 ? offered : null };
  }
  if (result.outcome === "rejected") {
    const said = jsonObject(result.body).reason;
    return { outcome: "rejected", reason: typeof said === "string" && said.trim() ? responseExcerpt(said.trim()) : `HTTP ${result.httpStatus}` };
  }
  return { outcome: result.outcome };
}

/**
 * The buyer's own answer rules (issue 43): a refusal may come as HTTP 200, a price as a string. An
 * answer no rule reads is an error, recorded with its excerpt and tried again: never a sale.
 */
export function specVerdict(spec: CompiledHttpSpec, result: SendResult): Verdict {
  if (result.httpStatus === null) return { outcome: result.outcome === "accepted" || result.outcome === "rejected" ? "network_error" : result.outcome };
  const reading = spec.readAnswer({ status: result.httpStatus, body: result.body });
  switch (reading.outcome) {
    case "accepted":
      return { outcome: "accepted", price: reading.price !== null && Number.isFinite(reading.price) && reading.price >= 0 ? reading.price : null, buyerLeadId: reading.leadId ?? null };
    case "refused":
      return { outcome: "rejected", reason: responseExcerpt(reading.reason ?? `HTTP ${result.httpStatus}`) || `HTTP ${result.httpStatus}`, buyerLeadId: reading.leadId ?? null };
    case "retry":
      return { outcome: "retry", error: reading.reason ? responseExcerpt(reading.reason) : `HTTP ${result.httpStatus}` };
    default: {
      const why = reading.outcome === "error" ? reading.why : `a ${reading.outcome} answer to a post`;
      return { outcome: "retry", error: `no answer rule read it: ${why}`, excerpt: responseExcerpt(`${why}: ${result.body}`) };
    }
  }
}

/** The headers every post of a lead carries, whatever its format. */
export const postHeaders = (idempotencyKey: string): Record<string, string> => ({ "user-agent": "QuoteRidge-Delivery/1", "idempotency-key": idempotencyKey });

/** A lead's post in the buyer's own terms: the request its spec rendered, with the common headers. */
export function specExchange(buyer: Pick<Buyer, "id">, request: RenderedRequest, common: Record<string, string>): Exchange {
  return { method: request.method, headers: { ...common, ...request.headers }, ...(request.body === null ? {} : { body: request.body }), party: { buyer: buyer.id } };
}

/** A lead's post in our own terms (quoteridge): the payload as JSON, signed with the buyer's secrets in use at `at`. */
export function quoteridgeExchange(buyer: Buyer, payload: DeliveryPayload, common: Record<string, string>, at: Date): Exchange {
  const body = JSON.stringify(payload);
  // Signed at the wall-clock time: the buyer checks it against its own clock.
  return { method: "POST", headers: { "content-type": "application/json", ...common, "x-lead-reference": payload.reference, [SIGNATURE_HEADER]: signBody(activeSecrets(buyer, at), body) }, body, party: { buyer: buyer.id } };
}

export function createDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { db, buyers: settings, logger, analytics } = options;
  // Each lead's time zone, for its calling rules, is stored with it (migration 19). A lead stored
  // before has it looked up from its ZIP: the table (about 60 MB) loads only for such a lead.
  let zips: ReturnType<typeof createZipDirectory> | undefined;
  const timeZoneOf = (lead: LeadRecord) => lead.timeZone || (zips ??= createZipDirectory()).lookup(lead.zip)?.timeZone || null;
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...options.retry };
  const concurrency = options.concurrency ?? 64;
  const pollMs = options.pollMs ?? 250;
  const batchWindowMs = options.batchWindowMs ?? 20;
  const recordWindowMs = options.recordWindowMs ?? 5;
  /** Claims wait for at least this much room (a quarter of the sends in flight at most). */
  const refill = Math.max(1, Math.floor(concurrency / 4));
  const postbackTimeoutMs = options.postbackTimeoutMs ?? 5_000;
  const now = options.now ?? (() => new Date());
  const deliveries = deliveryRepository(db);
  const leads = leadRepository(db);
  /** The buyers by id, made again only when the settings change. */
  let indexed: { of: LiveSettings; byId: Map<string, Buyer> } | undefined;
  const buyerById = (id: string) => {
    const current = settings();
    if (indexed?.of !== current) indexed = { of: current, byId: new Map(current.buyers.map((buyer) => [buyer.id, buyer])) };
    return indexed.byId.get(id);
  };
  const log = logger.child({ component: "delivery" });
  /** New work is due: an idle worker claims at once, a busy one at its next claim (set below). */
  let lookAgain: () => void = () => {};
  let running = false;

  /** Results waiting to be recorded together (deliveries.completeMany). */
  const toRecord: { item: CompletionItem; settle: (recorded: boolean) => void; fail: (error: unknown) => void }[] = [];
  let recordTimer: NodeJS.Timeout | undefined;

  /**
   * Records a result with the others that end within recordWindowMs; resolves false when the
   * claim was taken over. Batches are written as they fill, several at once under load (writing
   * them one at a time was measured slower at 100 leads/s: sold p99 8.1 and 9.8 s against 6.3 and
   * 8.9); the rare deadlock between two of them is written again (recordBatch).
   */
  function record(delivery: DeliveryRecord, done: Completion, followUp?: NewDelivery): Promise<boolean> {
    return new Promise((resolve, reject) => {
      toRecord.push({ item: { delivery, done, ...(followUp ? { followUp } : {}) }, settle: resolve, fail: reject });
      recordTimer ??= setTimeout(() => void recordBatch(), recordWindowMs);
    });
  }

  async function recordBatch(): Promise<void> {
    recordTimer = undefined;
    const batch = toRecord.splice(0);
    if (batch.length === 0) return;
    for (let attempt = 1; ; attempt += 1) {
      try {
        const recorded = await deliveries.completeMany(batch.map((entry) => entry.item));
        batch.forEach((entry, index) => entry.settle(recorded[index] ?? false));
        return;
      } catch (error) {
        // Another batch (this worker's or another replica's) held rows this one needed while it
        // waited for ours: PostgreSQL ended this statement, which wrote nothing. The claims still
        // stand: write it again. (Before, the results were dropped and the posts sent again once
        // their leases ran out: 12 and 23 such deadlocks in two runs at 100 leads/s.)
        if (isLockConflict(error) && attempt < 3) continue;
        // The database went away: each delivery's lease runs out and it is sent again, same key.
        for (const entry of batch) entry.fail(error);
        return;
      }
    }
  }

  /** A lease long enough for the slowest send, so a live replica's claim is never taken over. */
  const leaseMs = () => Math.max(...settings().buyers.map((buyer) => buyer.timeoutMs), postbackTimeoutMs) + 10_000;
  /**
   * A postback's send is bounded by its own timeout, not the slowest buyer's: its lease is that
   * plus the same margin, so a postback whose worker died is called again (same event id) within
   * seconds of its timeout rather than after the slowest buyer's (up to 70 s).
   */
  const postbackLeaseMs = postbackTimeoutMs + 10_000;

  function retryOrFail(delivery: DeliveryRecord, result: SendResult, at: Date, why?: string): Completion {
    const base = { outcome: result.outcome, httpStatus: result.httpStatus, latencyMs: result.latencyMs, excerpt: result.excerpt, attemptedAt: at };
    const error = why ?? (result.httpStatus === null ? result.excerpt : `HTTP ${result.httpStatus}`);
    if (delivery.attempts >= policy.maxAttempts) return { ...base, status: "failed", error };
    const asked = retryAfterMs(result.retryAfter, at);
    const delay = asked === undefined ? backoffMs(delivery.attempts, policy) : Math.min(asked, policy.maxRetryAfterMs);
    return { ...base, status: "pending", nextAttemptAt: new Date(at.getTime() + delay), error };
  }

  /** The disclosure texts by version (a stored version never changes, decision 010): read once per process. */
  const disclosureTexts = new Map<number, Promise<string | null>>();
  function disclosureText(version: number): Promise<string | null> {
    let text = disclosureTexts.get(version);
    if (!text) {
      text = db.builder.selectFrom("consentDisclosures").select("text").where("version", "=", version).executeTakeFirst().then((row) => row?.text ?? null);
      text.catch(() => disclosureTexts.delete(version));
      disclosureTexts.set(version, text);
    }
    return text;
  }

  /** The request in the buyer's own terms (its posting spec), or why it cannot be sent. */
  async function specRequest(spec: CompiledHttpSpec, delivery: DeliveryRecord, buyer: Buyer, lead: LeadRecord, sale: boolean) {
    return spec.render(
      {
        lead,
        now: now(),
        consentText: lead.consent ? await disclosureText(lead.consent.disclosureVersion) : null,
        certificateUrl: options.certificateUrl?.(lead, buyer.id) ?? null,
        auction: delivery.saleType ? { saleType: delivery.saleType, bidId: delivery.bidId } : null,
        price: sale ? delivery.price : null,
        test: isTestLead(lead),
      },
      { url: buyer.url, credentials: buyer.credentials ?? {} },
    );
  }

  /** A delivery that ends before any request: the lead lacks what the buyer needs (a spec's value, a requirement), which no retry gives it. */
  async function withhold(delivery: DeliveryRecord, buyer: Buyer, lead: LeadRecord, error: string, detail: string): Promise<void> {
    const recorded = await record(delivery, { outcome: "withheld", httpStatus: null, latencyMs: 0, excerpt: error, attemptedAt: now(), status: "failed", error });
    if (!recorded) return;
    deliveryOutcomes.inc({ kind: "buyer", buyer: buyer.id, outcome: "failed" });
    log.error({ event: "lead_delivery_failed", reference: lead.reference, buyerId: buyer.id, error }, "delivery cannot be sent");
    if (delivery.auctionId !== null) options.wakeups?.wake("auctions");
    analytics?.record({ name: "delivery_failed", leadReference: lead.reference, target: buyer.id, detail });
  }

  /** Whether the buyer's requirements let this lead be posted now; when not, the delivery is recorded (ended, or waiting) and false comes back. */
  async function requirementsMet(delivery: DeliveryRecord, buyer: Buyer, lead: LeadRecord): Promise<boolean> {
    if (!options.checks || !requiresAnything(buyer.requirements)) return true;
    const gate = (await options.checks.gate(lead, [buyer], "post")).get(buyer.id);
    if (!gate || gate.pass) return true;
    const error = `not sent: ${buyer.id} ${gate.reason}`;
    if (!gate.wait) {
      await withhold(delivery, buyer, lead, error, "requirement");
      return false;
    }
    // The buyer waits for the check: tried again later like a send that met no answer, until its attempts run out.
    const at = now();
    const completion = retryOrFail(delivery, { outcome: "network_error", httpStatus: null, latencyMs: 0, excerpt: error, body: "", retryAfter: null, signature: null }, at, error);
    const recorded = await record(delivery, { ...completion, outcome: "withheld" });
    if (!recorded) return false;
    if (completion.status === "failed") {
      deliveryOutcomes.inc({ kind: "buyer", buyer: buyer.id, outcome: "failed" });
      log.error({ event: "lead_delivery_failed", reference: lead.reference, buyerId: buyer.id, error }, "delivery dead-lettered: the check it waits for never answered");
      if (delivery.auctionId !== null) options.wakeups?.wake("auctions");
      analytics?.record({ name: "delivery_failed", at, leadReference: lead.reference, target: buyer.id, detail: "requirement" });
    } else {
      deliveryOutcomes.inc({ kind: "buyer", buyer: buyer.id, outcome: "retry" });
      log.warn({ event: "lead_delivery_retry", reference: lead.reference, buyerId: buyer.id, error, nextAttemptAt: completion.nextAttemptAt }, "delivery waits for a lead check");
    }
    return false;
  }

  async function deliverToBuyer(delivery: DeliveryRecord, buyer: Buyer, lead: LeadRecord, saleAllowed: boolean): Promise<void> {
    if (!(await requirementsMet(delivery, buyer, lead))) return;
    const sale = delivery.sale && saleAllowed;
    const spec = httpSpecOf(buyer.spec?.post);
    // Our reference goes to a buyer with its own spec only where its spec maps it.
    const common = postHeaders(delivery.idempotencyKey);
    let url = buyer.url;
    let exchange: Exchange;
    let requestSent: SentRequest | undefined;
    if (spec) {
      const rendered = await specRequest(spec, delivery, buyer, lead, sale);
      if (!rendered.ok) {
        // Not sent: the buyer's spec needs a value this lead lacks, which no retry will give it.
        return withhold(delivery, buyer, lead, `not sent: the lead has no ${rendered.missing} for ${buyer.id}'s ${rendered.field}${rendered.why ? ` (${rendered.why})` : ""}`, "withheld");
      }
      url = rendered.request.url;
      requestSent = rendered.masked;
      exchange = specExchange(buyer, rendered.request, common);
    } else {
      const payload = deliveryPayload(lead, {
        sale,
        price: delivery.price,
        certificateUrl: options.certificateUrl?.(lead, buyer.id) ?? null,
        auction: delivery.saleType ? { saleType: delivery.saleType, bidId: delivery.bidId } : null,
        timeZone: timeZoneOf(lead),
      });
      exchange = quoteridgeExchange(buyer, payload, common, now());
    }
    const at = now();
    const result = await send(url, exchange, buyer.timeoutMs);
    const verdict = spec ? specVerdict(spec, result) : quoteridgeVerdict(result);
    const kept = { ...(requestSent ? { requestSent } : {}), ...(verdict.buyerLeadId ? { buyerLeadId: verdict.buyerLeadId } : {}) };
    const base = { outcome: verdict.outcome, httpStatus: result.httpStatus, latencyMs: result.latencyMs, excerpt: result.excerpt, attemptedAt: at };
    const facts = { reference: lead.reference, buyerId: buyer.id, attempt: delivery.attempts, latencyMs: result.latencyMs, httpStatus: result.httpStatus, campaign: { sid: lead.sid ?? undefined, tid: lead.tid ?? undefined }, ...(verdict.buyerLeadId ? { buyerLeadId: verdict.buyerLeadId } : {}) };
    if (verdict.outcome === "accepted") {
      const price = sale ? (verdict.price ?? delivery.price) : null;
      // A test lead (server/auction/sandbox.ts) is sold to a sandbox buyer for real, but pays no source and earns nothing.
      const test = isTestLead(lead);
      const postback = sale && !test ? postbackDelivery(settings().sources, lead, "sold", at) : undefined;
      const recorded = await record(delivery, { ...base, status: "accepted", price, sale, ...kept }, postback);
      if (!recorded) return;
      // The source's postback was queued, due now: look for it (an idle worker at once).
      if (postback) lookAgain();
      deliveryOutcomes.inc({ kind: "buyer", buyer: buyer.id, outcome: "accepted" });
      log.info({ event: "lead_delivered", ...facts, price, sale }, "lead delivered");
      // Delivered as the visitor directed but not sold (GPC, opt-out) earns nothing: not a sale.
      if (sale && !test) analytics?.record({ name: "lead_sold", at, leadReference: lead.reference, target: buyer.id, revenue: price, payout: sourcePayout(settings().sources, lead.sid) });
      return;
    }
    if (verdict.outcome === "rejected") {
      const reason = verdict.reason;
      const recorded = await record(delivery, { ...base, status: "rejected", reason, error: null, ...kept });
      if (!recorded) return;
      deliveryOutcomes.inc({ kind: "buyer", buyer: buyer.id, outcome: "rejected" });
      log.info({ event: "lead_rejected_by_buyer", ...facts, reason }, "buyer rejected the lead");
      if (delivery.auctionId !== null) options.wakeups?.wake("auctions");
      analytics?.record({ name: "buyer_rejected", at, leadReference: lead.reference, target: buyer.id, detail: reason });
      return;
    }
    const completion = { ...retryOrFail(delivery, { ...result, outcome: verdict.outcome, excerpt: verdict.excerpt ?? result.excerpt }, at, verdict.error), ...kept };
    const recorded = await record(delivery, completion);
    if (!recorded) return;
    if (completion.status === "failed") {
      deliveryOutcomes.inc({ kind: "buyer", buyer: buyer.id, outcome: "failed" });
      log.error({ event: "lead_delivery_failed", ...facts, error: completion.error }, "delivery dead-lettered after its last try");
      if (delivery.auctionId !== null) options.wakeups?.wake("auctions");
      analytics?.record({ name: "delivery_failed", at, leadReference: lead.reference, target: buyer.id, detail: completion.outcome });
    } else {
      deliveryOutcomes.inc({ kind: "buyer", buyer: buyer.id, outcome: "retry" });
      log.warn({ event: "lead_delivery_retry", ...facts, error: completion.error, nextAttemptAt: completion.nextAttemptAt }, "delivery will be tried again");
    }
  }

  /**
   * A source's postback: at least once, not exactly once. Between the source's answer and our
   * record of it the worker may die; the lease then runs out and the call is made again. Rather
   * than risk a lost conversion (recording it as sent before the call), every attempt carries
   * the same event id, in the URL's {event_id} and as Idempotency-Key, for the source to count
   * each event once (docs/lead-delivery.md, "Conversion postbacks").
   */
  async function callPostback(delivery: DeliveryRecord): Promise<void> {
    const eventId = postbackEventId(delivery.idempotencyKey);
    // A postback queued before {event_id} was filled in (by an older replica) still gets it.
    const url = (delivery.url ?? "").replaceAll("{event_id}", eventId);
    const at = now();
    const result = await send(url, { method: "GET", headers: { "user-agent": "QuoteRidge-Postback/1", "idempotency-key": eventId }, party: { source: delivery.target } }, postbackTimeoutMs);
    const base = { outcome: result.outcome, httpStatus: result.httpStatus, latencyMs: result.latencyMs, excerpt: result.excerpt, attemptedAt: at };
    // A source's endpoint that refuses (4xx) will not change its mind: recorded, not retried.
    const completion: Completion =
      result.outcome === "accepted" ? { ...base, status: "accepted" } : result.outcome === "rejected" ? { ...base, status: "rejected", reason: `HTTP ${result.httpStatus}` } : retryOrFail(delivery, result, at);
    const recorded = await record(delivery, completion);
    if (!recorded) return;
    const status = delivery.idempotencyKey.endsWith(":returned") ? "returned" : "sold";
    const facts = { reference: delivery.leadReference, sid: delivery.target, status, eventId, attempt: delivery.attempts, httpStatus: result.httpStatus };
    deliveryOutcomes.inc({ kind: "postback", buyer: "", outcome: completion.status === "accepted" ? "accepted" : completion.status === "pending" ? "retry" : "failed" });
    if (completion.status === "accepted") log.info({ event: "postback_sent", ...facts }, "postback sent");
    else if (completion.status === "pending") log.warn({ event: "postback_retry", ...facts }, "postback will be tried again");
    else log.error({ event: "postback_failed", ...facts }, "postback not accepted");
    if (completion.status !== "pending") {
      analytics?.record({ name: completion.status === "accepted" ? "postback_sent" : "postback_failed", at, leadReference: delivery.leadReference, target: delivery.target, detail: status });
    }
  }

  /**
   * A `consent.revoked` webhook (server/privacy/requests.ts, revokeConsent): signed like a delivery,
   * to the buyer's webhookUrl (or its lead address), with the lead's reference, when consent was
   * revoked, the honour-by date (10 business days) and the revocation's reference; retried like a
   * delivery until the buyer accepts it.
   */
  async function sendRevocation(delivery: DeliveryRecord, buyer: Buyer): Promise<void> {
    const row = await db.builder
      .selectFrom("leadConsents")
      .leftJoin("privacyRequests", "privacyRequests.reference", "leadConsents.revocationReference")
      .select(["leadConsents.revokedAt", "leadConsents.revocationReference", "privacyRequests.dueAt"])
      .where("leadConsents.leadReference", "=", delivery.leadReference)
      .executeTakeFirst();
    const body = JSON.stringify({
      event: "consent.revoked",
      reference: delivery.leadReference,
      revokedAt: row?.revokedAt?.toISOString() ?? null,
      honorBy: row?.dueAt?.toISOString() ?? null,
      revocation: row?.revocationReference ?? null,
    });
    const at = now();
    const result = await send(
      buyer.webhookUrl ?? buyer.url,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "QuoteRidge-Webhook/1",
          "idempotency-key": delivery.idempotencyKey,
          "x-lead-reference": delivery.leadReference,
          "x-event": "consent.revoked",
          [SIGNATURE_HEADER]: signBody(activeSecrets(buyer, now()), body),
        },
        body,
        party: { buyer: buyer.id },
      },
      buyer.timeoutMs,
    );
    const base = { outcome: result.outcome, httpStatus: result.httpStatus, latencyMs: result.latencyMs, excerpt: result.excerpt, attemptedAt: at };
    // A revocation must reach the buyer: a refusal is tried again too, until the attempts run out.
    const completion: Completion = result.outcome === "accepted" ? { ...base, status: "accepted" } : retryOrFail(delivery, result, at);
    const recorded = await record(delivery, completion);
    if (!recorded) return;
    const facts = { reference: delivery.leadReference, buyerId: buyer.id, attempt: delivery.attempts, httpStatus: result.httpStatus };
    deliveryOutcomes.inc({ kind: "revocation", buyer: buyer.id, outcome: completion.status === "accepted" ? "accepted" : completion.status === "pending" ? "retry" : "failed" });
    if (completion.status === "accepted") log.info({ event: "revocation_sent", ...facts }, "consent.revoked webhook accepted");
    else if (completion.status === "pending") log.warn({ event: "revocation_retry", ...facts, nextAttemptAt: completion.nextAttemptAt }, "consent.revoked webhook will be tried again");
    else log.error({ event: "revocation_failed", ...facts, error: completion.error }, "consent.revoked webhook not accepted after its last try: tell the buyer another way");
  }

  /** What a claimed batch's buyer deliveries need, read at once: their leads, and whether each may still be sold. */
  interface Batch {
    leads: Map<string, LeadRecord>;
    sellable: Map<string, boolean>;
  }

  async function readBatch(claimed: readonly DeliveryRecord[]): Promise<Batch> {
    const references = claimed.filter((delivery) => delivery.kind === "buyer").map((delivery) => delivery.leadReference);
    const found = await leads.findByReferences(references);
    const list = [...found.values()];
    const allowed = options.salesAllowed ? await options.salesAllowed(list) : list.map(() => true);
    return { leads: found, sellable: new Map(list.map((lead, index) => [lead.reference, allowed[index] ?? false])) };
  }

  async function process(delivery: DeliveryRecord, batch: Batch): Promise<void> {
    try {
      if (delivery.kind === "postback") return await callPostback(delivery);
      const buyer = buyerById(delivery.target);
      if (delivery.kind === "revocation" && buyer) return await sendRevocation(delivery, buyer);
      const lead = batch.leads.get(delivery.leadReference);
      if (!buyer || !lead) {
        const error = !buyer ? "buyer no longer configured" : "lead no longer stored";
        await record(delivery, { outcome: "withheld", httpStatus: null, latencyMs: 0, excerpt: error, attemptedAt: now(), status: "failed", error });
        log.error({ event: "lead_delivery_failed", reference: delivery.leadReference, buyerId: delivery.target, error }, "delivery cannot be sent");
        analytics?.record({ name: "delivery_failed", leadReference: delivery.leadReference, target: delivery.target, detail: "withheld" });
        return;
      }
      await deliverToBuyer(delivery, buyer, lead, batch.sellable.get(lead.reference) ?? false);
    } catch (error) {
      // The database went away mid-record: the lease runs out and the delivery is sent again, same key.
      log.warn({ err: error, event: "delivery_worker_error", reference: delivery.leadReference, target: delivery.target }, "delivery not recorded; will be retried");
    }
  }

  /** Claims as many due deliveries as there is room for and starts sending them (resolves with the sends, not when they end). */
  async function claimAndSend(room: number): Promise<Promise<void>[]> {
    const claimed = await deliveries.claimDue(room, leaseMs(), now(), postbackLeaseMs);
    if (claimed.length === 0) return [];
    // Unread (the database went away): the claims' leases run out and they are sent again, same keys.
    const batch = await readBatch(claimed);
    return claimed.map((delivery) => process(delivery, batch));
  }

  // Sends mostly wait for their buyers, so many run at once. A busy worker claims in batches (a
  // nudge wakes only an idle one: a claim per lead cost a statement each); a nearly full one waits
  // until a quarter of its places are free, not a claim per send's end.
  const loop = createClaimLoop({
    claim: claimAndSend,
    concurrency,
    idleMs: () => pollMs,
    gatherMs: batchWindowMs,
    nudgeEndsGathering: false,
    fullMs: 1_000,
    refill,
    onError(error) {
      if (options.outage && isDatabaseUnavailable(error)) options.outage.met("delivery", error);
      else log.warn({ err: error, event: "delivery_worker_error" }, "could not claim deliveries; trying again shortly");
    },
  });
  lookAgain = () => loop.nudge();

  return {
    start() {
      if (running) return;
      running = true;
      loop.start();
      log.info({ event: "delivery_worker_started", buyers: settings().buyers.map((buyer) => buyer.id), concurrency }, "delivery worker started");
    },
    async stop() {
      running = false;
      await loop.stop();
    },
    nudge: () => loop.nudge(),
    runOnce: () => loop.runOnce(),
  };
}
