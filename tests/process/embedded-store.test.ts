/**
 * The site on the embedded store (decision 033): its database process is started with it, the
 * ops commands reach the store while the site runs (no stop needed), a database process that
 * dies is started again with nothing lost, and it never outlives the server, even a killed one.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { parse } from "node-html-parser";
import { afterEach, describe, expect, it } from "vitest";
import { isRunning, until } from "../support/processes";
import { projectRoot, startProductionServer, type RunningServer } from "../../tools/production-server";
import { embeddedSocketPath } from "../../server/db/embedded-store";
import { freshDataDir } from "../support/databases";
import { addConsoleUser, signedInConsole } from "../support/console-session";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function servedSite(): Promise<{ server: RunningServer; dataDir: string; databasePid: () => number }> {
  const data = await freshDataDir();
  cleanups.push(data.remove);
  const server = await startProductionServer({ DATA_DIR: data.dir, ADMIN_PORT: "0" });
  cleanups.push(() => server.stop());
  const databasePid = () => {
    const started = server.logs.filter((line) => line.event === "embedded_database_started").at(-1);
    return Number(started?.pid);
  };
  return { server, dataDir: data.dir, databasePid };
}

function command(script: string, argv: string[], dataDir: string, input?: string) {
  const { DATABASE_URL: _unused, ...env } = process.env;
  return spawnSync(process.execPath, [path.join(projectRoot, "dist", "server", `${script}.js`), ...argv], {
    cwd: projectRoot,
    env: { ...env, DATA_DIR: dataDir, LOG_LEVEL: "warn" },
    encoding: "utf8",
    timeout: 30_000,
    ...(input === undefined ? {} : { input }),
  });
}

async function requestOptOut(server: RunningServer, email: string): Promise<Response> {
  const page = await fetch(`${server.origin}/do-not-sell`);
  const cookie = page.headers.getSetCookie().map((line) => line.split(";")[0]).join("; ");
  const csrf = parse(await page.text()).querySelector('input[name="_csrf"]')!.getAttribute("value")!;
  return fetch(`${server.origin}/api/privacy-requests`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Cookie: cookie, "X-CSRF-Token": csrf },
    body: JSON.stringify({ submissionId: crypto.randomUUID(), requestType: "opt_out_sale_sharing", email }),
  });
}



describe("the site on the embedded store", { timeout: 120_000 }, () => {
  it("serves the store from a database process of its own, on a socket in DATA_DIR", async () => {
    const { server, dataDir, databasePid } = await servedSite();
    expect(databasePid()).toBeGreaterThan(0);
    expect(databasePid()).not.toBe(server.child.pid);
    expect(existsSync(embeddedSocketPath(dataDir))).toBe(true);
    // A first start creates the database, then serves it from a fresh process.
    expect(server.logs.some((line) => line.event === "embedded_database_created")).toBe(true);
  });

  it("runs the ops commands while the site runs: a console user added, signed in at once; requests listed; reports printed", async () => {
    const { server, dataDir } = await servedSite();
    expect((await requestOptOut(server, "running@example.com")).status).toBe(201);

    const user = { name: "night-ops", password: "a long enough password" };
    addConsoleUser({ DATA_DIR: dataDir }, user, "ops");
    const session = await signedInConsole(server, user);
    expect((await session.get("/")).status).toBe(200);

    const listed = command("admin", ["list-users", "--format", "json"], dataDir);
    expect(listed.status, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ name: "night-ops", role: "ops" }]);

    const requests = command("privacy-requests", ["list", "--format", "json"], dataDir);
    expect(requests.status, requests.stderr).toBe(0);
    expect(JSON.parse(requests.stdout)).toMatchObject([{ email: "running@example.com", status: "received" }]);

    const report = command("report", ["--by", "sid"], dataDir);
    expect(report.status, report.stderr).toBe(0);
    expect(report.stdout).toMatch(/bots excluded/);

    const leads = command("leads", ["export", "--since", "2026-01-01", "--format", "ndjson"], dataDir);
    expect(leads.status, leads.stderr).toBe(0);
    expect(leads.stdout).toBe("");

    // And the site went on answering throughout.
    expect((await fetch(`${server.origin}/zipcode`)).status).toBe(200);
  });

  it("starts its database process again when it dies, and keeps what was stored", async () => {
    const { server, dataDir, databasePid } = await servedSite();
    expect((await requestOptOut(server, "before@example.com")).status).toBe(201);
    const first = databasePid();
    process.kill(first, "SIGKILL");
    // Asked at once, while it is down or coming back: a 503 to retry, never a 500.
    const meanwhile = await requestOptOut(server, "meanwhile@example.com");
    expect([201, 503]).toContain(meanwhile.status);
    expect(await until(() => databasePid() !== first && server.logs.some((line) => line.event === "embedded_database_started" && line.restarted === true), 20_000)).toBe(true);
    expect(server.logs.find((line) => line.event === "embedded_database_exited")).toMatchObject({ signal: "SIGKILL", level: "error" });
    // Requests made while it was down got 503 (the form retries them); once back, they are stored.
    const statuses: number[] = [];
    await until(async () => {
      const answer = await requestOptOut(server, "after@example.com");
      statuses.push(answer.status);
      return answer.status === 201;
    }, 10_000);
    expect(statuses.at(-1)).toBe(201);
    expect(statuses.filter((status) => status !== 201 && status !== 503)).toEqual([]);
    const requests = command("privacy-requests", ["list", "--format", "json"], dataDir);
    expect(requests.status, requests.stderr).toBe(0);
    expect((JSON.parse(requests.stdout) as { email: string }[]).map((request) => request.email).sort()).toEqual(["after@example.com", "before@example.com", ...(meanwhile.status === 201 ? ["meanwhile@example.com"] : [])].sort());
    expect(server.child.exitCode).toBeNull();
  });

  it("ends its database process when the server stops, and when the server is killed", async () => {
    const { server, dataDir, databasePid } = await servedSite();
    const pid = databasePid();
    server.child.kill("SIGKILL");
    await server.exited;
    // The database process sees its channel close, rolls back, closes PGlite and exits.
    expect(await until(() => !isRunning(pid), 10_000)).toBe(true);
    expect(existsSync(path.join(dataDir, "quote-site.lock"))).toBe(false);
    expect(existsSync(embeddedSocketPath(dataDir))).toBe(false);

    const again = await startProductionServer({ DATA_DIR: dataDir, ADMIN_PORT: "0" });
    const second = Number(again.logs.find((line) => line.event === "embedded_database_started")?.pid);
    await again.stop();
    expect((await again.exited).code).toBe(0);
    expect(isRunning(second)).toBe(false);
  });
});
