/**
 * What the lead service asks of delivery when a quote request is stored: may this lead be sold
 * (no Global Privacy Control, not on the suppression list), and the work to do inside the lead's
 * transaction (scheduling its deliveries to the buyers named in the disclosure it was consented under).
 */
import type { AfterInsert } from "../db/leads";
import type { DeliveryPlanner } from "./plan";

export interface SaleFacts {
  gpc: boolean;
  email: string;
  phone: string;
}

export interface LeadRouting {
  saleAllowed(facts: SaleFacts): Promise<boolean>;
  afterInsert(sale: boolean, now: Date): AfterInsert;
}

export interface LeadRoutingOptions {
  planner: DeliveryPlanner;
  /** The buyers named in the disclosure visitors consent to now (stale versions are refused before this). */
  namedBuyerIds: () => readonly string[];
  /** The suppression list's verdict besides GPC; absent: GPC alone decides. */
  saleAllowed?: (facts: SaleFacts) => Promise<boolean>;
}

export function createLeadRouting({ planner, namedBuyerIds, saleAllowed }: LeadRoutingOptions): LeadRouting {
  return {
    saleAllowed: saleAllowed ?? (async (facts) => !facts.gpc),
    afterInsert: (sale, now) => async (tx, lead) => {
      await planner.schedule(tx, lead, { sale, namedBuyerIds: namedBuyerIds(), now });
    },
  };
}
