/**
 * The lead page's "Offers" section: each configured buyer, offered or excluded and by which rule,
 * computed with the very evaluator delivery and the auction use (server/delivery/offer.ts) against
 * the stored lead, so ops read why a buyer did not get it instead of guessing from the file. The
 * rules are read at the lead's receipt (when its fixed-price deliveries are planned; an auction
 * pings moments later), with its consent's named buyers. Daily caps are not evaluated here: a cap
 * is taken when the lead is offered, and what happened is shown beside it from the records
 * (a delivery's status, a ping's outcome), not recomputed. Nor are a buyer's requirements (issue
 * 44): their verdict needs the checks' answers at the time, so it is shown where the records
 * carry it (a ping not sent, a post held back, each with its reason).
 */
import type { Database } from "../db/database";
import type { LeadRecord } from "../db/leads";
import type { DeliveryRecord } from "../db/deliveries";
import type { LiveSettings } from "../delivery/buyers";
import { evaluateOffer, offerFacts } from "../delivery/offer";
import { isTestLead } from "../auction/sandbox";
import { namedBuyerIds } from "../consent/disclosures";
import type { AuctionView } from "../../shared/admin-views";
import type { BuyerOffersView } from "../../shared/admin-offers-view";

export async function buyerOffersView(db: Database, lead: LeadRecord, buyers: LiveSettings, deliveries: readonly DeliveryRecord[], auction: AuctionView | undefined): Promise<BuyerOffersView> {
  const at = lead.receivedAt;
  const named = new Set(lead.consent ? await namedBuyerIds(db.builder, lead.consent.disclosureVersion) : []);
  // Once per lead, as at offer time: the drivers' ages then, the household's totals.
  const facts = offerFacts({ ...lead, test: isTestLead(lead) }, at);
  const delivered = new Map(deliveries.filter((delivery) => delivery.kind === "buyer").map((delivery) => [delivery.target, delivery]));
  const pings = new Map((auction?.pings ?? []).map((ping) => [ping.buyerId, ping]));
  return {
    at: at.toISOString(),
    buyers: buyers.buyers.map((buyer) => {
      const offer = evaluateOffer(buyer, facts, { named, now: at });
      const delivery = delivered.get(buyer.id);
      const ping = pings.get(buyer.id);
      return {
        buyerId: buyer.id,
        name: buyer.name,
        mode: buyer.mode,
        offered: offer.offered,
        rule: offer.offered ? null : offer.rule,
        reason: offer.offered ? null : offer.reason,
        recorded: delivery !== undefined ? `delivery ${delivery.status}` : ping !== undefined ? `ping ${ping.outcome.replace(/_/g, " ")}` : null,
        requirement: requirementVerdict(buyer.id, delivery, ping),
      };
    }),
  };
}

/**
 * The requirements' reason as recorded: a post held back ends (or waits) with the error
 * "not sent: <buyer> requires …" (server/delivery/worker.ts), a ping not sent carries "requires …"
 * as its detail (server/auction/auctions.ts). Other reasons (a spec's missing value) are not the
 * requirements'. The text is ours, never the buyer's words, so analysts see it too.
 */
function requirementVerdict(buyerId: string, delivery: DeliveryRecord | undefined, ping: AuctionView["pings"][number] | undefined): string | null {
  const prefix = `not sent: ${buyerId} `;
  // A pending delivery with this error waits for a check's answer (the buyer's "wait"); a failed one was not sent.
  if (delivery && (delivery.status === "failed" || delivery.status === "pending") && delivery.lastError?.startsWith(`${prefix}requires `)) return delivery.lastError.slice(prefix.length);
  if (ping?.outcome === "not_sent" && ping.detail?.startsWith("requires ")) return ping.detail;
  return null;
}
