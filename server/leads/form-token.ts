/**
 * The quote form's "opened at" token, against bots that post the form at machine speed. The
 * server signs the time the form opened (HMAC with the site's secret, so any replica can check
 * another's token); a submit sooner than LEAD_MIN_FILL_MS after it, or a day later, is refused.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export type FormTokenCheck = "ok" | "too_fast" | "expired" | "invalid";

export interface FormTokens {
  issue(now?: number): string;
  check(token: unknown, now?: number): FormTokenCheck;
}

const MAX_AGE_MS = 24 * 60 * 60_000;

export function createFormTokens(secret: string | Buffer, minFillMs: number): FormTokens {
  // A separate purpose prefix: a CSRF token (same secret) can never pass as a form token.
  const sign = (issuedAt: string) => createHmac("sha256", secret).update(`lead-form:${issuedAt}`).digest("base64url");
  return {
    issue(now = Date.now()) {
      const issuedAt = now.toString(36);
      return `${issuedAt}.${sign(issuedAt)}`;
    },
    check(token, now = Date.now()) {
      if (typeof token !== "string") return "invalid";
      const match = /^([0-9a-z]{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
      if (!match) return "invalid";
      const [, issuedAt = "", signature = ""] = match;
      const expected = Buffer.from(sign(issuedAt));
      if (!timingSafeEqual(Buffer.from(signature), expected)) return "invalid";
      const age = now - parseInt(issuedAt, 36);
      if (age < minFillMs) return "too_fast";
      if (age > MAX_AGE_MS) return "expired";
      return "ok";
    },
  };
}
