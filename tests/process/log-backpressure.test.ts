/**
 * When the reader of stdout falls behind (a stalled log collector), the server's log buffer stops
 * at LOG_BUFFER_BYTES: it keeps answering, drops the lines that do not fit instead of holding
 * them in memory, and says how many it dropped once stdout moves again (server/logger.ts).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import split2 from "split2";
import { afterAll, describe, expect, it } from "vitest";
import { serverEntry, SERVER_NODE_FLAGS } from "../../tools/production-server";

const BUFFER_BYTES = 65_536;
const REQUESTS = 600;

describe("a stalled reader of stdout", () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "log-backpressure-"));
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, serverEntry], {
    env: { ...process.env, NODE_ENV: "production", HOST: "127.0.0.1", PORT: "0", ADMIN_PORT: "0", LOG_LEVEL: "info", DATA_DIR: dataDir, LOG_BUFFER_BYTES: String(BUFFER_BYTES), PAGE_CACHE_MAX_ENTRIES: "500" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  afterAll(async () => {
    child.kill("SIGKILL");
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("keeps answering, drops what does not fit, and reports the count when stdout moves again", async () => {
    const lines = child.stdout!.pipe(split2());
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("the server did not start")), 45_000);
      lines.on("data", function onLine(line: string) {
        const entry = JSON.parse(line) as { event?: string; port?: number };
        if (entry.event === "server_started" && typeof entry.port === "number") {
          clearTimeout(timer);
          lines.off("data", onLine);
          resolve(entry.port);
        }
      });
    });
    // Stop reading: the pipe fills, then the server's own buffer, then lines are dropped.
    lines.pause();
    child.stdout!.pause();
    const origin = `http://127.0.0.1:${port}`;
    for (let start = 0; start < REQUESTS; start += 50) {
      const batch = Array.from({ length: 50 }, (_, index) => fetch(`${origin}/zipcode?sid=stall&tid=t${start + index}`).then(async (response) => (await response.arrayBuffer(), response.status)));
      expect(new Set(await Promise.all(batch))).toEqual(new Set([200]));
    }
    // Read again: the buffered lines arrive, and within seconds the count of those that did not fit.
    const seen: Array<Record<string, unknown>> = [];
    lines.on("data", (line: string) => seen.push(JSON.parse(line) as Record<string, unknown>));
    lines.resume();
    child.stdout!.resume();
    const started = Date.now();
    while (!seen.some((entry) => entry.event === "log_lines_dropped") && Date.now() - started < 20_000) await new Promise((resolve) => setTimeout(resolve, 100));
    const report = seen.find((entry) => entry.event === "log_lines_dropped");
    expect(report).toMatchObject({ level: "warn", event: "log_lines_dropped" });
    const accessLines = seen.filter((entry) => entry.msg === "request completed").length;
    // Each request writes two lines (the access line and campaign_hit): some were dropped, and counted.
    expect(accessLines).toBeLessThan(REQUESTS);
    expect(Number(report!.count)).toBeGreaterThan(0);
    expect(seen.filter((entry) => entry.msg === "request completed" || entry.event === "campaign_hit").length + Number(report!.count)).toBeLessThanOrEqual(2 * REQUESTS);
    expect((await fetch(`${origin}/healthz`)).status).toBe(200);
  }, 90_000);
});
