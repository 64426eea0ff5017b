/**
 * The tables as the query builder sees them (server/db/migrations/ creates them): column names
 * in camelCase here, snake_case in SQL (Kysely's CamelCasePlugin translates). A lead's answer
 * columns are the quote form's fields themselves (server/db/lead-rows.ts), so they are typed
 * from the shared schema, not written out again.
 */
import type { ColumnType, Generated } from "kysely";
import type { LeadAnswerColumns } from "./lead-rows";
import type { PrivacyRequestType } from "../../shared/privacy-request";

/** Written as a Date, read as a Date (both drivers parse timestamptz). */
type Timestamp = ColumnType<Date, Date, Date>;
/** bigint identity: read as text by pg, as a number by PGlite; never written. */
type Identity = ColumnType<string | number, never, never>;

export interface LeadsTable extends LeadAnswerColumns {
  id: Identity;
  reference: string;
  idempotencyKey: string;
  receivedAt: Timestamp;
  city: string;
  state: string;
  sid: string | null;
  tid: string | null;
  gpc: boolean;
  duplicateOf: string | null;
}

export interface LeadConsentsTable {
  id: Identity;
  leadId: ColumnType<string | number | null, string | number, never>;
  leadReference: string;
  disclosureVersion: number;
  disclosureSha256: string;
  checkboxChecked: boolean;
  consentedAt: Timestamp;
  phone: string;
  email: string;
  ip: string;
  userAgent: string;
  formUrl: string;
  pageUrl: string;
}

export interface ConsentDisclosuresTable {
  version: number;
  sha256: string;
  text: string;
  firstUsedAt: Generated<Date>;
}

export type PrivacyRequestStatus = "received" | "completed" | "denied";

export interface PrivacyRequestsTable {
  id: Identity;
  reference: string;
  submissionId: string;
  requestType: PrivacyRequestType;
  email: string | null;
  phone: string | null;
  state: string | null;
  details: string | null;
  gpc: boolean;
  status: Generated<PrivacyRequestStatus>;
  receivedAt: Timestamp;
  dueAt: Timestamp;
  closedAt: Date | null;
  resolutionNote: string | null;
}

export interface SchemaMigrationsTable {
  version: number;
  name: string;
  appliedAt: Generated<Date>;
}

export interface Tables {
  leads: LeadsTable;
  leadConsents: LeadConsentsTable;
  consentDisclosures: ConsentDisclosuresTable;
  privacyRequests: PrivacyRequestsTable;
  schemaMigrations: SchemaMigrationsTable;
}
