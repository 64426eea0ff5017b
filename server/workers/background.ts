/**
 * The background work (issue 35): the delivery worker and the auction, each polling its own
 * table and woken through `wakeups` (server/workers/wakeups.ts), never calling each other. The
 * lead, the auction row and the deliveries are written by the quote request's statement; the
 * auction claims its row, pings, and queues its winners' posts as deliveries; the delivery worker
 * claims those, posts them, and records each end on the delivery and its auction (sold, or
 * cascading for the auction to claim again).
 */
import type { Logger } from "pino";
import type { Config } from "../config";
import type { Database } from "../db/database";
import type { LiveSettings } from "../delivery/buyers";
import { createDelivery } from "../delivery/setup";
import { createAuctioneer } from "../auction/auctions";
import { salesAllowed, suppressionList } from "../privacy/suppression";
import type { EventRecorder } from "../analytics/writer";
import type { Wakeups } from "./wakeups";
import type { OutageLog } from "../db/outage";
import { createLeadChecks } from "../checks/engine";
import { createCheckProviders } from "../checks/providers";

export interface BackgroundOptions {
  config: Config;
  /** Connections of their own on PostgreSQL (DATABASE_BACKGROUND_POOL_SIZE). */
  db: Database;
  logger: Logger;
  buyers: () => LiveSettings;
  /** The CSRF secret in use (certificate links are signed with a key derived from it unless CERTIFICATE_SECRET is set). */
  secret: string | Buffer;
  wakeups: Wakeups;
  analytics?: EventRecorder;
  /** Where an unreachable database is told once per outage (server/db/outage.ts). */
  outage?: OutageLog;
}

export interface BackgroundWork {
  /** Starts polling once there is a buyer to send to (call again after a settings change). */
  startWhenNeeded(): void;
  /** Stops claiming and waits for the sends and auctions in flight. */
  stop(): Promise<void>;
}

export function createBackgroundWork(options: BackgroundOptions): BackgroundWork {
  const { config, db, logger, buyers, wakeups, analytics, outage } = options;
  const suppression = suppressionList(db);
  // One engine for both workers: a lead's check claimed before its ping is read, not run again, before its post.
  const checks = createLeadChecks({ db, providers: createCheckProviders(config), certOrigin: config.TRUSTEDFORM_CERT_ORIGIN, timeoutMs: config.CHECK_TIMEOUT_MS, cacheDays: config.CHECK_CACHE_DAYS, logger });
  const worker = createDelivery({ config, db, logger, buyers, csrfSecret: options.secret, suppression, wakeups, checks, ...(analytics ? { analytics } : {}), ...(outage ? { outage } : {}) });
  const auctioneer = createAuctioneer({
    db,
    buyers,
    logger,
    deadlineMs: config.AUCTION_DEADLINE_MS,
    salesAllowed: (leads) => salesAllowed(leads, suppression),
    onQueued: () => wakeups.wake("deliveries"),
    checks,
    ...(analytics ? { analytics } : {}),
    ...(outage ? { outage } : {}),
  });
  const unsubscribe = [wakeups.on("deliveries", () => worker.nudge()), wakeups.on("auctions", () => auctioneer.nudge())];
  return {
    startWhenNeeded() {
      // Nothing to poll for until there is a buyer (one added from the console starts them).
      if (buyers().buyers.length === 0) return;
      worker.start();
      auctioneer.start();
    },
    async stop() {
      for (const off of unsubscribe) off();
      await auctioneer.stop();
      await worker.stop();
    },
  };
}
