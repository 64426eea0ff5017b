/**
 * The ping round of an auction (issue 16): every eligible ping/post buyer is pinged at once with
 * the same signed ping, each within the smaller of its own timeout and the time left before the
 * auction's deadline (AUCTION_DEADLINE_MS, 750 ms by default); the round ends when every buyer has
 * answered or the deadline has passed, never later. Each answer is read by readBid: late,
 * malformed, unsigned or wrongly typed answers are recorded as no bid.
 */
import { send as httpSend, type Exchange, type SendResult } from "../delivery/http-send";
import { signBody, SIGNATURE_HEADER } from "../delivery/signature";
import { activeSecrets, type Buyer } from "../delivery/buyers";
import { readBid, readSpecBid, type PingResult } from "./bids";
import type { CompiledHttpSpec, RenderResult } from "../delivery/spec";
import type { PingPayload } from "./ping";

export const PING_USER_AGENT = "QuoteRidge-Ping/1";

export interface PingRoundOptions {
  deadlineMs: number;
  floor: number;
  /** A clock in milliseconds (performance.now by default; tests pass a fake one). */
  clock?: () => number;
  now?: () => Date;
  send?: (url: string, exchange: Exchange, timeoutMs: number) => Promise<SendResult>;
  /** A buyer with its own ping spec (issue 43): its compiled spec and the ping rendered in its terms; undefined for our signed ping. */
  specPing?: (buyer: Buyer) => { spec: CompiledHttpSpec; rendered: RenderResult } | undefined;
  /**
   * What a buyer's ping waits for first, within the round (issue 44: the checks its requirements
   * need before a ping): a reason means it is not pinged (not_sent). The round's deadline covers
   * the wait, so checks make the auction no longer: a buyer whose checks took part of the round has
   * the rest of it to answer.
   */
  hold?: (buyer: Buyer) => Promise<string | undefined> | undefined;
}

/** Pings each buyer (each must have a pingUrl) and reads the answers, in the buyers' order. */
export async function pingRound(buyers: readonly Buyer[], payload: PingPayload, options: PingRoundOptions): Promise<PingResult[]> {
  const clock = options.clock ?? (() => performance.now());
  const now = options.now ?? (() => new Date());
  const send = options.send ?? httpSend;
  const body = JSON.stringify(payload);
  const started = clock();
  return Promise.all(
    buyers.map(async (buyer) => {
      const held = await options.hold?.(buyer);
      if (held !== undefined) return { buyerId: buyer.id, outcome: "not_sent", latencyMs: 0, httpStatus: null, bid: null, detail: held } satisfies PingResult;
      const left = Math.max(0, options.deadlineMs - (clock() - started));
      const timeoutMs = Math.max(1, Math.min(buyer.pingTimeoutMs, left));
      const own = options.specPing?.(buyer);
      if (own) {
        const { spec, rendered } = own;
        if (!rendered.ok) return { buyerId: buyer.id, outcome: "not_sent", latencyMs: 0, httpStatus: null, bid: null, detail: `the lead has no ${rendered.missing} for its ${rendered.field}` } satisfies PingResult;
        const { request } = rendered;
        const answer = await send(
          request.url,
          { method: request.method, headers: { "user-agent": PING_USER_AGENT, "idempotency-key": `${payload.pingId}:${buyer.id}`, ...request.headers }, ...(request.body === null ? {} : { body: request.body }), party: { buyer: buyer.id } },
          timeoutMs,
        );
        const read = readSpecBid(buyer, spec, answer, { answeredAfterMs: Math.round(clock() - started), deadlineMs: options.deadlineMs, floor: options.floor, now: now() });
        return { ...read, excerpt: answer.excerpt, requestSent: rendered.masked };
      }
      const answer = await send(
        buyer.pingUrl!,
        {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "user-agent": PING_USER_AGENT,
            "idempotency-key": `${payload.pingId}:${buyer.id}`,
            [SIGNATURE_HEADER]: signBody(activeSecrets(buyer, now()), body, now()),
          },
          body,
          party: { buyer: buyer.id },
        },
        timeoutMs,
      );
      return { ...readBid(buyer, answer, { answeredAfterMs: Math.round(clock() - started), deadlineMs: options.deadlineMs, floor: options.floor, now: now() }), excerpt: answer.excerpt };
    }),
  );
}
