/**
 * How deliveries are signed and how buyers' reports to us are verified: X-Signature:
 * t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the buyer's secret>
 * (the scheme Stripe and others use; docs/lead-delivery.md shows a buyer's verification code).
 * The time stops a captured request being replayed later.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "X-Signature";
/** How far a signed request's time may be from ours, either way. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export function signBody(secret: string, body: string, now: Date = new Date()): string {
  const t = Math.floor(now.getTime() / 1000);
  const v1 = createHmac("sha256", secret).update(`${t}.${body}`, "utf8").digest("hex");
  return `t=${t},v1=${v1}`;
}

export type SignatureCheck = "ok" | "missing" | "malformed" | "expired" | "mismatch";

export function verifySignature(secret: string, header: string | undefined, body: string, now: Date = new Date()): SignatureCheck {
  if (!header) return "missing";
  const fields = new Map(header.split(",").map((pair) => pair.trim().split("=", 2) as [string, string]));
  const t = fields.get("t");
  const v1 = fields.get("v1");
  if (!t || !/^\d{1,12}$/.test(t) || !v1 || !/^[0-9a-f]{64}$/.test(v1)) return "malformed";
  if (Math.abs(now.getTime() / 1000 - Number(t)) > SIGNATURE_TOLERANCE_SECONDS) return "expired";
  const expected = createHmac("sha256", secret).update(`${t}.${body}`, "utf8").digest();
  return timingSafeEqual(expected, Buffer.from(v1, "hex")) ? "ok" : "mismatch";
}
