/**
 * Version 7: the analytics event store (issue 11, docs/analytics.md).
 *
 * - analytics_events: one row per funnel event, written in batches off the request path
 *   (server/analytics/writer.ts). Campaign ids, a visit id, a bot flag and GPC; never personal
 *   details or IP addresses. `day` is the report day (REPORT_TIME_ZONE) fixed when recorded.
 *   Kept 13 months (server/analytics/retention.ts).
 * - analytics_daily: the same events counted per report day, sid and bot flag, updated in the
 *   statement that inserts them, so a 30-day report reads a few thousand rows, not millions.
 * - analytics_click_keys: which click keys (the tid, else the visit id) a day and sid has seen,
 *   so a repeated click is counted once in unique_clicks.
 * - analytics_paid_leads: the leads whose source payout has been counted: a lead sold to two
 *   buyers is paid for once (as its source's postback reports it once).
 * - leads.visit_id: the visit a quote request came from, so delivery events join its visit.
 */
import type { Migration } from "./migration";

const COUNTS = ["clicks", "unique_clicks", "zip_submits", "quote_views", "form_starts", "leads", "duplicates", "sold", "returned"];

export const analyticsEvents: Migration = {
  version: 7,
  name: "analytics-events",
  statements: [
    `CREATE TABLE analytics_events (
       id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
       occurred_at timestamptz NOT NULL,
       day date NOT NULL,
       name text NOT NULL,
       sid text,
       tid text,
       visit_id text,
       bot boolean NOT NULL DEFAULT false,
       gpc boolean NOT NULL DEFAULT false,
       path text,
       step smallint,
       lead_reference text,
       target text,
       detail text,
       revenue numeric(10,2),
       payout numeric(10,2)
     )`,
    "CREATE INDEX analytics_events_occurred_at ON analytics_events (occurred_at)",
    "CREATE INDEX analytics_events_tid ON analytics_events (tid, occurred_at) WHERE tid IS NOT NULL",
    "CREATE INDEX analytics_events_visit ON analytics_events (visit_id, occurred_at) WHERE visit_id IS NOT NULL",
    "CREATE INDEX analytics_events_lead ON analytics_events (lead_reference) WHERE lead_reference IS NOT NULL",
    `CREATE TABLE analytics_daily (
       day date NOT NULL,
       sid text NOT NULL,
       bot boolean NOT NULL,
       ${COUNTS.map((column) => `${column} bigint NOT NULL DEFAULT 0`).join(",\n       ")},
       revenue numeric(14,2) NOT NULL DEFAULT 0,
       payout numeric(14,2) NOT NULL DEFAULT 0,
       PRIMARY KEY (day, sid, bot)
     )`,
    `CREATE TABLE analytics_click_keys (
       day date NOT NULL,
       sid text NOT NULL,
       key text NOT NULL,
       PRIMARY KEY (day, sid, key)
     )`,
    `CREATE TABLE analytics_paid_leads (
       lead_reference text PRIMARY KEY,
       day date NOT NULL
     )`,
    "ALTER TABLE leads ADD COLUMN visit_id text",
  ],
};

/** The rollup's counters, in column order (server/analytics/writer.ts adds to each). */
export const DAILY_COUNTS = COUNTS;
