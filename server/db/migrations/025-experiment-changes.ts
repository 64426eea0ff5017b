/**
 * Version 25 (issue 45): experiments are business settings, each one a business_settings row keyed
 * `experiment:<id>` (server/settings/store.ts), and their changes go into settings_changes like a
 * buyer's, so the settings' version moves and every replica reloads them. That table's kind was
 * limited to buyer, source and auction (migration 17): it now takes experiment too.
 */
import type { Migration } from "./migration";

export const experimentChanges: Migration = {
  version: 25,
  name: "experiment-changes",
  statements: [
    `ALTER TABLE settings_changes
       DROP CONSTRAINT settings_changes_kind_check,
       ADD CONSTRAINT settings_changes_kind_check CHECK (kind IN ('buyer', 'source', 'auction', 'experiment'))`,
  ],
};
