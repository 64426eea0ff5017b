/**
 * The server's side of the embedded store's database process (decision 033): starts it
 * (server/db/embedded-main.ts, or its bundle dist/server/embedded-database.js), waits until its
 * socket listens, starts it again if it dies (the server's queries fail meanwhile as they do
 * when PostgreSQL restarts: 503 and a retry, nothing lost), and stops it last on shutdown.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Logger } from "../logger";
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

/** Starts the database process on `dataDir` and resolves once its socket accepts connections. */
export async function startEmbeddedProcess(options: { script: string; dataDir: string; logger: Logger }): Promise<EmbeddedProcess> {
  const { script, dataDir, logger } = options;
  // The server's own flags (its heap settings) are not the database's.
  const spec: ChildSpec = { name: "embedded_database", script, env: { ...process.env, EMBEDDED_DATA_DIR: dataDir }, execArgv: DATABASE_NODE_FLAGS };
  let first = spawnChild(spec, logger);
  if ("created" in (await first.ready)) {
    logger.info({ event: "embedded_database_created", dataDir }, "a new embedded database was created");
    first = spawnChild(spec, logger);
    await first.ready;
  }
  logger.info({ event: "embedded_database_started", pid: first.child.pid, dataDir }, "embedded database process started");
  const supervised = supervise(spec, logger, first.child, () => spawnChild(spec, logger));
  return {
    get pid() {
      return supervised.current().pid;
    },
    stop: () => supervised.stop(),
  };
}
