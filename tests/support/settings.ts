/**
 * Business settings held still, for tests of one part (the worker, the auction, the console's
 * pages) that need buyers but not the database-backed directory (server/settings/directory.ts).
 */
import type { LiveSettings } from "../../server/delivery/buyers";
import type { SettingsDirectory } from "../../server/settings/directory";

export function fixedSettings(file: LiveSettings): SettingsDirectory {
  const settings = { ...file, version: 0 };
  return { current: () => settings, refresh: async () => {}, onChange: () => {}, start: () => {}, stop: () => {} };
}
