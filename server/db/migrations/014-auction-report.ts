/**
 * Version 14: the auction in the analysts' report (issue 16, docs/analytics.md).
 *
 * - analytics_events.bid: a `buyer_pinged` event's bid, in US dollars (null: no bid). A bid is
 *   not revenue, so it has its own column.
 * - analytics_daily: pings, bids and their total per report day, sid and bot flag, so the report's
 *   `bids` and `avg_bid` come from the rollup like every other column.
 * - analytics_buyer_daily: the per-buyer view (pings, bids, sales, returns, revenue net of
 *   returns) per report day, sid, bot flag and buyer, updated in the statement that stores the
 *   events, as analytics_daily is.
 */
import type { Migration } from "./migration";

export const auctionReport: Migration = {
  version: 14,
  name: "auction-report",
  statements: [
    "ALTER TABLE analytics_events ADD COLUMN bid numeric(10,2)",
    `ALTER TABLE analytics_daily
       ADD COLUMN pings bigint NOT NULL DEFAULT 0,
       ADD COLUMN bids bigint NOT NULL DEFAULT 0,
       ADD COLUMN bid_total numeric(14,2) NOT NULL DEFAULT 0`,
    `CREATE TABLE analytics_buyer_daily (
       day date NOT NULL,
       sid text NOT NULL,
       bot boolean NOT NULL,
       buyer text NOT NULL,
       pings bigint NOT NULL DEFAULT 0,
       bids bigint NOT NULL DEFAULT 0,
       bid_total numeric(14,2) NOT NULL DEFAULT 0,
       sold bigint NOT NULL DEFAULT 0,
       returned bigint NOT NULL DEFAULT 0,
       revenue numeric(14,2) NOT NULL DEFAULT 0,
       PRIMARY KEY (day, sid, bot, buyer)
     )`,
  ],
};
