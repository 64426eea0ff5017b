/**
 * The embedded store's files (decision 033): the directory's lock, PGlite opened on it, and the
 * socket its database process serves. Kept apart from database.ts so the database process
 * (embedded-main.ts) loads PGlite without the `pg` driver and Kysely.
 */
import { closeSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { randomBytes } from "node:crypto";
import path from "node:path";
import type { PGlite } from "@electric-sql/pglite";

/**
 * The embedded store's database process listens here (a Unix socket, as PostgreSQL's own are
 * named: `pg` reaches it with host = the directory). Readable only by the directory's owner.
 */
export const EMBEDDED_SOCKET_PORT = 5432;
export function embeddedSocketPath(dataDir: string): string {
  return path.join(dataDir, `.s.PGSQL.${EMBEDDED_SOCKET_PORT}`);
}

/**
 * PGlite is one PostgreSQL backend inside this process: two processes must never open the same
 * directory. Two lock files guard it, each holding its holder's pid (a stale lock, whose process
 * is dead, is taken over):
 * - `quote-site.lock`: the process that has PGlite open (a server's database process, or an ops
 *   command that opened the store itself because no server runs);
 * - `quote-site.server.lock`: the server that serves the directory, for its whole life, so that a
 *   second server is refused at once even while the first one's database process is down and
 *   being started again (issue 41). A database process opens the store only when this lock names
 *   the server that started it (`checkServerLock`).
 */
const LOCK_FILE = "quote-site.lock";
const SERVER_LOCK_FILE = "quote-site.server.lock";
/** The lock files this process holds (a second lock of the same file here would be no lock). */
const lockedHere = new Set<string>();

/** Another live process holds the directory (its pid in `holder`). */
export class StoreInUseError extends Error {
  constructor(
    dataDir: string,
    readonly holder: string,
    cause?: unknown,
  ) {
    super(`The embedded database in ${dataDir} is in use by process ${holder}. Stop it first, or set DATABASE_URL.`, cause === undefined ? undefined : { cause });
  }
}

/** Locks the directory for opening PGlite here (see above); returns the release. */
export function lockDirectory(dataDir: string): () => void {
  return takeLock(dataDir, LOCK_FILE, (holder, cause) => new StoreInUseError(dataDir, holder, cause));
}

/**
 * The server's lock on the directory, taken before it starts its database process and released
 * after that process has exited. A refusal carries no cause: the server prints it as it stands
 * ("Failed to start: … in use by process N"), and EEXIST would add nothing for whoever reads it.
 */
export function lockDirectoryForServer(dataDir: string): () => void {
  return takeLock(dataDir, SERVER_LOCK_FILE, (holder) => new StoreInUseError(dataDir, holder));
}

/**
 * In a database process: the directory's server lock must name the server that started it
 * (`serverPid`, its parent). A process started by anything else, or whose server is gone (its
 * lock taken over by another server since), must not open the store.
 */
export function checkServerLock(dataDir: string, serverPid: number): void {
  let holder: string;
  try {
    holder = readFileSync(path.join(dataDir, SERVER_LOCK_FILE), "utf8").trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    throw new Error(`The embedded database in ${dataDir} is not locked by the server that started this database process (pid ${serverPid}); it is not opened.`, { cause: error });
  }
  if (holder !== String(serverPid)) throw new StoreInUseError(dataDir, holder);
}

function takeLock(dataDir: string, file: string, inUse: (holder: string, cause?: unknown) => Error): () => void {
  mkdirSync(dataDir, { recursive: true });
  const lockPath = path.join(dataDir, file);
  if (lockedHere.has(lockPath)) throw new Error(`The embedded database in ${dataDir} is already open in this process.`);
  for (let attempt = 0; attempt < 5; attempt += 1) {
    try {
      const fd = openSync(lockPath, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      lockedHere.add(lockPath);
      return () => {
        lockedHere.delete(lockPath);
        rmSync(lockPath, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = readFileSync(lockPath, "utf8").trim();
      const pid = Number(holder);
      // Our own pid here means a previous run with the same pid (pid 1 in a container): stale.
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) throw inUse(holder, error);
      // Stale. Move it aside atomically and check it is still the lock judged stale: another
      // process may have taken it over in between, and its fresh lock must survive.
      const aside = `${lockPath}.stale-${process.pid}-${randomBytes(4).toString("hex")}`;
      try {
        renameSync(lockPath, aside);
      } catch (renameError) {
        if ((renameError as NodeJS.ErrnoException).code === "ENOENT") continue;
        throw renameError;
      }
      const moved = readFileSync(aside, "utf8").trim();
      if (moved !== holder) {
        // Put the other process's lock back (link never overwrites) and give way.
        try {
          linkSync(aside, lockPath);
        } finally {
          rmSync(aside, { force: true });
        }
        throw inUse(moved, error);
      }
      rmSync(aside, { force: true });
    }
  }
  throw new Error(`Could not lock ${lockPath}`);
}

/** Whether a process with this pid exists (EPERM: it exists, but belongs to another user). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * shared_buffers at 16 MB instead of PostgreSQL's 128 MB, added to PGlite's own start-up
 * parameters: the buffer pool is WebAssembly memory PGlite keeps once touched, and 16 MB holds
 * this site's working set (decision 033 has the figures).
 */
const SHARED_BUFFERS = ["-c", "shared_buffers=16MB"];

/** PGlite on the directory's files (the caller holds the directory's lock). */
export async function openPGlite(dataDir: string): Promise<PGlite> {
  // Loaded only here: a server on PostgreSQL never loads PGlite's WebAssembly module.
  const { PGlite, types: pgliteTypes } = await import("@electric-sql/pglite");
  return PGlite.create(path.join(dataDir, "pglite"), { parsers: { [pgliteTypes.DATE]: (value: string) => value }, startParams: [...PGlite.defaultStartParams, ...SHARED_BUFFERS] });
}

