/**
 * The quote form's "opened at" token, against bots that post the form at machine speed. The
 * server signs the time the form opened (HMAC with the site's secret, so any replica can check
 * another's token); a submit sooner than LEAD_MIN_FILL_MS after it, or a day later, is refused.
 * The signed time is also the consent record's "form opened at" (server/consent/).
 */
import { signedTimes } from "./signed-time";

export type FormTokenCheck = "ok" | "too_fast" | "expired" | "invalid";

export interface FormTokenReading {
  check: FormTokenCheck;
  /** When the form opened, as signed: present whenever the signature is good. */
  openedAt?: Date;
}

export interface FormTokens {
  issue(now?: number): string;
  check(token: unknown, now?: number): FormTokenCheck;
  /** check(), with the signed opening time of a token this server signed. */
  read(token: unknown, now?: number): FormTokenReading;
}

const MAX_AGE_MS = 24 * 60 * 60_000;

export function createFormTokens(secret: string | Buffer, minFillMs: number): FormTokens {
  // A purpose of its own: a CSRF token or a test link (same secret) can never pass as a form token.
  const tokens = signedTimes(secret, "lead-form");
  function read(token: unknown, now = Date.now()): FormTokenReading {
    const openedAt = tokens.read(token);
    if (openedAt === undefined) return { check: "invalid" };
    const age = now - openedAt;
    const check = age < minFillMs ? "too_fast" : age > MAX_AGE_MS ? "expired" : "ok";
    return { check, openedAt: new Date(openedAt) };
  }
  return {
    issue: (now = Date.now()) => tokens.sign(now),
    check: (token, now) => read(token, now).check,
    read,
  };
}
