/**
 * Storing a privacy request, however it arrived (the form at /do-not-sell, or by phone or email
 * through `npm run privacy-requests -- record`): the request and, for an opt-out, its contact on
 * the suppression list, in one transaction. A request from a browser that sent Global Privacy
 * Control puts its contact on the list too, whatever its type: the signal is an opt-out, and the
 * request tells us who the person is (docs/decisions/011-privacy-choices-in-delivery.md).
 */
import { sql, type Transaction } from "kysely";
import type { Database } from "../db/database";
import type { Tables } from "../db/schema";
import { privacyRequestRepository, type CreateResult, type NewPrivacyRequest } from "../db/privacy-requests";
import type { PrivacyRequestType } from "../../shared/privacy-request";
import { suppressionList, type SuppressionSource } from "./suppression";
import { endAuctionsOfRevokedLeads } from "../db/auction-status";
import { stopPostsAndQueueRevocations } from "../db/deliveries";

/** How a request reached us. */
export type RequestChannel = "web_form" | "phone" | "email";

export const OPT_OUT_TYPES: readonly PrivacyRequestType[] = ["opt_out_sale_sharing", "nevada_opt_out"];

export function isOptOut(type: PrivacyRequestType): boolean {
  return OPT_OUT_TYPES.includes(type);
}

/** Under which source the request's contact goes on the suppression list, or null when it does not. */
export function suppressionSourceOf(request: { requestType: PrivacyRequestType; gpc: boolean }, channel: RequestChannel): SuppressionSource | null {
  if (isOptOut(request.requestType)) return channel;
  return request.gpc ? "gpc" : null;
}

export type StoreResult = CreateResult & {
  /** Whether the contact is on the suppression list because of this request (newly or already). */
  suppressed: boolean;
  /** A revocation: the consent.revoked webhooks queued to buyers (0 otherwise, or for a person with no lead). */
  webhooks: number;
};

/**
 * A revocation of consent to be contacted (47 CFR 64.1200(a)(10)), in the request's transaction:
 * the person's consent records are marked revoked (by email or phone, either matches), their
 * leads leave further sale at once (deliveries not yet sent are stopped, auctions not yet settled
 * end unsold), and every buyer that received one of them gets a `consent.revoked` webhook, queued
 * as a delivery of kind `revocation` (sent and retried by the delivery worker). Returns how many
 * webhooks were queued. The person's later quote requests carry their own, new consent.
 */
export async function revokeConsent(tx: Transaction<Tables>, contact: { email?: string | undefined; phone?: string | undefined }, reference: string, at: Date): Promise<number> {
  if (!contact.email && !contact.phone) return 0;
  const matches = sql`(${contact.email ? sql`email = ${contact.email}::text` : sql`false`} OR ${contact.phone ? sql`phone = ${contact.phone}::text` : sql`false`})`;
  await sql`UPDATE lead_consents SET revoked_at = ${at}::timestamptz, revocation_reference = ${reference}::text WHERE ${matches} AND revoked_at IS NULL`.execute(tx);
  const leads = sql`(SELECT lead_reference FROM lead_consents WHERE ${matches})`;
  // Each table's owner makes its change: the auctions end, the posts not sent stop, the webhooks queue.
  await endAuctionsOfRevokedLeads(tx, leads);
  return (await stopPostsAndQueueRevocations(tx, leads, reference, at)).length;
}

/**
 * The repository over a transaction: privacyRequestRepository reads and writes only through
 * `builder`, so handing it the transaction puts its statements in it. Plain SQL is not available.
 */
function within(db: Database, tx: Transaction<Tables>): Database {
  const unavailable = () => Promise.reject(new Error("Only the query builder is available inside this transaction"));
  return { kind: db.kind, builder: tx, query: unavailable, transaction: unavailable, close: unavailable };
}

/**
 * Stores the request once (the same submissionId again reports the first one's reference) and,
 * for an opt-out or a GPC request, adds its email and phone to the suppression list, in the
 * same transaction: a request is never stored without its opt-out taking effect.
 */
export async function storePrivacyRequest(db: Database, request: NewPrivacyRequest, channel: RequestChannel): Promise<StoreResult> {
  return db.builder.transaction().execute(async (tx) => {
    const result = await privacyRequestRepository(within(db, tx)).create(request);
    const reference = result.created ? result.reference : result.duplicateOf;
    const webhooks = request.requestType === "revoke_consent" && result.created ? await revokeConsent(tx, { email: request.email, phone: request.phone }, reference, request.receivedAt) : 0;
    const source = suppressionSourceOf(request, channel);
    if (source === null) return { ...result, suppressed: false, webhooks };
    // Also for a duplicate: idempotent, and it covers a request stored before the list existed.
    await suppressionList(tx).add({ email: request.email, phone: request.phone }, source, reference);
    return { ...result, suppressed: true, webhooks };
  });
}
