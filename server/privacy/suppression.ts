/**
 * The opt-out suppression list (docs/decisions/011-privacy-choices-in-delivery.md): the email
 * addresses and phone numbers of people who opted out of the sale and sharing of their personal
 * information, by the privacy request form, by phone or email, or by a browser's Global Privacy
 * Control signal. Stored hashed: the hex SHA-256 of the lower-cased email address, or of the
 * phone number in E.164 (+14155550134), the form partners exchange suppression lists in.
 *
 * A lead whose browser sent GPC, or whose email or phone is on the list, is never sold
 * (`saleAllowed`): it goes only to the buyers named in the consent disclosure the visitor agreed
 * to, as the visitor directed. The list is kept at least 5 years: nothing deletes from it.
 */
import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "../db/database";
import type { Tables } from "../db/schema";
import { suppressionRepository, type ContactHashes, type HashedContact, type SuppressionEntry, type SuppressionSource } from "../db/suppressions";
import { normalizeUsPhone } from "../../shared/contact";

export type { ContactHashes, HashedContact, SuppressionEntry, SuppressionSource };

/** An email address and/or a phone number, as typed or as stored; either may be missing. */
export interface Contact {
  email?: string | null | undefined;
  phone?: string | null | undefined;
}

const sha256 = (value: string) => createHash("sha256").update(value, "utf8").digest("hex");

/** The email address as the list hashes it: trimmed and lower-cased; undefined when blank. */
export function normalizeEmail(email: string): string | undefined {
  const normalized = email.trim().toLowerCase();
  return normalized === "" ? undefined : normalized;
}

/**
 * The contact's hashes, email first. A phone that is not a US number cannot be on the list (every
 * form refuses it), so it has no hash.
 */
export function hashContact(contact: Contact): HashedContact[] {
  const hashes: HashedContact[] = [];
  const email = contact.email ? normalizeEmail(contact.email) : undefined;
  if (email) hashes.push({ kind: "email", hash: sha256(email) });
  const phone = contact.phone ? normalizeUsPhone(contact.phone) : undefined;
  if (phone) hashes.push({ kind: "phone", hash: sha256(phone) });
  return hashes;
}

/**
 * A new lead's hashes for its own statement (server/db/leads.ts), which checks them against the
 * list with `lead_check` (the same rule as `areSuppressed`: either hash listed) and, for a GPC
 * signal, adds them.
 */
export function contactHashes(contact: Contact): ContactHashes {
  const hashes = hashContact(contact);
  const of = (kind: HashedContact["kind"]) => hashes.find((hash) => hash.kind === kind)?.hash ?? null;
  return { email: of("email"), phone: of("phone") };
}

export interface SuppressionList {
  /**
   * Puts the contact's email and phone on the list (idempotent: one already there keeps the date
   * and source it was first added with). Returns how many were new.
   */
  add(contact: Contact, source: SuppressionSource, reference?: string | null): Promise<number>;
  /** Whether the email or the phone is on the list (one query; false when neither is given). */
  isSuppressed(contact: Contact): Promise<boolean>;
  /** isSuppressed for each of several contacts, in one query. */
  areSuppressed(contacts: readonly Contact[]): Promise<boolean[]>;
  /** The contact's rows on the list: since when, from what, by which request (for ops answering "did you get my opt-out?"). */
  entries(contact: Contact): Promise<SuppressionEntry[]>;
}

/**
 * The list over the database, or over a transaction (`suppressionList(tx)`) to add or check in
 * the same transaction as a privacy request. The SQL is server/db/suppressions.ts's.
 */
export function suppressionList(db: Database | Kysely<Tables>): SuppressionList {
  const table = suppressionRepository("builder" in db ? db.builder : db);
  /** The rule: a contact is suppressed when its email's or its phone's hash is on the list. */
  async function areSuppressed(contacts: readonly Contact[]): Promise<boolean[]> {
    const hashed = contacts.map(hashContact);
    const listed = await table.listed(hashed.flat());
    return hashed.map((hashes) => hashes.some(({ kind, hash }) => listed.has(`${kind}:${hash}`)));
  }
  return {
    async add(contact, source, reference = null) {
      if (contact.email && !normalizeEmail(contact.email)) throw new Error("Cannot suppress a blank email address");
      if (contact.phone && !normalizeUsPhone(contact.phone)) throw new Error("Cannot suppress a phone number that is not a US number");
      return table.add(hashContact(contact), source, reference);
    },

    isSuppressed: async (contact) => (await areSuppressed([contact]))[0] ?? false,
    areSuppressed,

    entries: (contact) => table.entries(hashContact(contact)),
  };
}

/**
 * Whether each lead may be sold: not when the visitor's browser sent Global Privacy Control, nor
 * when the email or phone is on the suppression list (one query for them all). A lead that may
 * not be sold still goes to the buyers named in its consent disclosure, with `"sale": false`, no
 * price and no revenue. Checked again before each delivery and before an auction's pings (the
 * delivery worker and the auction call this). At submit the same rule runs inside the lead's own
 * statement: `lead_check` answers whether a hash from `contactHashes` is listed, and the outbox
 * writes a delivery as a sale only when the service asked for one (no GPC) and it is not
 * (server/db/deliveries.ts, `outboxForNewLead`).
 */
export async function salesAllowed(leads: readonly { gpc: boolean; email?: string | null; phone?: string | null }[], suppression: Pick<SuppressionList, "areSuppressed">): Promise<boolean[]> {
  const suppressed = await suppression.areSuppressed(leads.map((lead) => (lead.gpc ? {} : { email: lead.email, phone: lead.phone })));
  return leads.map((lead, index) => !lead.gpc && !suppressed[index]);
}
