/**
 * The contract between the operations console's server (server/admin/: sign-in, sessions, data,
 * actions) and its React pages (client/admin/: rendered on the server by the React entry's
 * `renderAdmin`). The server gathers everything a page shows into one of these views; the page
 * only renders it. Types only.
 */
import type { BuyerReportRow, JourneyEvent, ReportGrouping, ReportRow, ScreenFunnel } from "./analytics";
import type { BuyerOffersView } from "./admin-offers-view";
import type { KnobName, PrimaryMetric } from "./experiments";
import type { ExperimentResults } from "./experiment-results";

export type AdminRole = "analyst" | "ops";

/** The console's addresses (on ADMIN_HOST:ADMIN_PORT only). */
export const adminPaths = {
  signIn: "/sign-in",
  signOut: "/sign-out",
  report: "/",
  reportCsv: "/report.csv",
  journey: "/journey",
  leads: "/leads",
  leadsCsv: "/leads.csv",
  leadRetry: "/leads/retry",
  /** POST (ops): the lead's page with its phone and email shown, logged as admin_action show_contact. */
  leadContact: "/leads/contact",
  leadReturn: "/leads/return",
  buyers: "/buyers",
  buyerNew: "/buyers/new",
  sources: "/sources",
  sourceNew: "/sources/new",
  privacy: "/privacy-requests",
  privacyClose: "/privacy-requests/close",
  /** A/B experiments (issue 45): the list (analysts and ops), the new form and the kill switch (ops). */
  experiments: "/experiments",
  experimentNew: "/experiments/new",
  /** POST (ops): stop every running experiment, after a confirmation page. */
  experimentsStopAll: "/experiments/stop-all",
  assets: "/admin-assets",
  /** Prometheus metrics (server/metrics.ts), no session: the listener is private. */
  metrics: "/metrics",
} as const;

/** A buyer's pages and actions (its id is [a-z0-9_-], safe in a path as it is). */
export const buyerPaths = (id: string) => ({
  detail: `${adminPaths.buyers}/${id}`,
  edit: `${adminPaths.buyers}/${id}/edit`,
  save: `${adminPaths.buyers}/${id}`,
  status: `${adminPaths.buyers}/${id}/status`,
  rotateSecret: `${adminPaths.buyers}/${id}/rotate-secret`,
  /** POST (ops): the posting spec's JSON, per stage (issue 43). */
  spec: `${adminPaths.buyers}/${id}/spec`,
  /** POST (ops): set or replace one credential the spec's authentication names. */
  credentials: `${adminPaths.buyers}/${id}/credentials`,
  /** POST (ops): send a test lead to the buyer's real endpoint and show what it answered (issue 43, item 5). */
  testLead: `${adminPaths.buyers}/${id}/test-lead`,
});

/** A source's pages and actions (a sid is [A-Za-z0-9_-], safe in a path as it is). */
export const sourcePaths = (sid: string) => ({
  detail: `${adminPaths.sources}/${sid}`,
  edit: `${adminPaths.sources}/${sid}/edit`,
  save: `${adminPaths.sources}/${sid}`,
  status: `${adminPaths.sources}/${sid}/status`,
});

/** An experiment's pages and actions (its id is [a-z0-9-], safe in a path as it is). */
export const experimentPaths = (id: string) => ({
  detail: `${adminPaths.experiments}/${id}`,
  edit: `${adminPaths.experiments}/${id}/edit`,
  save: `${adminPaths.experiments}/${id}`,
  /** POST (ops): status running (start) or stopped (stop). */
  status: `${adminPaths.experiments}/${id}/status`,
  /** Its results (variants against the control on the primary metric). */
  results: `${adminPaths.experiments}/${id}/results`,
});

/**
 * The experiment form's field names, shared by the server that reads them (server/admin/experiment-form.ts)
 * and the page that writes them: the schema's paths, so an issue's path names its field.
 */
