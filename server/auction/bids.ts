/**
 * A buyer's answer to a ping, read strictly (issue 16; docs/lead-auction.md). A bid is a promise
 * to pay, so it must be signed by the buyer (X-Signature over the answer's body with the buyer's
 * secret, the scheme deliveries use the other way), of a type the buyer takes, at a price, with
 * the buyer's own bid id, and in time. Anything else counts as no bid and is recorded with why:
 * the operator sees which buyer's integration is wrong, and nothing half-read is ever sold.
 *
 *   200 {"bid": {"price": 24.0, "type": "exclusive", "bidId": "b-123"}}   a bid
 *   200 {"bid": null}, or 204                                          no bid
 */
import { z } from "zod";
import type { SendResult } from "../delivery/http-send";
import { verifySignature } from "../delivery/signature";
import { activeSecrets, SALE_TYPES, type Buyer, type SaleType } from "../delivery/buyers";
import type { AnswerReading } from "../delivery/spec";
import type { SentRequest } from "../db/schema";

/** Why a ping ended as it did. Only `bid` takes part in the sale. */
export const PING_OUTCOMES = ["bid", "no_bid", "late", "timeout", "network_error", "http_error", "malformed", "unsigned", "wrong_type", "below_floor", "not_sent"] as const;
export type PingOutcome = (typeof PING_OUTCOMES)[number];

export interface Bid {
  buyerId: string;
  price: number;
  type: SaleType;
  /** The buyer's own id for its bid; null for a fixed-price ("post") buyer's standing bid. */
  bidId: string | null;
  priority: number;
  /** Milliseconds from the auction's start to the answer: the earlier answer wins a tie. */
  answeredAfterMs: number;
}

export interface PingResult {
  buyerId: string;
  outcome: PingOutcome;
  latencyMs: number;
  httpStatus: number | null;
  bid: Bid | null;
  /** What was wrong, for the record (never the answer's text: it is the buyer's). */
  detail: string | null;
  /** An excerpt of the answer, masked (server/delivery/excerpt.ts), for ops on the lead's page. */
  excerpt?: string | null;
  /** The ping as sent, masked: a buyer with its own ping spec. */
  requestSent?: SentRequest | null;
}

const bidSchema = z.object({
  bid: z
    .object({
      price: z.number().positive().max(10_000).multipleOf(0.01),
      type: z.enum(SALE_TYPES),
      bidId: z.string().regex(/^[A-Za-z0-9._:-]{1,100}$/),
    })
    .nullable(),
});

export interface ReadOptions {
  /** From the auction's start to the answer. */
  answeredAfterMs: number;
  deadlineMs: number;
  /** The lead's source's floor: a lower bid is no bid. */
  floor: number;
  now: Date;
}

type Outcome = (outcome: PingOutcome, detail: string | null, bid?: Bid | null) => PingResult;

/** The outcome-maker for one answer, and the outcome that needs no reading of the body (timeouts, late answers). */
function begin(buyer: Buyer, answer: SendResult, options: ReadOptions): { result: Outcome; early: PingResult | undefined } {
  const result: Outcome = (outcome, detail, bid = null) => ({ buyerId: buyer.id, outcome, latencyMs: answer.latencyMs, httpStatus: answer.httpStatus, bid, detail });
  if (answer.outcome === "timeout") return { result, early: result("timeout", answer.excerpt) };
  if (answer.outcome === "network_error") return { result, early: result("network_error", answer.excerpt) };
  if (options.answeredAfterMs > options.deadlineMs) return { result, early: result("late", `answered after ${options.answeredAfterMs} ms, past the ${options.deadlineMs} ms deadline`) };
  return { result, early: undefined };
}

/** A valid bid's last checks, the same for both kinds of buyer: a type it takes, the floor. */
function priced(buyer: Buyer, result: Outcome, bid: { price: number; type: SaleType; bidId: string | null }, options: ReadOptions): PingResult {
  if (!buyer.saleTypes.includes(bid.type)) return result("wrong_type", `a ${bid.type} bid from a buyer that takes ${buyer.saleTypes.join(" and ")} only`);
  if (bid.price < options.floor) return result("below_floor", `${bid.price.toFixed(2)} is below the source's floor of ${options.floor.toFixed(2)}`);
  return result("bid", null, { buyerId: buyer.id, price: bid.price, type: bid.type, bidId: bid.bidId, priority: buyer.priority, answeredAfterMs: options.answeredAfterMs });
}

/** The ping's outcome from the HTTP exchange's, and the bid when there is a valid one. */
export function readBid(buyer: Buyer, answer: SendResult, options: ReadOptions): PingResult {
  const { result, early } = begin(buyer, answer, options);
  if (early) return early;
  if (answer.httpStatus === 204) return result("no_bid", null);
  if (answer.httpStatus !== 200) return result("http_error", `HTTP ${answer.httpStatus}`);
  let json: unknown;
  try {
    json = JSON.parse(answer.body);
  } catch {
    return result("malformed", "the answer is not JSON");
  }
  const parsed = bidSchema.safeParse(json);
  if (!parsed.success) return result("malformed", parsed.error.issues.map((issue) => `${issue.path.join(".") || "(answer)"}: ${issue.message}`).join("; "));
  const bid = parsed.data.bid;
  if (bid === null) return result("no_bid", null);
  const signature = verifySignature(activeSecrets(buyer, options.now), answer.signature ?? undefined, answer.body, options.now);
  if (signature !== "ok") return result("unsigned", `X-Signature ${signature}`);
  return priced(buyer, result, bid, options);
}

/**
 * A ping answered in the buyer's own terms (its ping spec, issue 43), read by its answer rules.
 * Such a buyer does not sign its answers (its own platform answers): the bid is trusted as the
 * buyer's posts are, over TLS to the address ops gave. Its bid is for the first sale type it takes
 * (its spec's answer names no type); a refusal is no bid; an answer no rule reads is malformed.
 */
export function readSpecBid(buyer: Buyer, spec: { readAnswer(answer: { status: number; body: string }): AnswerReading }, answer: SendResult, options: ReadOptions): PingResult {
  const { result, early } = begin(buyer, answer, options);
  if (early) return early;
  if (answer.httpStatus === null) return result("network_error", answer.excerpt);
  const reading = spec.readAnswer({ status: answer.httpStatus, body: answer.body });
  switch (reading.outcome) {
    case "bid": {
      const price = Math.round(reading.price * 100) / 100;
      if (!Number.isFinite(price) || price <= 0 || price > 10_000) return result("malformed", `a bid of ${String(reading.price)}: not a price from 0.01 to 10000`);
      return priced(buyer, result, { price, type: buyer.saleTypes[0] ?? "shared", bidId: reading.bidId }, options);
    }
    case "no_bid":
      return result("no_bid", reading.reason);
    case "refused":
      return result("no_bid", reading.reason);
    case "retry":
      return result("http_error", reading.reason ?? `HTTP ${answer.httpStatus}`);
    case "accepted":
      return result("malformed", "an answer to a ping read as a sale, not a bid");
    case "error":
      return result("malformed", `no answer rule read it: ${reading.why}`);
  }
}
