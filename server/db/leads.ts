/**
 * The leads, lead_consents and consent_disclosures tables: the one place that reads and writes
 * them (the API, the ops command and the tests all come through here).
 */
import { sql, type Transaction } from "kysely";
import type { Builder, Database } from "./database";
import type { Tables } from "./schema";
import { newReference } from "./references";
import { LEAD_ANSWER_COLUMNS, answerColumns, type LeadAnswerColumns } from "./lead-rows";
import type { Lead } from "../../shared/lead/fields";
import { DUPLICATE_WINDOW_DAYS } from "../leads/policy";
import { newCertificateId } from "../consent/certificate-id";
import { outboxForNewLead, type NewDelivery } from "./deliveries";
import { hashContact, onSuppressionList } from "../privacy/suppression";

export interface ConsentEvidence {
  disclosureVersion: number;
  disclosureSha256: string;
  checkboxChecked: boolean;
  ip: string;
  userAgent: string;
  formUrl: string;
  pageUrl: string;
  /** When the form opened (its signed token's time); the lead service always knows it. */
  formOpenedAt?: Date | undefined;
  /** The Terms of Use and Privacy Policy revisions the form linked ("2023-05-24"). */
  termsVersion?: string | undefined;
  privacyVersion?: string | undefined;
}

export interface NewLead {
  lead: Lead;
  location: { city: string; state: string };
  idempotencyKey: string;
  sid?: string | undefined;
  tid?: string | undefined;
  gpc: boolean;
  receivedAt: Date;
  consent: ConsentEvidence;
}

/** What is known of a new lead once its duplicate check has run, before it is written. */
export interface CheckedLead {
  reference: string;
  state: string;
  duplicateOf: string | null;
  /** The email or the phone is on the opt-out suppression list. */
  suppressed: boolean;
}

/** What is written with a new lead, in the same statement. */
export interface LeadFollowUp {
  /** Its deliveries (the outbox); a capped buyer's only if a slot of its day is left. */
  deliveries?: readonly NewDelivery[];
  /** The email and phone go on the suppression list, from this lead (a browser's GPC signal: decision 011). */
  suppressContact?: boolean;
}

export type PlanFollowUp = (lead: CheckedLead) => LeadFollowUp;

export type CreateLeadResult =
  | { created: true; reference: string; duplicateOf: string | null }
  | { created: false; existingReference: string };

/** A stored lead: the checked answers, the place, the campaign, and its consent record. */
export interface LeadRecord extends LeadAnswerColumns {
  reference: string;
  receivedAt: Date;
  city: string;
  state: string;
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
    /** The consent certificate's id (GET /consent/:id); null for records stored before it existed. */
    certificateId: string | null;
  } | null;
}

/** A stored lead's columns and its consent record's, as one query reads them. */
function selectLeads(db: Builder) {
  return db
    .selectFrom("leads")
    .leftJoin("leadConsents", "leadConsents.leadId", "leads.id")
    .select(["leads.reference", "leads.receivedAt", "leads.city", "leads.state", "leads.sid", "leads.tid", "leads.gpc", "leads.duplicateOf"])
    .select(LEAD_ANSWER_COLUMNS.map((column) => `leads.${column}` as const))
    .select([
      "leadConsents.disclosureVersion",
      "leadConsents.disclosureSha256",
      "leadConsents.checkboxChecked",
      "leadConsents.consentedAt",
      "leadConsents.ip",
      "leadConsents.userAgent",
      "leadConsents.formUrl",
      "leadConsents.pageUrl",
      "leadConsents.certificateId",
    ]);
}

type Row = Awaited<ReturnType<ReturnType<typeof selectLeads>["executeTakeFirstOrThrow"]>>;

function fromRow(row: Row): LeadRecord {
  const { disclosureVersion, disclosureSha256, checkboxChecked, consentedAt, ip, userAgent, formUrl, pageUrl, certificateId, ...lead } = row;
  return {
    ...lead,
    consent:
      consentedAt === null
        ? null
        : { disclosureVersion: disclosureVersion!, disclosureSha256: disclosureSha256!, checkboxChecked: checkboxChecked!, consentedAt, ip: ip!, userAgent: userAgent!, formUrl: formUrl!, pageUrl: pageUrl!, certificateId },
  };
}

/** Thrown at start-up when a disclosure version is already stored with other wording. */
export class DisclosureMismatchError extends Error {}

