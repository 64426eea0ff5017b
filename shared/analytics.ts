/**
 * The analytics vocabulary shared by the event store (server/analytics/), the report
 * (`npm run report`) and the operations console: which funnel events exist, and the report's
 * rows. docs/analytics.md defines every event and column.
 */

/** Every event stored in analytics_events, in funnel order. */
export const ANALYTICS_EVENTS = [
  /** A visitor arrived from a campaign: a page with sid and/or tid and no visit id yet (the ad click). */
  "campaign_hit",
  /** The landing page's ZIP form reached /go (detail: accepted | invalid_zip | missing_zip). */
  "zip_submitted",
  /** The quote page (/) was served. */
  "quote_page_view",
  /** The quote form reported its first interaction. */
  "form_started",
  /** The quote form reported a completed step (step: 1…). */
  "form_step_completed",
  /** A quote request was stored as a new lead. */
  "lead_submitted",
  /** A quote request was stored as a duplicate of an earlier lead (never sold). */
  "lead_duplicate",
  /** A quote request was refused before storing (detail: the reason; honeypot and too_fast are bots). */
  "lead_refused",
  /** A ping/post buyer was pinged in an auction (target: buyer id; detail: bid, or why not; bid: its price). Never for a test lead. */
  "buyer_pinged",
  /** A buyer accepted a lead (target: buyer id; revenue: its price; payout: the source's payout, on the lead's first sale only). */
  "lead_sold",
  /** A buyer answered no (target: buyer id; detail: its reason). */
  "buyer_rejected",
  /** A delivery was dead-lettered after its last try (target: buyer id). */
  "delivery_failed",
  /** A buyer returned a lead it had bought (revenue: the price reversed; payout: the source's payout reversed when no buyer keeps the lead). */
  "lead_returned",
  /** A traffic source's postback was answered 2xx (detail: sold | returned). */
  "postback_sent",
  /** A traffic source's postback was refused or dead-lettered (detail: sold | returned). */
  "postback_failed",
] as const;
export type AnalyticsEventName = (typeof ANALYTICS_EVENTS)[number];

/** How the sub-id report groups its rows. */
export const REPORT_GROUPINGS = ["day", "sid", "day,sid"] as const;
export type ReportGrouping = (typeof REPORT_GROUPINGS)[number];

/** One row of the sub-id report (docs/analytics.md defines each column). */
export interface ReportRow {
  /** "YYYY-MM-DD" (the report time zone's day); null when grouped by sid only. */
  date: string | null;
  /** The traffic source's sid; "" for traffic without one; null when grouped by day only. */
  sid: string | null;
  clicks: number;
  unique_clicks: number;
  zip_submits: number;
  quote_views: number;
  form_starts: number;
  leads: number;
  duplicates: number;
  sold: number;
  returned: number;
  /** US dollars, net of returns. */
  revenue: number;
  /** US dollars, net of returns. */
  payout: number;
  profit: number;
  /** leads / unique_clicks (0 when there are no unique clicks). */
  cr: number;
  /** revenue / unique_clicks (0 when there are no unique clicks). */
  epc: number;
  /** Bids received in auctions (buyer_pinged events with a bid; test leads never count). */
  bids: number;
  /** US dollars: the bids added up (not a column: it makes avg_bid of the totals exact). */
  bid_total: number;
  /** bid_total / bids (0 without bids). */
  avg_bid: number;
  /** revenue / leads (0 without leads). */
  revenue_per_lead: number;
}

/** The report's columns, in order (the CLI's table and CSV header, the console's table). */
export const REPORT_COLUMNS = [
  "date",
  "sid",
  "clicks",
  "unique_clicks",
  "zip_submits",
  "quote_views",
  "form_starts",
  "leads",
  "duplicates",
  "sold",
  "returned",
  "revenue",
  "payout",
  "profit",
  "cr",
  "epc",
  "bids",
  "avg_bid",
  "revenue_per_lead",
] as const satisfies readonly (keyof ReportRow)[];

/** One buyer's line of the per-buyer view (`npm run report -- buyers`, the console's report page). */
export interface BuyerReportRow {
  buyer: string;
  /** Times it was pinged in an auction (0 for a fixed-price buyer: it is never pinged). */
  pings: number;
  bids: number;
  /** US dollars: bid total / bids (0 without bids). */
  avg_bid: number;
  /** Leads it bought (auction wins and fixed-price sales). */
  wins: number;
  /** wins / bids, for a buyer that bids; null for a fixed-price buyer (it never bids). */
  win_rate: number | null;
  returned: number;
  /** US dollars, net of returns. */
  revenue: number;
}

/** The per-buyer view's columns, in order. */
export const BUYER_REPORT_COLUMNS = ["buyer", "pings", "bids", "avg_bid", "wins", "win_rate", "returned", "revenue"] as const satisfies readonly (keyof BuyerReportRow)[];

/** One event of a click's journey (`npm run report -- tid CLK123`, the console's journey page). */
export interface JourneyEvent {
  /** ISO 8601, UTC. */
  at: string;
  name: AnalyticsEventName;
  sid: string | null;
  tid: string | null;
  visitId: string | null;
  bot: boolean;
  gpc: boolean;
  path: string | null;
  step: number | null;
  leadReference: string | null;
  target: string | null;
  detail: string | null;
  revenue: number | null;
  payout: number | null;
  /** A buyer_pinged event's bid, US dollars. */
  bid: number | null;
}

/**
 * The last line of a screen funnel, after the question screens: the request itself. Reached by
 * the visits that answered the last screen (or stored a request), answered by those whose request
 * was stored (a lead or a duplicate), left by the rest. Parentheses: never a screen id.
 */
export const REQUEST_STORED = "(request stored)";

/** One line of the funnel per question screen (docs/analytics.md, "Where visitors leave the form"). */
export interface ScreenFunnelRow {
  /** A screen id of the form's flow (shared/lead/fields.ts, SCREEN_IDS), or REQUEST_STORED. */
  screen: string;
  /** 1…: the screen's place in the flow (REQUEST_STORED last). */
  position: number;
  /** Visits that answered it or left there, each once: the visits known to have had this screen in front of them. */
  reached: number;
  /** Visits that completed this screen at least once. */
  answered: number;
  /**
   * Visits that stored no request and stopped on this screen: the screen visitors most often went
   * on to from the visit's last completion (docs/analytics.md), the first screen when it completed none.
   */
  left: number;
  /** left / reached, to 4 places; 0 when nobody reached it. */
  left_rate: number;
}

/** The funnel per question screen of one source, or of all sources added up. */
export interface ScreenFunnel {
  /** The source; "" for traffic without a sid; null for all sources added up. */
  sid: string | null;
  /** Visits counted: they started the form or answered a screen of today's flow in range. */
  visits: number;
  /** Of those, visits that stored a request (a lead or a duplicate). */
  leads: number;
  /** Visits set aside: they answered a screen that is not in today's flow (an earlier form). */
  earlier: number;
  screens: ScreenFunnelRow[];
}

/** The CSV's columns for the funnel per question screen (one line per source and screen). */
export const SCREEN_FUNNEL_COLUMNS = ["sid", "position", "screen", "reached", "answered", "left", "left_rate"] as const;
