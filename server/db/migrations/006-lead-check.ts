/**
 * Version 6: `lead_check`, the read a new lead makes before it is written, as a function, so the
 * lead and all it writes go to the database as one statement (server/db/leads.ts) instead of a
 * transaction of five round trips.
 *
 * The duplicate check reads then writes, so two submissions from the same phone or email must not
 * pass it at once: the function first takes transaction-scoped advisory locks on the contact's
 * keys (sorted, so two of them queue instead of deadlocking), then reads. It is VOLATILE, so under
 * READ COMMITTED that read takes a fresh snapshot after the locks are granted and sees the lead the
 * previous holder committed; the locks are held until the calling statement's transaction ends.
 * It answers: the lead already stored under this idempotency key, the person's first lead since
 * `since` (what a new one is a duplicate of), and whether the email or phone hash is on the
 * suppression list.
 */
import type { Migration } from "./migration";

export const leadCheck: Migration = {
  version: 6,
  name: "lead_check",
  statements: [
    `CREATE FUNCTION lead_check(lock_keys text[], key uuid, contact_phone text, contact_email text, since timestamptz, email_hash text, phone_hash text)
     RETURNS TABLE (same_key text, duplicate_of text, suppressed boolean)
     LANGUAGE plpgsql VOLATILE AS $$
     BEGIN
       PERFORM pg_advisory_xact_lock(hashtextextended(k, 0)) FROM (SELECT unnest(lock_keys) AS k ORDER BY 1) AS sorted;
       RETURN QUERY SELECT
         (SELECT l.reference FROM leads l WHERE l.idempotency_key = key),
         (SELECT coalesce(l.duplicate_of, l.reference) FROM leads l
           WHERE (l.phone = contact_phone OR l.email = contact_email) AND l.received_at >= since
           ORDER BY l.received_at, l.id LIMIT 1),
         EXISTS (SELECT 1 FROM suppressions s
                  WHERE (s.kind = 'email' AND s.hash = email_hash) OR (s.kind = 'phone' AND s.hash = phone_hash));
     END
     $$`,
  ],
};
