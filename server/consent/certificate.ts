/**
 * Links to a lead's consent certificate, as a delivery carries them to each buyer:
 *
 *   <PUBLIC_BASE_URL>/consent/<certificate id>?b=<buyer id>&s=<hex HMAC-SHA256 of "<id>.<buyer id>">
 *
 * The id alone (128 random bits) is unguessable; the signature binds it to the one buyer the link
 * was made for, so a link passed on cannot be re-pointed at another buyer, and GET /consent/:id
 * answers only a buyer that received the lead (server/consent/route.ts). Links must work for the
 * consent record's 5 years, so the key is configured, never random per process: CERTIFICATE_SECRET,
 * or else a key derived from CSRF_SECRET with its own label (server/config.ts requires one of them
 * when BUYERS_FILE is set).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Config } from "../config";
import { CERTIFICATE_ID_PATTERN } from "./certificate-id";

export const CERTIFICATE_PATH = "/consent";
/** The same rule as a buyer's id in BUYERS_FILE (server/delivery/buyers.ts). */
const BUYER_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,31}$/;
const SIGNATURE_PATTERN = /^[0-9a-f]{64}$/;
/** Separates this key from every other use of CSRF_SECRET (CSRF and form tokens). */
const DERIVATION_LABEL = "quoteridge consent certificate links v1";

/** What signs links: the key, and the public origin they point at ("https://www.quoteridge.com"). */
export interface CertificateKey {
  secret: string | Buffer;
  baseUrl: string;
}

/**
 * The signing key: CERTIFICATE_SECRET, else one derived from CSRF_SECRET, else from `fallback`
 * (the process's random CSRF secret: acceptable only while no buyer receives links, which the
 * configuration enforces).
 */
export function certificateSecret(config: Partial<Pick<Config, "CERTIFICATE_SECRET" | "CSRF_SECRET">>, fallback: string | Buffer): string | Buffer {
  if (config.CERTIFICATE_SECRET) return config.CERTIFICATE_SECRET;
  return createHmac("sha256", config.CSRF_SECRET ?? fallback).update(DERIVATION_LABEL).digest();
}

export function certificateSignature(secret: string | Buffer, certificateId: string, buyerId: string): string {
  return createHmac("sha256", secret).update(`${certificateId}.${buyerId}`, "utf8").digest("hex");
}

/** The link for `buyerId` to the certificate `certificateId`. */
export function certificateUrl(certificateId: string, buyerId: string, key: CertificateKey): string {
  const query = new URLSearchParams({ b: buyerId, s: certificateSignature(key.secret, certificateId, buyerId) });
  return `${key.baseUrl.replace(/\/+$/, "")}${CERTIFICATE_PATH}/${encodeURIComponent(certificateId)}?${query.toString()}`;
}

/** Whether the link's parts are well formed and signed with `secret` (in constant time). */
export function verifyCertificateLink(secret: string | Buffer, certificateId: unknown, buyerId: unknown, signature: unknown): boolean {
  if (typeof certificateId !== "string" || !CERTIFICATE_ID_PATTERN.test(certificateId)) return false;
  if (typeof buyerId !== "string" || !BUYER_ID_PATTERN.test(buyerId)) return false;
  if (typeof signature !== "string" || !SIGNATURE_PATTERN.test(signature)) return false;
  const expected = Buffer.from(certificateSignature(secret, certificateId, buyerId), "hex");
  return timingSafeEqual(expected, Buffer.from(signature, "hex"));
}
