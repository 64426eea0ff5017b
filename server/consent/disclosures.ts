/**
 * The stored disclosure versions (consent_disclosures): one row per distinct full text, so the
 * version a consent record points at always gives the exact words and the buyers they named. A
 * text not stored yet gets max(version) + 1 at start-up, under a transaction-scoped advisory lock,
 * so replicas starting together with the same buyers agree on one version.
 */
import { sql } from "kysely";
import type { Builder } from "../db/database";
import { DisclosureMismatchError } from "../db/leads";
import type { CurrentDisclosure, DisclosureDraft } from "../leads/disclosure";

/** An arbitrary constant beside the migrations' 7_242_001: "the disclosure versions lock". */
const DISCLOSURE_LOCK_ID = 7_242_010;

/**
 * Stores the text once and returns it with its version. Refuses (DisclosureMismatchError) when
 * the store holds a text written by this wording version under other words: an older build edited
 * the wording without bumping CONSENT_TEMPLATE.version, and consent must not be mis-recorded.
 */
export async function registerDisclosure(db: Builder, draft: DisclosureDraft): Promise<CurrentDisclosure> {
  const version = await db.transaction().execute(async (tx) => {
    await sql`SELECT pg_advisory_xact_lock(${DISCLOSURE_LOCK_ID})`.execute(tx);
    const clash = await tx
      .selectFrom("consentDisclosures")
      .select(["version", "templateSha256"])
      .where("templateVersion", "=", draft.templateVersion)
      .where("templateSha256", "<>", draft.templateSha256)
      .executeTakeFirst();
    if (clash) {
      throw new DisclosureMismatchError(
        `Consent disclosure wording version ${draft.templateVersion} is stored with other words (version ${clash.version}, wording sha256 ${clash.templateSha256}; this build ${draft.templateSha256}). ` +
          "Bump CONSENT_TEMPLATE.version in shared/consent-disclosure.ts whenever its words change.",
      );
    }
    const stored = await tx.selectFrom("consentDisclosures").select(["version", "buyerIds"]).where("sha256", "=", draft.sha256).executeTakeFirst();
    if (stored) {
      // The same words name the same companies; only our ids for them changed (a buyer's id
      // renamed in BUYERS_FILE). The version's buyers follow the names the visitor read.
      if (stored.buyerIds.join("\n") !== draft.buyerIds.join("\n")) {
        await tx.updateTable("consentDisclosures").set({ buyerIds: sql<string[]>`${draft.buyerIds}::text[]` }).where("version", "=", stored.version).execute();
      }
      return Number(stored.version);
    }
    const { next } = await tx.selectFrom("consentDisclosures").select(sql<number>`coalesce(max(version), 0) + 1`.as("next")).executeTakeFirstOrThrow();
    await tx
      .insertInto("consentDisclosures")
      .values({
        version: Number(next),
        sha256: draft.sha256,
        text: draft.text,
        buyerIds: sql<string[]>`${draft.buyerIds}::text[]`,
        partnerNames: sql<string[]>`${draft.partnerNames}::text[]`,
        templateVersion: draft.templateVersion,
        templateSha256: draft.templateSha256,
      })
      .execute();
    return Number(next);
  });
  return { ...draft, version };
}

/** The buyers a stored disclosure version named (none when the version is not stored). */
export async function namedBuyerIds(db: Builder, version: number): Promise<string[]> {
  const row = await db.selectFrom("consentDisclosures").select("buyerIds").where("version", "=", version).executeTakeFirst();
  return row?.buyerIds ?? [];
}
