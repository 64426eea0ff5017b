/**
 * How deliveries are signed and how buyers' reports to us are verified: X-Signature:
 * t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the buyer's secret>
 * (the scheme Stripe and others use; docs/lead-delivery.md shows a buyer's verification code).
 * The time stops a captured request being replayed later. While a rotated secret overlaps
 * (server/delivery/buyers.ts, activeSecrets) a request carries one v1 per secret, new first, and a
 * signature verifies when any v1 matches any secret in use.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "X-Signature";
/** How far a signed request's time may be from ours, either way. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

const hmac = (secret: string, t: string, body: string) => createHmac("sha256", secret).update(`${t}.${body}`, "utf8").digest();

export function signBody(secrets: string | readonly string[], body: string, now: Date = new Date()): string {
  const t = String(Math.floor(now.getTime() / 1000));
  const list = typeof secrets === "string" ? [secrets] : secrets;
  return [`t=${t}`, ...list.map((secret) => `v1=${hmac(secret, t, body).toString("hex")}`)].join(",");
}

export type SignatureCheck = "ok" | "missing" | "malformed" | "expired" | "mismatch";

export function verifySignature(secrets: string | readonly string[], header: string | undefined, body: string, now: Date = new Date()): SignatureCheck {
  if (!header) return "missing";
  const pairs = header.split(",").map((pair) => pair.trim().split("=", 2) as [string, string | undefined]);
  const ts = pairs.filter(([key]) => key === "t").map(([, value]) => value);
  const v1s = pairs.filter(([key]) => key === "v1").map(([, value]) => value ?? "");
  const t = ts[0];
  if (ts.length !== 1 || !t || !/^\d{1,12}$/.test(t) || v1s.length === 0 || v1s.length > 4 || !v1s.every((v1) => /^[0-9a-f]{64}$/.test(v1))) return "malformed";
  if (Math.abs(now.getTime() / 1000 - Number(t)) > SIGNATURE_TOLERANCE_SECONDS) return "expired";
  const list = typeof secrets === "string" ? [secrets] : secrets;
  const matches = list.some((secret) => {
    const expected = hmac(secret, t, body);
    return v1s.some((v1) => timingSafeEqual(expected, Buffer.from(v1, "hex")));
  });
  return matches ? "ok" : "mismatch";
}
