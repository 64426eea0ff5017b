/**
 * PostgreSQL for the tests and the benchmark, with no set-up: TEST_DATABASE_URL when it is set (a server where that
 * user may CREATE DATABASE), otherwise a throwaway cluster of the machine's own PostgreSQL
 * (Debian's `postgresql` package) in a temporary directory, on a free port, with its socket in
 * that directory, so it never meets a system cluster on 5432. Each test then works in a database
 * of its own (createTestDatabase), dropped afterwards.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chownSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import getPort from "get-port";
import pg from "pg";
import { isAlive } from "../server/db/embedded-store";

const POSTGRES_ROOT = "/usr/lib/postgresql";
const DIR_PREFIX = "quote-site-pg-";
const OWNER_FILE = "owner.pid";
const INSTALL_HINT =
  "The database tests need PostgreSQL. Install Debian's package (`apt-get install -y postgresql`: the tests start " +
  "their own throwaway cluster from its binaries; the system service need not run), or set TEST_DATABASE_URL to a " +
  "server where that user may CREATE DATABASE, e.g. TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres.";

export interface PostgresBinaries {
  version: string;
  bin: string;
}

/** The newest PostgreSQL under /usr/lib/postgresql/<version>/bin that has initdb, postgres and pg_ctl. */
export function findPostgresBinaries(root = POSTGRES_ROOT): PostgresBinaries | undefined {
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => /^\d+(\.\d+)?$/.test(name))
    .sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const bin = path.join(root, version, "bin");
    if (["initdb", "postgres", "pg_ctl"].every((tool) => existsSync(path.join(bin, tool)))) return { version, bin };
  }
  return undefined;
}

/** Checks TEST_DATABASE_URL's form early, with a message that names it. */
export function checkAdminUrl(url: string, name = "TEST_DATABASE_URL"): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`${name} must be a URL like postgres://user:password@host:5432/postgres; got ${JSON.stringify(url)}.`);
  }
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") {
    throw new Error(`${name} must start with postgres:// or postgresql://; got ${parsed.protocol}//…`);
  }
  return url;
}

export interface ThrowawayCluster {
  url: string;
  /** Fast shutdown, then the directory is removed. */
  stop(): Promise<void>;
  /**
   * A database restart as operations do one: `pg_ctl stop -m fast` (every session is ended with
   * 57P01), `downMs` with nothing listening, then the same data directory started again on the
   * same port; resolves once it accepts connections.
   */
  restart(downMs?: number): Promise<void>;
}

interface SystemUser {
  uid: number;
  gid: number;
}

function systemUser(name: string): SystemUser | undefined {
  let passwd: string;
  try {
    passwd = readFileSync("/etc/passwd", "utf8");
  } catch {
    return undefined;
  }
  for (const line of passwd.split("\n")) {
    const [user, , uid, gid] = line.split(":");
    if (user === name && uid !== undefined && gid !== undefined) return { uid: Number(uid), gid: Number(gid) };
  }
  return undefined;
}

function runuserPath(): string {
  return ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser", "/bin/runuser"].find((candidate) => existsSync(candidate)) ?? "runuser";
}

/** How to run PostgreSQL's binaries: directly, or as the `postgres` user when we are root (PostgreSQL refuses root). */
interface Runner {
  command(tool: string, args: string[]): [string, string[]];
  chown(target: string): void;
}

function makeRunner(bin: string): Runner {
  const asRoot = process.getuid?.() === 0;
  if (!asRoot) {
    return { command: (tool, args) => [path.join(bin, tool), args], chown: () => {} };
  }
  const user = systemUser("postgres");
  if (!user) {
    throw new Error(
      "The tests run as root, and PostgreSQL refuses to run as root, so they run it as the `postgres` system user, but there is " +
        "no such user. Debian's package creates it (`apt-get install -y postgresql`); or run the tests as another user, or set TEST_DATABASE_URL.",
    );
  }
  const runuser = runuserPath();
  return {
    command: (tool, args) => [runuser, ["-u", "postgres", "--", path.join(bin, tool), ...args]],
    chown: (target) => chownSync(target, user.uid, user.gid),
  };
}

