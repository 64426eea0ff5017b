/**
 * The lead page's "Offers" section: each configured buyer, offered or excluded and by which rule,
 * computed with the very evaluator delivery and the auction use (server/delivery/offer.ts) against
 * the stored lead, so ops read why a buyer did not get it instead of guessing from the file. The
 * rules are read at the lead's receipt (when its fixed-price deliveries are planned; an auction
 * pings moments later), with its consent's named buyers. Daily caps are not evaluated here: a cap
 * is taken when the lead is offered, and what happened is shown beside it from the records
 * (a delivery's status, a ping's outcome), not recomputed.
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
  const delivered = new Map(deliveries.filter((delivery) => delivery.kind === "buyer").map((delivery) => [delivery.target, delivery.status]));
  const pinged = new Map((auction?.pings ?? []).map((ping) => [ping.buyerId, ping.outcome]));
  return {
    at: at.toISOString(),
    buyers: buyers.buyers.map((buyer) => {
      const offer = evaluateOffer(buyer, facts, { named, now: at });
      const delivery = delivered.get(buyer.id);
      const ping = pinged.get(buyer.id);
      return {
        buyerId: buyer.id,
        name: buyer.name,
        mode: buyer.mode,
        offered: offer.offered,
        rule: offer.offered ? null : offer.rule,
        reason: offer.offered ? null : offer.reason,
        recorded: delivery !== undefined ? `delivery ${delivery}` : ping !== undefined ? `ping ${ping.replace(/_/g, " ")}` : null,
      };
    }),
  };
}
