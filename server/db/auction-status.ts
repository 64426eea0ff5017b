/**
 * The one owner of `auctions.status` (issue 43, "one owner per table"; DESIGN.md): every change of
 * an auction's status is one of the statements or statement parts below, so the states an auction
 * can pass through (pending → pinging → decided | unsold; decided → cascading → decided | sold |
 * unsold; any live one → sold | unsold when its person revokes consent) are read in one place.
 * Before, 8 statements in 3 files changed it. The auction (server/auction/auctions.ts), the
 * delivery records (server/db/deliveries.ts) and a revocation (server/privacy/requests.ts) call
 * these; parts are SQL fragments so a caller's single statement (decision 035) stays one.
 */
import { sql, type RawBuilder, type Transaction } from "kysely";
import type { Tables } from "./schema";

/** The columns a claim returns, as the auction reads them. */
const CLAIMED_COLUMNS = sql.raw(`id, lead_id AS "leadId", lead_reference AS "leadReference", ping_id AS "pingId", test, floor, status,
  sale_type AS "saleType", reason, pinged_at AS "pingedAt", bids_expire_at AS "bidsExpireAt", decided_at AS "decidedAt"`);

/**
 * Claims up to `limit` auctions to run, with a lease: pending ones (now pinging), cascading ones
 * (a winner's post was refused or failed), and pinging or cascading ones whose lease ran out.
 */
export function claimAuctions(limit: number, leaseMs: number, now: Date): RawBuilder<Record<string, unknown>> {
  return sql<Record<string, unknown>>`
    UPDATE auctions SET status = CASE WHEN status = 'cascading' THEN 'cascading' ELSE 'pinging' END,
      locked_until = ${new Date(now.getTime() + leaseMs)}::timestamptz
    WHERE id IN (
      SELECT id FROM auctions
      WHERE status = 'pending' OR (status IN ('pinging', 'cascading') AND coalesce(locked_until, '-infinity') < ${now}::timestamptz)
      ORDER BY created_at LIMIT ${limit}
      FOR UPDATE SKIP LOCKED)
    RETURNING ${CLAIMED_COLUMNS}`;
}

export interface Decision {
  auctionId: string;
  /** The sale's type; null: unsold, with `reason`. */
  saleType: "exclusive" | "shared" | null;
  reason: string | null;
  now: Date;
  /** Until when its bids hold (a cascade sells to them while they do); null when unsold. */
  bidsExpireAt: Date | null;
  /** When the round was pinged, if the row has none yet. */
  pingedAt?: Date;
  /** Only from this status (the first settlement: "pinging"); any status when not given (the row is locked). */
  from?: "pinging";
}

/**
 * An auction decided (sold to `saleType`'s winners) or ended unsold, as a statement part that
 * returns the row's `id, lead_id, lead_reference` for the winners' posts to be queued from. A
 * first settlement writes only while the row still says `pinging` and its lead is there.
 */
export function decideAuction(decision: Decision): RawBuilder<{ id: string | number; lead_id: string | number; lead_reference: string }> {
  const decided = decision.saleType !== null;
  return sql`
    UPDATE auctions SET status = ${decided ? "decided" : "unsold"}, sale_type = ${decision.saleType}, reason = ${decided ? null : decision.reason},
      locked_until = NULL, decided_at = ${decision.now}::timestamptz, bids_expire_at = ${decision.bidsExpireAt}::timestamptz
      ${decision.pingedAt ? sql`, pinged_at = coalesce(pinged_at, ${decision.pingedAt}::timestamptz)` : sql``}
    WHERE id = ${decision.auctionId} ${decision.from ? sql`AND status = ${decision.from} AND lead_id IS NOT NULL` : sql``}
    RETURNING id, lead_id, lead_reference`;
}

/** An auction ended unsold after all (in the settlement's transaction, its row locked): its sale type and bids are kept for the record. */
export async function endUnsold(tx: Transaction<Tables>, auctionId: string, reason: string, now: Date): Promise<void> {
  await sql`UPDATE auctions SET status = 'unsold', reason = ${reason}, locked_until = NULL, decided_at = ${now}::timestamptz WHERE id = ${auctionId}`.execute(tx);
}

/** A cascade that changed nothing (another winner's post is still live) leaves the auction decided. */
export async function cascadeUnchanged(tx: Transaction<Tables>, auctionId: string): Promise<void> {
  await sql`UPDATE auctions SET status = 'decided', locked_until = NULL WHERE id = ${auctionId} AND status = 'cascading'`.execute(tx);
}

/**
 * The auctions whose posts just ended, as a statement part over a CTE named `ended` (auction_id,
 * sold): an accepted post sells its auction; a refused or failed one leaves it `cascading` for the
 * auction to sell to the next best bids (migration 18).
 */
export const auctionsEndedByPosts = sql`
  UPDATE auctions a SET status = CASE WHEN ended.sold THEN 'sold' ELSE 'cascading' END, locked_until = NULL
  FROM ended
  WHERE a.id = ended.auction_id AND (a.status = 'decided' OR (ended.sold AND a.status = 'cascading'))`;

/**
 * The auctions of these leads end when their person revokes consent: sold if a post of theirs was
 * already accepted (or is being sent), unsold otherwise. `leads` selects lead references.
 */
export async function endAuctionsOfRevokedLeads(tx: Transaction<Tables>, leads: RawBuilder<unknown>): Promise<void> {
  await sql`
    UPDATE auctions SET status = CASE WHEN EXISTS (SELECT 1 FROM deliveries d WHERE d.auction_id = auctions.id AND d.status IN ('accepted', 'returned', 'sending')) THEN 'sold' ELSE 'unsold' END,
      reason = 'consent revoked', locked_until = NULL
    WHERE lead_reference IN ${leads} AND status IN ('pending', 'pinging', 'decided')`.execute(tx);
}
