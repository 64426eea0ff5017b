/**
 * The leads, lead_consents and consent_disclosures tables: the one place that reads and writes
 * them (the API, the ops command and the tests all come through here).
 */
import type { Database, Queryable } from "./database";
import { newReference } from "./references";
import type { Incidents, LeadInput, LicenseStatus, Ownership, PrimaryUse } from "../../shared/lead";
import { DUPLICATE_WINDOW_DAYS } from "../../shared/lead";

export interface ConsentEvidence {
  disclosureVersion: number;
  disclosureSha256: string;
  checkboxChecked: boolean;
  ip: string;
  userAgent: string;
  formUrl: string;
  pageUrl: string;
}

export interface NewLead {
  lead: LeadInput;
  location: { city: string; state: string };
  idempotencyKey: string;
  sid?: string | undefined;
  tid?: string | undefined;
  gpc: boolean;
  receivedAt: Date;
  consent: ConsentEvidence;
}

export type CreateLeadResult =
  | { created: true; reference: string; duplicateOf: string | null }
  | { created: false; existingReference: string };

/** A stored lead: the checked answers, the place, the campaign, and its consent record. */
export interface LeadRecord extends Omit<LeadInput, "consent" | "currentInsurer"> {
  reference: string;
  receivedAt: Date;
  city: string;
  state: string;
  currentInsurer: string | null;
  sid: string | null;
  tid: string | null;
  gpc: boolean;
  duplicateOf: string | null;
  consent: {
    disclosureVersion: number;
    disclosureSha256: string;
    checkboxChecked: boolean;
    consentedAt: Date;
    ip: string;
    userAgent: string;
    formUrl: string;
    pageUrl: string;
  } | null;
}

interface Row {
  reference: string;
  received_at: Date | string;
  zip: string;
  city: string;
  state: string;
  vehicle_year: number;
  vehicle_make: string;
  vehicle_model: string;
  ownership: Ownership;
  primary_use: PrimaryUse;
  first_name: string;
  last_name: string;
  date_of_birth: string;
  license_status: LicenseStatus;
  incidents: Incidents;
  currently_insured: boolean;
  current_insurer: string | null;
  street_address: string;
  email: string;
  phone: string;
  sid: string | null;
  tid: string | null;
  gpc: boolean;
  duplicate_of: string | null;
  disclosure_version: number | null;
  disclosure_sha256: string | null;
  checkbox_checked: boolean | null;
  consented_at: Date | string | null;
  ip: string | null;
  user_agent: string | null;
  form_url: string | null;
  page_url: string | null;
}

const toDate = (value: Date | string) => (value instanceof Date ? value : new Date(value));

function fromRow(row: Row): LeadRecord {
  return {
    reference: row.reference,
    receivedAt: toDate(row.received_at),
    zip: row.zip,
    city: row.city,
    state: row.state,
    vehicleYear: row.vehicle_year,
    vehicleMake: row.vehicle_make,
    vehicleModel: row.vehicle_model,
    ownership: row.ownership,
    primaryUse: row.primary_use,
    firstName: row.first_name,
    lastName: row.last_name,
    dateOfBirth: row.date_of_birth,
    licenseStatus: row.license_status,
    incidents: row.incidents,
    currentlyInsured: row.currently_insured,
    currentInsurer: row.current_insurer,
    streetAddress: row.street_address,
    email: row.email,
    phone: row.phone,
    sid: row.sid,
    tid: row.tid,
    gpc: row.gpc,
    duplicateOf: row.duplicate_of,
    consent:
      row.consented_at === null
        ? null
        : {
            disclosureVersion: row.disclosure_version!,
            disclosureSha256: row.disclosure_sha256!,
            checkboxChecked: row.checkbox_checked!,
            consentedAt: toDate(row.consented_at),
            ip: row.ip!,
            userAgent: row.user_agent!,
            formUrl: row.form_url!,
            pageUrl: row.page_url!,
          },
  };
}

