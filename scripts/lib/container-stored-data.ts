/**
 * Data the container test submits through the load balancer and then looks for in PostgreSQL:
 * once right after submitting, and again after `down` and `up` (the named volume must have kept
 * it). Each kind of stored data is one entry of `storedDataChecks`; a new form that stores
 * something adds its entry here and the test does the rest.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { check, submitPrivacyRequest, type HttpClient } from "./container-http";
import { disclosureBody, leadBody, leadSessionFrom } from "../../tools/lead-session";
import { LEAD_REFERENCE_PATTERN } from "../../shared/lead/api";
import { CSRF_HEADER } from "../../shared/routes";

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
  {
    name: "a lead with its consent record (GET /api/leads/session, then POST /api/leads)",
    async submit(lb) {
      const reference = await submitLead(lb);
      return { description: `lead ${reference}`, table: "leads", column: "reference", value: reference };
    },
  },
];

/** The form's minimum fill time in the stack (LEAD_MIN_FILL_MS's default), plus a margin. */
const FILL_TIME_MS = 4_500;

/** A quote request through the balancer, as the framed form sends it; returns its reference. */
async function submitLead(lb: HttpClient): Promise<string> {
  const [reference] = await submitLeads(lb, 1, { sid: "container", tid: "test" });
  return reference!;
}

/**
 * `count` quote requests through the balancer, each from a visitor of its own (own session, phone
 * and email), as the framed form sends them, all sent after one fill time; returns their references.
 */
export async function submitLeads(lb: HttpClient, count: number, campaign: { sid: string; tid: string }): Promise<string[]> {
  const sessions = await Promise.all(
    Array.from({ length: count }, async () => {
      const opened = await lb.request("/api/leads/session");
      check(opened.status === 200, `GET /api/leads/session answered ${opened.status}`);
      const session = leadSessionFrom(opened.headers.getSetCookie(), JSON.parse(opened.text));
      // The consent words for the answers, as the form asks on reaching the box: with a buyer configured they name it (decision 039).
      const words = await lb.request("/api/leads/disclosure", {
        method: "POST",
        headers: { "content-type": "application/json", [CSRF_HEADER]: session.csrfToken, cookie: session.cookie },
        body: JSON.stringify(disclosureBody()),
      });
      check(words.status === 200, `POST /api/leads/disclosure answered ${words.status}: ${words.text}`);
      return { ...session, disclosure: JSON.parse(words.text) as { version: number } };
    }),
  );
  // A person takes longer than LEAD_MIN_FILL_MS: a quicker submit is refused as a bot's.
  await sleep(FILL_TIME_MS);
  return Promise.all(
    sessions.map(async (session) => {
      const reply = await lb.request("/api/leads", {
        method: "POST",
        headers: { "content-type": "application/json", [CSRF_HEADER]: session.csrfToken, cookie: session.cookie },
        body: JSON.stringify(leadBody(session, campaign)),
      });
      check(reply.status === 201, `POST /api/leads answered ${reply.status}: ${reply.text}`);
      const { reference } = JSON.parse(reply.text) as { reference?: unknown };
      check(typeof reference === "string" && LEAD_REFERENCE_PATTERN.test(reference), `no lead reference in ${reply.text}`);
      return reference;
    }),
  );
}

/** The SQL identifiers allowed in a StoredRecord (they cannot be passed as psql variables). */
const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** psql input counting the rows that match `record`, with the value bound as :'value'. */
export function countQuery(record: StoredRecord): string {
  if (!IDENTIFIER.test(record.table) || !IDENTIFIER.test(record.column)) throw new Error(`not an identifier: ${record.table}.${record.column}`);
  return `SELECT count(*) FROM ${record.table} WHERE ${record.column}::text = :'value';\n`;
}
