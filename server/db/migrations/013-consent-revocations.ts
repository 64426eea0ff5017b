/**
 * Version 13: consent revocation (issue 16; the FCC's revocation rule, in force since April 2025).
 * A visitor may revoke consent to be contacted by any reasonable means: a privacy request of type
 * `revoke_consent` (the form, or ops recording a call, an email or a STOP reply). It marks the
 * person's consent records revoked (`revoked_at`, the request's reference: the consent
 * certificate shows it), takes their leads out of further sale, and queues a signed
 * `consent.revoked` webhook to every buyer that received one: a delivery of kind `revocation`,
 * sent and retried like the others.
 */
import type { Migration } from "./migration";

export const consentRevocations: Migration = {
  version: 13,
  name: "consent-revocations",
  statements: [
    `ALTER TABLE privacy_requests
       DROP CONSTRAINT privacy_requests_request_type_check,
       ADD CONSTRAINT privacy_requests_request_type_check
         CHECK (request_type IN ('opt_out_sale_sharing', 'nevada_opt_out', 'access', 'deletion', 'correction', 'appeal', 'revoke_consent'))`,
    `ALTER TABLE lead_consents ADD COLUMN revoked_at timestamptz, ADD COLUMN revocation_reference text`,
    `ALTER TABLE deliveries
       DROP CONSTRAINT deliveries_kind_check,
       ADD CONSTRAINT deliveries_kind_check CHECK (kind IN ('buyer', 'postback', 'revocation'))`,
  ],
};
