/**
 * Issue 41 ("also seen"): a server killed outright (SIGKILL) leaves its background worker
 * finishing the sends it holds, and those sends' log lines must not be lost with the server that
 * used to relay them. The worker then writes them itself, whole, to the server's own standard
 * output (here the pipe this test reads: a log collector that outlives the server) until it exits.
 * While the server lives, the lines still come through the server, as before.
 */
import { mkdtempSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { isRunning, until } from "../support/processes";
import { onJsonLines, parseJson, startProductionServer, type RunningServer } from "../../tools/production-server";
import { startBuyerStub, type BuyerStub } from "../../tools/buyer-stub";
import { leadBody, openLeadSession, postLead } from "../../tools/lead-session";
import { freshPostgresUrl, type FreshPostgres } from "../support/databases";

const SECRET = "acme-secret-that-is-at-least-32-chars!!";
const LEADS = 12;

describe("the background worker of a server that is gone", { timeout: 120_000 }, () => {
  let stub: BuyerStub;
  let postgres: FreshPostgres;
  let folder: string;
  let buyersFile: string;
  let server: RunningServer | undefined;

  beforeAll(async () => {
    stub = await startBuyerStub({ buyers: { acme: SECRET } });
    postgres = await freshPostgresUrl();
    folder = mkdtempSync(path.join(os.tmpdir(), "orphan-worker-"));
    buyersFile = path.join(folder, "buyers.json");
    writeFileSync(buyersFile, JSON.stringify({ buyers: [{ id: "acme", name: "Acme Insurance Agency", url: stub.url("acme"), secret: SECRET, price: 18.5, timeoutMs: 15_000 }], sources: [] }));
  });
  afterEach(async () => {
    await server?.stop();
    server = undefined;
    stub.reset();
  });
  afterAll(async () => {
    await stub?.stop();
    await postgres?.drop();
    rmSync(folder, { recursive: true, force: true });
  });

  /** A server, its background worker's pid, and every raw line of its stdout (to check none arrives cut or mixed). */
  async function start(): Promise<{ server: RunningServer; pid: number; raw: string[] }> {
    server = await startProductionServer({ DATABASE_URL: postgres.url, BUYERS_FILE: buyersFile, CSRF_SECRET: "a-shared-csrf-secret-of-at-least-32-characters", LEAD_MIN_FILL_MS: "0", LEAD_RATE_LIMIT: "100000" });
    const pid = Number(server.logs.find((line) => line.event === "background_started")?.pid);
    expect(pid).toBeGreaterThan(0);
    const raw: string[] = [];
    onJsonLines(server.child, (line) => raw.push(line));
    return { server, pid, raw };
  }

  /** LEADS leads whose posts have all reached the buyer, who answers each `delayMs` after it came. */
  async function inFlight(running: RunningServer, delayMs: number): Promise<string[]> {
    stub.script("acme", Array.from({ length: LEADS }, () => ({ status: 200, body: {}, delayMs })));
    const session = await openLeadSession(running.origin);
    const references = await Promise.all(
      Array.from({ length: LEADS }, async () => {
        const response = await postLead(running.origin, session, leadBody(session));
        expect(response.status, JSON.stringify(response.body)).toBe(201);
        return (response.body as { reference: string }).reference;
      }),
    );
    await stub.waitForLeads("acme", LEADS, 20_000);
    expect(stub.tally("acme").accepted).toBe(0);
    return references;
  }

  /** After the server's death (its log's line `from`): every send's lead_delivered line, written by the worker, whole; then it exits. */
  async function expectOrphanLog(running: RunningServer, from: number, pid: number, references: string[], raw: string[]): Promise<Record<string, unknown> | undefined> {
    const after = () => running.logs.slice(from);
    const delivered = () => after().filter((line) => line.event === "lead_delivered");
    expect(await until(() => delivered().length >= LEADS, 30_000), `${delivered().length} of ${LEADS} lead_delivered lines after the server died`).toBe(true);
    expect(new Set(delivered().map((line) => line.reference))).toEqual(new Set(references));
    expect(delivered().every((line) => line.process === "background" && line.pid === pid && line.buyerId === "acme")).toBe(true);
    expect(stub.tally("acme").accepted).toBe(LEADS);
    expect(await until(() => !isRunning(pid), 20_000)).toBe(true);
    // Its last line is there too, and no line arrived cut or mixed with another.
    expect(await until(() => after().some((line) => line.event === "background_stopped" && line.pid === pid), 5_000)).toBe(true);
    expect(raw.filter((line) => line.trim() !== "" && !parseJson(line))).toEqual([]);
    return after().find((line) => line.event === "background_server_gone");
  }

  it("killed outright: the worker finishes its sends and writes their lines itself into the server's log stream", async () => {
    const { server: running, pid, raw } = await start();
    const references = await inFlight(running, 2_500);
    running.child.kill("SIGKILL");
    expect((await running.exited).signal).toBe("SIGKILL");
    const gone = await expectOrphanLog(running, running.logs.length, pid, references, raw);
    expect(gone).toMatchObject({ level: "warn", process: "background", pid, serverPid: running.child.pid, noticed: "channel_closed" });
  });

  it("killed while it stops the worker: the worker notices and writes the rest of its lines itself", async () => {
    const { server: running, pid, raw } = await start();
    const references = await inFlight(running, 5_000);
    // The worker's fd 3 is its IPC channel (NODE_CHANNEL_FD): it closes it once the server has closed theirs.
    const channel = () => {
      try {
        return readlinkSync(`/proc/${pid}/fd/3`);
      } catch {
        return undefined;
      }
    };
    const open = channel();
    expect(open).toMatch(/^socket:/);
    running.child.kill("SIGTERM");
    // The server has told the worker to stop and closed their channel: it now waits for the sends
    // in flight, reading the worker's lines.
    expect(await until(() => channel() !== open, 4_000)).toBe(true);
    expect(stub.tally("acme").accepted).toBe(0);
    running.child.kill("SIGKILL");
    expect((await running.exited).signal).toBe("SIGKILL");
    const gone = await expectOrphanLog(running, running.logs.length, pid, references, raw);
    expect(gone).toMatchObject({ level: "warn", process: "background", pid, serverPid: running.child.pid, noticed: "parent_changed" });
  });

  it("while the server lives, its lines come through the server, as before", async () => {
    const { server: running, pid } = await start();
    const references = await inFlight(running, 1_500);
    // A graceful stop: the server waits for the sends in flight and relays their lines.
    await running.stop();
    expect((await running.exited).code).toBe(0);
    expect(running.logs.filter((line) => line.event === "lead_delivered" && line.pid === pid).map((line) => line.reference).sort()).toEqual([...references].sort());
    expect(running.logs.some((line) => line.event === "background_stopped" && line.pid === pid)).toBe(true);
    expect(running.logs.some((line) => line.event === "background_server_gone")).toBe(false);
  });
});
