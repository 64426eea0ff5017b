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
 * { metrics: id } (a scrape: it answers { metrics: id, json }) and { stop: true } (the server is
 * stopping it and reads its lines until it exits). When the channel closes it stops claiming,
 * finishes the sends and auctions in flight, writes its events and exits.
 *
 * Its log lines go to its stdout, which the server reads and writes into its own log. A channel
 * that closes without { stop: true } means the server is gone (killed) and that pipe has no reader:
 * from then on it writes its lines itself to the server's own stdout, handed to it as an inherited
 * fd (server/process/supervisor.ts), which is usually a collector's pipe or the journal, alive
 * still (issue 41). A server that dies while stopping it is noticed by its parent pid changing.
 */
import { loadConfig, type Config } from "../config";
import pino, { type DestinationStream } from "pino";
import { bufferedDestination, createLogger } from "../logger";
import { SERVER_STDOUT_FD_ENV } from "../process/supervisor";
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
import { createOutageLog, probeDatabase } from "../db/outage";

/** Writes of at most PIPE_BUF bytes (4096 on Linux) to a pipe are atomic: never cut by another writer's. */
const PIPE_BUF = 4_096;
/** How often a worker whose server is stopping it checks that the server is still there. */
const SERVER_WATCH_MS = 250;

/** What pino calls on its destination besides write: flush (logger.flush), flushSync (logger.fatal). */
type Destination = DestinationStream & { flush(callback: (error?: Error) => void): void; flushSync(): void };

/**
 * Where the log lines go: stdout, read by the server, through the same buffered destination as
 * the server's own lines (server/logger.ts) until `ownLog()`; from then on the server's own stdout
 * (fd SERVER_STDOUT_FD_ENV), each write whole lines within PIPE_BUF, so that a line is never cut
 * by another process writing to the same pipe. Undefined in development (pretty-printed, as before).
 */
function logOutput(config: Config): { destination: Destination; ownLog(): boolean } | undefined {
  if (config.NODE_ENV === "development") return undefined;
  const fd = Number(process.env[SERVER_STDOUT_FD_ENV]);
  const toServer = bufferedDestination(1, config.LOG_BUFFER_BYTES);
  let current: Destination = toServer;
  return {
    destination: { write: (line) => current.write(line), flush: (callback) => current.flush(callback), flushSync: () => current.flushSync() },
    ownLog() {
      if (current !== toServer || !Number.isInteger(fd) || fd < 3) return false;
      // pino's: asynchronous, flushed when the process exits, a no-op if that stream is gone too (EPIPE).
      current = pino.destination({ dest: fd, sync: false, maxWrite: PIPE_BUF, maxLength: config.LOG_BUFFER_BYTES });
      return true;
    },
  };
}

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const output = logOutput(config);
  const logger = createLogger(config, output?.destination).child({ process: "background" });
  const serverPid = process.ppid;
  const serverGone = (noticed: "channel_closed" | "parent_changed") => {
    if (output?.ownLog()) logger.warn({ event: "background_server_gone", serverPid, noticed }, "the server is gone: this process writes its log lines to the server's stdout itself until it exits");
  };
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
  // One warning when the database goes and one when it is back, not one per claim (issue 41).
  const outage = createOutageLog({ logger, probe: probeDatabase(db.builder) });
  const work = createBackgroundWork({ config, db, logger, buyers: () => settings.current(), secret, wakeups, outage, ...(writer ? { analytics: writer } : {}) });
  work.startWhenNeeded();
  settings.onChange(() => work.startWhenNeeded());
  settings.start();

  let serverStopping = false;
  process.on("message", (message: { wake?: WorkKind; metrics?: number; stop?: boolean }) => {
    if (message.stop === true) serverStopping = true;
    else if (message.wake === "deliveries" || message.wake === "auctions") wakeups.wake(message.wake);
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
    if (!serverStopping) serverGone("channel_closed");
    else {
      // The server reads this process's lines until it exits, unless it is killed meanwhile (its
      // own deadline, an orchestrator's): it is then reparented, and its pid is no longer ours.
      const watch = setInterval(() => {
        if (process.ppid === serverPid) return;
        clearInterval(watch);
        serverGone("parent_changed");
      }, SERVER_WATCH_MS);
      watch.unref();
    }
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
