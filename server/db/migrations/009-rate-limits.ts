/**
 * Version 9: the per-client budgets' counters, shared by every replica (issue 12,
 * server/http/rate-limit-store.ts). One row per budget and client: the hits in the current window
 * and when the window ends. client_key is a keyed hash of the client's address (HMAC-SHA-256),
 * never the address itself. reset_at is indexed for the sweep that deletes expired rows.
 */
import type { Migration } from "./migration";

export const rateLimits: Migration = {
  version: 9,
  name: "rate-limits",
  statements: [
    `CREATE TABLE rate_limit_hits (
       budget text NOT NULL,
       client_key text NOT NULL,
       hits integer NOT NULL CHECK (hits >= 0),
       reset_at timestamptz NOT NULL,
       PRIMARY KEY (budget, client_key)
     )`,
    "CREATE INDEX rate_limit_hits_reset_at ON rate_limit_hits (reset_at)",
  ],
};
