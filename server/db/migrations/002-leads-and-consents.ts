/** Version 2: quote requests and their consent records (issue 4). */
import type { Migration } from "./migration";

export const leadsAndConsents: Migration = {
  version: 2,
  name: "leads_and_consents",
  statements: [
    // Each disclosure wording, once: consent records point at the exact text a visitor saw.
    `CREATE TABLE consent_disclosures (
       version integer PRIMARY KEY,
       sha256 text NOT NULL,
       text text NOT NULL,
       first_used_at timestamptz NOT NULL DEFAULT now()
     )`,
    `CREATE TABLE leads (
       id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
       reference text NOT NULL UNIQUE,
       idempotency_key uuid NOT NULL UNIQUE,
       received_at timestamptz NOT NULL DEFAULT now(),
       zip text NOT NULL,
       city text NOT NULL,
       state text NOT NULL,
       vehicle_year integer NOT NULL,
       vehicle_make text NOT NULL,
       vehicle_model text NOT NULL,
       ownership text NOT NULL CHECK (ownership IN ('own', 'finance', 'lease')),
       primary_use text NOT NULL CHECK (primary_use IN ('commute', 'pleasure', 'business')),
       first_name text NOT NULL,
       last_name text NOT NULL,
       date_of_birth date NOT NULL,
       license_status text NOT NULL CHECK (license_status IN ('active', 'permit', 'suspended', 'foreign')),
       incidents text NOT NULL CHECK (incidents IN ('none', 'one', 'two_or_more')),
       currently_insured boolean NOT NULL,
       current_insurer text,
       street_address text NOT NULL,
       email text NOT NULL,
       phone text NOT NULL,
       sid text,
       tid text,
       gpc boolean NOT NULL DEFAULT false,
       duplicate_of text,
       CHECK (currently_insured OR current_insurer IS NULL)
     )`,
    `CREATE INDEX leads_received_at ON leads (received_at)`,
    `CREATE INDEX leads_phone_received_at ON leads (phone, received_at)`,
    `CREATE INDEX leads_email_received_at ON leads (email, received_at)`,
    // Kept longer than the lead (5 years against 3: privacy policy section 18), so the lead link
    // may become NULL; the record keeps the phone and email the consent was given for.
    `CREATE TABLE lead_consents (
       id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
       lead_id bigint UNIQUE REFERENCES leads (id) ON DELETE SET NULL,
       lead_reference text NOT NULL,
       disclosure_version integer NOT NULL REFERENCES consent_disclosures (version),
       disclosure_sha256 text NOT NULL,
       checkbox_checked boolean NOT NULL,
       consented_at timestamptz NOT NULL,
       phone text NOT NULL,
       email text NOT NULL,
       ip text NOT NULL,
       user_agent text NOT NULL,
       form_url text NOT NULL,
       page_url text NOT NULL
     )`,
    `CREATE INDEX lead_consents_consented_at ON lead_consents (consented_at)`,
  ],
};
