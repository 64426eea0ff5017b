/**
 * The production process writes its log to stdout asynchronously (server/logger.ts): lines wait
 * in a buffer while the previous write completes. A graceful stop must still write every line:
 * a burst of requests answered just before SIGTERM all have their access line, and the last
 * line is the shutdown's.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProductionServer, type RunningServer } from "../../tools/production-server";

const BURST = 400;

describe("the asynchronous log on a graceful stop", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startProductionServer({ SHUTDOWN_DELAY_MS: "0" });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("writes the access line of every request answered before SIGTERM, then the shutdown's", async () => {
    const outputClosed = new Promise<void>((resolve) => server.child.once("close", () => resolve()));
    const ids = Array.from({ length: BURST }, (_, index) => `burst-request-${String(index).padStart(4, "0")}`);
    const answers = await Promise.all(
      ids.map((id, index) => fetch(`${server.origin}/zipcode?sid=flush&tid=t${index}`, { headers: { "x-request-id": id } }).then(async (response) => {
        await response.arrayBuffer();
        return response.status;
      })),
    );
    expect(answers.every((status) => status === 200)).toBe(true);
    server.child.kill("SIGTERM");
    expect(await server.exited).toEqual({ code: 0, signal: null });
    await outputClosed;

    const logged = new Set(server.logs.filter((line) => line.msg === "request completed").map((line) => line.requestId));
    expect(ids.filter((id) => !logged.has(id))).toEqual([]);
    expect(server.logs.filter((line) => line.event === "campaign_hit" && (line.campaign as { sid?: string } | undefined)?.sid === "flush")).toHaveLength(BURST);
    expect(server.logs.at(-1)?.event).toBe("shutdown_complete");
  });
});