export const EXPERIMENT_VARIANT_ROWS = 5;
/** A knob's field in variant row `row` ("variants.1.values.landing.headline"; a knob's name has a dot of its own). */
export const experimentKnobField = (row: number, knob: KnobName) => `variants.${row}.values.${knob}`;
/** The primary metrics in the console's words. */
export const PRIMARY_METRIC_WORDS: Record<PrimaryMetric, string> = { net_revenue_per_visitor: "Net revenue per visitor", lead_rate: "Lead rate" };

/** The signed-in user, and the token every form of the page must send back (field `_csrf`). */
export interface AdminSession {
  name: string;
  role: AdminRole;
  csrfToken: string;
}

/** A message shown once after an action (post/redirect/get). */
export interface Flash {
  kind: "success" | "error";
  text: string;
}

interface ViewBase {
  /** Absent on the sign-in page. */
  session?: AdminSession;
  flash?: Flash;
}

export interface SignInView extends ViewBase {
  page: "sign-in";
  /** Shown above the form: wrong name or password, locked out, signed out. */
  error?: string;
  /** Where to go after signing in (a console path, validated by the server). */
  next?: string;
  /** The sign-in form's own CSRF token (bound to a pre-session cookie). */
  csrfToken: string;
  name?: string;
}

/** One source's daily trend for the chart (days ascending). */
export interface TrendSeries {
  sid: string;
  points: { date: string; clicks: number; leads: number; revenue: number }[];
}

export interface ReportView extends ViewBase {
  page: "report";
  /** The form's values: days "YYYY-MM-DD", until exclusive. */
  query: { since: string; until: string; by: ReportGrouping; bots: boolean; sid?: string; screens?: true };
  rows: ReportRow[];
  totals: ReportRow;
  /** The per-buyer view of the same range and filters (pings, bids, wins, win rate, revenue). */
  buyers: BuyerReportRow[];
  /** Funnel for the whole range: clicks → unique clicks → ZIP → quote page → form started → leads → sold. */
  funnel: { stage: string; count: number }[];
  trend: TrendSeries[];
  /**
   * Where visitors leave the quote form, per question screen (the range, bots and sid filters
   * apply; the grouping does not): all sources first (sid null), then each source with form
   * traffic. Only when the query asks (screens=1): it reads the range's raw form events, which
   * grow with the traffic, while the rest of the page reads the small daily rollup.
   */
  screens?: ScreenFunnel[];
  /**
   * What bots did in the range (and sid) that the report leaves out: only when bots are excluded
   * and did anything, so the page can say how much and link to the report with them.
   */
  botsLeftOut?: { clicks: number; leads: number; events: number };
  /** Problems with the form's values (the report then shows the defaults). */
  errors?: string[];
}

export interface JourneyView extends ViewBase {
  page: "journey";
  tid?: string;
  events: JourneyEvent[];
  error?: string;
}

export interface LeadAttemptView {
  at: string;
  outcome: string;
  httpStatus: number | null;
  latencyMs: number;
  excerpt: string | null;
}

export interface LeadDeliveryView {
  kind: "buyer" | "postback" | "revocation";
  target: string;
  status: string;
  sale: boolean;
  price: number | null;
  attempts: LeadAttemptView[];
  /** What the buyer calls the lead, from its answer (a buyer with its own posting spec); null for analysts. */
  buyerLeadId: string | null;
  /** The request as last sent, masked (a buyer with its own posting spec); null for analysts, who see no contact even masked. */
  requestSent: SentRequestView | null;
  lastError: string | null;
  reason: string | null;
  /** Why a fixed-price sale cost what it did ("base $12.00 + Homeowners +$4.00"); null before prices had reasons, and for auctions and postbacks. */
  priceReason: string | null;
  createdAt: string;
  completedAt: string | null;
  /** Whether ops may retry (failed) or return (accepted buyer delivery) it. */
  canRetry: boolean;
  canReturn: boolean;
}

/** A lead's quote in words, one line per vehicle and driver: no names, birth dates, VINs or contact (server/admin/quote-facts.ts). */
export interface QuoteFactsView {
  vehicles: string[];
  drivers: string[];
  insurance: string;
}

