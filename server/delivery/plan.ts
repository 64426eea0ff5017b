/**
 * Which buyers get a new lead, decided inside the lead's own transaction (the outbox): the
 * buyers named in the consent disclosure the visitor agreed to, that take leads from the lead's
 * state, are open by their schedule, and have room under their daily cap (counted in the
 * database, so every replica sees the same count). A duplicate (the same person within the
 * duplicate window) is not delivered again. docs/lead-delivery.md.
 */
import type { Transaction } from "kysely";
import type { Tables } from "../db/schema";
import { reserveDailySlot, scheduleDeliveries, type NewDelivery } from "../db/deliveries";
import { buyerDay, isOpen, takesState, type BuyersFile } from "./buyers";

export interface StoredLeadFacts {
  id: string | number;
  reference: string;
  state: string;
  duplicateOf: string | null;
}

export interface DeliveryPlanner {
  /** Schedules the lead's deliveries in `tx`; returns the buyers it goes to. */
  schedule(tx: Transaction<Tables>, lead: StoredLeadFacts, options: { sale: boolean; namedBuyerIds: readonly string[]; now: Date }): Promise<string[]>;
}

/** Stable per lead and buyer, the same on every retry: buyers de-duplicate on it. */
export const deliveryKey = (reference: string, buyerId: string) => `${reference}:${buyerId}`;

export function createDeliveryPlanner(file: BuyersFile): DeliveryPlanner {
  return {
    async schedule(tx, lead, { sale, namedBuyerIds, now }) {
      if (lead.duplicateOf !== null) return [];
      const named = new Set(namedBuyerIds);
      const deliveries: NewDelivery[] = [];
      for (const buyer of file.buyers) {
        if (!named.has(buyer.id) || !takesState(buyer, lead.state) || !isOpen(buyer, now)) continue;
        const capDay = buyer.dailyCap === undefined ? null : buyerDay(buyer, now);
        if (capDay !== null && !(await reserveDailySlot(tx, buyer.id, capDay, buyer.dailyCap))) continue;
        deliveries.push({
          kind: "buyer",
          target: buyer.id,
          idempotencyKey: deliveryKey(lead.reference, buyer.id),
          sale,
          price: sale ? buyer.price : null,
          url: null,
          capDay,
          // Due from the lead's own time (the app's clock, not the database's).
          dueAt: now,
        });
      }
      await scheduleDeliveries(tx, lead, deliveries);
      return deliveries.map((delivery) => delivery.target);
    },
  };
}
