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
] as const satisfies readonly (keyof ReportRow)[];

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
}