/** One lead's auction (server/auction/): how it ended, and every buyer's ping with its bid. */
export interface AuctionView {
  status: "pending" | "pinging" | "decided" | "cascading" | "sold" | "unsold";
  saleType: "exclusive" | "shared" | null;
  reason: string | null;
  test: boolean;
  floor: number;
  pingedAt: string | null;
  decidedAt: string | null;
  /** `excerpt` and `requestSent` (a buyer with its own ping spec) for ops only, as a delivery's. */
  pings: { buyerId: string; outcome: string; latencyMs: number; httpStatus: number | null; price: number | null; saleType: "exclusive" | "shared" | null; bidId: string | null; detail: string | null; won: boolean; excerpt: string | null; requestSent: SentRequestView | null }[];
}

/**
 * One check recorded for a lead (issue 44; table lead_checks): a consent proof (TrustedForm,
 * LeadiD) or a phone scrub (litigator, Do Not Call, line type), run because a buyer that could
 * take the lead requires it. No contact details (a check's detail never carries a phone or
 * email), so analysts see it as ops do.
 */
export interface LeadCheckView {
  /** The stored kind: "trustedform", "jornaya", "litigator", "dnc", "line_type". */
  kind: string;
  /** In words: "TrustedForm certificate", "LeadiD", "TCPA litigator", "Do Not Call", "Line type". */
  kindText: string;
  /** The provider's name as recorded ("trustedform", "twilio-lookup", …). */
  provider: string;
  status: "running" | "ok" | "failed" | "unavailable";
  /** "running", "answered", "failed", "no answer". */
  statusText: string;
  /** The provider's short word ("retained", "clean", "dnc_match", "mobile"); null while running. */
  outcome: string | null;
  /** The outcome for people: "dnc match", "fixed VoIP". */
  outcomeText: string | null;
  /** One line for ops from the adapter. */
  detail: string | null;
  latencyMs: number | null;
  /** The answer came from the phone cache (no provider call for this lead). */
  cached: boolean;
  /** How many provider calls this lead's check made (a check asked again after no answer adds one). */
  calls: number;
  startedAt: string;
  finishedAt: string | null;
}

/**
 * Who sent a lead, for ops helping a visitor who calls with its reference (issue 42, item 9): the
 * name, ZIP and city as they are, the phone and email masked. `revealed` only in the answer to the
 * POST that asked for them (logged as admin_action show_contact), never in an address or cookie.
 * Analysts' views have none of it, not even masked.
 */
export interface LeadContactView {
  name: string;
  zip: string;
  city: string;
  /** "(•••) •••-0134" */
  phone: string;
  /** "j•••@example.com" */
  email: string;
  revealed?: { phone: string; email: string; /** E.164, for a tel: link. */ tel: string };
}

/** A lead's status in the list (server/db/lead-list.ts defines each from the stored rows). */
export const LEAD_STATUSES = ["sold", "unsold", "returned", "test"] as const;
export type LeadStatus = (typeof LEAD_STATUSES)[number];

/**
 * The list's form as the server understood it (days "YYYY-MM-DD" in REPORT_TIME_ZONE, until
 * exclusive); no days only for a contact search without any, which looks through every lead kept.
 */
export interface LeadListQuery {
  since?: string;
  until?: string;
  sid?: string;
  state?: string;
  status?: LeadStatus;
  buyer?: string;
  /** A phone number or email searched for (ops only), as typed. */
  find?: string;
}

export interface LeadListRowView {
  reference: string;
  receivedAt: string;
  sid: string | null;
  state: string;
  status: LeadStatus;
  /** The buyers that bought it; `returned` when that buyer returned it since. */
  purchases: { buyer: string; price: number | null; returned: boolean }[];
  /** What the buyers that kept it paid; null when none did. */
  price: number | null;
  /** Ops only, masked ("(•••) •••-0134", "j•••@example.com"); analysts' rows have none. */
  contact?: { phone: string; email: string };
}

