/**
 * A database outage is logged twice, at warn, not once per request or claim (issue 41): when it
 * is first met and when the database answers again, with how long it lasted and what met it.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { createOutageLog } from "../../server/db/outage";
import { captureLogs } from "../support/log-capture";

describe("the outage log", () => {
  it("says when an outage starts and when it ends, with its count per kind, and nothing between", async () => {
    const { logger, lines } = captureLogs({ LOG_LEVEL: "debug", NODE_ENV: "production" });
    let up = false;
    let probes = 0;
    const outage = createOutageLog({ logger, probeMs: 5, probe: async () => {
      probes += 1;
      if (!up) throw Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    } });
    const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    expect(outage.active).toBe(false);
    for (let i = 0; i < 272; i += 1) outage.met("api", refused);
    for (let i = 0; i < 125; i += 1) outage.met("auction", refused);
    expect(outage.active).toBe(true);
    await sleep(40);
    // Probed again and again while down (on a loaded machine the 5 ms timer may run late: wait for the second probe, up to 1 s).
    for (let waited = 0; probes < 2 && waited < 1_000; waited += 5) await sleep(5);
    expect(probes).toBeGreaterThan(1);
    up = true;
    for (let waited = 0; outage.active && waited < 1_000; waited += 5) await sleep(5);
    const events = lines.filter((line) => typeof line.event === "string");
    expect(events.map((line) => [line.event, line.level])).toEqual([
      ["database_outage_started", "warn"],
      ["database_outage_ended", "warn"],
    ]);
    expect(events[0]).toMatchObject({ where: "api", err: { code: "ECONNREFUSED" } });
    expect(events[1]).toMatchObject({ met: { api: 272, auction: 125 }, metTotal: 397 });
    expect(Number(events[1]!.durationMs)).toBeGreaterThanOrEqual(30);
    // The next outage is a new pair.
    outage.met("delivery", refused);
    expect(lines.filter((line) => line.event === "database_outage_started")).toHaveLength(2);
    outage.stop();
    expect(lines.at(-1)).toMatchObject({ event: "database_outage_ended", ended: "shutdown", met: { delivery: 1 } });
  });
});
