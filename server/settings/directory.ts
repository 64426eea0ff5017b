/**
 * The business settings as this process runs on them (issue 33, item 3): read from the database
 * at start-up and reloaded whenever their version (settings_changes' highest id) moves. A change
 * made through this replica's console reloads at once (`refresh`); the other replicas see it at
 * their next poll, every SETTINGS_POLL_MS (1 s by default), so every replica applies a change
 * within a couple of seconds without a restart. The poll is one index-only `max(id)`; when the
 * database cannot be reached the last settings stay in force and one warning is logged.
 */
import type { Logger } from "pino";
import type { Builder } from "../db/database";
import { loadSettings, settingsVersion, type BusinessSettings } from "./store";

export interface SettingsDirectory {
  /** The settings in force now (a snapshot: never changes under the caller). */
  current(): BusinessSettings;
  /** Reloads when the stored version moved on (after a change here, or on a poll). */
  refresh(): Promise<void>;
  /** Called with the new settings after each reload, in order; a listener's failure is logged, not thrown, and every listener is called again at the next poll (so each must be idempotent). */
  onChange(listener: (settings: BusinessSettings, previous: BusinessSettings) => void | Promise<void>): void;
  start(): void;
  stop(): void;
}

export interface SettingsDirectoryOptions {
  db: Builder;
  logger: Logger;
  pollMs: number;
}

export async function openSettingsDirectory({ db, logger, pollMs }: SettingsDirectoryOptions): Promise<SettingsDirectory> {
  const log = logger.child({ component: "settings" });
  const first = await loadSettings(db);
  const warnInvalid = (invalid: string[]) => {
    if (invalid.length > 0) log.error({ event: "settings_invalid", entries: invalid }, `left out of the settings (not valid for this release): ${invalid.join(", ")}`);
  };
  warnInvalid(first.invalid);
  let settings: BusinessSettings = withoutInvalid(first);
  const listeners: Array<(next: BusinessSettings, previous: BusinessSettings) => void | Promise<void>> = [];
  let timer: NodeJS.Timeout | undefined;
  let failing = false;
  /** A listener failed (the database blinked while it wrote): the next poll tells them all again. */
  let listenersOwed = false;
  // One reload at a time: a refresh asked for during one runs after it.
  let running: Promise<void> = Promise.resolve();

  async function notify(next: BusinessSettings, previous: BusinessSettings): Promise<void> {
    listenersOwed = false;
    for (const listener of listeners) {
      try {
        await listener(next, previous);
      } catch (error) {
        listenersOwed = true;
        log.error({ event: "settings_listener_failed", err: error }, "a settings listener failed; it is called again at the next poll");
      }
    }
  }

  async function reload(): Promise<void> {
    const version = await settingsVersion(db);
    if (version === settings.version) {
      if (listenersOwed) await notify(settings, settings);
      return;
    }
    const loaded = await loadSettings(db);
    warnInvalid(loaded.invalid);
    const previous = settings;
    settings = withoutInvalid(loaded);
    log.info({ event: "settings_reloaded", version: settings.version, previousVersion: previous.version, buyers: settings.buyers.length, sources: settings.sources.length, experiments: settings.experiments.length }, "business settings reloaded");
    await notify(settings, previous);
  }

  const refresh = () => {
    running = running.then(reload, reload);
    return running;
  };

  const poll = async () => {
    try {
      await refresh();
      if (failing) log.info({ event: "settings_poll_recovered" }, "settings poll works again");
      failing = false;
    } catch (error) {
      if (!failing) log.warn({ event: "settings_poll_failed", err: error }, "cannot read the settings' version; the last settings stay in force");
      failing = true;
    }
    if (timer) timer = setTimeout(poll, pollMs).unref();
  };

  return {
    current: () => settings,
    refresh,
    onChange: (listener) => void listeners.push(listener),
    start() {
      if (timer) return;
      timer = setTimeout(poll, pollMs).unref();
    },
    stop() {
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}

function withoutInvalid({ invalid: _invalid, ...settings }: BusinessSettings & { invalid: string[] }): BusinessSettings {
  return settings;
}
