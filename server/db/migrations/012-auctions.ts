/**
 * Version 12: the ping/post auction (issue 16; docs/lead-auction.md).
 *
 * `auctions`: one per lead sold by auction, written with the lead (the outbox), run by a worker
 * in any replica (claimed with FOR UPDATE SKIP LOCKED and a lease, like deliveries). Its status:
 * pending → pinging → decided (winners' posts queued) → sold or unsold (with the reason).
 * `auction_pings`: every ping's outcome, latency and, for a valid bid, its price, type and bid id:
 * one per auction and buyer, so a replica that finishes an auction another started adds nothing.
 * `deliveries` gain the auction, the sale type and the buyer's bid id. The partial unique index
 * holds "never sold exclusive twice" in the database itself: one live exclusive delivery per lead
 * (a refused or failed one no longer counts, so the cascade may offer it to the next bid).
 */
import type { Migration } from "./migration";

export const auctions: Migration = {
  version: 12,
  name: "auctions",
  statements: [
    `CREATE TABLE auctions (
       id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
       lead_id bigint REFERENCES leads (id) ON DELETE SET NULL,
       lead_reference text NOT NULL UNIQUE,
       ping_id text NOT NULL UNIQUE,
       test boolean NOT NULL DEFAULT false,
       floor numeric(10, 2) NOT NULL DEFAULT 0,
       status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'pinging', 'decided', 'sold', 'unsold')),
       sale_type text CHECK (sale_type IN ('exclusive', 'shared')),
       reason text,
       locked_until timestamptz,
       created_at timestamptz NOT NULL DEFAULT now(),
       pinged_at timestamptz,
       bids_expire_at timestamptz,
       decided_at timestamptz
     )`,
    `CREATE INDEX auctions_due ON auctions (created_at) WHERE status IN ('pending', 'pinging')`,
    `CREATE TABLE auction_pings (
       id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
       auction_id bigint NOT NULL REFERENCES auctions (id) ON DELETE CASCADE,
       buyer_id text NOT NULL,
       outcome text NOT NULL,
       latency_ms integer NOT NULL,
       http_status integer,
       price numeric(10, 2),
       sale_type text CHECK (sale_type IN ('exclusive', 'shared')),
       bid_id text,
       priority integer NOT NULL DEFAULT 0,
       answered_after_ms integer,
       detail text,
       pinged_at timestamptz NOT NULL,
       UNIQUE (auction_id, buyer_id)
     )`,
    `ALTER TABLE deliveries
       ADD COLUMN auction_id bigint REFERENCES auctions (id) ON DELETE SET NULL,
       ADD COLUMN sale_type text CHECK (sale_type IN ('exclusive', 'shared')),
       ADD COLUMN bid_id text`,
    `CREATE UNIQUE INDEX deliveries_one_live_exclusive ON deliveries (lead_reference)
       WHERE sale_type = 'exclusive' AND status IN ('pending', 'sending', 'accepted', 'returned')`,
    `CREATE INDEX deliveries_auction ON deliveries (auction_id) WHERE auction_id IS NOT NULL`,
  ],
};
