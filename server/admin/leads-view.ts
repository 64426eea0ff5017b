/**
 * The leads page (GET /leads): one lead by reference — its facts without contact details, each
 * delivery with every try — or, without a reference, the recent dead-lettered deliveries.
 */
import type { Database } from "../db/database";
import { leadRepository } from "../db/leads";
import { deliveryRepository, type DeliveryRecord } from "../db/deliveries";
import type { LeadDeliveryView, LeadsView } from "../../shared/admin-views";
import { LEAD_REFERENCE_PATTERN } from "../../shared/lead/api";
import { quoteFacts } from "./quote-facts";

const RECENT_FAILED = 50;
const iso = (date: Date | null) => date?.toISOString() ?? null;

/** A reference as people type it ("ld-7k3m-q9xd ") in its stored form, or undefined. */
export function leadReferenceOf(raw: unknown): string | undefined {
  if (typeof raw !== "string") return undefined;
  const reference = raw.trim().toUpperCase();
  return LEAD_REFERENCE_PATTERN.test(reference) ? reference : undefined;
}

async function recentFailed(db: Database): Promise<LeadsView["failed"]> {
  const rows = await db.builder
    .selectFrom("deliveries")
    .select(["leadReference", "target", "lastError", "completedAt"])
    .where("status", "=", "failed")
    .orderBy("completedAt", "desc")
    .orderBy("id", "desc")
    .limit(RECENT_FAILED)
    .execute();
  return rows.map((row) => ({ reference: row.leadReference, target: row.target, lastError: row.lastError, completedAt: iso(row.completedAt) }));
}

async function deliveryView(db: Database, delivery: DeliveryRecord, returnsPossible: boolean): Promise<LeadDeliveryView> {
  const attempts = await deliveryRepository(db).attempts(delivery.id);
  return {
    kind: delivery.kind,
    target: delivery.target,
    status: delivery.status,
    sale: delivery.sale,
    price: delivery.price,
    attempts: attempts.map((attempt) => ({ at: attempt.attemptedAt.toISOString(), outcome: attempt.outcome, httpStatus: attempt.httpStatus, latencyMs: attempt.latencyMs, excerpt: attempt.excerpt })),
    lastError: delivery.lastError,
    reason: delivery.reason,
    createdAt: delivery.createdAt.toISOString(),
    completedAt: iso(delivery.completedAt),
    canRetry: delivery.status === "failed",
    canReturn: returnsPossible && delivery.kind === "buyer" && delivery.status === "accepted",
  };
}

/** `returnsPossible`: the server knows its buyers (BUYERS_FILE), which a return needs. */
export async function leadsView(db: Database, raw: unknown, returnsPossible: boolean): Promise<LeadsView> {
  const failed = await recentFailed(db);
  if (raw === undefined || raw === "") return { page: "leads", deliveries: [], failed };
  const reference = leadReferenceOf(raw);
  if (reference === undefined) return { page: "leads", deliveries: [], failed, error: "A lead reference looks like LD-7K3M-Q9XD." };
  const [lead, deliveries] = await Promise.all([leadRepository(db).findByReference(reference), deliveryRepository(db).list({ reference })]);
  const views = await Promise.all(deliveries.map((delivery) => deliveryView(db, delivery, returnsPossible)));
  if (!lead && views.length === 0) return { page: "leads", reference, deliveries: [], failed, error: `No lead ${reference}.` };
  return {
    page: "leads",
    reference,
    // Facts only: the contact details stay out of the console (docs/operations-console.md).
    ...(lead ? { lead: { reference: lead.reference, receivedAt: lead.receivedAt.toISOString(), state: lead.state, sid: lead.sid, tid: lead.tid, duplicateOf: lead.duplicateOf, gpc: lead.gpc, quote: quoteFacts(lead) } } : {}),
    deliveries: views,
    failed,
  };
}
