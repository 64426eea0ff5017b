/**
 * A confirmed request survives the process that stored it being killed (SIGKILL: no shutdown
 * code runs), for both stores; and the embedded store refuses a second process while the first
 * holds it, then lets the next process take over the lock once the holder is dead.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import split2 from "split2";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "../../server/db/database";
import { migrate } from "../../server/db/migrate";
import { privacyRequestRepository } from "../../server/db/privacy-requests";
import { PRIVACY_REFERENCE_PATTERN } from "../../shared/privacy-request";
import { freshDataDir, freshPostgresUrl } from "../support/databases";

const projectRoot = fileURLToPath(new URL("../..", import.meta.url));
const FIXTURE = path.join(projectRoot, "tests/db/fixtures/store-client.ts");

interface Fixture {
  child: ChildProcess;
  /** Resolves with the first stdout line matching `pattern`; SIGKILLs the child at once if asked. */
  line(pattern: RegExp, options?: { kill?: boolean }): Promise<RegExpExecArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const running: Fixture[] = [];
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const fixture of running.splice(0)) {
    fixture.child.kill("SIGKILL");
    await fixture.exited;
  }
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The fixture in its own Node process (node --import tsx, so the pid is the one holding the store). */
function startFixture(mode: "create" | "hold", env: { DATA_DIR?: string; DATABASE_URL?: string }): Fixture {
  const child = spawn(process.execPath, ["--import", "tsx", FIXTURE], {
    cwd: projectRoot,
    env: { ...process.env, MODE: mode, DATABASE_URL: env.DATABASE_URL ?? "", DATA_DIR: env.DATA_DIR ?? "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const lines = child.stdout!.pipe(split2());
  const fixture: Fixture = {
    child,
    exited,
    line: (pattern, options = {}) =>
      new Promise((resolve, reject) => {
        lines.on("data", (text: string) => {
          const match = pattern.exec(text);
          if (!match) return;
          if (options.kill) child.kill("SIGKILL"); // before anything else can run in the child
          resolve(match);
        });
        void exited.then(({ code, signal }) => reject(new Error(`The fixture exited (${code ?? signal}) before printing ${pattern}:\n${stderr}`)));
      }),
  };
  running.push(fixture);
  return fixture;
}

async function expectKilled(fixture: Fixture): Promise<void> {
  expect(await fixture.exited).toEqual({ code: null, signal: "SIGKILL" });
}

async function findConfirmed(db: Database, reference: string): Promise<void> {
  expect(await migrate(db)).toEqual([]);
  const repo = privacyRequestRepository(db);
  expect(await repo.findByReference(reference)).toMatchObject({
    reference,
    requestType: "deletion",
    email: "durable@example.com",
    phone: "+14155550134",
    gpc: true,
    status: "received",
  });
  expect(await repo.count()).toBe(1);
}

/** Each test starts a Node process that opens (and for PGlite, creates) a store: slow on a busy machine. */
const SLOW = { timeout: 90_000 };

describe("a confirmed request survives SIGKILL of the process that stored it", SLOW, () => {
  it("embedded store: found after reopening the DATA_DIR, whose stale lock is taken over", async () => {
    const data = await freshDataDir();
    cleanups.push(data.remove);
    const fixture = startFixture("create", { DATA_DIR: data.dir });
    const [, reference] = await fixture.line(/^confirmed (\S+)$/, { kill: true });
    expect(reference).toMatch(PRIVACY_REFERENCE_PATTERN);
    await expectKilled(fixture);

    // The dead process's lock is still there: opening must take it over, not refuse.
    const lockFile = path.join(data.dir, "quote-site.lock");
    expect(readFileSync(lockFile, "utf8")).toBe(String(fixture.child.pid));

    const db = await openDatabase({ DATA_DIR: data.dir });
    cleanups.push(() => db.close());
    expect(readFileSync(lockFile, "utf8")).toBe(String(process.pid));
    await findConfirmed(db, reference!);
  });

  it("PostgreSQL: found through a new connection", async () => {
    const database = await freshPostgresUrl();
    cleanups.push(database.drop);
    const fixture = startFixture("create", { DATABASE_URL: database.url });
    const [, reference] = await fixture.line(/^confirmed (\S+)$/, { kill: true });
    expect(reference).toMatch(PRIVACY_REFERENCE_PATTERN);
    await expectKilled(fixture);

    const db = await openDatabase({ DATABASE_URL: database.url, DATA_DIR: "unused" });
    cleanups.push(() => db.close());
    await findConfirmed(db, reference!);
  });
});

describe("the embedded store's lock", SLOW, () => {
  it("refuses a second opener while the holder lives, naming the process and suggesting DATABASE_URL", async () => {
    const data = await freshDataDir();
    cleanups.push(data.remove);
    const holder = startFixture("hold", { DATA_DIR: data.dir });
    const [, pid] = await holder.line(/^ready (\d+)$/);
    expect(Number(pid)).toBe(holder.child.pid);

    const attempt = openDatabase({ DATA_DIR: data.dir });
    await expect(attempt).rejects.toThrow(new RegExp(`in use by process ${pid}\\b`));
    await expect(attempt).rejects.toThrow(/DATABASE_URL/);
    await expect(attempt).rejects.toThrow(data.dir);
    // The refused opener must leave the holder's lock alone.
    expect(readFileSync(path.join(data.dir, "quote-site.lock"), "utf8")).toBe(pid);
  });
});
