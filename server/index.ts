/**
 * The process: read the configuration, build the app, listen, and shut down gracefully.
 * `npm start` runs the bundled copy of this file (dist/server/index.js); `npm run dev` runs it
 * from source with NODE_ENV=development.
 */
import type http from "node:http";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createHttpTerminator } from "http-terminator";
import { ConfigError, loadConfig, type Config } from "./config";
import { createLogger, type Logger } from "./logger";
import { createApp } from "./app";
import { createAppServer } from "./http/app-server";
import { createLifecycle, type Lifecycle } from "./lifecycle";
import { loadProductionBuild } from "./pages/render-source";
import { staticAssets } from "./pages/static";
import path from "node:path";
import { connectEmbedded, openDatabase, type Database } from "./db/database";
import { embeddedMainScript, startEmbeddedProcess, type EmbeddedProcess } from "./db/embedded-process";
import { migrate } from "./db/migrate";
import { createPrivacyService } from "./privacy/service";
import { createCsrf } from "./csrf";
import { randomBytes } from "node:crypto";
import { createLeadCapture } from "./leads/capture";
import { backgroundMainScript, startBackgroundProcess } from "./workers/process";
import { createWakeups } from "./workers/wakeups";
import { checkBuyersFile } from "./delivery/buyers";
import { outboundPolicy } from "./delivery/outbound";
import { createOutageLog, probeDatabase } from "./db/outage";
import { setOutboundPolicy } from "./delivery/http-send";
import { openSettingsDirectory, type SettingsDirectory } from "./settings/directory";
import { watchEventWriter, watchQueue } from "./metrics";
import { importSettings, settingsEmpty } from "./settings/store";
import { buyerReturnsOver } from "./api/buyer-returns";
import { createEventWriter, type EventWriter } from "./analytics/writer";
import { createExposureWriter } from "./experiments/exposure";
import { scheduleAnalyticsRetention } from "./analytics/retention";
import { startAdminConsole, type AdminConsole } from "./admin/listener";
import { renderAdminFrom } from "./admin/render-source";
import { analyticsReports } from "./admin/reports";
import { budgetStoresFor } from "./http/rate-limit-store";
import { loadVehicleCatalog, vehicleDataFileFrom } from "./vehicles/catalog";

