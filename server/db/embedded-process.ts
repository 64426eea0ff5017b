/**
 * The server's side of the embedded store's database process (decision 033): starts it
 * (server/db/embedded-main.ts, or its bundle dist/server/embedded-database.js), waits until its
 * socket listens, starts it again if it dies (the server's queries fail meanwhile as they do
 * when PostgreSQL restarts: 503 and a retry, nothing lost), and stops it last on shutdown.
 *
 * The server holds DATA_DIR's server lock from before the database process starts until after it
 * has exited (issue 41): while the database process is down and waiting to be started again, the
 * directory is still this server's, so a second server is refused at once instead of taking it.
 */
import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Logger } from "../logger";
import { lockDirectoryForServer } from "./embedded-store";
import { spawnChild, supervise, type ChildSpec } from "../process/supervisor";

export interface EmbeddedProcess {
  readonly pid: number | undefined;
  /** Ends the database process (it rolls back what is open and closes PGlite) and waits for it. */
  stop(): Promise<void>;
}

/**
 * The database process's V8 flags. Liftoff only: V8 keeps PGlite's WebAssembly in its baseline
 * compiler's code and does not compile hot functions a second time (about 45 MB less resident,
 * decision 033); small young-generation spaces, as its JavaScript is a thin relay.
 */
const DATABASE_NODE_FLAGS = ["--liftoff-only", "--max-semi-space-size=2"];

/** The database process's script: the bundle beside the server's bundle, or the source under tsx. */
export function embeddedMainScript(serverModuleUrl: string): string {
  const bundled = fileURLToPath(new URL("./embedded-database.js", serverModuleUrl));
  return existsSync(bundled) ? bundled : fileURLToPath(new URL("./db/embedded-main.ts", serverModuleUrl));
}

/**
 * Locks `dataDir` for this process (a StoreInUseError naming the holder when another live server
 * has it: the caller fails at once), starts the database process on it and resolves once its
 * socket accepts connections.
 */
export async function startEmbeddedProcess(options: { script: string; dataDir: string; logger: Logger }): Promise<EmbeddedProcess> {
  const { script, dataDir, logger } = options;
  const unlock = lockDirectoryForServer(dataDir);
  // A server that exits without stopping the store (a failed start, the shutdown deadline) leaves
  // no lock behind; one that is killed leaves a stale one, taken over by the next server.
  process.once("exit", unlock);
  let held = true;
  // Once only: a second release could remove the lock of a server that took the directory since.
  const release = () => {
    if (!held) return;
    held = false;
    process.off("exit", unlock);
    unlock();
  };
  // The server's own flags (its heap settings) are not the database's.
  const spec: ChildSpec = { name: "embedded_database", script, env: { ...process.env, EMBEDDED_DATA_DIR: dataDir }, execArgv: DATABASE_NODE_FLAGS };
  let first = spawnChild(spec, logger);
  try {
    if ("created" in (await first.ready)) {
      logger.info({ event: "embedded_database_created", dataDir }, "a new embedded database was created");
      first = spawnChild(spec, logger);
      await first.ready;
    }
  } catch (error) {
    // It may still be running (it did not answer in time): the lock goes only once it has gone.
    await ended(first.child);
    release();
    throw error;
  }
  logger.info({ event: "embedded_database_started", pid: first.child.pid, dataDir }, "embedded database process started");
  const supervised = supervise(spec, logger, first.child, () => spawnChild(spec, logger));
  return {
    get pid() {
      return supervised.current().pid;
    },
    async stop() {
      await supervised.stop();
      release();
    },
  };
}

/**
 * Waits until a child that failed to start has exited: one that reported its failure is exiting
 * already; one that did not answer in time is told to go by its channel closing (it closes PGlite
 * first if it got that far), and killed if it is still there after 15 s.
 */
async function ended(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  if (child.connected) child.disconnect();
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  await exited;
  clearTimeout(timer);
}