export interface LeadListView {
  query: LeadListQuery;
  rows: LeadListRowView[];
  /** How many leads match the filters (every page). */
  total: number;
  /** The query string of the next (older) page, when there is one. */
  older?: string;
  /** Whether this is a later page (a link back to the newest leads is shown). */
  paged: boolean;
  /** The buyers one may filter by. */
  buyers: string[];
  /** The same filters' CSV download, for ops (absent for analysts). */
  csv?: string;
  /** Whether the rows carry (masked) contact details and contact search is offered: ops only. */
  contacts: boolean;
}

export interface LeadsView extends ViewBase {
  page: "leads";
  reference?: string;
  /** The lead found: reference, received, state, campaign, duplicate, the quote's facts; for ops also who sent it (`contact`). */
  lead?: { reference: string; receivedAt: string; state: string; sid: string | null; tid: string | null; duplicateOf: string | null; gpc: boolean; quote: QuoteFactsView; contact?: LeadContactView };
  /** Its auction, when it was sold by one. */
  auction?: AuctionView;
  /** Each configured buyer: offered, or the rule that excluded the lead (shared/admin-offers-view.ts). */
  offers?: BuyerOffersView;
  /** The checks recorded for the lead, in the order they started (empty: none ran); absent when the lead itself is not stored. */
  checks?: LeadCheckView[];
  deliveries: LeadDeliveryView[];
  /** Recent failed (dead-lettered) deliveries, for the list when nothing is searched. */
  failed: { reference: string; target: string; lastError: string | null; completedAt: string | null }[];
  error?: string;
  /** The list of recent leads (when no single lead is asked for). */
  list?: LeadListView;
  /** Problems with the list's form (each named; the list is then not shown). */
  listErrors?: string[];
  /** The list's form as it was sent, to show it again beside its problems. */
  listForm?: Partial<Record<"since" | "until" | "sid" | "state" | "status" | "buyer" | "find", string>>;
  /** The buyers the list's form offers, when the form is shown again with its problems. */
  listBuyers?: string[];
}

/** One cap or budget against what this period used: "Day 45 / 200", "Month $1,240.00 / $5,000.00". */
export interface LimitUsageView {
  period: "hour" | "day" | "week" | "month";
  /** Leads (a cap) or US dollars (a budget). */
  unit: "leads" | "dollars";
  used: number;
  limit: number;
}

export type BuyerStatusName = "active" | "paused" | "archived";

export interface BuyerSummaryView {
  id: string;
  name: string;
  status: BuyerStatusName;
  mode: "post" | "pingpost";
  /** The base price (before price rules), US dollars. */
  price: number;
  /** Today in the buyer's day (its cap's day). */
  today: number;
  dailyCap: number | null;
  /** Every cap and budget set, with this period's usage (empty: no limits). */
  limits: LimitUsageView[];
  /** Over the last 30 days: accepted / (accepted + rejected), 0–1; null when none answered. */
  acceptanceRate: number | null;
  revenue30d: number;
  failed: number;
  pending: number;
  /** Whether it takes leads now: active, and inside its schedule (always, without one). */
  open: boolean;
}

export interface BuyersView extends ViewBase {
  page: "buyers";
  /** Active and paused buyers first, then archived ones (the page shows those apart). */
  buyers: BuyerSummaryView[];
  /** False when the server runs without business settings. */
  configured: boolean;
}

/** One setting as the detail page lists it: "Caps" → "hour 10, day 200". */
export interface SettingRowView {
  label: string;
  value: string;
}

/** One row of a buyer's or source's history (server/settings/store.ts settingsHistory). */
export interface SettingsHistoryRowView {
  at: string;
  actor: string;
  action: string;
  /**
   * What changed, in sentences that name who did it ("Price rule Homeowners +$4.00 added by ana.",
   * "Paused by ana."), in the form's order; secrets only as fingerprints (server/admin/settings-history.ts).
   */
  sentences: string[];
}

