/**
 * Opening a consent certificate from a buyer's link: the signature is checked before the database
 * is asked anything, and every refusal looks the same to the caller (GET /consent/:id answers
 * them all with one 404), so a link reveals nothing about ids it was not made for.
 */
import type { Builder } from "../db/database";
import { verifyCertificateLink } from "./certificate";
import { findCertificateForBuyer, type ConsentCertificate } from "./records";

export type CertificateLookup =
  | { found: true; certificate: ConsentCertificate; buyerId: string }
  /** bad_link: malformed or not signed by us; not_found: no such certificate, or not delivered to that buyer. */
  | { found: false; reason: "bad_link" | "not_found" };

export interface ConsentCertificates {
  open(certificateId: unknown, buyerId: unknown, signature: unknown): Promise<CertificateLookup>;
}

export function createConsentCertificates(db: Builder, secret: string | Buffer): ConsentCertificates {
  return {
    async open(certificateId, buyerId, signature) {
      if (!verifyCertificateLink(secret, certificateId, buyerId, signature)) return { found: false, reason: "bad_link" };
      // verifyCertificateLink checked both are well-formed strings.
      const certificate = await findCertificateForBuyer(db, certificateId as string, buyerId as string);
      return certificate ? { found: true, certificate, buyerId: buyerId as string } : { found: false, reason: "not_found" };
    },
  };
}
