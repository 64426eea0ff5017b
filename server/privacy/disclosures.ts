/**
 * Which buyer got which lead of one person, when and at what price: the record that answers an
 * access (right to know) or a Shine the Light request (`npm run privacy-requests -- disclosures`).
 * One row per delivery of each of the person's leads: to a buyer, or a conversion postback to the
 * traffic source the visitor came from.
 */
import type { DeliveryRepository } from "../db/deliveries";
import type { DeliveryStatus } from "../db/schema";
import { normalizeUsPhone } from "../../shared/contact";
import { normalizeEmail } from "./suppression";

export interface Disclosure {
  leadReference: string;
  leadReceivedAt: Date;
  kind: "buyer" | "postback" | "revocation";
  /** The buyer's id, or the traffic source's sid for a postback. */
  recipientId: string;
  /** The buyer's name from BUYERS_FILE; its id when the file is not loaded or no longer lists it. */
  recipientName: string;
  status: DeliveryStatus;
  /** false: sent as the visitor directed (GPC or the suppression list), not sold. */
  sale: boolean;
  price: number | null;
  scheduledAt: Date;
  /** The first attempt that reached the recipient (it answered, or timed out); null: never sent. */
  sentAt: Date | null;
  attempts: number;
  acceptedAt: Date | null;
  returnedAt: Date | null;
  /** Why the recipient rejected or returned it. */
  reason: string | null;
}

/** The outcomes of an attempt in which the lead reached the recipient (a network error or a hold did not send it). */
const REACHED = new Set(["accepted", "rejected", "retry", "timeout"]);

/** Lower-cased email and E.164 phone, as leads store them; throws on a phone that is not a US number. */
export function personContact(email: string | undefined, phone: string | undefined): { email?: string; phone?: string } {
  const normalizedEmail = email === undefined ? undefined : normalizeEmail(email);
  const normalizedPhone = phone === undefined ? undefined : normalizeUsPhone(phone);
  if (phone !== undefined && normalizedPhone === undefined) throw new RangeError(`${phone} is not a US phone number.`);
  return { ...(normalizedEmail ? { email: normalizedEmail } : {}), ...(normalizedPhone ? { phone: normalizedPhone } : {}) };
}

/** Every delivery of the person's leads, oldest first, with the buyers' names. */
export async function disclosuresFor(
  deliveries: Pick<DeliveryRepository, "forPerson" | "attempts">,
  contact: { email?: string; phone?: string },
  buyerNames: ReadonlyMap<string, string>,
): Promise<Disclosure[]> {
  // A consent.revoked webhook tells a buyer what it already holds is no longer to be used: no disclosure.
  const rows = (await deliveries.forPerson(contact)).filter((delivery) => delivery.kind !== "revocation");
  const disclosures: Disclosure[] = [];
  for (const delivery of rows) {
    const attempts = await deliveries.attempts(delivery.id);
    const accepted = delivery.status === "accepted" || delivery.status === "returned";
    disclosures.push({
      leadReference: delivery.leadReference,
      leadReceivedAt: delivery.receivedAt,
      kind: delivery.kind,
      recipientId: delivery.target,
      recipientName: (delivery.kind === "buyer" ? buyerNames.get(delivery.target) : undefined) ?? delivery.target,
      status: delivery.status,
      sale: delivery.sale,
      price: delivery.price,
      scheduledAt: delivery.createdAt,
      sentAt: attempts.find((attempt) => REACHED.has(attempt.outcome))?.attemptedAt ?? null,
      attempts: attempts.length,
      acceptedAt: accepted ? delivery.completedAt : null,
      returnedAt: delivery.returnedAt,
      reason: delivery.reason,
    });
  }
  return disclosures;
}
