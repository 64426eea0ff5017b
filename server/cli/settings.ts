/**
 * The buyers and sources an ops command works with: the database's (the console's), as the
 * servers run on them. A database that has none yet (a deployment about to start with
 * BUYERS_FILE for the first time) is answered from BUYERS_FILE, which the server will import.
 */
import type { Config } from "../config";
import type { Database } from "../db/database";
import { loadBuyersFile, type LiveSettings } from "../delivery/buyers";
import { loadSettings, settingsEmpty } from "../settings/store";

export async function commandSettings(db: Database, config: Pick<Config, "BUYERS_FILE">): Promise<LiveSettings | undefined> {
  if (await settingsEmpty(db.builder)) return config.BUYERS_FILE ? loadBuyersFile(config.BUYERS_FILE) : undefined;
  const { invalid: _invalid, version: _version, ...settings } = await loadSettings(db.builder);
  return settings;
}
