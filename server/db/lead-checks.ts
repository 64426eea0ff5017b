/**
 * The only SQL over lead_checks and check_cache (migration 23). The rules (which check, when, what
 * passes) are server/checks/engine.ts's; here a check is claimed, finished and read, and a phone's
 * answer is cached and found.
 */
import { sql } from "kysely";
import type { Builder } from "./database";

export type StoredCheckStatus = "running" | "ok" | "failed" | "unavailable";

export interface StoredCheck {
  kind: string;
  provider: string;
  status: StoredCheckStatus;
  outcome: string | null;
  detail: string | null;
  latencyMs: number | null;
  cached: boolean;
  calls: number;
  startedAt: Date;
  finishedAt: Date | null;
}

export interface FinishedCheck {
  kind: string;
  provider: string;
  status: Exclude<StoredCheckStatus, "running">;
  outcome: string;
  detail: string;
  latencyMs: number;
  cached: boolean;
  /** Whether a provider was called for this answer (counted in `calls`). */
  called: boolean;
}

export interface CachedAnswer {
  kind: string;
  provider: string;
  status: "ok" | "failed";
  outcome: string;
  detail: string;
  checkedAt: Date;
}

export function leadCheckRepository(db: Builder) {
  return {
    /**
     * Claims the lead's checks of these kinds in one statement: a kind never checked, one whose last
     * answer was `unavailable` (asked again), or one left `running` since before `staleBefore` (its
     * process died) is claimed; the rest are another call's. Returns the kinds claimed.
     */
    async claim(leadReference: string, kinds: readonly { kind: string; provider: string }[], at: Date, staleBefore: Date): Promise<Set<string>> {
      if (kinds.length === 0) return new Set();
      const rows = await db
        .insertInto("leadChecks")
        .values(kinds.map(({ kind, provider }) => ({ leadReference, kind, provider, status: "running" as const, startedAt: at })))
        .onConflict((conflict) =>
          conflict
            .columns(["leadReference", "kind"])
            .doUpdateSet({ status: "running", provider: sql`excluded.provider`, startedAt: sql`excluded.started_at`, finishedAt: null })
            .where((eb) => eb.or([eb("leadChecks.status", "=", "unavailable"), eb.and([eb("leadChecks.status", "=", "running"), eb("leadChecks.startedAt", "<", staleBefore)])])),
        )
        .returning("kind")
        .execute();
      return new Set(rows.map((row) => row.kind));
    },

    /** Records the answers of claimed checks, in one statement. */
    async finish(leadReference: string, answers: readonly FinishedCheck[], at: Date): Promise<void> {
      if (answers.length === 0) return;
      const values = answers.map(
        (answer) => sql`(${answer.kind}, ${answer.provider}, ${answer.status}, ${answer.outcome}, ${answer.detail}, ${answer.latencyMs}::integer, ${answer.cached}::boolean, ${answer.called ? 1 : 0}::integer)`,
      );
      await sql`
        UPDATE lead_checks AS c
           SET provider = v.provider, status = v.status, outcome = v.outcome, detail = v.detail, latency_ms = v.latency_ms,
               cached = v.cached, calls = c.calls + v.calls, finished_at = ${at}
          FROM (VALUES ${sql.join(values)}) AS v (kind, provider, status, outcome, detail, latency_ms, cached, calls)
         WHERE c.lead_reference = ${leadReference} AND c.kind = v.kind`.execute(db);
    },

    /** The lead's checks of these kinds (all kinds when none are given). */
    async of(leadReference: string, kinds?: readonly string[]): Promise<StoredCheck[]> {
      let query = db
        .selectFrom("leadChecks")
        .select(["kind", "provider", "status", "outcome", "detail", "latencyMs", "cached", "calls", "startedAt", "finishedAt"])
        .where("leadReference", "=", leadReference);
      if (kinds) {
        if (kinds.length === 0) return [];
        query = query.where("kind", "in", [...kinds]);
      }
      return query.orderBy("startedAt").orderBy("kind").execute();
    },

    /** The answers about this phone still fresh at `at`, by kind. */
    async cached(phoneHash: string, kinds: readonly string[], at: Date): Promise<Map<string, CachedAnswer>> {
      if (kinds.length === 0) return new Map();
      const rows = await db
        .selectFrom("checkCache")
        .select(["kind", "provider", "status", "outcome", "detail", "checkedAt"])
        .where("phoneHash", "=", phoneHash)
        .where("kind", "in", [...kinds])
        .where("expiresAt", ">", at)
        .execute();
      return new Map(rows.map((row) => [row.kind, row]));
    },

    /** Keeps definite answers about a phone until `expiresAt` (a newer answer replaces an older one). */
    async remember(phoneHash: string, answers: readonly CachedAnswer[], expiresAt: Date): Promise<void> {
      if (answers.length === 0) return;
      await db
        .insertInto("checkCache")
        .values(answers.map((answer) => ({ ...answer, phoneHash, expiresAt })))
        .onConflict((conflict) =>
          conflict.columns(["kind", "phoneHash"]).doUpdateSet({
            provider: sql`excluded.provider`,
            status: sql`excluded.status`,
            outcome: sql`excluded.outcome`,
            detail: sql`excluded.detail`,
            checkedAt: sql`excluded.checked_at`,
            expiresAt: sql`excluded.expires_at`,
          }),
        )
        .execute();
    },

    /** Deletes cached answers past their time (the retention job, `npm run leads -- purge`); returns how many (counts only, with dryRun). */
    async expire(at: Date, options: { dryRun?: boolean } = {}): Promise<number> {
      if (options.dryRun) {
        const row = await db.selectFrom("checkCache").select(sql<string>`count(*)`.as("n")).where("expiresAt", "<=", at).executeTakeFirstOrThrow();
        return Number(row.n);
      }
      const result = await db.deleteFrom("checkCache").where("expiresAt", "<=", at).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export type LeadCheckRepository = ReturnType<typeof leadCheckRepository>;