function readConfig(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

async function buildRendering(config: Config) {
  // This file is bundled to dist/server/index.js, so the build is one folder up; in development
  // it runs from server/ and the project root is one folder up.
  const up = fileURLToPath(new URL("..", import.meta.url));
  if (config.NODE_ENV === "development") {
    const { createDevRendering } = await import("./pages/dev");
    return createDevRendering(up);
  }
  const build = await loadProductionBuild(up);
  return { source: build.source, assets: staticAssets(build.clientDir), close: async () => {} };
}

function applyTimeouts(server: http.Server, config: Config): void {
  server.keepAliveTimeout = config.KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = config.HEADERS_TIMEOUT_MS;
  server.requestTimeout = config.REQUEST_TIMEOUT_MS;
}

/**
 * SIGTERM/SIGINT: readiness fails at once; after SHUTDOWN_DELAY_MS (time for the balancer to
 * notice) the listener closes, idle keep-alive sockets are closed, in-flight requests finish
 * with `Connection: close`, and the process exits 0. Past SHUTDOWN_TIMEOUT_MS the remaining
 * sockets are destroyed; a last timer guarantees the process never outlives its deadline.
 */
function handleShutdown(server: http.Server, config: Config, logger: Logger, lifecycle: Lifecycle, closeExtras: () => Promise<void>): void {
  const terminator = createHttpTerminator({ server, gracefulTerminationTimeout: config.SHUTDOWN_TIMEOUT_MS });
  const shutdown = async (signal: NodeJS.Signals) => {
    if (lifecycle.isShuttingDown()) return;
    lifecycle.beginShutdown();
    logger.info({ event: "shutdown_started", signal, delayMs: config.SHUTDOWN_DELAY_MS, timeoutMs: config.SHUTDOWN_TIMEOUT_MS }, "shutting down");
    const deadline = setTimeout(() => {
      logger.error({ event: "shutdown_forced" }, "shutdown deadline passed; exiting");
      process.exit(1);
    }, config.SHUTDOWN_DELAY_MS + config.SHUTDOWN_TIMEOUT_MS + 5_000);
    deadline.unref();
    try {
      await new Promise((resolve) => setTimeout(resolve, config.SHUTDOWN_DELAY_MS));
      await terminator.terminate();
      await closeExtras();
      logger.info({ event: "shutdown_complete" }, "stopped");
      logger.flush();
      process.exit(0);
    } catch (error) {
      logger.error({ err: error, event: "shutdown_failed" }, "shutdown failed");
      process.exit(1);
    }
  };
  process.once("SIGTERM", (signal) => void shutdown(signal));
  process.once("SIGINT", (signal) => void shutdown(signal));
}

/**
 * PostgreSQL, or the embedded store served by a database process of its own (decision 033):
 * PGlite's memory and its statements' CPU stay out of the process that answers visitors, and the
 * ops commands reach the same store through its socket while the site runs.
 */
async function openStore(config: Config, logger: Logger): Promise<{ db: Database; embedded?: EmbeddedProcess }> {
  let embedded: EmbeddedProcess | undefined;
  let db: Database;
  if (config.DATABASE_URL) {
    db = await openDatabase({ ...config, applicationName: "quote-site" });
  } else {
    const dataDir = path.resolve(config.DATA_DIR);
    embedded = await startEmbeddedProcess({ script: embeddedMainScript(import.meta.url), dataDir, logger });
    db = await connectEmbedded(dataDir, config.DATABASE_POOL_SIZE, "quote-site");
  }
  const applied = await migrate(db);
  logger.info({ event: "database_ready", store: db.kind, migrationsApplied: applied }, `database ready (${db.kind})`);
  return { db, ...(embedded ? { embedded } : {}) };
}

function csrfSecret(config: Config, logger: Logger): string | Buffer {
  if (config.CSRF_SECRET) return config.CSRF_SECRET;
  logger.warn(
    { event: "csrf_secret_generated" },
    "CSRF_SECRET is not set: using a random secret for this process. Set it when running more than one replica.",
  );
  return randomBytes(32);
}

/** The funnel events' writer and retention schedule (ANALYTICS_EVENTS=off: neither). */
function eventStore(config: Config, db: Database, logger: Logger): { writer: EventWriter; stopRetention: () => void } | undefined {
  if (config.ANALYTICS_EVENTS === "off") return undefined;
  const writer = createEventWriter({ db, logger, timeZone: config.REPORT_TIME_ZONE, maxBuffer: config.ANALYTICS_BUFFER_MAX, flushMs: config.ANALYTICS_FLUSH_MS });
  const stopRetention = scheduleAnalyticsRetention({ db, logger, retentionDays: config.ANALYTICS_RETENTION_DAYS, timeZone: config.REPORT_TIME_ZONE });
  return { writer, stopRetention };
}

/**
 * The business settings (server/settings/): BUYERS_FILE is imported once, into a database that
 * has no buyer nor source yet; after that the console (or `npm run buyers -- import`) runs them
 * and the file is not read again, which the log says.
 */
async function openSettings(config: Config, db: Database, logger: Logger): Promise<SettingsDirectory> {
  if (config.BUYERS_FILE) {
    if (await settingsEmpty(db.builder)) {
      const report = await importSettings(db.builder, JSON.parse(readFileSync(config.BUYERS_FILE, "utf8")), "startup", { outbound: outboundPolicy(config) });
      logger.info({ event: "buyers_file_imported", file: config.BUYERS_FILE, created: report.created }, `BUYERS_FILE imported into the database (${report.created.length} entries); from now on buyers and sources are run from the console`);
    } else {
      logger.warn({ event: "buyers_file_ignored", file: config.BUYERS_FILE }, "BUYERS_FILE is set but the database has buyers or sources already: the file is not read (the console runs them; `npm run buyers -- import FILE` applies a file on purpose)");
    }
  }
  const directory = await openSettingsDirectory({ db: db.builder, logger, pollMs: config.SETTINGS_POLL_MS });
  if (directory.current().buyers.length > 0 && !config.CERTIFICATE_SECRET && !config.CSRF_SECRET) {
    logger.warn({ event: "certificate_secret_missing" }, "buyers are configured but neither CERTIFICATE_SECRET nor CSRF_SECRET is set: consent certificate links stop working at the next restart; set CERTIFICATE_SECRET");
  }
  return directory;
}

async function main(): Promise<void> {
  const config = readConfig();
  const logger = createLogger(config);
  const lifecycle = createLifecycle();
  const outbound = outboundPolicy(config);
  setOutboundPolicy(outbound, logger);
  if (config.OUTBOUND_ALLOW.entries.length > 0) {
    logger.warn({ event: "outbound_allowlist", allow: config.OUTBOUND_ALLOW.entries, enforced: outbound.enforce }, "OUTBOUND_ALLOW: leads may go to these hosts and ranges inside the network, over http:// too");
  }
  // A bad BUYERS_FILE stops the start before anything else is opened.
  if (config.BUYERS_FILE) checkBuyersFile(config.BUYERS_FILE, outbound);
  const { db, embedded } = await openStore(config, logger);
  const settings = await openSettings(config, db, logger);
  const buyers = () => settings.current();
  const rendering = await buildRendering(config);
  const secret = csrfSecret(config, logger);
  const wakeups = createWakeups();
  // A revocation's consent.revoked webhooks go out at once.
  const privacy = { service: createPrivacyService(db, { onQueued: () => wakeups.wake("deliveries") }), csrf: createCsrf(secret) };
  const analytics = eventStore(config, db, logger);
  // The delivery worker and the auction run in a process of their own, at a lower CPU priority,
  // with their own database connections (decision 034): auctions settling never slow a page.
  const background = await startBackgroundProcess({
    script: backgroundMainScript(import.meta.url),
    logger,
    secret,
    wakeups,
    niceness: config.BACKGROUND_NICENESS,
    stopTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  });
  const leads = await createLeadCapture(db, secret, config, settings, () => {
    wakeups.wake("deliveries");
    wakeups.wake("auctions");
  });
  // The delivery queue's depth and the request pool's connections, read when /metrics is scraped.
  watchQueue(db.builder, db.poolStats ? () => db.poolStats!() : undefined);
  if (analytics) watchEventWriter(() => analytics.writer.stats());
  // About 50 ms and 5 MB of heap, once.
  const vehicles = loadVehicleCatalog(vehicleDataFileFrom(import.meta.url));
  // One warning when the database goes and one when it is back, with the count of 503s between (issue 41).
  const outage = createOutageLog({ logger, probe: probeDatabase(db.builder) });
  // A/B experiments (issue 45): the live settings' list per request; exposures batched as the events are.
  const exposures = createExposureWriter({ db: db.builder, logger, maxBuffer: config.ANALYTICS_BUFFER_MAX, flushMs: config.ANALYTICS_FLUSH_MS });
  const experiments = { running: () => settings.current().experiments, exposures };
  const app = createApp({ config, logger, lifecycle, source: rendering.source, assets: rendering.assets, privacy, leads, vehicles, buyerReturns: buyerReturnsOver(db, buyers, analytics?.writer), ...(analytics ? { analytics: analytics.writer } : {}), rateLimits: budgetStoresFor(db, secret, logger), outage, experiments });
  // Requests and responses are built as the app's own (decision 023): Express need not re-parent them.
  const server = createAppServer(app);
  applyTimeouts(server, config);
  // Started once the public server listens (below); closed on shutdown if it was.
  const admin: { console?: AdminConsole | undefined } = {};
  handleShutdown(server, config, logger, lifecycle, async () => {
    settings.stop();
    // The console's requests finish (or are cut at the shutdown timeout) before the database closes.
    await admin.console?.close();
    await rendering.close();
    // Sends in flight finish (each within its buyer's timeout) before the database closes.
    await background.stop();
    // Every event of the requests and deliveries just finished is written before the database closes.
    analytics?.stopRetention();
    await analytics?.writer.stop();
    await exposures.stop();
    await db.close();
    await embedded?.stop();
  });
  settings.start();
  server.listen(config.PORT, config.HOST, () => {
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : config.PORT;
    logger.info({ event: "server_started", host: config.HOST, port, env: config.NODE_ENV }, `listening on http://${config.HOST}:${port}`);
  });
  // The operations console: its own listener (ADMIN_HOST:ADMIN_PORT), never the public port.
  admin.console = await startAdminConsole(config, {
    logger,
    lifecycle,
    db,
    renderAdmin: renderAdminFrom(rendering.source),
    secret,
    reports: analyticsReports,
    settings,
    nudge: () => wakeups.wake("deliveries"),
    ...(analytics ? { analytics: analytics.writer } : {}),
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`Failed to start: ${error instanceof Error ? `${error.message}${error.cause ? ` (${String(error.cause)})` : ""}` : String(error)}\n`);
  process.exit(1);
});
