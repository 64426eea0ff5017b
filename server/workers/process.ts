/**
 * The server's side of the background worker process (issue 35, decision 034): starts it at a
 * lower CPU priority (niceness BACKGROUND_NICENESS), passes wake-ups to it, adds its metrics to
 * GET /metrics, writes its log lines into the server's own log (one stream, lines never
 * interleaved), starts it again if it dies (what it had claimed is claimed again when its lease
 * runs out: nothing is lost), and stops it on shutdown after the requests in flight. It also hands
 * the worker its own stdout: a worker whose server is killed writes its last lines there itself.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { ChildProcess } from "node:child_process";
import pino from "pino";
import type { Logger } from "../logger";
import { addMetricsSource, type MetricsJson } from "../metrics";
import { spawnChild, supervise, type ChildSpec } from "../process/supervisor";
import type { Wakeups } from "./wakeups";
import { SECRET_ENV } from "./main-env";

export interface BackgroundProcess {
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

/** How long a scrape waits for the worker's metrics before leaving them out. */
const METRICS_TIMEOUT_MS = 2_000;
/** How long stop() waits for its { stop: true } to be written before it closes the channel anyway. */
const STOP_MESSAGE_TIMEOUT_MS = 1_000;

export function backgroundMainScript(serverModuleUrl: string): string {
  const bundled = fileURLToPath(new URL("./background.js", serverModuleUrl));
  return existsSync(bundled) ? bundled : fileURLToPath(new URL("./workers/main.ts", serverModuleUrl));
}

export async function startBackgroundProcess(options: { script: string; logger: Logger; secret: string | Buffer; wakeups: Wakeups; niceness: number; stopTimeoutMs: number }): Promise<BackgroundProcess> {
  const { logger, wakeups } = options;
  // The child's lines go out through the server's own destination, whole.
  const destination = (logger as unknown as Record<symbol, { write(line: string): void }>)[pino.symbols.streamSym];
  const pending = new Map<number, (json: MetricsJson) => void>();
  let nextId = 0;
  const spec: ChildSpec = {
    name: "background",
    script: options.script,
    env: { ...process.env, ...(typeof options.secret === "string" ? {} : { [SECRET_ENV]: options.secret.toString("hex") }) },
    onStdoutLine: (line) => (destination ? destination.write(`${line}\n`) : process.stdout.write(`${line}\n`)),
    // Its stdout pipe dies with this process; the stream this process writes to usually does not
    // (a container's log collector, the journal). A worker left alone writes its lines there itself
    // until it exits (issue 41; server/workers/main.ts).
    passStdout: true,
    onMessage: (message) => {
      if (typeof message.metrics !== "number") return;
      pending.get(message.metrics)?.(Array.isArray(message.json) ? (message.json as MetricsJson) : []);
      pending.delete(message.metrics);
    },
    niceness: options.niceness,
    stopTimeoutMs: options.stopTimeoutMs,
  };
  const first = spawnChild(spec, logger);
  await first.ready;
  logger.info({ event: "background_started", pid: first.child.pid, niceness: options.niceness }, "background worker process started");
  const supervised = supervise(spec, logger, first.child, () => spawnChild(spec, logger));
  const send = (child: ChildProcess, message: unknown) => {
    if (child.connected) child.send(message as object, () => {});
  };
  const unsubscribe = [wakeups.on("deliveries", () => send(supervised.current(), { wake: "deliveries" })), wakeups.on("auctions", () => send(supervised.current(), { wake: "auctions" }))];
  const removeSource = addMetricsSource(
    () =>
      new Promise<MetricsJson>((resolve) => {
        const id = (nextId += 1);
        const timer = setTimeout(() => {
          pending.delete(id);
          resolve([]);
        }, METRICS_TIMEOUT_MS);
        pending.set(id, (json) => {
          clearTimeout(timer);
          resolve(json);
        });
        send(supervised.current(), { metrics: id });
      }),
  );
  return {
    get pid() {
      return supervised.current().pid;
    },
    async stop() {
      for (const off of unsubscribe) off();
      removeSource();
      // Said before the channel closes: a channel that closes without it means this process is
      // gone and nobody reads the worker's stdout any more (server/workers/main.ts).
      // Not waited for long: a worker whose channel is full and unread would keep it from stopping.
      const child = supervised.current();
      if (child.connected) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, STOP_MESSAGE_TIMEOUT_MS);
          child.send({ stop: true }, () => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      await supervised.stop();
    },
  };
}
