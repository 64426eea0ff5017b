/**
 * The leads, lead_consents and consent_disclosures tables: the one place that reads and writes
 * them (the API, the ops command and the tests all come through here).
 *
 * It stores what it is given and decides nothing (docs/architecture.md, "Rules live in the
 * domain"): whether a lead is a test, where its duplicate window starts, the contact's hashes on
 * the suppression list's terms, its certificate id and its follow-up are the lead service's
 * (server/leads/store.ts), passed in as plain values.
 */
import { sql, type Selectable } from "kysely";
import type { Builder, Database } from "./database";
import { newReference } from "./references";
import { JSON_COLUMNS, LEAD_ANSWER_COLUMNS, answerColumns, type LeadAnswerColumns } from "./lead-rows";
import type { Lead } from "../../shared/lead/fields";
import { outboxForNewLead, type NewDelivery } from "./deliveries";
import { addSuppressions, type ContactHashes } from "./suppressions";

/** The consent record's facts, as the lead service gathered and decided them. */
export interface ConsentRow {
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
  /** The consent certificate's id (GET /consent/:id). */
  certificateId: string;
  /** What TrustedForm's and Jornaya's scripts wrote into the form, as sent (issue 44); absent when they did not run. */
  trustedFormCertUrl?: string | undefined;
  leadidToken?: string | undefined;
}

/** A new lead as it is written: every decision already made by the lead service (server/leads/store.ts). */
export interface LeadInsert {
  lead: Lead;
  /** The ZIP's place; its time zone is kept with the lead for the buyers' calling rules. */
  location: { city: string; state: string; timeZone?: string | undefined };
  idempotencyKey: string;
  sid?: string | undefined;
  tid?: string | undefined;
  /** The visit the form was opened in (shared/campaign.ts, `vid`), so the lead joins its visit's events. */
  visitId?: string | undefined;
  /** The experiments' visitor id (the qr_vis cookie) it came with, so results reach the visitor's variant (migration 24). */
  visitorId?: string | undefined;
  gpc: boolean;
  receivedAt: Date;
  /** The leads.test column: ops marked it a test (a test link). */
  test: boolean;
  consent: ConsentRow;
  /** The earliest lead with the same phone or email received since then is what this one duplicates (a time after receivedAt: never a duplicate). */
  duplicateWindowStart: Date;
  /** The contact's hashes on the suppression list's terms (server/privacy/suppression.ts), looked up in the same statement and, with `suppressContact`, added. */
  contactHashes: ContactHashes;
}

/** A new lead's auction row (server/auction/auctions.ts runs it). */
export interface NewAuction {
  /** Sent to the buyers as the ping's id. */
  pingId: string;
  /** A test lead: offered to sandbox buyers only, never billed. */
  test: boolean;
  /** The lead's source's floor price. */
  floor: number;
}

/** What is written with a new lead, in the same statement. */
export interface LeadFollowUp {
  /**
   * Its deliveries (the outbox), as for a lead that may be sold. Written only for an original
   * lead, never for a duplicate; a capped buyer's only if a slot of its day is left; and when the
   * email or phone is on the suppression list, as not for sale (no price): decision 011.
   */
  deliveries?: readonly NewDelivery[];
  /** The email and phone go on the suppression list, from this lead (a browser's GPC signal: decision 011). */
  suppressContact?: boolean;
  /** Sold by auction instead (server/auction/): its row, written for an original lead only, run by the auction worker. */
  auction?: NewAuction;
}

/** The follow-up of a lead once its reference is drawn (a new reference per attempt). */
export type FollowUpFor = (reference: string) => LeadFollowUp;

export type CreateLeadResult =
  /** `deliveries`: how many were queued with it; `auctions`: 1 when it goes to auction. */
  | { created: true; reference: string; duplicateOf: string | null; deliveries: number; auctions: number }
  | { created: false; existingReference: string };

