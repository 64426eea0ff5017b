/**
 * Graceful shutdown of the real production process: after SIGTERM it keeps serving for
 * SHUTDOWN_DELAY_MS with readiness failing and `Connection: close` on every answer, then exits 0
 * and says so in its logs. No browser: plain node:http with a keep-alive agent.
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProductionServer, type RunningServer } from "../../tools/production-server";

const SHUTDOWN_DELAY_MS = 1_500;

interface Answer {
  status: number;
  connection: string | undefined;
  body: string;
  reusedSocket: boolean;
  localPort: number | undefined;
}

function get(agent: http.Agent, origin: string, path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.get(new URL(path, origin), { agent }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          connection: response.headers.connection,
          body,
          reusedSocket: request.reusedSocket,
          localPort: request.socket?.localPort,
        }),
      );
      response.on("error", reject);
    });
    request.on("error", reject);
  });
}

/** Resolves when `check` holds, polling the child's parsed log lines; rejects after `timeoutMs`. */
async function waitFor(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function withinMs<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

describe("SIGTERM on the production process", () => {
  let server: RunningServer;
  let agent: http.Agent;

  beforeAll(async () => {
    server = await startProductionServer({ SHUTDOWN_DELAY_MS: String(SHUTDOWN_DELAY_MS) });
    // One socket, kept alive: the second request must travel on the connection opened before SIGTERM.
    agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  });

  afterAll(async () => {
    agent?.destroy();
    await server?.stop();
  });

  it("drains: keeps serving with readiness failing and connections closing, then exits 0 and logs it", async () => {
    const events = () => server.logs.map((line) => line.event);
    // The exit event can come before the last stdout bytes; 'close' waits for stdio to end.
    const outputClosed = new Promise<void>((resolve) => server.child.once("close", () => resolve()));

    const before = await get(agent, server.origin, "/zipcode");
    expect(before.status).toBe(200);
    expect(before.connection).toBe("keep-alive");
    expect((await get(agent, server.origin, "/readyz")).status).toBe(200);

    expect(server.child.kill("SIGTERM")).toBe(true);
    await waitFor(() => events().includes("shutdown_started"), "the shutdown_started log line");

    // During the delay: the page still answers on the old keep-alive connection, asking the client to close it.
    const page = await get(agent, server.origin, "/zipcode");
    expect(page.status).toBe(200);
    expect(page.connection).toBe("close");
    expect(page.reusedSocket).toBe(true);
    expect(page.localPort).toBe(before.localPort);
    expect(page.body).toContain("Get Your Quote");

    const ready = await get(agent, server.origin, "/readyz");
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toEqual({ status: "shutting_down" });
    expect(ready.connection).toBe("close");

    const health = await get(agent, server.origin, "/healthz");
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toEqual({ status: "ok" });

    // All of that happened before the process stopped.
    expect(server.child.exitCode).toBeNull();
    expect(events()).not.toContain("shutdown_complete");

    const exit = await withinMs(server.exited, SHUTDOWN_DELAY_MS + 15_000, "process exit");
    expect(exit).toEqual({ code: 0, signal: null });
    await withinMs(outputClosed, 5_000, "stdout closing");

    const started = server.logs.find((line) => line.event === "shutdown_started");
    expect(started).toMatchObject({ signal: "SIGTERM", delayMs: SHUTDOWN_DELAY_MS });
    expect(events()).toContain("shutdown_complete");
    expect(events().indexOf("shutdown_complete")).toBeGreaterThan(events().indexOf("shutdown_started"));
    expect(events()).not.toContain("shutdown_forced");
    expect(events()).not.toContain("shutdown_failed");
  });
});
