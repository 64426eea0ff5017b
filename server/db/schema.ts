/**
 * The tables as the query builder sees them (server/db/migrations/ creates them): column names
 * in camelCase here, snake_case in SQL (Kysely's CamelCasePlugin translates). A lead's answer
 * columns are the quote form's fields themselves (server/db/lead-rows.ts), so they are typed
 * from the shared schema, not written out again.
 */
import type { ColumnType, Generated } from "kysely";
import type { LeadAnswerColumns } from "./lead-rows";
import type { PrivacyRequestType } from "../../shared/privacy-request";
import type { AnalyticsEventName } from "../../shared/analytics";

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
  /** The ZIP's IANA time zone when received (migration 19); null for leads stored before it. */
  timeZone: ColumnType<string | null, string | null | undefined, string | null>;
  sid: string | null;
  tid: string | null;
  gpc: boolean;
  duplicateOf: string | null;
  /** The visit the request came from (migration 7); null for leads stored before it. */
  visitId: ColumnType<string | null, string | null | undefined, string | null>;
  /** The experiments' visitor id (the qr_vis cookie) the lead came with, when one was set (migration 24). */
  visitorId: ColumnType<string | null, string | null | undefined, string | null>;
  /** Marked a test by an ops test link (migration 015); the test phone number needs no flag. */
  test: ColumnType<boolean, boolean | undefined, boolean>;
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
  /** 128 random bits, base64url: the consent certificate's address (GET /consent/:id). Null before migration 4. */
  certificateId: string | null;
  /** When the form opened (its signed token's time). Null before migration 4. */
  formOpenedAt: Date | null;
  /** The Terms of Use and Privacy Policy revisions agreed to ("2023-05-24"). */
  termsVersion: string | null;
  privacyVersion: string | null;
  /** Kept with the record for its 5 years (the lead's copy goes after 3). */
  firstName: string | null;
  lastName: string | null;
  zip: string | null;
  /** When the person revoked consent to be contacted, and by which request (migration 13). */
  revokedAt: ColumnType<Date | null, Date | null | undefined, Date | null>;
  revocationReference: ColumnType<string | null, string | null | undefined, string | null>;
  /**
   * What TrustedForm's and Jornaya's scripts wrote into the form (migration 22, issue 44), as the
   * visitor's browser sent them: unverified (the checks verify them); null when none was sent.
   */
  trustedformCertUrl: ColumnType<string | null, string | null | undefined, string | null>;
  leadidToken: ColumnType<string | null, string | null | undefined, string | null>;
}

/** text[]: read as an array by both drivers; written with a ::text[] cast. */
type TextArray = ColumnType<string[], string[] | undefined, string[]>;