const SELECT_LEADS = `
  SELECT l.reference, l.received_at, l.zip, l.city, l.state, l.vehicle_year, l.vehicle_make, l.vehicle_model,
         l.ownership, l.primary_use, l.first_name, l.last_name, l.date_of_birth::text AS date_of_birth,
         l.license_status, l.incidents, l.currently_insured, l.current_insurer, l.street_address, l.email, l.phone,
         l.sid, l.tid, l.gpc, l.duplicate_of,
         c.disclosure_version, c.disclosure_sha256, c.checkbox_checked, c.consented_at, c.ip, c.user_agent, c.form_url, c.page_url
  FROM leads l LEFT JOIN lead_consents c ON c.lead_id = l.id`;

/** Thrown at start-up when a disclosure version is already stored with other wording. */
export class DisclosureMismatchError extends Error {}

const DAY_MS = 86_400_000;

/**
 * The duplicate check reads then writes, so two submissions with the same phone or email must not
 * pass it at once: each takes transaction-scoped advisory locks on its phone and its email, always
 * in the same (sorted) order, so they queue instead of deadlocking.
 */
async function lockContacts(tx: Queryable, lead: LeadInput): Promise<void> {
  const keys = [`lead:phone:${lead.phone}`, `lead:email:${lead.email}`].sort();
  await tx.query("SELECT count(pg_advisory_xact_lock(hashtextextended(k, 0))) FROM unnest($1::text[]) AS k", [keys]);
}