/** A stored lead: the checked answers, the place, the campaign, and its consent record. */
export interface LeadRecord extends Selectable<LeadAnswerColumns> {
  reference: string;
  receivedAt: Date;
  city: string;
  state: string;
  /** The ZIP's IANA time zone when it was received; null for leads stored before migration 19. */
  timeZone: string | null;
  sid: string | null;
  tid: string | null;
  gpc: boolean;
  duplicateOf: string | null;
  /** Marked a test by ops (a test link); a lead with the test phone number is a test without it (isTestLead). */
  test: boolean;
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
    /** TrustedForm's certificate URL and Jornaya's LeadiD token as the form sent them (migration 22); absent when it sent none. */
    trustedFormCertUrl?: string;
    leadidToken?: string;
  } | null;
}

/** A stored lead's columns and its consent record's, as one query reads them. */
function selectLeads(db: Builder) {
  return db
    .selectFrom("leads")
    .leftJoin("leadConsents", "leadConsents.leadId", "leads.id")
    .select(["leads.reference", "leads.receivedAt", "leads.city", "leads.state", "leads.timeZone", "leads.sid", "leads.tid", "leads.gpc", "leads.duplicateOf", "leads.test"])
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
      "leadConsents.trustedformCertUrl",
      "leadConsents.leadidToken",
    ]);
}

type Row = Awaited<ReturnType<ReturnType<typeof selectLeads>["executeTakeFirstOrThrow"]>>;

function fromRow(row: Row): LeadRecord {
  const { disclosureVersion, disclosureSha256, checkboxChecked, consentedAt, ip, userAgent, formUrl, pageUrl, certificateId, trustedformCertUrl, leadidToken, ...lead } = row;
  return {
    ...lead,
    consent:
      consentedAt === null
        ? null
        : {
            disclosureVersion: disclosureVersion!,
            disclosureSha256: disclosureSha256!,
            checkboxChecked: checkboxChecked!,
            consentedAt,
            ip: ip!,
            userAgent: userAgent!,
            formUrl: formUrl!,
            pageUrl: pageUrl!,
            certificateId,
            // Only when the form sent them, as the delivery's JSON carries them.
            ...(trustedformCertUrl === null ? {} : { trustedFormCertUrl: trustedformCertUrl }),
            ...(leadidToken === null ? {} : { leadidToken }),
          },
  };
}

/** Thrown at start-up when a disclosure version is already stored with other wording. */
export class DisclosureMismatchError extends Error {}

