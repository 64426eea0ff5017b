/**
 * Data the container test submits through the load balancer and then looks for in PostgreSQL:
 * once right after submitting, and again after `down` and `up` (the named volume must have kept
 * it). Each kind of stored data is one entry of `storedDataChecks`; a new form that stores
 * something adds its entry here and the test does the rest.
 */
import { check, submitPrivacyRequest, type HttpClient } from "./container-http";

/** How to find one stored record: `SELECT count(*) FROM table WHERE column::text = value`. */
export interface StoredRecord {
  /** For the report, e.g. "privacy request PR-ABCD-EFGH". */
  description: string;
  /** Written by the test, never taken from a response: they are put into SQL as identifiers. */
  table: string;
  column: string;
  /** Passed to psql as a variable, so any value is quoted safely. */
  value: string;
}

export interface StoredDataCheck {
  name: string;
  /** Submits through the balancer (throw, e.g. with `check`, when the answer is wrong) and says what was stored. */
  submit(lb: HttpClient): Promise<StoredRecord>;
}

export const storedDataChecks: StoredDataCheck[] = [
  {
    name: "a privacy request (CSRF session, then POST /api/privacy-requests)",
    async submit(lb) {
      const { status, body, submission } = await submitPrivacyRequest(lb);
      check(status === 201, `POST /api/privacy-requests answered ${status}: ${JSON.stringify(body)}`);
      check(submission.reference !== "", `no reference in ${JSON.stringify(body)}`);
      return { description: `privacy request ${submission.reference}`, table: "privacy_requests", column: "reference", value: submission.reference };
    },
  },
  // The lead form's check goes here: GET /api/leads/session, POST /api/leads, and the table and
  // column that identify the stored lead.
];

/** The SQL identifiers allowed in a StoredRecord (they cannot be passed as psql variables). */
const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** psql input counting the rows that match `record`, with the value bound as :'value'. */
export function countQuery(record: StoredRecord): string {
  if (!IDENTIFIER.test(record.table) || !IDENTIFIER.test(record.column)) throw new Error(`not an identifier: ${record.table}.${record.column}`);
  return `SELECT count(*) FROM ${record.table} WHERE ${record.column}::text = :'value';\n`;
}
