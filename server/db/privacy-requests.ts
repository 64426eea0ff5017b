/**
 * The privacy_requests table: the one place that reads and writes it (pages, routes and the
 * ops command all come through here).
 */
import { newReference } from "./references";
import type { Database } from "./database";
import type { PrivacyRequestInput, PrivacyRequestType } from "../../shared/privacy-request";

export type PrivacyRequestStatus = "received" | "completed" | "denied";

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

interface Row {
  reference: string;
  request_type: PrivacyRequestType;
  email: string | null;
  phone: string | null;
  state: string | null;
  details: string | null;
  gpc: boolean;
  status: PrivacyRequestStatus;
  received_at: Date | string;
  due_at: Date | string;
  closed_at: Date | string | null;
  resolution_note: string | null;
}

const toDate = (value: Date | string) => (value instanceof Date ? value : new Date(value));

function fromRow(row: Row): PrivacyRequestRecord {
  return {
    reference: row.reference,
    requestType: row.request_type,
    email: row.email,
    phone: row.phone,
    state: row.state,
    details: row.details,
    gpc: row.gpc,
    status: row.status,
    receivedAt: toDate(row.received_at),
    dueAt: toDate(row.due_at),
    closedAt: row.closed_at === null ? null : toDate(row.closed_at),
    resolutionNote: row.resolution_note,
  };
}

const COLUMNS = "reference, request_type, email, phone, state, details, gpc, status, received_at, due_at, closed_at, resolution_note";

export function privacyRequestRepository(db: Database) {
  return {
    /** Stores a request once; the same submissionId again reports the first one's reference. */
    async create(request: NewPrivacyRequest): Promise<CreateResult> {
      for (let attempt = 0; attempt < 5; attempt += 1) {
        const reference = newReference("PR");
        const { rows } = await db.query<{ reference: string }>(
          `INSERT INTO privacy_requests (reference, submission_id, request_type, email, phone, state, details, gpc, received_at, due_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
           ON CONFLICT DO NOTHING
           RETURNING reference`,
          [
            reference,
            request.submissionId,
            request.requestType,
            request.email ?? null,
            request.phone ?? null,
            request.state ?? null,
            request.details ?? null,
            request.gpc,
            request.receivedAt,
            request.dueAt,
          ],
        );
        if (rows[0]) return { created: true, reference: rows[0].reference };
        const existing = await db.query<{ reference: string }>("SELECT reference FROM privacy_requests WHERE submission_id = $1", [request.submissionId]);
        if (existing.rows[0]) return { created: false, duplicateOf: existing.rows[0].reference };
        // Otherwise the random reference collided with another request's: draw again.
      }
      throw new Error("Could not allocate a unique privacy request reference");
    },

    async findByReference(reference: string): Promise<PrivacyRequestRecord | undefined> {
      const { rows } = await db.query<Row>(`SELECT ${COLUMNS} FROM privacy_requests WHERE reference = $1`, [reference]);
      return rows[0] ? fromRow(rows[0]) : undefined;
    },

    /** Requests received in [since, until), oldest first; optionally only one status. */
    async list(filter: { since?: Date; until?: Date; status?: PrivacyRequestStatus } = {}): Promise<PrivacyRequestRecord[]> {
      const { rows } = await db.query<Row>(
        `SELECT ${COLUMNS} FROM privacy_requests
         WHERE ($1::timestamptz IS NULL OR received_at >= $1)
           AND ($2::timestamptz IS NULL OR received_at < $2)
           AND ($3::text IS NULL OR status = $3)
         ORDER BY received_at, id`,
        [filter.since ?? null, filter.until ?? null, filter.status ?? null],
      );
      return rows.map(fromRow);
    },

    /** Closes an open request; false when there is no open request with that reference. */
    async close(reference: string, status: Exclude<PrivacyRequestStatus, "received">, note: string | null, at: Date = new Date()): Promise<boolean> {
      const { rows } = await db.query<{ reference: string }>(
        `UPDATE privacy_requests SET status = $2, closed_at = $3, resolution_note = $4
         WHERE reference = $1 AND status = 'received'
         RETURNING reference`,
        [reference, status, at, note],
      );
      return rows.length === 1;
    },

    /** Deletes closed requests received before `cutoff` (the retention period); returns how many. */
    async purgeClosedBefore(cutoff: Date): Promise<number> {
      const { rows } = await db.query<{ reference: string }>(
        "DELETE FROM privacy_requests WHERE status <> 'received' AND received_at < $1 RETURNING reference",
        [cutoff],
      );
      return rows.length;
    },

    async count(): Promise<number> {
      const { rows } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM privacy_requests");
      return Number(rows[0]?.n ?? 0);
    },
  };
}

export type PrivacyRequestRepository = ReturnType<typeof privacyRequestRepository>;
