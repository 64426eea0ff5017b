/**
 * Delivery as the server runs it: the worker for the live settings' buyers, with the consent
 * certificate links buyers get and the suppression list checked before each send.
 */
import type { Logger } from "pino";
import type { Config } from "../config";
import type { Database } from "../db/database";
import { certificateSecret, certificateUrl } from "../consent/certificate";
import { salesAllowed, type SuppressionList } from "../privacy/suppression";
import type { LiveSettings } from "./buyers";
import { createDeliveryWorker, type DeliveryWorker } from "./worker";
import type { EventRecorder } from "../analytics/writer";
import type { Wakeups } from "../workers/wakeups";
import type { OutageLog } from "../db/outage";
import type { LeadChecks } from "../checks/engine";

export interface DeliverySetup {
  config: Config;
  db: Database;
  logger: Logger;
  /** The settings in force (server/settings/directory.ts). */
  buyers: () => LiveSettings;
  /** The CSRF secret in use (certificate links are signed with a key derived from it unless CERTIFICATE_SECRET is set). */
  csrfSecret: string | Buffer;
  suppression: SuppressionList;
  analytics?: EventRecorder;
  /** Wakes the auction when one of its posts was refused or failed (server/workers/wakeups.ts). */
  wakeups?: Wakeups;
  /** Where an unreachable database is told once per outage. */
  outage?: OutageLog;
  /** The lead checks buyers' requirements need before a post (server/checks/engine.ts). */
  checks?: LeadChecks;
}

/**
 * Where certificate links point: PUBLIC_BASE_URL, the site's public origin. Without it (a local
 * trial) the links point at this process, and a warning says to set it before buyers get leads.
 */
function linkOrigin(config: Config, logger: Logger): string {
  if (config.PUBLIC_BASE_URL) return config.PUBLIC_BASE_URL;
  const host = config.HOST === "0.0.0.0" || config.HOST === "::" ? "localhost" : config.HOST;
  const origin = `http://${host}:${config.PORT}`;
  logger.warn({ event: "public_base_url_missing", origin }, "PUBLIC_BASE_URL is not set: buyers' consent certificate links point at this process; set it to the public origin");
  return origin;
}

export function createDelivery({ config, db, logger, buyers, csrfSecret, suppression, analytics, wakeups, outage, checks }: DeliverySetup): DeliveryWorker {
  const key = { secret: certificateSecret(config, csrfSecret), baseUrl: linkOrigin(config, logger) };
  return createDeliveryWorker({
    db,
    buyers,
    logger,
    concurrency: config.DELIVERY_CONCURRENCY,
    pollMs: config.DELIVERY_POLL_MS,
    certificateUrl: (lead, buyerId) => (lead.consent?.certificateId ? certificateUrl(lead.consent.certificateId, buyerId, key) : null),
    salesAllowed: (leads) => salesAllowed(leads, suppression),
    ...(analytics ? { analytics } : {}),
    ...(wakeups ? { wakeups } : {}),
    ...(outage ? { outage } : {}),
    ...(checks ? { checks } : {}),
  });
}
