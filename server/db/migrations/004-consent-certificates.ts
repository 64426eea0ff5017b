/**
 * Version 4: consent proof a buyer can check (issue 10; docs/decisions/010-consent-disclosure-and-certificate.md).
 *
 * consent_disclosures: the version becomes the database's, one per distinct full text (sha256 is
 * unique), each naming its partners and the buyers they are (`buyer_ids`: a lead consented under
 * a version may only go to these), with the wording's code version and hash (a changed wording
 * under an old version is refused at start-up). The one text stored before this migration is
 * version 1, the carriers' (no buyer), written by wording version 1.
 *
 * lead_consents: a certificate id (128 random bits, base64url) for GET /consent/:id, when the
 * form opened (its signed token), the Terms and Privacy versions accepted, and the name and ZIP
 * kept with the record for its own 5 years (the lead's go after 3); copied for existing records.
 */
import type { Migration } from "./migration";

export const consentCertificates: Migration = {
  version: 4,
  name: "consent_certificates",
  statements: [
    `ALTER TABLE consent_disclosures
       ADD COLUMN buyer_ids text[] NOT NULL DEFAULT '{}',
       ADD COLUMN partner_names text[] NOT NULL DEFAULT '{}',
       ADD COLUMN template_version integer,
       ADD COLUMN template_sha256 text,
       ADD CONSTRAINT consent_disclosures_sha256_key UNIQUE (sha256)`,
    `UPDATE consent_disclosures
        SET template_version = 1,
            template_sha256 = 'ecd7cae256b8c195406f6dd84d471eeb770201b75a9205fb9b355c6fd5658272',
            partner_names = ARRAY['Progressive', 'GEICO', 'State Farm', 'Allstate', 'Liberty Mutual', 'Nationwide']
      WHERE version = 1 AND sha256 = 'ec6ccb1d3ae36e4b1a256222db7e1d9fd339bbb2ac53e59901d84c80f1face22'`,
    `ALTER TABLE lead_consents
       ADD COLUMN certificate_id text UNIQUE,
       ADD COLUMN form_opened_at timestamptz,
       ADD COLUMN terms_version text,
       ADD COLUMN privacy_version text,
       ADD COLUMN first_name text,
       ADD COLUMN last_name text,
       ADD COLUMN zip text`,
    `UPDATE lead_consents AS c
        SET first_name = l.first_name, last_name = l.last_name, zip = l.zip
       FROM leads AS l
      WHERE l.id = c.lead_id`,
  ],
};
