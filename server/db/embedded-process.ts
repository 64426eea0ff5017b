/**
 * The server's side of the embedded store's database process (decision 033): starts it
 * (server/db/embedded-main.ts, or its bundle dist/server/embedded-database.js), waits until its
 * socket listens, starts it again if it dies (the server's queries fail meanwhile as they do
 * when PostgreSQL restarts: 503 and a retry, nothing lost), and stops it last on shutdown.
 */
import { fork, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { Logger } from "../logger";

export interface EmbeddedProcess {
  readonly pid: number | undefined;
  /** Ends the database process (it rolls back what is open and closes PGlite) and waits for it. */
  stop(): Promise<void>;
}

/** Restarts back off from 0.5 s to 10 s; a process that ran a minute resets the back-off. */
const RESTART_MIN_MS = 500;
const RESTART_MAX_MS = 10_000;
const HEALTHY_RUN_MS = 60_000;
/** Opening PGlite takes about a second here; a first start (initdb) several. */
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;
/** The database process's V8 flags (see spawnDatabase). */
export const DATABASE_NODE_FLAGS = ["--liftoff-only", "--max-semi-space-size=2"];

/** The database process's script: the bundle beside the server's bundle, or the source under tsx. */
export function embeddedMainScript(serverModuleUrl: string): string {
  const bundled = fileURLToPath(new URL("./embedded-database.js", serverModuleUrl));
  return existsSync(bundled) ? bundled : fileURLToPath(new URL("./db/embedded-main.ts", serverModuleUrl));
}

function spawnDatabase(script: string, dataDir: string, logger: Logger): { child: ChildProcess; ready: Promise<"ready" | "created"> } {
  // The server's own flags (its heap settings) are not the database's; the source runs under
  // tsx (development and tests). Liftoff only: V8 keeps PGlite's WebAssembly in its baseline compiler's code and
  // does not compile hot functions a second time (about 45 MB less resident, decision 033).
  const child = fork(script, [], {
    env: { ...process.env, EMBEDDED_DATA_DIR: dataDir },
    execArgv: [...(script.endsWith(".ts") ? ["--import", "tsx"] : []), ...DATABASE_NODE_FLAGS],
    stdio: ["ignore", "inherit", "pipe", "ipc"],
    serialization: "json",
  });
  let stderrTail = "";
  if (child.stderr) {
    createInterface({ input: child.stderr }).on("line", (line) => {
      if (!line) return;
      try {
        const { event, ...detail } = JSON.parse(line) as { event?: string };
        logger.warn({ event: event ?? "embedded_database_stderr", pid: child.pid, ...detail }, "embedded database process");
      } catch {
        stderrTail = `${stderrTail}${line}\n`.slice(-2_000);
        logger.warn({ event: "embedded_database_stderr", pid: child.pid, text: line.slice(0, 500) }, "embedded database process");
      }
    });
  }
  let created = false;
  const ready = new Promise<"ready" | "created">((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`The embedded database did not start within ${START_TIMEOUT_MS / 1000} s.`)), START_TIMEOUT_MS);
    child.on("message", (message: { ready?: string; created?: boolean; failed?: string }) => {
      if (message.ready) {
        clearTimeout(timer);
        resolve("ready");
      } else if (message.created) {
        // It made a new database and exits; the next process serves it (embedded-main.ts).
        clearTimeout(timer);
        created = true;
      } else if (message.failed) {
        clearTimeout(timer);
        reject(new Error(message.failed));
      }
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      if (created) resolve("created");
      else reject(new Error(`The embedded database process exited (${signal ?? `code ${code}`}) before it was ready.${stderrTail ? ` ${stderrTail.trim()}` : ""}`));
    });
  });
  return { child, ready };
}

/** Starts the database process on `dataDir` and resolves once its socket accepts connections. */
export async function startEmbeddedProcess(options: { script: string; dataDir: string; logger: Logger }): Promise<EmbeddedProcess> {
  const { script, dataDir, logger } = options;
  let stopping = false;
  let restartDelay = RESTART_MIN_MS;
  let restartTimer: NodeJS.Timeout | undefined;

  let current = spawnDatabase(script, dataDir, logger);
  if ((await current.ready) === "created") {
    logger.info({ event: "embedded_database_created", dataDir }, "a new embedded database was created");
    current = spawnDatabase(script, dataDir, logger);
    await current.ready;
  }
  logger.info({ event: "embedded_database_started", pid: current.child.pid, dataDir }, "embedded database process started");

  const watch = (child: ChildProcess, startedAt: number) => {
    child.once("exit", (code, signal) => {
      if (stopping || child !== current.child) return;
      if (Date.now() - startedAt > HEALTHY_RUN_MS) restartDelay = RESTART_MIN_MS;
      logger.error({ event: "embedded_database_exited", pid: child.pid, code, signal, restartInMs: restartDelay }, "the embedded database process exited; starting it again");
      const restart = () => {
        restartTimer = undefined;
        if (stopping) return;
        const next = spawnDatabase(script, dataDir, logger);
        current = next;
        const started = Date.now();
        watch(next.child, started);
        next.ready.then(
          () => logger.info({ event: "embedded_database_started", pid: next.child.pid, dataDir, restarted: true }, "embedded database process started again"),
          (error: unknown) => logger.error({ event: "embedded_database_start_failed", err: error }, "the embedded database process could not start"),
        );
      };
      restartTimer = setTimeout(restart, restartDelay);
      restartDelay = Math.min(restartDelay * 2, RESTART_MAX_MS);
    });
  };
  watch(current.child, Date.now());

  return {
    get pid() {
      return current.child.pid;
    },
    async stop() {
      stopping = true;
      clearTimeout(restartTimer);
      const { child } = current;
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      // Closing the channel is its signal to roll back, close PGlite and exit.
      if (child.connected) child.disconnect();
      const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}