export interface ConsentDisclosuresTable {
  /** The database's: one per distinct text, max + 1 for a new one (server/consent/disclosures.ts). */
  version: number;
  sha256: string;
  text: string;
  firstUsedAt: Generated<Date>;
  /** The buyers named, by id: a lead consented under this version may only go to these. */
  buyerIds: TextArray;
  /** The names in the text's partner list, in order. */
  partnerNames: TextArray;
  /** The wording's code version and hash (shared/consent-disclosure.ts); null for texts stored before migration 4 by another wording. */
  templateVersion: number | null;
  templateSha256: string | null;
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

export type DeliveryStatus = "pending" | "sending" | "accepted" | "rejected" | "failed" | "returned";
export type AttemptOutcome = "accepted" | "rejected" | "retry" | "timeout" | "network_error" | "withheld";

/** numeric(10,2): pg reads it as text (exact), PGlite as text or number. */
type Money = ColumnType<string | number | null, number | null, number | null>;

export interface DeliveriesTable {
  id: Identity;
  /** Null once the lead itself is purged; the reference stays. */
  leadId: ColumnType<string | number | null, string | number, never>;
  leadReference: string;
  kind: "buyer" | "postback" | "revocation";
  /** The buyer's id, or the source's sid for a postback. */
  target: string;
  idempotencyKey: string;
  status: Generated<DeliveryStatus>;
  /** false: sent as the visitor directed, not sold (Global Privacy Control, or on the suppression list). */
  sale: boolean;
  price: Money;
  /** A postback's address, filled in when it was scheduled; buyers' come from BUYERS_FILE. */
  url: string | null;
  /** The buyer's day whose daily cap this delivery counts against (null: no cap). */
  capDay: string | null;
  attempts: Generated<number>;
  nextAttemptAt: ColumnType<Date, Date | undefined, Date>;
  lockedUntil: Date | null;
  lastError: string | null;
  reason: string | null;
  createdAt: Generated<Date>;
  completedAt: Date | null;
  returnedAt: Date | null;
  /** The auction that sold it (migration 12); null for a fixed-price delivery or a postback. */
  auctionId: ColumnType<string | number | null, string | number | null | undefined, string | number | null>;
  saleType: ColumnType<"exclusive" | "shared" | null, "exclusive" | "shared" | null | undefined, "exclusive" | "shared" | null>;
  /** The winning bid's id, sent back to the buyer with the post. */
  bidId: ColumnType<string | null, string | null | undefined, string | null>;
  /** The cap periods this delivery took a slot in, "hour|day|week|month" (migration 17; server/db/buyer-counters.ts); null: none. */
  capKeys: ColumnType<string | null, string | null | undefined, string | null>;
  /** The dollars it reserved of the buyer's budgets. */
  capSpend: ColumnType<string | number | null, number | null | undefined, number | null>;
  /** How its price was reached: "base $12 + Homeowners +$4" (migration 17). */
  priceReason: ColumnType<string | null, string | null | undefined, string | null>;
  /** What the buyer calls the lead, from its answer (a buyer with its own posting spec, migration 20). */
  buyerLeadId: ColumnType<string | null, string | null | undefined, string | null>;
  /** The request as last sent, masked (credentials and contact details): a buyer with its own posting spec. */
  requestSent: ColumnType<SentRequest | null, string | null | undefined, string | null>;
}

/** A request as sent to a buyer, masked for display (server/delivery/spec/render.ts's RenderedRequest). */
export interface SentRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | null;
  contentType: string | null;
}

export type AuctionStatus = "pending" | "pinging" | "decided" | "cascading" | "sold" | "unsold";

export interface AuctionsTable {
  id: Identity;
  leadId: ColumnType<string | number | null, string | number, never>;
  leadReference: string;
  pingId: string;
  test: Generated<boolean>;
  floor: ColumnType<string | number, number | undefined, number>;
  status: Generated<AuctionStatus>;
  saleType: "exclusive" | "shared" | null;
  reason: string | null;
  lockedUntil: Date | null;
  createdAt: Generated<Date>;
  pingedAt: Date | null;
  bidsExpireAt: Date | null;
  decidedAt: Date | null;
}

export interface AuctionPingsTable {
  id: Identity;
  auctionId: ColumnType<string | number, string | number, never>;
  buyerId: string;
  outcome: string;
  latencyMs: number;
  httpStatus: number | null;
  price: Money;
  saleType: "exclusive" | "shared" | null;
  bidId: string | null;
  priority: Generated<number>;
  answeredAfterMs: number | null;
  detail: string | null;
  pingedAt: Date;
  /** An excerpt of the buyer's answer, masked (migration 21). */
  answerExcerpt: ColumnType<string | null, string | null | undefined, string | null>;
  /** The ping as sent, masked: a buyer with its own ping spec (migration 21). */
  requestSent: ColumnType<SentRequest | null, string | null | undefined, string | null>;
}

export interface DeliveryAttemptsTable {
  id: Identity;
  deliveryId: ColumnType<string | number, string | number, never>;
  attemptedAt: Date;
  httpStatus: number | null;
  latencyMs: number;
  outcome: AttemptOutcome;
  excerpt: string | null;
}

