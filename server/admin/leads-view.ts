/**
 * The leads page (GET /leads): one lead by reference — its facts, the checks recorded for it (issue
 * 44), each delivery with every try, and for ops who sent it (name, ZIP, city; phone and email masked until asked for) — or, without a
 * reference, the recent dead-lettered deliveries.
 */
import type { Database } from "../db/database";
import { leadRepository, type LeadRecord } from "../db/leads";
import { deliveryRepository, type DeliveryRecord } from "../db/deliveries";
import type { AuctionView, LeadContactView, LeadDeliveryView, LeadsView, SentRequestView } from "../../shared/admin-views";
import type { SentRequest } from "../db/schema";
import { formatUsPhone } from "../../shared/contact";
import { maskEmail, maskPhone } from "./contact-mask";
import { auctionRepository } from "../auction/auctions";
import { LEAD_REFERENCE_PATTERN } from "../../shared/lead/api";
import { quoteFacts } from "./quote-facts";
import type { LiveSettings } from "../delivery/buyers";
import { buyerOffersView } from "./buyer-offers-view";
import { leadCheckRepository } from "../db/lead-checks";
import { leadCheckView } from "./check-words";

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

/** A request as sent, masked, as the page lists it. */
function sentRequestView(request: SentRequest | null): SentRequestView | null {
  return request ? { method: request.method, url: request.url, headers: Object.entries(request.headers).map(([name, value]) => ({ name, value })), body: request.body } : null;
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
    buyerLeadId: delivery.buyerLeadId,
    requestSent: sentRequestView(delivery.requestSent),
    lastError: delivery.lastError,
    reason: delivery.reason,
    priceReason: delivery.priceReason,
    createdAt: delivery.createdAt.toISOString(),
    completedAt: iso(delivery.completedAt),
    canRetry: delivery.status === "failed",
    canReturn: returnsPossible && delivery.kind === "buyer" && delivery.status === "accepted",
  };
}

/** The lead's auction with every ping, the winners marked by their deliveries; undefined when it was not auctioned. */
async function auctionView(db: Database, reference: string, deliveries: readonly DeliveryRecord[]): Promise<AuctionView | undefined> {
  const auctions = auctionRepository(db);
  const auction = await auctions.find(reference);
  if (!auction) return undefined;
  const winners = new Set(deliveries.filter((delivery) => delivery.auctionId === auction.id).map((delivery) => delivery.target));
  return {
    status: auction.status,
    saleType: auction.saleType,
    reason: auction.reason,
    test: auction.test,
    floor: auction.floor,
    pingedAt: iso(auction.pingedAt),
    decidedAt: iso(auction.decidedAt),
    pings: (await auctions.pings(auction.id)).map((ping) => ({
      buyerId: ping.buyerId,
      outcome: ping.outcome,
      latencyMs: ping.latencyMs,
      httpStatus: ping.httpStatus,
      price: ping.price,
      saleType: ping.saleType,
      bidId: ping.bidId,
      detail: ping.detail,
      won: winners.has(ping.buyerId),
      excerpt: ping.answerExcerpt,
      requestSent: sentRequestView(ping.requestSent),
    })),
  };
}

/**
 * What an analyst's view leaves out: a buyer's own words (its error text, response excerpts and the
 * lead id it gave), which a buyer may write a person's phone or email into, and the request as
 * sent (its contact is masked, but analysts see no contact even masked). Analysts never see
 * contact details (issue 33); ops read these to fix a delivery.
 */
function withoutBuyerWords(view: LeadsView): LeadsView {
  return {
    ...view,
    failed: view.failed.map((row) => ({ ...row, lastError: null })),
    deliveries: view.deliveries.map((delivery) => ({ ...delivery, lastError: null, buyerLeadId: null, requestSent: null, attempts: delivery.attempts.map((attempt) => ({ ...attempt, excerpt: null })) })),
    ...(view.auction ? { auction: { ...view.auction, pings: view.auction.pings.map((ping) => ({ ...ping, excerpt: null, requestSent: null })) } } : {}),
  };
}

/** An analyst's lead carries no contact details at all, not even masked, nor the caller's name, ZIP or city. */
function withoutContact(view: LeadsView): LeadsView {
  if (!view.lead) return view;
  const { contact: _contact, ...lead } = view.lead;
  return { ...view, lead };
}

/**
 * `returnsPossible`: the server knows its buyers (the live settings), which a return needs; `buyers`, for
 * the per-buyer offers; `role`: an analyst's view carries no buyer's own words and no contact
 * details; `reveal` (ops, POST /leads/contact only): the phone and email unmasked.
 */
export async function leadsView(db: Database, raw: unknown, returnsPossible: boolean, buyers?: LiveSettings, role: "ops" | "analyst" = "ops", options: { reveal?: boolean } = {}): Promise<LeadsView> {
  const view = await opsLeadsView(db, raw, returnsPossible, buyers, role === "ops" && options.reveal === true);
  return role === "analyst" ? withoutContact(withoutBuyerWords(view)) : view;
}

/** Who sent the lead, for ops helping a caller: name, ZIP and city; phone and email masked unless `reveal`. */
function contactView(lead: LeadRecord, reveal: boolean): LeadContactView {
  return {
    name: `${lead.firstName} ${lead.lastName}`.trim(),
    zip: lead.zip,
    city: lead.city,
    phone: maskPhone(lead.phone),
    email: maskEmail(lead.email),
    ...(reveal ? { revealed: { phone: formatUsPhone(lead.phone), email: lead.email, tel: lead.phone } } : {}),
  };
}

async function opsLeadsView(db: Database, raw: unknown, returnsPossible: boolean, buyers: LiveSettings | undefined, reveal: boolean): Promise<LeadsView> {
  const failed = await recentFailed(db);
  if (raw === undefined || raw === "") return { page: "leads", deliveries: [], failed };
  const reference = leadReferenceOf(raw);
  if (reference === undefined) return { page: "leads", deliveries: [], failed, error: "A lead reference looks like LD-7K3M-Q9XD." };
  const [lead, deliveries] = await Promise.all([leadRepository(db).findByReference(reference), deliveryRepository(db).list({ reference })]);
  const views = await Promise.all(deliveries.map((delivery) => deliveryView(db, delivery, returnsPossible)));
  if (!lead && views.length === 0) return { page: "leads", reference, deliveries: [], failed, error: `No lead ${reference}.` };
  const [auction, checks] = await Promise.all([auctionView(db, reference, deliveries), lead ? leadCheckRepository(db.builder).of(reference) : undefined]);
  const offers = lead && buyers ? await buyerOffersView(db, lead, buyers, deliveries, auction) : undefined;
  return {
    page: "leads",
    reference,
    // The contact is masked here (leadsView drops it for analysts); shown whole only when ops ask, logged.
    ...(lead
      ? { lead: { reference: lead.reference, receivedAt: lead.receivedAt.toISOString(), state: lead.state, sid: lead.sid, tid: lead.tid, duplicateOf: lead.duplicateOf, gpc: lead.gpc, quote: quoteFacts(lead), contact: contactView(lead, reveal) } }
      : {}),
    ...(checks ? { checks: checks.map(leadCheckView) } : {}),
    ...(auction ? { auction } : {}),
    ...(offers ? { offers } : {}),
    deliveries: views,
    failed,
  };
}