const DAY_MS = 86_400_000;

/**
 * The duplicate check reads then writes, so two submissions with the same phone or email must not
 * pass it at once: each takes transaction-scoped advisory locks on its phone and its email, always
 * in the same (sorted) order, so they queue instead of deadlocking.
 */
async function lockContacts(tx: Transaction<Tables>, lead: Lead): Promise<void> {
  const keys = [`lead:phone:${lead.phone}`, `lead:email:${lead.email}`].sort();
  await sql`SELECT count(pg_advisory_xact_lock(hashtextextended(k, 0))) FROM unnest(${keys}::text[]) AS k`.execute(tx);
}

export function leadRepository(db: Database) {
  const builder = db.builder;
  return {
    /**
     * Stores the lead and its consent record in one transaction. The same idempotency key again
     * stores nothing and reports the first lead; the same phone or email within 30 days is stored
     * as a duplicate of the earliest such lead.
     */
    async create(input: NewLead, followUp?: PlanFollowUp): Promise<CreateLeadResult> {
      const { lead, consent } = input;
      const contactHashes = hashContact({ email: lead.email, phone: lead.phone });
      for (let attempt = 0; attempt < 5; attempt += 1) {
        const result = await builder.transaction().execute(async (tx): Promise<CreateLeadResult | undefined> => {
          await lockContacts(tx, lead);
          // One read under the lock: the same submission already stored, the person's first lead
          // within the duplicate window, and whether they opted out.
          const since = new Date(input.receivedAt.getTime() - DUPLICATE_WINDOW_DAYS * DAY_MS);
          const earlier = await tx
            .selectNoFrom((eb) => [
              eb.selectFrom("leads").select("reference").where("idempotencyKey", "=", input.idempotencyKey).as("sameKey"),
              eb
                .selectFrom("leads")
                .select((first) => first.fn.coalesce("duplicateOf", "reference").as("original"))
                .where((where) => where.or([where("phone", "=", lead.phone), where("email", "=", lead.email)]))
                .where("receivedAt", ">=", since)
                .orderBy("receivedAt")
                .orderBy("id")
                .limit(1)
                .as("duplicateOf"),
              eb.exists(eb.selectFrom("suppressions").select("kind").where(onSuppressionList(contactHashes))).as("suppressed"),
            ])
            .executeTakeFirstOrThrow();
          if (earlier.sameKey) return { created: false, existingReference: earlier.sameKey };
          const duplicateOf = earlier.duplicateOf ?? null;
          const reference = newReference("LD");
          const plan = followUp?.({ reference, state: input.location.state, duplicateOf, suppressed: Boolean(earlier.suppressed) }) ?? {};
          const { reserved, scheduled } = outboxForNewLead(plan.deliveries ?? []);
          // One statement writes the lead, its consent record (with the certificate's facts, kept
          // for its 5 years: decision 010) and its follow-up; nothing when the lead row is not inserted.
          const stored = await tx
            .with("lead", (db) =>
              db
                .insertInto("leads")
                .values({
                  ...answerColumns(lead),
                  reference,
                  idempotencyKey: input.idempotencyKey,
                  receivedAt: input.receivedAt,
                  city: input.location.city,
                  state: input.location.state,
                  sid: input.sid ?? null,
                  tid: input.tid ?? null,
                  gpc: input.gpc,
                  duplicateOf,
                })
                .onConflict((conflict) => conflict.doNothing())
                .returning(["id", "reference"]),
            )
            // (Kysely puts a raw CTE body in as it is: the parentheses are ours.)
            .with("consent", () => sql`(
              INSERT INTO lead_consents (lead_id, lead_reference, disclosure_version, disclosure_sha256, checkbox_checked, consented_at,
                phone, email, ip, user_agent, form_url, page_url, certificate_id, form_opened_at, terms_version, privacy_version,
                first_name, last_name, zip)
              SELECT id, reference, ${consent.disclosureVersion}::int, ${consent.disclosureSha256}::text, ${consent.checkboxChecked}::boolean,
                ${input.receivedAt}::timestamptz, ${lead.phone}::text, ${lead.email}::text, ${consent.ip}::text, ${consent.userAgent}::text,
                ${consent.formUrl}::text, ${consent.pageUrl}::text, ${newCertificateId()}::text, ${consent.formOpenedAt ?? null}::timestamptz,
                ${consent.termsVersion ?? null}::text, ${consent.privacyVersion ?? null}::text, ${lead.firstName}::text, ${lead.lastName}::text,
                ${lead.zip}::text
              FROM lead)`)
            .with("optout", () =>
              plan.suppressContact && contactHashes.length > 0
                ? sql`(
                  INSERT INTO suppressions (kind, hash, source, request_reference)
                  SELECT v.kind, v.hash, 'gpc', lead.reference
                  FROM lead, (VALUES ${sql.join(contactHashes.map(({ kind, hash }) => sql`(${kind}::text, ${hash}::text)`))}) AS v (kind, hash)
                  ON CONFLICT (kind, hash) DO NOTHING)`
                : sql`(SELECT 1 WHERE false)`,
            )
            .with("reserved", () => sql`(${reserved})`)
            .with("scheduled", () => sql`(${scheduled})`)
            .selectFrom("lead")
            .select("lead.reference")
            .executeTakeFirst();
          // No row: the random reference collided (the key was checked under the lock); draw again.
          if (!stored) return undefined;
          return { created: true, reference: stored.reference, duplicateOf };
        });
        if (result) return result;
      }
      throw new Error("Could not allocate a unique lead reference");
    },

    async findByReference(reference: string): Promise<LeadRecord | undefined> {
      const row = await selectLeads(builder).where("leads.reference", "=", reference).executeTakeFirst();
      return row ? fromRow(row) : undefined;
    },

    /** The stored leads among these references (one query), by reference. */
    async findByReferences(references: readonly string[]): Promise<Map<string, LeadRecord>> {
      if (references.length === 0) return new Map();
      const rows = await selectLeads(builder).where("leads.reference", "in", [...new Set(references)]).execute();
      return new Map(rows.map((row) => [row.reference, fromRow(row)]));
    },

    /** Leads received in [since, until), oldest first, with their consent records. */
    async list(filter: { since?: Date | undefined; until?: Date | undefined } = {}): Promise<LeadRecord[]> {
      const { since, until } = filter;
      const rows = await selectLeads(builder)
        .$if(since !== undefined, (query) => query.where("leads.receivedAt", ">=", since!))
        .$if(until !== undefined, (query) => query.where("leads.receivedAt", "<", until!))
        .orderBy("leads.receivedAt")
        .orderBy("leads.id")
        .execute();
      return rows.map(fromRow);
    },

    /**
     * The retention job: deletes leads received before `leadCutoff` and consent records given
     * before `consentCutoff` (the privacy policy's 3 and 5 years). Returns how many of each.
     */
    async purge(leadCutoff: Date, consentCutoff: Date): Promise<{ leads: number; consents: number }> {
      return builder.transaction().execute(async (tx) => {
        const leads = await tx.deleteFrom("leads").where("receivedAt", "<", leadCutoff).returning("id").execute();
        const consents = await tx.deleteFrom("leadConsents").where("consentedAt", "<", consentCutoff).returning("id").execute();
        return { leads: leads.length, consents: consents.length };
      });
    },

    /** What purge(leadCutoff, consentCutoff) would delete, without deleting. */
    async countExpired(leadCutoff: Date, consentCutoff: Date): Promise<{ leads: number; consents: number }> {
      const { rows } = await sql<{ leads: number; consents: number }>`
        SELECT (SELECT count(*)::int FROM leads WHERE received_at < ${leadCutoff}) AS leads,
               (SELECT count(*)::int FROM lead_consents WHERE consented_at < ${consentCutoff}) AS consents`.execute(builder);
      return { leads: Number(rows[0]?.leads ?? 0), consents: Number(rows[0]?.consents ?? 0) };
    },

    async counts(): Promise<{ leads: number; consents: number; duplicates: number }> {
      const { rows } = await sql<{ leads: number; consents: number; duplicates: number }>`
        SELECT (SELECT count(*)::int FROM leads) AS leads,
               (SELECT count(*)::int FROM lead_consents) AS consents,
               (SELECT count(*)::int FROM leads WHERE duplicate_of IS NOT NULL) AS duplicates`.execute(builder);
      const row = rows[0];
      return { leads: Number(row?.leads ?? 0), consents: Number(row?.consents ?? 0), duplicates: Number(row?.duplicates ?? 0) };
    },
  };
}

export type LeadRepository = ReturnType<typeof leadRepository>;