/** A buyer, a traffic source, or one business setting as the console keeps it (migration 17). */
interface Audited {
  revision: ColumnType<number, number | undefined, number>;
  createdAt: ColumnType<Date, Date | undefined, never>;
  updatedAt: ColumnType<Date, Date | undefined, Date>;
  updatedBy: string;
}
export interface BuyersTable extends Audited {
  id: string;
  position: Identity;
  status: "active" | "paused" | "archived";
  /** The buyer's entry as server/delivery/buyers.ts's schema reads it (status aside). */
  config: ColumnType<unknown, string, string>;
}
export interface TrafficSourcesTable extends Audited {
  sid: string;
  position: Identity;
  status: "active" | "archived";
  config: ColumnType<unknown, string, string>;
}
export interface BusinessSettingsTable extends Audited {
  key: string;
  value: ColumnType<unknown, string, string>;
}
export interface SettingsChangesTable {
  id: Identity;
  /** "experiment" from migration 25. */
  kind: "buyer" | "source" | "auction" | "experiment";
  key: string;
  action: string;
  actor: string;
  at: Generated<Date>;
  before: ColumnType<unknown, string | null, never>;
  after: ColumnType<unknown, string | null, never>;
}
export interface BuyerCountersTable {
  buyerId: string;
  hourKey: string;
  hourCount: number;
  dayKey: string;
  dayCount: number;
  daySpend: ColumnType<string | number, number, number>;
  weekKey: string;
  weekCount: number;
  monthKey: string;
  monthCount: number;
  monthSpend: ColumnType<string | number, number, number>;
}

export interface BuyerDailyCountsTable {
  buyerId: string;
  /** The buyer's calendar day, "YYYY-MM-DD". */
  day: string;
  count: number;
}

/** Where an opt-out came from: the privacy request form, a request by phone or email, or a browser's Global Privacy Control. */
export type SuppressionSource = "web_form" | "phone" | "email" | "gpc";

/** The opt-out suppression list: hashed contacts (hex SHA-256 of the lower-cased email or the E.164 phone). */
export interface SuppressionsTable {
  kind: "email" | "phone";
  hash: string;
  source: SuppressionSource;
  requestReference: string | null;
  addedAt: Generated<Date>;
}

/** Migration 7: one stored funnel event (server/analytics/writer.ts). */
export interface AnalyticsEventsTable {
  id: Identity;
  occurredAt: Timestamp;
  /** The report day, "YYYY-MM-DD", in REPORT_TIME_ZONE when recorded. */
  day: string;
  name: AnalyticsEventName;
  sid: string | null;
  tid: string | null;
  visitId: string | null;
  /** The experiments' visitor id (the qr_vis cookie), when the visitor has one (migration 24). */
  visitorId: ColumnType<string | null, string | null | undefined, string | null>;
  bot: boolean;
  gpc: boolean;
  path: string | null;
  step: number | null;
  leadReference: string | null;
  target: string | null;
  detail: string | null;
  revenue: Money;
  payout: Money;
  /** A buyer_pinged event's bid, US dollars (null: no bid). */
  bid: Money;
}

/** Per report day, sid ("" = none) and bot flag: the events counted (server/analytics/writer.ts). */
export interface AnalyticsDailyTable {
  day: string;
  sid: string;
  bot: boolean;
  clicks: ColumnType<string | number, number | undefined, number>;
  uniqueClicks: ColumnType<string | number, number | undefined, number>;
  zipSubmits: ColumnType<string | number, number | undefined, number>;
  quoteViews: ColumnType<string | number, number | undefined, number>;
  formStarts: ColumnType<string | number, number | undefined, number>;
  leads: ColumnType<string | number, number | undefined, number>;
  duplicates: ColumnType<string | number, number | undefined, number>;
  sold: ColumnType<string | number, number | undefined, number>;
  returned: ColumnType<string | number, number | undefined, number>;
  revenue: ColumnType<string | number, number | undefined, number>;
  payout: ColumnType<string | number, number | undefined, number>;
  pings: ColumnType<string | number, number | undefined, number>;
  bids: ColumnType<string | number, number | undefined, number>;
  bidTotal: ColumnType<string | number, number | undefined, number>;
}

/** Per report day, sid, bot flag and buyer: the per-buyer view (migration 014). */
export interface AnalyticsBuyerDailyTable {
  day: string;
  sid: string;
  bot: boolean;
  buyer: string;
  pings: ColumnType<string | number, number | undefined, number>;
  bids: ColumnType<string | number, number | undefined, number>;
  bidTotal: ColumnType<string | number, number | undefined, number>;
  sold: ColumnType<string | number, number | undefined, number>;
  returned: ColumnType<string | number, number | undefined, number>;
  revenue: ColumnType<string | number, number | undefined, number>;
}

