/**
 * Which buyers get a new lead, written with the lead in its own statement (the outbox): the
 * buyers named in the consent disclosure the visitor agreed to, that take leads from the lead's
 * state and pass their filters on its answers (offer.ts), are active and open by their schedule,
 * and have room under their caps and budgets (taken in that same statement, counted in the
 * database, so every replica sees the same count: server/db/buyer-counters.ts), each at its price
 * by its price rules. That statement also
 * leaves out a duplicate (the same person within the duplicate window: not delivered again) and
 * sends a suppressed contact's lead as not for sale (server/db/leads.ts). docs/lead-delivery.md.
 */
import type { NewDelivery } from "../db/deliveries";
import type { PlannedLead } from "../leads/store";
import { capPeriods, isLimited, shutByLimits, type LiveSettings } from "./buyers";
import { mayOffer, offerFacts, priceFor, type OfferFacts } from "./offer";

export interface DeliveryPlanner {
  /**
   * The lead's deliveries, written in the lead's own statement (server/db/leads.ts): a capped
   * buyer's only if its daily slot can still be taken there.
   */
  plan(lead: PlannedLead, options: { sale: boolean; namedBuyerIds: readonly string[]; now: Date }): NewDelivery[];
}

/** Stable per lead and buyer, the same on every retry: buyers de-duplicate on it. */
export const deliveryKey = (reference: string, buyerId: string) => `${reference}:${buyerId}`;

/**
 * The lead's facts for the buyers' filters (drivers' ages at `now`, incident totals), worked out
 * once per lead: the routing's auction check and the planner both read them, then every buyer.
 */
const factsByLead = new WeakMap<PlannedLead, { now: number; facts: OfferFacts }>();
export function plannedFacts(lead: PlannedLead, now: Date): OfferFacts {
  const known = factsByLead.get(lead);
  if (known?.now === now.getTime()) return known.facts;
  const facts = offerFacts({ ...lead.answers, state: lead.state, test: lead.test }, now);
  factsByLead.set(lead, { now: now.getTime(), facts });
  return facts;
}

/** `buyers`: the settings in force at the time of each lead (server/settings/directory.ts). */
export function createDeliveryPlanner(buyers: () => LiveSettings): DeliveryPlanner {
  return {
    plan(lead, { sale, namedBuyerIds, now }) {
      const named = new Set(namedBuyerIds);
      const deliveries: NewDelivery[] = [];
      const facts = plannedFacts(lead, now);
      for (const buyer of buyers().buyers) {
        if (!mayOffer(buyer, facts, named, now)) continue;
        const priced = priceFor(buyer, facts);
        // A cap of 0, or a budget below this lead's price, takes nothing. A lead sent as the visitor
        // directed (not sold) takes a slot of the caps but none of the budgets.
        const spend = sale ? priced.price : 0;
        const limited = isLimited(buyer);
        if (limited && shutByLimits(buyer, spend)) continue;
        const periods = limited ? capPeriods(buyer, now) : undefined;
        deliveries.push({
          kind: "buyer",
          target: buyer.id,
          idempotencyKey: deliveryKey(lead.reference, buyer.id),
          sale,
          price: sale ? priced.price : null,
          priceReason: sale ? priced.reason : null,
          url: null,
          capDay: periods?.day ?? null,
          ...(periods ? { reservation: { buyerId: buyer.id, periods, price: spend, caps: buyer.caps, budget: buyer.budget } } : {}),
          // Due from the lead's own time (the app's clock, not the database's).
          dueAt: now,
        });
      }
      return deliveries;
    },
  };
}
