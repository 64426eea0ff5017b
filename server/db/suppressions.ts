/**
 * The suppressions table: the only module with its SQL. It stores and finds hashed contacts; what
 * a contact's hashes are and what being on the list means (no sale) is the privacy rule in
 * server/privacy/suppression.ts, the one place that decides it.
 *
 * The same lookup runs in two places, because a new lead must be checked in its own statement
 * (one round trip, server/db/leads.ts): `lead_check` (migration 6) answers `suppressed` as "the
 * email hash or the phone hash is listed", which is exactly `listed` below; both are given the
 * hashes by server/privacy/suppression.ts (`contactHashes`, `hashContact`).
 */
import { sql, type ExpressionBuilder, type RawBuilder } from "kysely";
import type { Builder } from "./database";
import type { SuppressionSource, Tables } from "./schema";

export type { SuppressionSource };

export interface HashedContact {
  kind: "email" | "phone";
  hash: string;
}

/** One contact's hashes as a lead's statement takes them: null when it has none of that kind. */
export interface ContactHashes {
  email: string | null;
  phone: string | null;
}

export interface SuppressionEntry extends HashedContact {
  source: SuppressionSource;
  requestReference: string | null;
  addedAt: Date;
}

/** The hashes present, email first. */
export function hashList(hashes: ContactHashes): HashedContact[] {
  const list: HashedContact[] = [];
  if (hashes.email !== null) list.push({ kind: "email", hash: hashes.email });
  if (hashes.phone !== null) list.push({ kind: "phone", hash: hashes.phone });
  return list;
}

/** WHERE (kind, hash) is one of these (false for none). */
const onList = (hashes: readonly HashedContact[]) => (where: ExpressionBuilder<Tables, "suppressions">) =>
  where.or(hashes.map(({ kind, hash }) => where.and([where("kind", "=", kind), where("hash", "=", hash)])));

/**
 * Inside a new lead's statement (server/db/leads.ts): puts these hashes on the list from the lead
 * its `lead` CTE wrote, if it wrote one (idempotent, as `add`). Nothing when there are no hashes.
 */
export function addSuppressions(hashes: ContactHashes, source: SuppressionSource): RawBuilder<unknown> {
  const list = hashList(hashes);
  if (list.length === 0) return sql`(SELECT 1 WHERE false)`;
  return sql`(
    INSERT INTO suppressions (kind, hash, source, request_reference)
    SELECT v.kind, v.hash, ${source}::text, lead.reference
    FROM lead, (VALUES ${sql.join(list.map(({ kind, hash }) => sql`(${kind}::text, ${hash}::text)`))}) AS v (kind, hash)
    ON CONFLICT (kind, hash) DO NOTHING)`;
}

/** The table over the database or a transaction's builder. */
export function suppressionRepository(builder: Builder) {
  return {
    /** Which of these hashes are on the list (one query), as "kind:hash". */
    async listed(hashes: readonly HashedContact[]): Promise<Set<string>> {
      if (hashes.length === 0) return new Set();
      const rows = await builder.selectFrom("suppressions").select(["kind", "hash"]).where(onList(hashes)).execute();
      return new Set(rows.map(({ kind, hash }) => `${kind}:${hash}`));
    },

    /** Adds the hashes (one already there keeps its date and source). Returns how many were new. */
    async add(hashes: readonly HashedContact[], source: SuppressionSource, reference: string | null): Promise<number> {
      if (hashes.length === 0) return 0;
      const added = await builder
        .insertInto("suppressions")
        .values(hashes.map(({ kind, hash }) => ({ kind, hash, source, requestReference: reference })))
        .onConflict((conflict) => conflict.columns(["kind", "hash"]).doNothing())
        .returning("kind")
        .execute();
      return added.length;
    },

    /** The rows for these hashes, by kind. */
    async entries(hashes: readonly HashedContact[]): Promise<SuppressionEntry[]> {
      if (hashes.length === 0) return [];
      return builder.selectFrom("suppressions").select(["kind", "hash", "source", "requestReference", "addedAt"]).where(onList(hashes)).orderBy("kind").execute();
    },
  };
}

export type SuppressionRepository = ReturnType<typeof suppressionRepository>;
