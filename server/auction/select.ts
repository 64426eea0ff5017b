/**
 * Who wins the lead (issue 16; docs/lead-auction.md). Pure arithmetic over valid bids:
 *
 * - the best exclusive bid wins alone if its price beats (is strictly more than) the sum of the
 *   best shared bids, at most `maxShared` of them; otherwise those shared bids win together;
 * - "best" is the higher price, then the buyer's higher priority, then the earlier answer, then
 *   the buyer id (so the order is total and every replica computes the same one);
 * - a buyer wins at most once, whatever it bid.
 *
 * The cascade (a winner's post refused or failed) asks again with what is left: the buyers that
 * already failed are out, the accepted shared sales keep their places (no exclusive once anything
 * is sold; only the free shared places), and an accepted exclusive ends the sale.
 */
import type { Bid } from "./bids";

export type Sale =
  | { type: "exclusive"; winners: [Bid] }
  | { type: "shared"; winners: Bid[] }
  | { type: "unsold"; winners: []; reason: string };

/** Higher price, higher priority, earlier answer, then buyer id: a total order. */
export function compareBids(a: Bid, b: Bid): number {
  return b.price - a.price || b.priority - a.priority || a.answeredAfterMs - b.answeredAfterMs || (a.buyerId < b.buyerId ? -1 : a.buyerId > b.buyerId ? 1 : 0);
}

const cents = (price: number) => Math.round(price * 100);

export interface SelectOptions {
  maxShared: number;
  /** Buyers out of this sale: already sold to, or their post failed. */
  excluded?: ReadonlySet<string>;
  /** Shared sales already accepted: they take places, and rule out an exclusive. */
  acceptedShared?: number;
}

export function selectWinners(bids: readonly Bid[], options: SelectOptions): Sale {
  const excluded = options.excluded ?? new Set<string>();
  const acceptedShared = options.acceptedShared ?? 0;
  // Each buyer's best bid of each type, outside the excluded.
  const open = [...bids].filter((bid) => !excluded.has(bid.buyerId)).sort(compareBids);
  const firstPerBuyer = (type: Bid["type"]) => {
    const seen = new Set<string>();
    return open.filter((bid) => bid.type === type && !seen.has(bid.buyerId) && seen.add(bid.buyerId));
  };
  const places = Math.max(0, options.maxShared - acceptedShared);
  const shared = firstPerBuyer("shared").slice(0, places);
  const exclusive = acceptedShared === 0 ? firstPerBuyer("exclusive")[0] : undefined;
  const sharedSum = shared.reduce((sum, bid) => sum + cents(bid.price), 0);
  if (exclusive && cents(exclusive.price) > sharedSum) return { type: "exclusive", winners: [exclusive] };
  if (shared.length > 0) return { type: "shared", winners: shared };
  if (places === 0) return { type: "unsold", winners: [], reason: "every shared place is taken" };
  return { type: "unsold", winners: [], reason: open.length === 0 ? "no valid bid" : "no bid of a type still for sale" };
}

/** The sale's revenue, in dollars. */
export function saleRevenue(sale: Sale): number {
  return sale.winners.reduce((sum, bid) => sum + cents(bid.price), 0) / 100;
}
