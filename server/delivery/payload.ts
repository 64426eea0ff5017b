/**
 * What a buyer receives for a lead (docs/lead-delivery.md documents it field by field), and what
 * a traffic source's postback address becomes.
 */
import { createHash } from "node:crypto";
import type { LeadRecord } from "../db/leads";
import { LEAD_ANSWER_COLUMNS } from "../db/lead-rows";
import type { NewDelivery } from "../db/deliveries";
import type { Source } from "./buyers";
import { callingRules, type CallingRules } from "./calling-rules";

export interface DeliveryPayload {
  reference: string;
  receivedAt: string;
  /** false: sent only because the visitor asked for quotes under a privacy opt-out: not sold, no charge, no other use. */
  sale: boolean;
  price: number | null;
  source: { sid: string } | null;
  lead: Record<(typeof LEAD_ANSWER_COLUMNS)[number] | "city" | "state", unknown>;
  consent: {
    disclosureVersion: number;
    disclosureSha256: string;
    consentedAt: string;
    ip: string;
    userAgent: string;
    formUrl: string;
    pageUrl: string;
    certificateUrl: string | null;
    /** TrustedForm's certificate URL and Jornaya's LeadiD token as the form sent them (issue 44); only when it sent them. */
    trustedFormCertUrl?: string;
    leadidToken?: string;
  } | null;
  /** Sold by the auction (server/auction/): the sale's type and the bid id the buyer gave; null for a fixed-price post. */
  auction: { saleType: "exclusive" | "shared"; bidId: string | null } | null;
  /** When the visitor may be called: the lead's time zone and the federal and state hours and limits (docs/calling-rules.md). */
  callingRules: CallingRules;
}

export function deliveryPayload(
  lead: LeadRecord,
  options: { sale: boolean; price: number | null; certificateUrl: string | null; auction?: DeliveryPayload["auction"]; timeZone?: string | null },
): DeliveryPayload {
  const answers = Object.fromEntries(LEAD_ANSWER_COLUMNS.map((column) => [column, lead[column]]));
  const consent = lead.consent;
  return {
    reference: lead.reference,
    receivedAt: lead.receivedAt.toISOString(),
    sale: options.sale,
    price: options.sale ? options.price : null,
    source: lead.sid ? { sid: lead.sid } : null,
    lead: { ...answers, city: lead.city, state: lead.state } as DeliveryPayload["lead"],
    consent: consent && {
      disclosureVersion: consent.disclosureVersion,
      disclosureSha256: consent.disclosureSha256,
      consentedAt: consent.consentedAt.toISOString(),
      ip: consent.ip,
      userAgent: consent.userAgent,
      formUrl: consent.formUrl,
      pageUrl: consent.pageUrl,
      certificateUrl: options.certificateUrl,
      ...(consent.trustedFormCertUrl ? { trustedFormCertUrl: consent.trustedFormCertUrl } : {}),
      ...(consent.leadidToken ? { leadidToken: consent.leadidToken } : {}),
    },
    auction: options.auction ?? null,
    callingRules: callingRules(lead.state, options.timeZone ?? null),
  };
}

export type PostbackStatus = "sold" | "returned";

/** The lead's traffic source, when it is configured and not archived (an archived one is paid nothing and gets no postbacks). */
export function activeSource(sources: readonly Source[], sid: string | null): Source | undefined {
  return sid === null ? undefined : sources.find((source) => source.sid === sid && source.status === "active");
}

/** What a lead's traffic source is paid when a buyer accepts it (0 for sources not configured or archived). */
export function sourcePayout(sources: readonly Source[], sid: string | null): number {
  return activeSource(sources, sid)?.payout ?? 0;
}

/**
 * The id of one postback event, which the source deduplicates on: postbacks are sent at least
 * once (a worker that dies between the call and its record leaves a lease that runs out, and the
 * call is made again), so every attempt of a lead's `sold` postback carries the same id, and its
 * `returned` postback another. Derived from the delivery's idempotency key (lead reference and
 * status) by a one-way hash, so it is stable without being stored, and tells the source nothing
 * about the lead or the person: 128 bits in hex, safe in any URL.
 */
export function postbackEventId(idempotencyKey: string): string {
  return `pb_${createHash("sha256").update(`postback-event\n${idempotencyKey}`).digest("hex").slice(0, 32)}`;
}

/** The source's postback template with {tid}, {payout}, {status} and {event_id} filled in, each URL-encoded. */
export function postbackUrl(template: string, values: { tid: string; payout: number; status: PostbackStatus; eventId: string }): string {
  return template
    .replaceAll("{tid}", encodeURIComponent(values.tid))
    .replaceAll("{payout}", encodeURIComponent(values.payout.toFixed(2)))
    .replaceAll("{status}", encodeURIComponent(values.status))
    .replaceAll("{event_id}", encodeURIComponent(values.eventId));
}

/**
 * A source's postback for a lead, as a delivery to queue: once per lead and status (its key says
 * so), to the source's address with the click id, the payout and the event id filled in.
 * Undefined when the lead came without a click id or its source has no postback address.
 */
export function postbackDelivery(sources: readonly Source[], lead: { reference: string; sid: string | null; tid: string | null }, status: PostbackStatus, dueAt: Date): NewDelivery | undefined {
  const source = activeSource(sources, lead.sid);
  if (!source?.postbackUrl || !lead.tid) return undefined;
  const idempotencyKey = `${lead.reference}:postback:${status}`;
  return {
    kind: "postback",
    target: source.sid,
    idempotencyKey,
    sale: true,
    price: source.payout,
    url: postbackUrl(source.postbackUrl, { tid: lead.tid, payout: source.payout, status, eventId: postbackEventId(idempotencyKey) }),
    capDay: null,
    dueAt,
  };
}

export { responseExcerpt } from "./excerpt";