function runTool(runner: Runner, tool: string, args: string[], cwd: string): void {
  const [command, argv] = runner.command(tool, args);
  const result = spawnSync(command, argv, { cwd, encoding: "utf8", timeout: 120_000 });
  if (result.error) throw new Error(`Could not run ${tool} (${command}): ${result.error.message}`);
  if (result.status !== 0) {
    throw new Error(`${tool} failed (exit ${result.status ?? result.signal}):\n${result.stdout}\n${result.stderr}`);
  }
}

/** runTool without blocking the event loop. */
function runToolAsync(runner: Runner, tool: string, args: string[], cwd: string): Promise<void> {
  const [command, argv] = runner.command(tool, args);
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { cwd, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.once("error", (error) => reject(new Error(`Could not run ${tool} (${command}): ${error.message}`)));
    child.once("exit", (code, signal) => (code === 0 ? resolve() : reject(new Error(`${tool} failed (exit ${code ?? signal}):\n${stderr}`))));
  });
}

function readPid(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, "utf8").split("\n")[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Clusters left behind by test runs that were killed before their teardown: their owner process is
 * gone, so the postmaster (if still running) is shut down immediately and the directory removed.
 */
function removeOrphanedClusters(): void {
  const tmp = os.tmpdir();
  let entries: string[];
  try {
    entries = readdirSync(tmp).filter((name) => name.startsWith(DIR_PREFIX));
  } catch {
    return;
  }
  for (const name of entries) {
    const dir = path.join(tmp, name);
    const owner = readPid(path.join(dir, OWNER_FILE));
    if (owner === undefined || isAlive(owner)) continue;
    const postmaster = readPid(path.join(dir, "data", "postmaster.pid"));
    if (postmaster !== undefined && isAlive(postmaster)) {
      try {
        process.kill(postmaster, "SIGQUIT");
      } catch {
        continue; // not ours to stop: leave it
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

async function waitForConnections(url: string, child: ChildProcess, logFile: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`PostgreSQL exited during start-up (${child.exitCode ?? child.signalCode}):\n${tail(logFile)}`);
    }
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
    try {
      await client.connect();
      await client.query("SELECT 1");
      await client.end();
      return;
    } catch (error) {
      lastError = error;
      await client.end().catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`PostgreSQL did not accept connections within ${timeoutMs} ms (${String(lastError)}):\n${tail(logFile)}`);
}

function tail(file: string, bytes = 4_000): string {
  try {
    const text = readFileSync(file, "utf8");
    return text.slice(-bytes);
  } catch {
    return "(no log)";
  }
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/**
 * initdb into a fresh temporary directory and start `postgres` on a free port of 127.0.0.1 with
 * its socket in that directory. Fails with what to install when there is no PostgreSQL.
 */
export async function startThrowawayCluster(): Promise<ThrowawayCluster> {
  const binaries = findPostgresBinaries();
  if (!binaries) throw new Error(`${INSTALL_HINT} (No initdb/postgres/pg_ctl found under ${POSTGRES_ROOT}/*/bin.)`);
  const runner = makeRunner(binaries.bin);
  removeOrphanedClusters();

  const base = mkdtempSync(path.join(os.tmpdir(), DIR_PREFIX));
  const dataDir = path.join(base, "data");
  const logFile = path.join(base, "postgres.log");
  let child: ChildProcess | undefined;
  const removeBase = () => rmSync(base, { recursive: true, force: true });
  try {
    writeFileSync(path.join(base, OWNER_FILE), String(process.pid));
    mkdirSync(dataDir, { mode: 0o700 });
    runner.chown(base);
    runner.chown(dataDir);
    // --no-sync: initdb need not fsync a throwaway cluster; the server itself runs with fsync=on.
    runTool(runner, "initdb", ["-D", dataDir, "--auth=trust", "-U", "postgres", "-E", "UTF8", "--no-locale", "--no-sync"], base);

    const urlOf = (port: number) => `postgres://postgres@127.0.0.1:${port}/postgres`;
    /** Starts postgres on `port` (the first time, and after a restart's stop); resolves once it accepts connections. */
    const launch = async (port: number): Promise<void> => {
      const log = openSync(logFile, "a");
      const [command, argv] = runner.command("postgres", [
        "-D", dataDir,
        "-p", String(port),
        "-k", base,
        "-c", "listen_addresses=127.0.0.1",
        "-c", "fsync=on",
        "-c", "shared_buffers=32MB",
        "-c", "max_connections=300",
        "-c", "max_wal_size=256MB",
        "-c", "checkpoint_timeout=30min",
        "-c", "autovacuum=off",
        "-c", "logging_collector=off",
        "-c", "log_min_messages=warning",
        // e.g. pg_stat_statements, for `npm run bench:auction -- --statements`.
        ...(process.env.TEST_POSTGRES_PRELOAD ? ["-c", `shared_preload_libraries=${process.env.TEST_POSTGRES_PRELOAD}`] : []),
      ]);
      const started = spawn(command, argv, { cwd: base, stdio: ["ignore", log, log] });
      child = started;
      closeSync(log);
      try {
        await waitForConnections(urlOf(port), started, logFile, 60_000);
      } catch (error) {
        await stopPostmaster(runner, dataDir, base, started);
        throw error;
      }
    };

    for (let attempt = 1; ; attempt += 1) {
      const port = await getPort({ host: "127.0.0.1" });
      try {
        await launch(port);
      } catch (error) {
        // Another process may have taken the free port between our check and PostgreSQL's bind.
        if (attempt < 3 && /could not (bind|create listen socket)|Address already in use/i.test(tail(logFile))) continue;
        throw error;
      }
      return {
        url: urlOf(port),
        async stop() {
          try {
            if (child) await stopPostmaster(runner, dataDir, base, child);
          } finally {
            removeBase();
          }
        },
        async restart(downMs = 0) {
          const running = child;
          if (running) {
            // Without blocking this process (stop() uses spawnSync): its clients keep sending while
            // PostgreSQL shuts down, as a live application's do.
            await runToolAsync(runner, "pg_ctl", ["stop", "-D", dataDir, "-m", "fast", "-w", "-t", "60"], base).catch(() => {});
            await stopPostmaster(runner, dataDir, base, running); // whatever pg_ctl left, and the exit
          }
          await new Promise((resolve) => setTimeout(resolve, downMs));
          await launch(port);
        },
      };
    }
  } catch (error) {
    removeBase();
    throw error;
  }
}

async function stopPostmaster(runner: Runner, dataDir: string, cwd: string, child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null && existsSync(path.join(dataDir, "postmaster.pid"))) {
    try {
      runTool(runner, "pg_ctl", ["stop", "-D", dataDir, "-m", "fast", "-w", "-t", "60"], cwd);
    } catch {
      // pg_ctl could not stop it: stop the postmaster directly (immediate shutdown).
      const pid = readPid(path.join(dataDir, "postmaster.pid"));
      if (pid !== undefined && isAlive(pid)) process.kill(pid, "SIGQUIT");
    }
  }
  if (!(await waitForExit(child, 10_000))) child.kill("SIGKILL");
}

/** Where the tests find PostgreSQL: TEST_DATABASE_URL, or a throwaway cluster (stopped by `stop`). */
export async function provideAdminUrl(): Promise<{ url: string; stop(): Promise<void> }> {
  const fromEnv = process.env.TEST_DATABASE_URL;
  if (fromEnv) {
    const url = checkAdminUrl(fromEnv);
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
    try {
      await client.connect();
      await client.end();
    } catch (error) {
      await client.end().catch(() => {});
      throw new Error(`TEST_DATABASE_URL is set, but its server refused a connection: ${(error as Error).message}`, { cause: error });
    }
    return { url, stop: async () => {} };
  }
  return startThrowawayCluster();
}

export interface TestDatabase {
  name: string;
  /** A DATABASE_URL for this database alone. */
  url: string;
  /** DROP DATABASE … WITH (FORCE): connections still open are ended. */
  drop(): Promise<void>;
}

async function withAdmin<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/** CREATE DATABASE test_<random> on the admin URL's server. */
export async function createTestDatabase(adminUrl: string): Promise<TestDatabase> {
  const name = `test_${randomBytes(8).toString("hex")}`;
  await withAdmin(adminUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    name,
    url: url.toString(),
    async drop() {
      if (dropped) return;
      dropped = true;
      await withAdmin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}
