/**
 * Version 17: the business is run from the console (issue 33). Buyers and traffic sources move
 * from BUYERS_FILE into the database, each as its checked JSON entry (validated by the same zod
 * schemas as the file, server/delivery/buyers.ts) with a status, a revision and its position (the
 * order they were added in, which the consent disclosure names them in); the auction's
 * settings are one row of business_settings. Every change is a row of settings_changes (who,
 * when, action, the entry before and after, secrets masked): the console shows it per buyer, and
 * its highest id is the settings' version every replica polls (server/settings/directory.ts).
 *
 * buyer_counters replaces buyer_daily_counts: one row per buyer with its current hour, day, week
 * and month and, for the day and the month, the dollars reserved; one conditional upsert of that
 * row takes a lead's slot in every period at once, or none (server/db/buyer-counters.ts). Each
 * capped delivery keeps the periods and dollars it took (cap_keys, cap_spend) to give back if the
 * buyer refuses, and price_reason says how its price was reached. Today's daily counts carry over;
 * buyer_daily_counts stays for replicas of the previous release during a rolling deploy.
 */
import type { Migration } from "./migration";

const audit = `revision integer NOT NULL DEFAULT 1,
       created_at timestamptz NOT NULL DEFAULT now(),
       updated_at timestamptz NOT NULL DEFAULT now(),
       updated_by text NOT NULL`;

export const businessSettings: Migration = {
  version: 17,
  name: "business-settings",
  statements: [
    `CREATE TABLE buyers (
       id text PRIMARY KEY,
       position bigint GENERATED ALWAYS AS IDENTITY,
       status text NOT NULL CHECK (status IN ('active', 'paused', 'archived')),
       config jsonb NOT NULL,
       ${audit}
     )`,
    `CREATE TABLE traffic_sources (
       sid text PRIMARY KEY,
       position bigint GENERATED ALWAYS AS IDENTITY,
       status text NOT NULL CHECK (status IN ('active', 'archived')),
       config jsonb NOT NULL,
       ${audit}
     )`,
    `CREATE TABLE business_settings (
       key text PRIMARY KEY,
       value jsonb NOT NULL,
       ${audit}
     )`,
    `CREATE TABLE settings_changes (
       id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
       kind text NOT NULL CHECK (kind IN ('buyer', 'source', 'auction')),
       key text NOT NULL,
       action text NOT NULL,
       actor text NOT NULL,
       at timestamptz NOT NULL DEFAULT now(),
       before jsonb,
       after jsonb
     )`,
    `CREATE INDEX settings_changes_key ON settings_changes (kind, key, id)`,
    `CREATE TABLE buyer_counters (
       buyer_id text PRIMARY KEY,
       hour_key text NOT NULL DEFAULT '',
       hour_count integer NOT NULL DEFAULT 0,
       day_key text NOT NULL DEFAULT '',
       day_count integer NOT NULL DEFAULT 0,
       day_spend numeric(14, 2) NOT NULL DEFAULT 0,
       week_key text NOT NULL DEFAULT '',
       week_count integer NOT NULL DEFAULT 0,
       month_key text NOT NULL DEFAULT '',
       month_count integer NOT NULL DEFAULT 0,
       month_spend numeric(14, 2) NOT NULL DEFAULT 0
     )`,
    `INSERT INTO buyer_counters (buyer_id, day_key, day_count)
     SELECT DISTINCT ON (buyer_id) buyer_id, to_char(day, 'YYYY-MM-DD'), count FROM buyer_daily_counts ORDER BY buyer_id, day DESC`,
    `ALTER TABLE deliveries ADD COLUMN cap_keys text, ADD COLUMN cap_spend numeric(14, 2), ADD COLUMN price_reason text`,
  ],
};