/** A secret the server just made: shown in this one response, never again. */
export interface OneTimeSecretView {
  secret: string;
  reason: "created" | "rotated";
  /** Until when the previous secret still signs and verifies (rotation with an overlap). */
  previousUntil: string | null;
}

/** One row of a spec's field map: "DOB ← driver.1.dateOfBirth (date as MM/DD/YYYY)". */
export interface SpecFieldRowView {
  /** The buyer's field (a form name, a JSON path, an XML path). */
  to: string;
  /** The fact it is read from, or "the constant …", or "every vehicle". */
  from: string;
  /** The transforms, default and optional in words ("" when none). */
  transforms: string;
}

export type SpecStage = "post" | "ping";

/** One stage of a buyer's posting spec in words (server/admin/spec-words.ts), never a credential's value. */
export interface SpecStageView {
  stage: SpecStage;
  format: "quoteridge" | "json" | "form" | "xml";
  /** "our signed JSON (quoteridge)", "JSON", "a form (…)", "XML". */
  formatText: string;
  /** Null for quoteridge. */
  method: string | null;
  /** Where it goes: the buyer's post URL, or its ping URL. */
  url: string;
  contentType: string | null;
  /** "the credential key in the query parameter key", "none". */
  auth: string;
  /** The credential the auth names (its name only). */
  credential: string | null;
  headers: { name: string; value: string }[];
  fields: SpecFieldRowView[];
  /** The answer rules as sentences, in order. */
  answer: string[];
}

/** A credential of the buyer: its name and fingerprint only; null when the spec names it but it is not set. */
export interface BuyerCredentialView {
  name: string;
  fingerprint: string | null;
  /** The stages whose spec names it. */
  usedBy: SpecStage[];
}

/** A buyer's posting spec (issue 43): each stage in words, its credentials, and the JSON the edit form starts from. */
export interface BuyerSpecView {
  /** The post, then (ping/post buyers) the ping; a stage without a spec is our signed JSON. */
  stages: SpecStageView[];
  credentials: BuyerCredentialView[];
  /** The edit form's textareas as stored (pretty JSON; "" for our signed JSON). `ping` only for a ping/post buyer. */
  json: { post: string; ping?: string };
}

/** A spec edit refused (422): the textareas as sent and each problem beside its textarea, with its path in the spec. */
export interface SpecFormState {
  values: { post: string; ping?: string };
  errors: Partial<Record<SpecStage, { path: string; message: string }[]>>;
}

/** The credential form refused (422): the name as sent (never the value) and each problem beside its field. */
export interface CredentialFormState {
  name: string;
  errors: { name?: string; value?: string };
}

/** What one stage would send for the previewed lead: the masked request, or why it would not be sent. */
export type SpecPreviewResult =
  | { kind: "quoteridge" }
  | { kind: "request"; method: string; url: string; headers: { name: string; value: string }[]; body: string | null }
  | { kind: "not_sent"; missing: string; field: string; why: string | null };

/** "What Acme would receive for lead LD-…" (ops): rendered by the spec engine, credentials and contact masked. */
export interface SpecPreviewView {
  /** The lead previewed (the newest by default); null when there is none to preview. */
  reference: string | null;
  /** What the form asked for, to show it again. */
  asked: string;
  /** Why there is nothing to show (a bad reference, no such lead, no lead yet). */
  error?: string;
  stages: { stage: SpecStage; result: SpecPreviewResult }[];
  /** What the preview made up that only a real sale knows (the bid id, the price). */
  notes: string[];
}

