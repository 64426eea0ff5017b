/**
 * The background worker process (issue 35, decision 034): the delivery worker and the auction run
 * in a process of their own at a lower CPU priority, its metrics are in GET /metrics beside the
 * server's, its log lines are in the server's log, a background process that dies is started
 * again with nothing lost, and it ends with the server.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRunning, until } from "../support/processes";
import { startProductionServer, type RunningServer } from "../../tools/production-server";
import { startBuyerStub, type BuyerStub } from "../../tools/buyer-stub";
import { leadBody, openLeadSession, postLead } from "../../tools/lead-session";
import { freshPostgresUrl, type FreshPostgres } from "../support/databases";

const SECRET = "acme-secret-that-is-at-least-32-chars!!";

/** Field 19 of /proc/<pid>/stat (after the command in parentheses): the niceness. */
function niceness(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
}



describe("the background worker process", { timeout: 120_000 }, () => {
  let stub: BuyerStub;
  let postgres: FreshPostgres;
  let folder: string;
  let server: RunningServer;
  const backgroundPid = () => Number(server.logs.filter((line) => line.event === "background_started").at(-1)?.pid);

  async function submit(): Promise<string> {
    const session = await openLeadSession(server.origin);
    const response = await postLead(server.origin, session, leadBody(session));
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return (response.body as { reference: string }).reference;
  }

  beforeAll(async () => {
    stub = await startBuyerStub({ buyers: { acme: SECRET } });
    postgres = await freshPostgresUrl();
    folder = mkdtempSync(path.join(os.tmpdir(), "background-process-"));
    const file = path.join(folder, "buyers.json");
    writeFileSync(file, JSON.stringify({ buyers: [{ id: "acme", name: "Acme Insurance Agency", url: stub.url("acme"), secret: SECRET, price: 18.5 }], sources: [] }));
    server = await startProductionServer({ DATABASE_URL: postgres.url, BUYERS_FILE: file, CSRF_SECRET: "a-shared-csrf-secret-of-at-least-32-characters", ADMIN_PORT: "0", LEAD_MIN_FILL_MS: "0", LEAD_RATE_LIMIT: "100000" });
  });
  afterAll(async () => {
    await server?.stop();
    await stub?.stop();
    await postgres?.drop();
    rmSync(folder, { recursive: true, force: true });
  });

  it("sends the leads from a process of its own, 10 nicer than the server's, logging into the server's log", async () => {
    const pid = backgroundPid();
    expect(pid).toBeGreaterThan(0);
    expect(pid).not.toBe(server.child.pid);
    // Relative, so `nice -n 10 npm test` (shared CI often runs niced) holds too: 0 and 10, or 10 and 19.
    const serverNiceness = niceness(server.child.pid!);
    expect(serverNiceness).toBe(os.getPriority());
    expect(niceness(pid)).toBe(Math.min(19, serverNiceness + 10));
    if (serverNiceness < 19) expect(niceness(pid)).toBeGreaterThan(serverNiceness);
    const reference = await submit();
    const [received] = await stub.waitForLeads("acme", 1, 20_000);
    expect((received?.json as { reference: string }).reference).toBe(reference);
    // Its lines come through the server's stdout, whole, marked as the background's.
    expect(await until(() => server.logs.some((line) => line.event === "lead_delivered" && line.reference === reference), 10_000)).toBe(true);
    expect(server.logs.find((line) => line.event === "lead_delivered" && line.reference === reference)).toMatchObject({ process: "background", buyerId: "acme" });
  });

  it("adds its metrics to the server's at GET /metrics, labelled as the background process's", async () => {
    const started = server.logs.find((line) => line.event === "admin_console_started");
    const text = await (await fetch(`http://127.0.0.1:${String(started?.port)}/metrics`)).text();
    expect(text).toMatch(/^deliveries_total\{kind="buyer",buyer="acme",outcome="accepted",process="background"\} [1-9]/m);
    expect(text).toMatch(/^http_requests_total\{/m);
    expect(text).toMatch(/^process_resident_memory_bytes\{process="background"\} \d+/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
  });

  it("is started again when it dies, and the leads go on being sent", async () => {
    const first = backgroundPid();
    process.kill(first, "SIGKILL");
    expect(await until(() => backgroundPid() !== first && server.logs.some((line) => line.event === "background_started" && line.restarted === true), 20_000)).toBe(true);
    expect(server.logs.find((line) => line.event === "background_exited")).toMatchObject({ level: "error", signal: "SIGKILL" });
    stub.reset();
    const reference = await submit();
    const [received] = await stub.waitForLeads("acme", 1, 20_000);
    expect((received?.json as { reference: string }).reference).toBe(reference);
  });

  it("does not outlive a server killed outright, even when its database is gone too", async () => {
    const gone = await freshPostgresUrl();
    const killed = await startProductionServer({ DATABASE_URL: gone.url, CSRF_SECRET: "a-shared-csrf-secret-of-at-least-32-characters", SHUTDOWN_TIMEOUT_MS: "1000" });
    const pid = Number(killed.logs.find((line) => line.event === "background_started")?.pid);
    expect(isRunning(pid)).toBe(true);
    await gone.drop(); // its connections are cut
    killed.child.kill("SIGKILL");
    await killed.exited;
    // It finishes what it holds and exits, or gives up at SHUTDOWN_TIMEOUT_MS + 5 s.
    expect(await until(() => !isRunning(pid), 15_000)).toBe(true);
  });

  it("stops with the server", async () => {
    const pid = backgroundPid();
    await server.stop();
    expect((await server.exited).code).toBe(0);
    expect(await until(() => !isRunning(pid), 10_000)).toBe(true);
    expect(server.logs.some((line) => line.event === "background_stopped")).toBe(true);
  });
});
