/**
 * The background worker process (issue 35, decision 034): the delivery worker and the auction
 * (server/workers/background.ts) run here, not in the process that answers visitors, and at a
 * lower CPU priority, so pages and the lead API keep their speed while auctions run. The server
 * starts it (server/workers/process.ts), never by hand, with the server's own configuration.
 *
 * It has the database to itself (on PostgreSQL its own pool, DATABASE_BACKGROUND_POOL_SIZE; on
 * the embedded store the database process's socket), the settings (polled, as every replica
 * does), and a funnel-event writer for what it records (pings, sales, refusals). Messages from the
 * server: { wake: "deliveries" | "auctions" } (a lead stored, a revocation queued: look now) and
 * { metrics: id } (a scrape: it answers { metrics: id, json }). When the channel closes it stops
 * claiming, finishes the sends and auctions in flight, writes its events and exits.
 */
import { loadConfig } from "../config";
import { createLogger } from "../logger";
import { connectEmbedded, openDatabase, type Database } from "../db/database";
import { openSettingsDirectory } from "../settings/directory";
import { createEventWriter } from "../analytics/writer";
import { registry, watchEventWriter } from "../metrics";
import { createBackgroundWork } from "./background";
import { createWakeups, type WorkKind } from "./wakeups";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { SECRET_ENV } from "./main-env";
import { outboundPolicy } from "../delivery/outbound";
import { setOutboundPolicy } from "../delivery/http-send";


async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger(config).child({ process: "background" });
  // Every lead, ping, webhook and postback leaves from this process: the same rules as the server's.
  setOutboundPolicy(outboundPolicy(config), logger);
  registry.setDefaultLabels({ process: "background" });
  const secret = config.CSRF_SECRET ?? Buffer.from(process.env[SECRET_ENV] ?? "", "hex");
  const db: Database = config.DATABASE_URL
    ? await openDatabase({ ...config, DATABASE_POOL_SIZE: config.DATABASE_BACKGROUND_POOL_SIZE, applicationName: "quote-site-background" })
    : await connectEmbedded(path.resolve(config.DATA_DIR), 2, "quote-site-background");
  const settings = await openSettingsDirectory({ db: db.builder, logger, pollMs: config.SETTINGS_POLL_MS });
  const writer = config.ANALYTICS_EVENTS === "off" ? undefined : createEventWriter({ db, logger, timeZone: config.REPORT_TIME_ZONE, maxBuffer: config.ANALYTICS_BUFFER_MAX, flushMs: config.ANALYTICS_FLUSH_MS });
  if (writer) watchEventWriter(() => writer.stats());
  const wakeups = createWakeups();
  /** The server waits as long before it kills this process (server/workers/process.ts). */
  const stopDeadlineMs = config.SHUTDOWN_TIMEOUT_MS + 5_000;
  const work = createBackgroundWork({ config, db, logger, buyers: () => settings.current(), secret, wakeups, ...(writer ? { analytics: writer } : {}) });
  work.startWhenNeeded();
  settings.onChange(() => work.startWhenNeeded());
  settings.start();

  process.on("message", (message: { wake?: WorkKind; metrics?: number }) => {
    if (message.wake === "deliveries" || message.wake === "auctions") wakeups.wake(message.wake);
    else if (typeof message.metrics === "number") {
      const id = message.metrics;
      registry.getMetricsAsJSON().then(
        (json) => process.send?.({ metrics: id, json }),
        () => process.send?.({ metrics: id, json: [] }),
      );
    }
  });
  let stopping = false;
  process.on("disconnect", () => {
    if (stopping) return;
    stopping = true;
    // A server killed outright leaves this process on its own, perhaps with its database gone
    // too: whatever it is waiting for, it ends by this deadline rather than linger.
    setTimeout(() => {
      logger.error({ event: "background_stop_forced", afterMs: stopDeadlineMs }, "background worker did not stop in time; exiting");
      logger.flush();
      process.exit(1);
    }, stopDeadlineMs).unref();
    // And if this thread is itself stuck (seen once: blocked writing a log line to a server that
    // is gone), a thread of its own ends the process 2 s later.
    new Worker(`setTimeout(() => process.kill(${process.pid}, "SIGKILL"), ${stopDeadlineMs + 2_000});`, { eval: true }).unref();
    void (async () => {
      try {
        settings.stop();
        await work.stop();
        await writer?.stop();
        await db.close();
        logger.info({ event: "background_stopped" }, "background worker stopped");
      } catch (error) {
        logger.error({ event: "background_stop_failed", err: error }, "background worker did not stop cleanly");
      } finally {
        logger.flush();
        process.exit(0);
      }
    })();
  });
  process.send?.({ ready: true });
}

// Ctrl-C reaches the whole process group: the server decides when this process goes.
process.on("SIGINT", () => {});
process.on("SIGTERM", () => {});

if (!process.send) {
  process.stderr.write("This is the background worker process: the server starts it (npm start).\n");
  process.exit(2);
}
main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.send?.({ failed: message }, () => process.exit(1));
});
