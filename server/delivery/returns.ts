/**
 * A buyer returns a lead it accepted (a wrong number, a duplicate in its own system, …): the sale
 * is reversed (the delivery is "returned", its price no longer revenue), and when no buyer keeps
 * the lead the traffic source hears it by a `status=returned` postback. Through the signed
 * POST /api/buyer-returns or the ops command `npm run leads -- return`.
 */
import type { Logger } from "pino";
import type { Database } from "../db/database";
import { deliveryRepository } from "../db/deliveries";
import { postbackDelivery, sourcePayout } from "./payload";
import type { LiveSettings } from "./buyers";
import { scheduleDeliveries } from "../db/deliveries";
import type { EventRecorder } from "../analytics/writer";

export interface ReturnDependencies {
  db: Database;
  buyers: LiveSettings;
  logger: Logger;
  /** Where the return is stored for the report (revenue and payout reversed). */
  analytics?: EventRecorder;
}

export interface ReturnRequest {
  reference: string;
  buyerId: string;
  reason: string;
  via: "api" | "cli" | "console";
}

export type ReturnOutcome =
  | { kind: "returned"; reference: string; buyerId: string; price: number | null }
  /** That buyer's delivery of that lead was returned before. */
  | { kind: "already_returned" }
  /** That buyer has no accepted delivery of that lead (or the lead or buyer is unknown). */
  | { kind: "not_found" };

export async function returnLead({ db, buyers, logger, analytics }: ReturnDependencies, request: ReturnRequest, now: Date = new Date()): Promise<ReturnOutcome> {
  const repository = deliveryRepository(db);
  let payout = 0;
  const returned = await repository.recordReturn(request.reference, request.buyerId, request.reason, now, async (tx, delivery) => {
    const leadId = delivery.leadId;
    // A purged lead (its id gone) has nothing left to report to its source.
    if (leadId === null || !delivery.sale || (await repository.acceptedCount(tx, leadId)) > 0) return;
    const lead = await tx.selectFrom("leads").select(["sid", "tid"]).where("id", "=", leadId).executeTakeFirst();
    // No buyer keeps the lead: the source's payout for it is reversed too (it was paid once, at the first sale).
    payout = sourcePayout(buyers.sources, lead?.sid ?? null);
    const postback = lead ? postbackDelivery(buyers.sources, { reference: delivery.leadReference, ...lead }, "returned", now) : undefined;
    if (postback) await scheduleDeliveries(tx, { id: leadId, reference: delivery.leadReference }, [postback]);
  });
  if (returned) {
    logger.info(
      { event: "lead_returned", reference: request.reference, buyerId: request.buyerId, price: returned.price, via: request.via },
      "lead returned by buyer",
    );
    // The sale's revenue and the source's payout are reversed (a sale not made reverses nothing).
    if (returned.sale) analytics?.record({ name: "lead_returned", at: now, leadReference: request.reference, target: request.buyerId, detail: request.via, revenue: returned.price === null ? null : Number(returned.price), payout: payout > 0 ? payout : null });
    return { kind: "returned", reference: request.reference, buyerId: request.buyerId, price: returned.price };
  }
  const earlier = await repository.list({ reference: request.reference, kind: "buyer" });
  return earlier.some((delivery) => delivery.target === request.buyerId && delivery.status === "returned") ? { kind: "already_returned" } : { kind: "not_found" };
}
