/**
 * The embedded store's database process (decision 033): started by the server when DATABASE_URL
 * is not set (server/db/embedded-process.ts), never by hand. The server holds DATA_DIR's server
 * lock for its whole life; this process opens the store only when that lock names its parent (a
 * restarted one never opens a directory another server has taken meanwhile, issue 41), then locks
 * PGlite's files (waiting for a previous database process still closing), opens PGlite and serves
 * it on a Unix socket in DATA_DIR with PostgreSQL's wire protocol (server/db/embedded-relay.ts);
 * the server's pools and the ops commands connect to that socket.
 *
 * It lives as long as the server that started it: when the IPC channel to the server closes (the
 * server stopped, or was killed), it rolls back what was left open, closes PGlite and exits.
 * SIGINT and SIGTERM are ignored (a Ctrl-C reaches the whole process group: the server, which
 * is still answering its last requests, decides when the database goes).
 *
 * Messages to the server: { ready: socketPath } once listening, { created: true } when it made a
 * new database and exits to be started again, { failed: message } on a start that cannot be
 * made; problems are written to stderr as JSON lines the server logs.
 */
import net from "node:net";
import { chmodSync, existsSync, rmSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { PGlite } from "@electric-sql/pglite";
import { checkServerLock, embeddedSocketPath, lockDirectory, openPGlite, StoreInUseError } from "./embedded-store";
import { createRelay } from "./embedded-relay";

/** How long a start waits for a previous database process on the same directory to finish closing. */
const LOCK_WAIT_MS = 10_000;
/** sun_path holds 108 bytes on Linux, 104 on macOS, with the terminating NUL. */
const MAX_SOCKET_PATH = 103;

function report(event: string, detail: Record<string, unknown>): void {
  process.stderr.write(`${JSON.stringify({ event, ...detail })}\n`);
}

async function lockWhenFree(dataDir: string): Promise<() => void> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      return lockDirectory(dataDir);
    } catch (error) {
      // A killed server's database process may still be closing: wait for it, not for ever.
      if (!(error instanceof StoreInUseError) || Date.now() > deadline) throw error;
      await sleep(100);
    }
  }
}

async function start(dataDir: string): Promise<void> {
  const socketPath = embeddedSocketPath(dataDir);
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH) {
    throw new Error(`DATA_DIR is too long for the embedded database's socket (${socketPath}: at most ${MAX_SOCKET_PATH} bytes); use a shorter path, or set DATABASE_URL.`);
  }
  // Our server, read once: process.ppid changes to a reaper's pid if the server dies meanwhile.
  const serverPid = process.ppid;
  checkServerLock(dataDir, serverPid);
  const unlock = await lockWhenFree(dataDir);
  let db: PGlite;
  try {
    // Again after the wait: a server killed meanwhile may have been replaced by another, whose
    // own database process is the one to open the store.
    checkServerLock(dataDir, serverPid);
    const created = !existsSync(path.join(dataDir, "pglite", "PG_VERSION"));
    db = await openPGlite(dataDir);
    if (created) {
      // Creating the database (initdb, in a second PGlite instance) leaves about 500 MB resident
      // that is never given back: a new process serves it instead, at its usual size.
      await db.close();
      unlock();
      process.send?.({ created: true }, () => process.exit(0));
      return;
    }
  } catch (error) {
    unlock();
    throw error;
  }
  const relay = createRelay({ db, onProblem: report });
  const server = net.createServer((socket) => relay.accept(socket));
  // A socket left by a database process that was killed: ours now, since we hold the lock.
  rmSync(socketPath, { force: true });
  const previousMask = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(socketPath, () => resolve());
    });
  } finally {
    process.umask(previousMask);
  }
  chmodSync(socketPath, 0o600);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    server.close();
    try {
      await relay.close();
      await db.close();
    } catch (error) {
      report("embedded_close_failed", { message: error instanceof Error ? error.message : String(error) });
    } finally {
      rmSync(socketPath, { force: true });
      unlock();
      process.exit(0);
    }
  };
  process.on("disconnect", () => void stop());
  process.send?.({ ready: socketPath });
  // The server may have gone while PGlite opened.
  if (!process.connected) await stop();
}

process.on("SIGINT", () => {});
process.on("SIGTERM", () => {});

const dataDir = process.env.EMBEDDED_DATA_DIR;
if (!dataDir || !process.send) {
  process.stderr.write("This is the embedded store's database process: the server starts it (npm start without DATABASE_URL).\n");
  process.exit(2);
}
start(path.resolve(dataDir)).catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.send?.({ failed: message }, () => process.exit(1));
  if (!process.connected) process.exit(1);
});
