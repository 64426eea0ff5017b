/**
 * The contract between the operations console's server (server/admin/: sign-in, sessions, data,
 * actions) and its React pages (client/admin/: rendered on the server by the React entry's
 * `renderAdmin`). The server gathers everything a page shows into one of these views; the page
 * only renders it. Types only.
 */
import type { BuyerReportRow, JourneyEvent, ReportGrouping, ReportRow, ScreenFunnel } from "./analytics";
import type { BuyerOffersView } from "./admin-offers-view";

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
  leadReturn: "/leads/return",
  buyers: "/buyers",
  privacy: "/privacy-requests",
  privacyClose: "/privacy-requests/close",
  assets: "/admin-assets",
} as const;

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
  lastError: string | null;
  reason: string | null;
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
  status: "pending" | "pinging" | "decided" | "sold" | "unsold";
  saleType: "exclusive" | "shared" | null;
  reason: string | null;
  test: boolean;
  floor: number;
  pingedAt: string | null;
  decidedAt: string | null;
  pings: { buyerId: string; outcome: string; latencyMs: number; httpStatus: number | null; price: number | null; saleType: "exclusive" | "shared" | null; bidId: string | null; detail: string | null; won: boolean }[];
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
  /** The lead found (no contact details: reference, received, state, campaign, duplicate, the quote's facts). */
  lead?: { reference: string; receivedAt: string; state: string; sid: string | null; tid: string | null; duplicateOf: string | null; gpc: boolean; quote: QuoteFactsView };
  /** Its auction, when it was sold by one. */
  auction?: AuctionView;
  /** Each configured buyer: offered, or the rule that excluded the lead (shared/admin-offers-view.ts). */
  offers?: BuyerOffersView;
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

export interface BuyerSummaryView {
  id: string;
  name: string;
  /** Today in the buyer's day (its cap's day). */
  today: number;
  dailyCap: number | null;
  /** Over the last 30 days: accepted / (accepted + rejected), 0–1; null when none answered. */
  acceptanceRate: number | null;
  revenue30d: number;
  failed: number;
  pending: number;
  open: boolean;
}

export interface BuyersView extends ViewBase {
  page: "buyers";
  buyers: BuyerSummaryView[];
  /** False when the server runs without BUYERS_FILE. */
  configured: boolean;
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

export interface ErrorView extends ViewBase {
  page: "error";
  status: 403 | 404 | 500;
  message: string;
}

export type AdminView = SignInView | ReportView | JourneyView | LeadsView | BuyersView | PrivacyView | ErrorView;

/** What the React entry exports for the console (client/entry-server.tsx): a whole HTML document. */
export type RenderAdmin = (view: AdminView, options: { nonce: string }) => string;