export function leadRepository(db: Database) {
  const builder = db.builder;
  return {
    /**
     * Stores the lead and its consent record in one transaction. The same idempotency key again
     * stores nothing and reports the first lead; the same phone or email since
     * `duplicateWindowStart` is stored as a duplicate of the earliest such lead.
     */
    async create(input: LeadInsert, followUp?: FollowUpFor): Promise<CreateLeadResult> {
      const { lead, consent, contactHashes } = input;
      for (let attempt = 0; attempt < 5; attempt += 1) {
        const reference = newReference("LD");
        const plan = followUp?.(reference) ?? {};
        const { reserved, scheduled } = outboxForNewLead(plan.deliveries ?? []);
        const row = {
          ...answerColumns(lead),
          reference,
          idempotencyKey: input.idempotencyKey,
          receivedAt: input.receivedAt,
          city: input.location.city,
          state: input.location.state,
          timeZone: input.location.timeZone || null,
          sid: input.sid ?? null,
          tid: input.tid ?? null,
          visitId: input.visitId ?? null,
          visitorId: input.visitorId ?? null,
          gpc: input.gpc,
          test: input.test,
        };
        // One statement, so one round trip and its own transaction. `checked` (migration 6) locks
        // the phone and email, then reads: the same submission already stored, the first lead of
        // the duplicate window, the suppression list. The lead is written only if the key is new;
        // with it its consent record (with the certificate's facts, kept for its 5 years: decision
        // 010), its GPC opt-out and, for an original, its cap slots and deliveries.
        // (Kysely puts a raw CTE body in as it is: the parentheses are ours.)
        const answer = await builder
          .with("checked", () =>
            sql<{ sameKey: string | null; duplicateOf: string | null; suppressed: boolean }>`(
              SELECT * FROM lead_check(${[`lead:phone:${lead.phone}`, `lead:email:${lead.email}`]}::text[], ${input.idempotencyKey}::uuid,
                ${lead.phone}::text, ${lead.email}::text, ${input.duplicateWindowStart}::timestamptz, ${contactHashes.email}::text, ${contactHashes.phone}::text))`,
          )
          .with("lead", (db) =>
            db
              .insertInto("leads")
              .columns([...(Object.keys(row) as (keyof typeof row)[]), "duplicateOf"])
              .expression((eb) =>
                eb
                  .selectFrom("checked")
                  .select([
                    ...Object.entries(row).map(([column, value]) =>
                      // Each value's type is its column's; the arrays go in as JSON text, cast.
                      JSON_COLUMNS.has(column) ? sql`${value}::jsonb`.as(column) : eb.val(value).as(column),
                    ),
                    "checked.duplicateOf",
                  ])
                  .where("checked.sameKey", "is", null),
              )
              .onConflict((conflict) => conflict.doNothing())
              .returning(["id", "reference"]),
          )
          .with("consent", () => sql`(
            INSERT INTO lead_consents (lead_id, lead_reference, disclosure_version, disclosure_sha256, checkbox_checked, consented_at,
              phone, email, ip, user_agent, form_url, page_url, certificate_id, form_opened_at, terms_version, privacy_version,
              first_name, last_name, zip, trustedform_cert_url, leadid_token)
            SELECT id, reference, ${consent.disclosureVersion}::int, ${consent.disclosureSha256}::text, ${consent.checkboxChecked}::boolean,
              ${input.receivedAt}::timestamptz, ${lead.phone}::text, ${lead.email}::text, ${consent.ip}::text, ${consent.userAgent}::text,
              ${consent.formUrl}::text, ${consent.pageUrl}::text, ${consent.certificateId}::text, ${consent.formOpenedAt ?? null}::timestamptz,
              ${consent.termsVersion ?? null}::text, ${consent.privacyVersion ?? null}::text, ${row.firstName}::text, ${row.lastName}::text,
              ${lead.zip}::text, ${consent.trustedFormCertUrl || null}::text, ${consent.leadidToken || null}::text
            FROM lead)`)
          .with("optout", () => (plan.suppressContact ? sql`${addSuppressions(contactHashes, "gpc")}` : sql`(SELECT 1 WHERE false)`))
          // The deliveries' lead: this one if it is an original, with whether it may be sold.
          .with("original", () => sql`(SELECT lead.id, lead.reference, checked.suppressed FROM lead, checked WHERE checked.duplicate_of IS NULL)`)
          .with("reserved", () => sql`(${reserved})`)
          .with("scheduled", () => sql`(${scheduled})`)
          .with("auctioned", () =>
            plan.auction
              ? sql`(INSERT INTO auctions (lead_id, lead_reference, ping_id, test, floor)
                  SELECT id, reference, ${plan.auction.pingId}::text, ${plan.auction.test}::boolean, ${plan.auction.floor}::numeric FROM original
                  RETURNING id)`
              : sql`(SELECT NULL::bigint AS id WHERE false)`,
          )
          .selectFrom("checked")
          .select((eb) => [
            "checked.sameKey",
            "checked.duplicateOf",
            eb.selectFrom("lead").select("lead.reference").as("reference"),
            sql<number>`(SELECT count(*)::int FROM scheduled)`.as("deliveries"),
            sql<number>`(SELECT count(*)::int FROM auctioned)`.as("auctions"),
          ])
          .executeTakeFirstOrThrow();
        if (answer.sameKey) return { created: false, existingReference: answer.sameKey };
        if (answer.reference) return { created: true, reference: answer.reference, duplicateOf: answer.duplicateOf, deliveries: Number(answer.deliveries), auctions: Number(answer.auctions) };
        // Neither: the random reference collided, or the same key was stored meanwhile from other
        // contact details (its row won the key's unique index): check again with a new reference.
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
