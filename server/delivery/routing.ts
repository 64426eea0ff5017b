/**
 * What the lead service asks of delivery when a quote request is stored: the lead's deliveries,
 * to the buyers named in the disclosure it was consented under, written in the lead's own
 * statement (the outbox). Whether it may be sold is the lead service's call (GPC, suppression list).
 */
import { randomUUID } from "node:crypto";
import type { NewDelivery } from "../db/deliveries";
import type { NewAuction } from "../db/leads";
import type { PlannedLead } from "../leads/store";
import { plannedFacts, type DeliveryPlanner } from "./plan";
import type { LiveSettings } from "./buyers";
import { mayOffer } from "./offer";
import { activeSource } from "./payload";

/**
 * `named`: the buyers named in the disclosure THIS lead was consented under (its version's
 * buyer ids, server/leads/visitor-disclosure.ts): each visitor's words name their own buyers, so
 * there is no one list for every lead.
 */
export interface LeadRouting {
  deliveries(lead: PlannedLead, sale: boolean, now: Date, named: readonly string[]): NewDelivery[];
  /**
   * The lead's auction, when it may be sold and a ping/post buyer could bid for it (named in the
   * disclosure, taking its state and passing its filters, open now); the auction then sells it to every kind of buyer.
   * Undefined: today's fixed-price deliveries.
   */
  auction(lead: PlannedLead, sale: boolean, now: Date, named: readonly string[]): NewAuction | undefined;
}

export interface LeadRoutingOptions {
  planner: DeliveryPlanner;
  /** The settings in force, for the auction's buyers and the sources' floors. */
  buyers?: () => LiveSettings;
}

export function createLeadRouting({ planner, buyers: settings }: LeadRoutingOptions): LeadRouting {
  return {
    deliveries: (lead, sale, now, namedBuyerIds) => planner.plan(lead, { sale, namedBuyerIds, now }),
    auction(lead, sale, now, namedBuyerIds) {
      if (!sale || !settings) return undefined;
      const buyers = settings();
      const named = new Set(namedBuyerIds);
      const facts = plannedFacts(lead, now);
      const bidder = buyers.buyers.some((buyer) => buyer.mode === "pingpost" && mayOffer(buyer, facts, named, now));
      if (!bidder) return undefined;
      const floor = activeSource(buyers.sources, lead.sid)?.floor ?? 0;
      return { pingId: randomUUID(), test: lead.test, floor };
    },
  };
}
