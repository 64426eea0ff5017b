/**
 * What the lead service asks of delivery when a quote request is stored: the lead's deliveries,
 * to the buyers named in the disclosure it was consented under, written in the lead's own
 * statement (the outbox). Whether it may be sold is the lead service's call (GPC, suppression list).
 */
import type { NewDelivery } from "../db/deliveries";
import type { PlannedLead } from "../db/leads";
import type { DeliveryPlanner } from "./plan";

export interface LeadRouting {
  deliveries(lead: PlannedLead, sale: boolean, now: Date): NewDelivery[];
}

export interface LeadRoutingOptions {
  planner: DeliveryPlanner;
  /** The buyers named in the disclosure visitors consent to now (stale versions are refused before this). */
  namedBuyerIds: () => readonly string[];
}

export function createLeadRouting({ planner, namedBuyerIds }: LeadRoutingOptions): LeadRouting {
  return {
    deliveries: (lead, sale, now) => planner.plan(lead, { sale, namedBuyerIds: namedBuyerIds(), now }),
  };
}
