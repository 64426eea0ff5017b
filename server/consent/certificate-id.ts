/**
 * A consent certificate's id: 128 random bits from the CSPRNG, base64url (22 characters). It is
 * the address of GET /consent/:id, so it must not be guessable; a link to it is only honoured
 * with a signature as well (server/consent/certificate.ts).
 */
import { randomBytes } from "node:crypto";

export const CERTIFICATE_ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;

export function newCertificateId(): string {
  return randomBytes(16).toString("base64url");
}
