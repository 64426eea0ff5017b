/**
 * Version 22 (issue 44): the consent record keeps what the consent-proof providers' scripts wrote
 * into the form, as the visitor's browser sent it: TrustedForm's certificate URL and Jornaya's
 * LeadiD token. Kept with the record for its 5 years, like the rest of the evidence; null for
 * records before it, and whenever the provider was off or its script did not run.
 */
import type { Migration } from "./migration";

export const consentProof: Migration = {
  version: 22,
  name: "consent-proof",
  statements: [`ALTER TABLE lead_consents ADD COLUMN trustedform_cert_url text, ADD COLUMN leadid_token text`],
};
