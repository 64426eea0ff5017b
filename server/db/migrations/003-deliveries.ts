/**
 * Version 3: lead delivery (issue 10). `deliveries` is the outbox: a row per lead and buyer (or
 * traffic-source postback), written in the lead's own transaction and sent by a worker in each
 * replica (FOR UPDATE SKIP LOCKED: one replica at a time per row). Every try is in
 * `delivery_attempts`; `buyer_daily_counts` holds each buyer's daily cap across replicas.
 */
import type { Migration } from "./migration";

export const deliveries: Migration = {
  version: 3,
  name: "deliveries",
  statements: [
    `CREATE TABLE deliveries (
       id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
       -- Kept when the lead is purged (3 years): who received which lead stays provable, and the
       -- consent certificate (kept 5 years) still knows which buyers may open it.
       lead_id bigint REFERENCES leads (id) ON DELETE SET NULL,
       lead_reference text NOT NULL,
       kind text NOT NULL CHECK (kind IN ('buyer', 'postback')),
       target text NOT NULL,
       idempotency_key text NOT NULL UNIQUE,
       status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sending', 'accepted', 'rejected', 'failed', 'returned')),
       sale boolean NOT NULL,
       price numeric(10, 2),
       url text,
       cap_day date,
       attempts integer NOT NULL DEFAULT 0,
       next_attempt_at timestamptz NOT NULL DEFAULT now(),
       locked_until timestamptz,
       last_error text,
       reason text,
       created_at timestamptz NOT NULL DEFAULT now(),
       completed_at timestamptz,
       returned_at timestamptz
     )`,
    `CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status IN ('pending', 'sending')`,
    `CREATE INDEX deliveries_lead ON deliveries (lead_id)`,
    `CREATE INDEX deliveries_status_created ON deliveries (status, created_at)`,
    `CREATE TABLE delivery_attempts (
       id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
       delivery_id bigint NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
       attempted_at timestamptz NOT NULL,
       http_status integer,
       latency_ms integer NOT NULL,
       outcome text NOT NULL CHECK (outcome IN ('accepted', 'rejected', 'retry', 'timeout', 'network_error', 'withheld')),
       excerpt text
     )`,
    `CREATE INDEX delivery_attempts_delivery ON delivery_attempts (delivery_id)`,
    `CREATE TABLE buyer_daily_counts (
       buyer_id text NOT NULL,
       day date NOT NULL,
       count integer NOT NULL,
       PRIMARY KEY (buyer_id, day)
     )`,
  ],
};