export function leadRepository(db: Database) {
  return {
    /**
     * Records a disclosure version's text (once). A version already stored with a different hash
     * means the wording changed without a version bump: refuse, rather than mis-record consent.
     */
    async registerDisclosure(version: number, sha256: string, text: string): Promise<void> {
      await db.query("INSERT INTO consent_disclosures (version, sha256, text) VALUES ($1, $2, $3) ON CONFLICT (version) DO NOTHING", [version, sha256, text]);
      const { rows } = await db.query<{ sha256: string }>("SELECT sha256 FROM consent_disclosures WHERE version = $1", [version]);
      if (rows[0]?.sha256 !== sha256) {
        throw new DisclosureMismatchError(
          `Consent disclosure version ${version} is stored with different wording (sha256 ${rows[0]?.sha256}, this build ${sha256}). ` +
            "Bump CONSENT_DISCLOSURE.version in shared/consent-disclosure.ts whenever its text changes.",
        );
      }
    },

    /**
     * Stores the lead and its consent record in one transaction. The same idempotency key again
     * stores nothing and reports the first lead; the same phone or email within 30 days is stored
     * as a duplicate of the earliest such lead.
     */
    async create(input: NewLead): Promise<CreateLeadResult> {
      const { lead, consent } = input;
      for (let attempt = 0; attempt < 5; attempt += 1) {
        const result = await db.transaction(async (tx): Promise<CreateLeadResult | undefined> => {
          await lockContacts(tx, lead);
          const since = new Date(input.receivedAt.getTime() - DUPLICATE_WINDOW_DAYS * DAY_MS);
          const { rows: earlier } = await tx.query<{ reference: string; duplicate_of: string | null; same_key: boolean }>(
            `(SELECT reference, duplicate_of, true AS same_key FROM leads WHERE idempotency_key = $1)
             UNION ALL
             (SELECT reference, duplicate_of, false AS same_key FROM leads
              WHERE (phone = $2 OR email = $3) AND received_at >= $4
              ORDER BY received_at, id LIMIT 1)`,
            [input.idempotencyKey, lead.phone, lead.email, since],
          );
          const sameKey = earlier.find((row) => row.same_key);
          if (sameKey) return { created: false, existingReference: sameKey.reference };
          const first = earlier.find((row) => !row.same_key);
          const duplicateOf = first ? (first.duplicate_of ?? first.reference) : null;
          const reference = newReference("LD");
          const { rows } = await tx.query<{ lead_reference: string }>(
            `WITH lead AS (
               INSERT INTO leads (reference, idempotency_key, received_at, zip, city, state, vehicle_year, vehicle_make,
                 vehicle_model, ownership, primary_use, first_name, last_name, date_of_birth, license_status, incidents,
                 currently_insured, current_insurer, street_address, email, phone, sid, tid, gpc, duplicate_of)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25)
               ON CONFLICT DO NOTHING
               RETURNING id, reference
             )
             INSERT INTO lead_consents (lead_id, lead_reference, disclosure_version, disclosure_sha256, checkbox_checked,
               consented_at, phone, email, ip, user_agent, form_url, page_url)
             SELECT id, reference, $26, $27, $28, $3, $21, $20, $29, $30, $31, $32 FROM lead
             RETURNING lead_reference`,
            [
              reference,
              input.idempotencyKey,
              input.receivedAt,
              lead.zip,
              input.location.city,
              input.location.state,
              lead.vehicleYear,
              lead.vehicleMake,
              lead.vehicleModel,
              lead.ownership,
              lead.primaryUse,
              lead.firstName,
              lead.lastName,
              lead.dateOfBirth,
              lead.licenseStatus,
              lead.incidents,
              lead.currentlyInsured,
              lead.currentInsurer ?? null,
              lead.streetAddress,
              lead.email,
              lead.phone,
              input.sid ?? null,
              input.tid ?? null,
              input.gpc,
              duplicateOf,
              consent.disclosureVersion,
              consent.disclosureSha256,
              consent.checkboxChecked,
              consent.ip,
              consent.userAgent,
              consent.formUrl,
              consent.pageUrl,
            ],
          );
          // No row: the random reference collided (the key was checked under the lock); draw again.
          return rows[0] ? { created: true, reference: rows[0].lead_reference, duplicateOf } : undefined;
        });
        if (result) return result;
      }
      throw new Error("Could not allocate a unique lead reference");
    },

    async findByReference(reference: string): Promise<LeadRecord | undefined> {
      const { rows } = await db.query<Row>(`${SELECT_LEADS} WHERE l.reference = $1`, [reference]);
      return rows[0] ? fromRow(rows[0]) : undefined;
    },

    /** Leads received in [since, until), oldest first, with their consent records. */
    async list(filter: { since?: Date | undefined; until?: Date | undefined } = {}): Promise<LeadRecord[]> {
      const { rows } = await db.query<Row>(
        `${SELECT_LEADS}
         WHERE ($1::timestamptz IS NULL OR l.received_at >= $1) AND ($2::timestamptz IS NULL OR l.received_at < $2)
         ORDER BY l.received_at, l.id`,
        [filter.since ?? null, filter.until ?? null],
      );
      return rows.map(fromRow);
    },

    /**
     * The retention job: deletes leads received before `leadCutoff` and consent records given
     * before `consentCutoff` (the privacy policy's 3 and 5 years). Returns how many of each.
     */
    async purge(leadCutoff: Date, consentCutoff: Date): Promise<{ leads: number; consents: number }> {
      return db.transaction(async (tx) => {
        const leads = await tx.query<{ id: string }>("DELETE FROM leads WHERE received_at < $1 RETURNING id", [leadCutoff]);
        const consents = await tx.query<{ id: string }>("DELETE FROM lead_consents WHERE consented_at < $1 RETURNING id", [consentCutoff]);
        return { leads: leads.rows.length, consents: consents.rows.length };
      });
    },

    /** What purge(leadCutoff, consentCutoff) would delete, without deleting. */
    async countExpired(leadCutoff: Date, consentCutoff: Date): Promise<{ leads: number; consents: number }> {
      const { rows } = await db.query<{ leads: number; consents: number }>(
        `SELECT (SELECT count(*)::int FROM leads WHERE received_at < $1) AS leads,
                (SELECT count(*)::int FROM lead_consents WHERE consented_at < $2) AS consents`,
        [leadCutoff, consentCutoff],
      );
      return { leads: Number(rows[0]?.leads ?? 0), consents: Number(rows[0]?.consents ?? 0) };
    },

    async counts(): Promise<{ leads: number; consents: number; duplicates: number }> {
      const { rows } = await db.query<{ leads: number; consents: number; duplicates: number }>(
        `SELECT (SELECT count(*)::int FROM leads) AS leads,
                (SELECT count(*)::int FROM lead_consents) AS consents,
                (SELECT count(*)::int FROM leads WHERE duplicate_of IS NOT NULL) AS duplicates`,
      );
      const row = rows[0];
      return { leads: Number(row?.leads ?? 0), consents: Number(row?.consents ?? 0), duplicates: Number(row?.duplicates ?? 0) };
    },
  };
}

export type LeadRepository = ReturnType<typeof leadRepository>;
