/**
 * The privacy_requests table: the one place that reads and writes it (pages, routes and the
 * ops command all come through here).
 */
import { newReference } from "./references";
import type { Database } from "./database";
import type { PrivacyRequestStatus } from "./schema";
import type { PrivacyRequestInput, PrivacyRequestType } from "../../shared/privacy-request";

export type { PrivacyRequestStatus };

export interface PrivacyRequestRecord {
  reference: string;
  requestType: PrivacyRequestType;
  email: string | null;
  phone: string | null;
  state: string | null;
  details: string | null;
  gpc: boolean;
  status: PrivacyRequestStatus;
  receivedAt: Date;
  dueAt: Date;
  closedAt: Date | null;
  resolutionNote: string | null;
}

export interface NewPrivacyRequest extends PrivacyRequestInput {
  /** The form's one-time id: a second submit of the same form is a duplicate, not a new request. */
  submissionId: string;
  gpc: boolean;
  receivedAt: Date;
  dueAt: Date;
}

export type CreateResult = { created: true; reference: string } | { created: false; duplicateOf: string };

const COLUMNS = [
  "reference",
  "requestType",
  "email",
  "phone",
  "state",
  "details",
  "gpc",
  "status",
  "receivedAt",
  "dueAt",
  "closedAt",
  "resolutionNote",
] as const satisfies readonly (keyof PrivacyRequestRecord)[];

export function privacyRequestRepository(db: Database) {
  const builder = db.builder;
  return {
    /** Stores a request once; the same submissionId again reports the first one's reference. */
    async create(request: NewPrivacyRequest): Promise<CreateResult> {
      for (let attempt = 0; attempt < 5; attempt += 1) {
        const stored = await builder
          .insertInto("privacyRequests")
          .values({
            reference: newReference("PR"),
            submissionId: request.submissionId,
            requestType: request.requestType,
            email: request.email ?? null,
            phone: request.phone ?? null,
            state: request.state ?? null,
            details: request.details ?? null,
            gpc: request.gpc,
            receivedAt: request.receivedAt,
            dueAt: request.dueAt,
            closedAt: null,
            resolutionNote: null,
          })
          .onConflict((conflict) => conflict.doNothing())
          .returning("reference")
          .executeTakeFirst();
        if (stored) return { created: true, reference: stored.reference };
        const existing = await builder.selectFrom("privacyRequests").select("reference").where("submissionId", "=", request.submissionId).executeTakeFirst();
        if (existing) return { created: false, duplicateOf: existing.reference };
        // Otherwise the random reference collided with another request's: draw again.
      }
      throw new Error("Could not allocate a unique privacy request reference");
    },

    async findByReference(reference: string): Promise<PrivacyRequestRecord | undefined> {
      return builder.selectFrom("privacyRequests").select(COLUMNS).where("reference", "=", reference).executeTakeFirst();
    },

    /** Requests received in [since, until), oldest first; optionally only one status. */
    async list(filter: { since?: Date; until?: Date; status?: PrivacyRequestStatus } = {}): Promise<PrivacyRequestRecord[]> {
      const { since, until, status } = filter;
      return builder
        .selectFrom("privacyRequests")
        .select(COLUMNS)
        .$if(since !== undefined, (query) => query.where("receivedAt", ">=", since!))
        .$if(until !== undefined, (query) => query.where("receivedAt", "<", until!))
        .$if(status !== undefined, (query) => query.where("status", "=", status!))
        .orderBy("receivedAt")
        .orderBy("id")
        .execute();
    },

    /** Closes an open request; false when there is no open request with that reference. */
    async close(reference: string, status: Exclude<PrivacyRequestStatus, "received">, note: string | null, at: Date = new Date()): Promise<boolean> {
      const closed = await builder
        .updateTable("privacyRequests")
        .set({ status, closedAt: at, resolutionNote: note })
        .where("reference", "=", reference)
        .where("status", "=", "received")
        .returning("reference")
        .execute();
      return closed.length === 1;
    },

    /** Deletes closed requests received before `cutoff` (the retention period); returns how many. */
    /** What purgeClosedBefore(cutoff) would delete, without deleting. */
    async countClosedBefore(cutoff: Date): Promise<number> {
      const row = await builder.selectFrom("privacyRequests").select((select) => select.fn.countAll<number>().as("n")).where("status", "<>", "received").where("receivedAt", "<", cutoff).executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    async purgeClosedBefore(cutoff: Date): Promise<number> {
      const deleted = await builder.deleteFrom("privacyRequests").where("status", "<>", "received").where("receivedAt", "<", cutoff).returning("reference").execute();
      return deleted.length;
    },

    async count(): Promise<number> {
      const row = await builder.selectFrom("privacyRequests").select((select) => select.fn.countAll<number>().as("n")).executeTakeFirst();
      return Number(row?.n ?? 0);
    },
  };
}

export type PrivacyRequestRepository = ReturnType<typeof privacyRequestRepository>;