export interface BuyerDetailView extends ViewBase {
  page: "buyer";
  buyer: BuyerSummaryView;
  revision: number;
  /** Every setting, secrets as fingerprints only. */
  settings: SettingRowView[];
  secretFingerprint: string;
  /** The previous secret's fingerprint and until when it still works, during a rotation's overlap. */
  previous: { fingerprint: string; until: string } | null;
  /** Its deliveries pending or being sent (they finish whatever its status becomes). */
  inFlight: number;
  history: SettingsHistoryRowView[];
  /** Only in the answer to the create or rotate that made it (ops). */
  oneTimeSecret?: OneTimeSecretView;
  /** A problem with the rotate form, shown beside its field. */
  rotateError?: string;
  /** Its posting spec and credentials (names and fingerprints only). */
  spec: BuyerSpecView;
  /** The spec form as sent, with its problems (a 422). */
  specForm?: SpecFormState;
  /** The credential form's problems (a 422). */
  credentialForm?: CredentialFormState;
  /** Ops only, for a buyer with a spec of its own: what it would receive for a lead. */
  preview?: SpecPreviewView;
  /** Only in the answer to "Send a test lead" (ops): what was sent, what came back, how it was read. */
  testLead?: TestLeadView;
}

/** A request as sent, masked (credentials hidden, contact masked): a delivery's requestSent, a test lead's. */
export interface SentRequestView {
  method: string;
  url: string;
  headers: { name: string; value: string }[];
  body: string | null;
}

/** How the buyer's answer rules (or our own contract) read an answer. */
export interface AnswerReadingView {
  kind: "accepted" | "refused" | "retry" | "error" | "bid" | "no_bid" | "not_sent";
  /** In words: "Accepted at $14.25, their lead id AC-1001." */
  text: string;
  price: number | null;
  buyerLeadId: string | null;
  bidId: string | null;
}

/** One exchange of a test lead: the ping or the post. */
export interface TestExchangeView {
  stage: SpecStage;
  /** "the buyer's own spec (json)" or "our signed JSON (quoteridge)". */
  format: string;
  /** Null when nothing was sent (a value the sample lacks, no bid to post on). */
  request: SentRequestView | null;
  /** The raw answer; null when none came (not sent, timeout, network error, refused address). */
  answer: {
    status: number;
    latencyMs: number;
    /** Headers of interest (content type, Retry-After, whether it was signed). */
    headers: { name: string; value: string }[];
    /** The body's first few KB, as text (escaped where shown). */
    body: string;
    truncated: boolean;
  } | null;
  /** What went wrong before an answer: "no answer within 5000 ms", "refused: …". */
  transportError: string | null;
  latencyMs: number;
  reading: AnswerReadingView;
}

export interface TestLeadView {
  /** The sample lead's made-up reference (LD-TEST-…): never stored, never billed. */
  reference: string;
  sentAt: string;
  exchanges: TestExchangeView[];
}

/** Archiving asks first: what happens to the buyer's deliveries in flight. */
export interface BuyerArchiveView extends ViewBase {
  page: "buyer-archive";
  id: string;
  name: string;
  inFlight: number;
}

/** A settings form's fields as sent (a checkbox group or repeated field is a list). */
export type FormValues = Record<string, string | string[]>;

/** The buyer or source form: its values, and each problem beside its field (keyed by field name; "" for the whole form). */
export interface SettingsFormView<Page extends "buyer-form" | "source-form"> extends ViewBase {
  page: Page;
  mode: "create" | "edit";
  /** The id or sid being edited. */
  key?: string;
  /** The stored revision the form was read at (edit). */
  revision?: number;
  values: FormValues;
  errors: Record<string, string>;
  /** Someone else saved it since: the revision it is at now (a 409). */
  conflict?: { currentRevision: number };
}

export interface BuyerFormView extends SettingsFormView<"buyer-form"> {
  /** The price rule rows to show (the stored ones, the sent ones, and empty ones to fill). */
  ruleRows: number;
}

export type SourceFormView = SettingsFormView<"source-form">;

export interface SourceSummaryView {
  sid: string;
  name: string | null;
  status: "active" | "archived";
  payout: number;
  floor: number;
  postbackUrl: string | null;
}

export interface SourcesView extends ViewBase {
  page: "sources";
  sources: SourceSummaryView[];
  configured: boolean;
}

export interface SourceDetailView extends ViewBase {
  page: "source";
  source: SourceSummaryView;
  revision: number;
  history: SettingsHistoryRowView[];
}

