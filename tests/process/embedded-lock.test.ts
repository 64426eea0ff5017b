/**
 * One embedded store, one server (issue 41, decision 033): the server holds DATA_DIR's lock for
 * its whole life, not only while its database process runs. A second server is refused at once,
 * even while the first one's database process is down and waiting to be started again, and a
 * database process opens the store only under the server that holds it.
 */
import { fork } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parse } from "node-html-parser";
import { afterEach, describe, expect, it } from "vitest";
import { until } from "../support/processes";
import { projectRoot, startProductionServer, type RunningServer } from "../../tools/production-server";
import { embeddedSocketPath } from "../../server/db/embedded-store";
import { freshDataDir } from "../support/databases";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function dataDir(): Promise<string> {
  const data = await freshDataDir();
  cleanups.push(data.remove);
  return data.dir;
}

async function startServer(dir: string): Promise<RunningServer> {
  const server = await startProductionServer({ DATA_DIR: dir, ADMIN_PORT: "0" });
  cleanups.push(() => server.stop());
  return server;
}

/** The pid of the server's database process, from its last `embedded_database_started` line. */
function databasePid(server: RunningServer): number {
  return Number(server.logs.filter((line) => line.event === "embedded_database_started").at(-1)?.pid);
}

async function optOut(server: RunningServer, email: string): Promise<number> {
  const page = await fetch(`${server.origin}/do-not-sell`);
  const cookie = page.headers.getSetCookie().map((line) => line.split(";")[0]).join("; ");
  const csrf = parse(await page.text()).querySelector('input[name="_csrf"]')!.getAttribute("value")!;
  const answer = await fetch(`${server.origin}/api/privacy-requests`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Cookie: cookie, "X-CSRF-Token": csrf },
    body: JSON.stringify({ submissionId: crypto.randomUUID(), requestType: "opt_out_sale_sharing", email }),
  });
  return answer.status;
}

/** Runs the built database process on `dir` as this process's child; resolves with what it said and its exit code. */
async function databaseProcess(dir: string): Promise<{ messages: Record<string, unknown>[]; code: number | null }> {
  const child = fork(path.join(projectRoot, "dist", "server", "embedded-database.js"), [], {
    env: { ...process.env, EMBEDDED_DATA_DIR: dir },
    stdio: ["ignore", "ignore", "ignore", "ipc"],
    serialization: "json",
  });
  const messages: Record<string, unknown>[] = [];
  child.on("message", (message: Record<string, unknown>) => {
    messages.push(message);
    // One that did start goes when its channel closes.
    if ("ready" in message || "created" in message) child.disconnect();
  });
  const code = await new Promise<number | null>((resolve) => child.once("exit", (exitCode) => resolve(exitCode)));
  return { messages, code };
}

describe("one embedded store, one server", { timeout: 180_000 }, () => {
  it("refuses a second server at once while the first one's database process waits to be started again, and the first gets its own back", async () => {
    const dir = await dataDir();
    const first = await startServer(dir);
    expect(await optOut(first, "before@example.com")).toBe(201);

    // Each death doubles the wait before the next start (0.5, 1, 2, 4 s): the fifth waits 8 s.
    let restartInMs = 0;
    for (let kill = 1; kill <= 5; kill += 1) {
      const pid = databasePid(first);
      process.kill(pid, "SIGKILL");
      expect(await until(() => first.logs.some((line) => line.event === "embedded_database_exited" && line.pid === pid), 10_000)).toBe(true);
      restartInMs = Number(first.logs.find((line) => line.event === "embedded_database_exited" && line.pid === pid)?.restartInMs);
      if (kill < 5) expect(await until(() => databasePid(first) !== pid, 30_000), `restart after kill ${kill}`).toBe(true);
    }
    expect(restartInMs).toBeGreaterThanOrEqual(8_000);
    // Down now, for seconds: its killed process's lock is stale, its socket left behind.
    const socket = embeddedSocketPath(dir);
    expect(existsSync(socket)).toBe(true);

    const startedAt = Date.now();
    const second = await startProductionServer({ DATA_DIR: dir, ADMIN_PORT: "0" }).then(
      (server) => {
        cleanups.push(() => server.stop());
        return server;
      },
      (error: Error) => error,
    );
    const tookMs = Date.now() - startedAt;
    expect(second).toBeInstanceOf(Error);
    expect((second as Error).message).toContain(`server exited with 1 before listening: Failed to start: The embedded database in ${dir} is in use by process ${first.child.pid}. Stop it first, or set DATABASE_URL.\n`);
    // Refused by the lock, not after waiting for a database process to give up (11.6 s before).
    expect(tookMs).toBeLessThan(5_000);
    // It left the first server's lock and socket alone.
    expect(readFileSync(path.join(dir, "quote-site.server.lock"), "utf8")).toBe(String(first.child.pid));
    expect(existsSync(socket)).toBe(true);

    // The first server's database process comes back under it, and the site stores again.
    const killed = databasePid(first);
    expect(await until(() => databasePid(first) !== killed, 20_000)).toBe(true);
    let status = 0;
    expect(await until(async () => (status = await optOut(first, "after@example.com")) === 201, 15_000), `last status ${status}`).toBe(true);
    expect(readFileSync(path.join(dir, "quote-site.lock"), "utf8")).toBe(String(databasePid(first)));
    expect(first.child.exitCode).toBeNull();

    // Stopped, it leaves the directory free: the next server starts on it.
    await first.stop();
    expect((await first.exited).code).toBe(0);
    expect(existsSync(path.join(dir, "quote-site.server.lock"))).toBe(false);
    const next = await startServer(dir);
    expect(await optOut(next, "next@example.com")).toBe(201);
  });

  it("has a database process refuse a directory its own server does not hold", async () => {
    const dir = await dataDir();
    // Held by another live process (the test runner's parent), not by this one, its parent.
    writeFileSync(path.join(dir, "quote-site.server.lock"), String(process.ppid));
    const refused = await databaseProcess(dir);
    expect(refused.code).toBe(1);
    expect(refused.messages).toEqual([{ failed: `The embedded database in ${dir} is in use by process ${process.ppid}. Stop it first, or set DATABASE_URL.` }]);

    const unheld = await dataDir();
    const alone = await databaseProcess(unheld);
    expect(alone.code).toBe(1);
    expect(alone.messages).toEqual([{ failed: expect.stringMatching(/is not locked by the server that started this database process/) as unknown }]);

    // Neither opened the store: no lock of PGlite's files, no socket, no database created.
    for (const each of [dir, unheld]) {
      expect(existsSync(path.join(each, "quote-site.lock"))).toBe(false);
      expect(existsSync(embeddedSocketPath(each))).toBe(false);
      expect(existsSync(path.join(each, "pglite"))).toBe(false);
    }
  });
});
