/**
 * Version 23 (issue 44): each lead's checks (TrustedForm, LeadiD, litigator, DNC, line type), one
 * row per lead and kind, so a check runs at most once per lead (a row is claimed before its call),
 * and the answers about a phone kept for CHECK_CACHE_DAYS, by the phone's SHA-256 (the suppression
 * list's hash), so a phone seen again costs no provider call. A lead deleted by retention takes
 * its checks with it; the cache holds no lead and no phone, and ages out by itself.
 */
import type { Migration } from "./migration";

export const leadChecks: Migration = {
  version: 23,
  name: "lead-checks",
  statements: [
    `CREATE TABLE lead_checks (
       lead_reference text NOT NULL REFERENCES leads (reference) ON DELETE CASCADE,
       kind text NOT NULL CHECK (kind IN ('trustedform', 'jornaya', 'litigator', 'dnc', 'line_type')),
       provider text NOT NULL,
       status text NOT NULL CHECK (status IN ('running', 'ok', 'failed', 'unavailable')),
       outcome text,
       detail text,
       latency_ms integer,
       cached boolean NOT NULL DEFAULT false,
       calls integer NOT NULL DEFAULT 0,
       started_at timestamptz NOT NULL,
       finished_at timestamptz,
       PRIMARY KEY (lead_reference, kind)
     )`,
    `CREATE TABLE check_cache (
       kind text NOT NULL,
       phone_hash text NOT NULL,
       provider text NOT NULL,
       status text NOT NULL CHECK (status IN ('ok', 'failed')),
       outcome text NOT NULL,
       detail text NOT NULL,
       checked_at timestamptz NOT NULL,
       expires_at timestamptz NOT NULL,
       PRIMARY KEY (kind, phone_hash)
     )`,
    `CREATE INDEX check_cache_expires ON check_cache (expires_at)`,
  ],
};