export interface PrivacyRequestView {
  reference: string;
  type: string;
  status: "received" | "completed" | "denied";
  receivedAt: string;
  dueAt: string;
  overdue: boolean;
  /** Whole days left (negative: overdue by). */
  daysLeft: number;
  state: string | null;
  gpc: boolean;
  closedAt: string | null;
  note: string | null;
}

export interface PrivacyView extends ViewBase {
  page: "privacy";
  /** Open requests first, by legal deadline (the earliest first), then recently closed ones. */
  requests: PrivacyRequestView[];
}

/**
 * Where an experiment stands now: a draft; running and waiting for its start (scheduled), between
 * its start and stop (live: visitors are assigned), or past its stop (ended: everyone sees the
 * control); or stopped by ops.
 */
export type ExperimentStateName = "draft" | "scheduled" | "live" | "ended" | "stopped";

/** One variant: its share and what it changes, in words ("Landing page headline: “Save on car insurance today”"). */
export interface ExperimentVariantView {
  id: string;
  name: string;
  share: number;
  /** The first variant: it changes nothing. */
  control: boolean;
  changes: { knob: string; label: string; value: string }[];
}

export interface ExperimentSummaryView {
  id: string;
  name: string;
  hypothesis: string;
  status: "draft" | "running" | "stopped";
  state: ExperimentStateName;
  /** The state in words: "Live since …", "Scheduled: starts …", "Stopped". */
  stateText: string;
  variants: ExperimentVariantView[];
  /** What it changes (any variant), in words, with the page: "Landing page headline". */
  changes: string[];
  /** The traffic sources it includes; null: every visitor. */
  sids: string[] | null;
  primaryMetric: string;
  primaryMetricText: string;
  startAt: string;
  stopAt: string | null;
}

export interface ExperimentsView extends ViewBase {
  page: "experiments";
  /** Oldest first, as stored. */
  experiments: ExperimentSummaryView[];
  /** False when the server runs without business settings. */
  configured: boolean;
  /** How many have status running (the kill switch stops them). */
  running: number;
}

export interface ExperimentDetailView extends ViewBase {
  page: "experiment";
  experiment: ExperimentSummaryView;
  revision: number;
  history: SettingsHistoryRowView[];
}

/** The experiment form: its values, and each problem beside its field (keyed by field name; "" for the whole form). */
export interface ExperimentFormView extends ViewBase {
  page: "experiment-form";
  mode: "create" | "edit";
  key?: string;
  revision?: number;
  values: FormValues;
  errors: Record<string, string>;
  conflict?: { currentRevision: number };
  /** It has started: only its name, hypothesis and stop can change; the rest is shown, not edited. */
  started?: ExperimentSummaryView;
}

/** The kill switch asks first: which experiments it stops. */
export interface ExperimentsStopAllView extends ViewBase {
  page: "experiments-stop-all";
  running: { id: string; name: string; stateText: string }[];
}

/** An experiment's results (GET experimentPaths(id).results, ops and analysts; shared/experiment-results.ts). */
export interface ExperimentResultsView extends ViewBase {
  page: "experiment-results";
  results: ExperimentResults;
  /** Per source too (?by=sid): results.bySid is then filled. */
  bySid: boolean;
}

export interface ErrorView extends ViewBase {
  page: "error";
  status: 403 | 404 | 500;
  message: string;
}

export type AdminView =
  | SignInView
  | ReportView
  | JourneyView
  | LeadsView
  | BuyersView
  | BuyerDetailView
  | BuyerArchiveView
  | BuyerFormView
  | SourcesView
  | SourceDetailView
  | SourceFormView
  | PrivacyView
  | ExperimentsView
  | ExperimentDetailView
  | ExperimentFormView
  | ExperimentsStopAllView
  | ExperimentResultsView
  | ErrorView;

/** What the React entry exports for the console (client/entry-server.tsx): a whole HTML document. */
export type RenderAdmin = (view: AdminView, options: { nonce: string }) => string;