export interface AnalyticsClickKeysTable {
  day: string;
  sid: string;
  key: string;
  /** The bot flag of the click that first brought the key (version 16). */
  bot: Generated<boolean>;
}

/** The leads whose source payout the rollup has counted (once per lead, at its first sale). */
export interface AnalyticsPaidLeadsTable {
  leadReference: string;
  day: string;
}

export type AdminRole = "analyst" | "ops";

/** Migration 8: the operations console's users (server/admin/). */
export interface AdminUsersTable {
  id: Identity;
  name: string;
  role: AdminRole;
  /** scrypt, in the self-describing form server/admin/passwords.ts writes. */
  passwordHash: string;
  createdAt: Generated<Date>;
  disabledAt: Date | null;
  failedAttempts: Generated<number>;
  lockedUntil: Date | null;
  lastSignInAt: Date | null;
}

export interface AdminSessionsTable {
  /** Hex SHA-256 of the cookie's token: the token itself is never stored. */
  tokenSha256: string;
  userId: ColumnType<string | number, string | number, never>;
  csrfToken: string;
  createdAt: Generated<Date>;
  expiresAt: Timestamp;
  lastSeenAt: Generated<Date>;
}

/** Migration 9: one budget's hits for one client in the current window (server/http/rate-limit-store.ts). */
export interface RateLimitHitsTable {
  budget: string;
  /** base64url HMAC-SHA-256 of the client's key (its address): never the address itself. */
  clientKey: string;
  hits: number;
  resetAt: Timestamp;
}

/** A lead's check (migration 23): one row per lead and kind; `running` while its call is out. */
export interface LeadChecksTable {
  leadReference: string;
  kind: string;
  provider: string;
  status: "running" | "ok" | "failed" | "unavailable";
  outcome: string | null;
  detail: string | null;
  latencyMs: number | null;
  cached: Generated<boolean>;
  calls: Generated<number>;
  startedAt: Date;
  finishedAt: Date | null;
}

/** A provider's answer about a phone, kept CHECK_CACHE_DAYS by the phone's SHA-256 (migration 23). */
export interface CheckCacheTable {
  kind: string;
  phoneHash: string;
  provider: string;
  status: "ok" | "failed";
  outcome: string;
  detail: string;
  checkedAt: Date;
  expiresAt: Date;
}

/** A visitor's first exposure to an experiment (migration 24): one row per experiment and visitor. */
export interface ExperimentExposuresTable {
  experiment: string;
  visitorId: string;
  variant: string;
  firstAt: Date;
  sid: string | null;
  tid: string | null;
  bot: Generated<boolean>;
}

export interface Tables {
  analyticsEvents: AnalyticsEventsTable;
  analyticsDaily: AnalyticsDailyTable;
  analyticsBuyerDaily: AnalyticsBuyerDailyTable;
  analyticsClickKeys: AnalyticsClickKeysTable;
  analyticsPaidLeads: AnalyticsPaidLeadsTable;
  adminUsers: AdminUsersTable;
  adminSessions: AdminSessionsTable;
  auctions: AuctionsTable;
  auctionPings: AuctionPingsTable;
  leadChecks: LeadChecksTable;
  checkCache: CheckCacheTable;
  experimentExposures: ExperimentExposuresTable;
  deliveries: DeliveriesTable;
  deliveryAttempts: DeliveryAttemptsTable;
  buyerDailyCounts: BuyerDailyCountsTable;
  buyers: BuyersTable;
  trafficSources: TrafficSourcesTable;
  businessSettings: BusinessSettingsTable;
  settingsChanges: SettingsChangesTable;
  buyerCounters: BuyerCountersTable;
  leads: LeadsTable;
  leadConsents: LeadConsentsTable;
  consentDisclosures: ConsentDisclosuresTable;
  privacyRequests: PrivacyRequestsTable;
  suppressions: SuppressionsTable;
  schemaMigrations: SchemaMigrationsTable;
  rateLimitHits: RateLimitHitsTable;
}
