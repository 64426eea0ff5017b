/**
 * What the check adapters share (docs/lead-checks.md, "Providers"): the HTTP Basic header, the
 * answers every provider gives the same way (no answer, our credentials refused, busy, down) and a
 * strict reading of a JSON answer. Each adapter reads only the statuses and bodies that are its
 * provider's own words; everything else about an exchange is decided here once.
 *
 * Outbound HTTP goes through server/delivery/http-send.ts only, so the outbound policy (issue 41)
 * holds for providers as for buyers.
 */
import type { z } from "zod";
import { responseExcerpt } from "../../delivery/excerpt";
import { send, type Exchange, type SendResult } from "../../delivery/http-send";
import type { CheckAnswer } from "../types";

export const basicAuth = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`, "utf8").toString("base64")}`;

export const ok = (outcome: string, detail: string, latencyMs: number): CheckAnswer => ({ status: "ok", outcome, detail, latencyMs });
export const failed = (outcome: string, detail: string, latencyMs = 0): CheckAnswer => ({ status: "failed", outcome, detail, latencyMs });
export const unavailable = (outcome: string, detail: string, latencyMs = 0): CheckAnswer => ({ status: "unavailable", outcome, detail, latencyMs });

/**
 * A provider's free text (a reason, a status word) made fit for `detail`: short, one line, and
 * with anything shaped like an email address or a phone number masked, as buyers' answers are
 * (server/delivery/excerpt.ts). Never trusted to be free of personal data as sent.
 */
export function providerText(text: string, max = 120): string {
  return responseExcerpt(text.replace(/\s+/g, " ").trim()).slice(0, max);
}

/**
 * The exchange, for a provider. `party` names the provider in the warning when the outbound
 * policy refuses the address (never the lead).
 */
export function exchange(provider: string, url: string, request: Omit<Exchange, "party">, timeoutMs: number): Promise<SendResult> {
  return send(url, { ...request, party: { provider } }, timeoutMs);
}

/**
 * The answer for an exchange that brought no word from the provider about the lead: no answer
 * in time, no connection, our own credentials refused, rate limited, the provider failing, or
 * redirected elsewhere. Undefined: a status the adapter reads itself (2xx and its own 4xx).
 * None of these is the lead's fault, so all are `unavailable` (never cached, the buyers wait or skip).
 */
export function notAnAnswer(result: SendResult): CheckAnswer | undefined {
  const { latencyMs } = result;
  if (result.outcome === "timeout") return unavailable("timeout", result.excerpt ?? "no answer in time", latencyMs);
  // The excerpt is an error code ("ECONNREFUSED") or the policy's refusal, which names a host, not a lead.
  if (result.outcome === "network_error") {
    const excerpt = result.excerpt ?? "network error";
    return unavailable(excerpt.startsWith("refused:") ? "outbound_refused" : "down", providerText(excerpt, 200), latencyMs);
  }
  const status = result.httpStatus ?? 0;
  if (status === 401 || status === 403) return unavailable("refused_credentials", `HTTP ${status}: the provider refused our credentials`, latencyMs);
  if (status === 429) return unavailable("rate_limited", `HTTP 429${result.retryAfter ? ` (Retry-After ${providerText(result.retryAfter, 20)})` : ""}`, latencyMs);
  if (status >= 500) return unavailable("down", `HTTP ${status}`, latencyMs);
  // Redirects are never followed (http-send.ts): an API that moves is a configuration to mend, not an answer.
  if (status >= 300 && status < 400) return unavailable("unexpected_status", `HTTP ${status} (redirects are not followed)`, latencyMs);
  return undefined;
}

/** Any other status the adapter does not read: our request, not the lead, is at fault. */
export const unexpectedStatus = (result: SendResult): CheckAnswer => unavailable("unexpected_status", `HTTP ${result.httpStatus ?? "none"}`, result.latencyMs);

/** The answer's JSON read with the provider's schema; undefined when it is not JSON or not that shape. */
export function readJson<T>(body: string, schema: z.ZodType<T>): T | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

export const malformed = (result: SendResult, what: string): CheckAnswer =>
  unavailable("malformed", `HTTP ${result.httpStatus ?? "none"}: not ${what}`, result.latencyMs);

/**
 * A 2xx answer's JSON for an API that reads every answer from a 2xx body (the litigator list,
 * Twilio Lookup): the body read with `schema`, or the answer that says why there is none. A 4xx is
 * our request's fault (a wrong address or field), never the lead's: `unavailable`, so the phone
 * cache never keeps it.
 */
export function jsonAnswer<T>(result: SendResult, schema: z.ZodType<T>, what: string): { body: T } | { answer: CheckAnswer } {
  const none = notAnAnswer(result);
  if (none) return { answer: none };
  const status = result.httpStatus ?? 0;
  if (status >= 400 && status < 500) return { answer: unavailable("refused_request", `HTTP ${status}`, result.latencyMs) };
  if (status < 200 || status >= 300) return { answer: unexpectedStatus(result) };
  const body = readJson(result.body, schema);
  return body === undefined ? { answer: malformed(result, what) } : { body };
}

/** Ten digits, as CheckInput promises; anything else is never sent (the issue's "Bad input"). */
export const TEN_DIGITS = /^\d{10}$/;

/**
 * Runs an adapter's check so that it never throws: a bug in an adapter is an `unavailable`
 * answer (the buyers that need the check wait or skip), not a failed lead.
 */
export async function neverThrows(run: () => Promise<CheckAnswer>): Promise<CheckAnswer> {
  try {
    return await run();
  } catch (error) {
    return unavailable("internal_error", providerText(error instanceof Error ? error.name : "error", 60));
  }
}
