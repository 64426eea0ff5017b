/**
 * The funnel events' writer, with a write of the test's own (the database's side is
 * tests/db/analytics-store.test.ts and the process's tests/process/analytics-shutdown.test.ts):
 * batches, the bounded buffer, a failing store, and stop() writing everything.
 */
import { Writable } from "node:stream";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { createEventWriter, DEFAULT_BATCH_SIZE } from "../../server/analytics/writer";
import type { EventInput } from "../../server/analytics/store";

function capture() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: "debug" },
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        for (const line of chunk.toString("utf8").split("\n").filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        callback();
      },
    }),
  );
  return { logger, lines };
}

const click = (tid: string): EventInput => ({ name: "campaign_hit", sid: "a1", tid, visitId: `v-${tid}` });

describe("the analytics event writer", () => {
  it("writes nothing on the request's path: record() returns before any write, flush() writes in batches", async () => {
    const batches: EventInput[][] = [];
    const { logger } = capture();
    const writer = createEventWriter({ logger, maxBuffer: 100, flushMs: 60_000, batchSize: 4, write: async (events) => void batches.push([...events]) });
    for (let i = 0; i < 10; i += 1) writer.record(click(`t${i}`));
    expect(batches).toHaveLength(0);
    expect(writer.stats().buffered).toBe(10);
    await writer.flush();
    expect(batches.map((batch) => batch.length)).toEqual([4, 4, 2]);
    expect(batches.flat().map((event) => event.tid)).toEqual(Array.from({ length: 10 }, (_, i) => `t${i}`));
    expect(writer.stats()).toMatchObject({ buffered: 0, written: 10, dropped: 0 });
    // Each event got its time when recorded, not when written.
    expect(batches.flat().every((event) => event.at instanceof Date)).toBe(true);
    await writer.stop();
  });

  it("writes a full batch at once, without waiting for the timer", async () => {
    const batches: number[] = [];
    const { logger } = capture();
    const writer = createEventWriter({ logger, maxBuffer: 100, flushMs: 60_000, batchSize: 5, write: async (events) => void batches.push(events.length) });
    for (let i = 0; i < 5; i += 1) writer.record(click(`t${i}`));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(batches).toEqual([5]);
    await writer.stop();
  });

  it("writes at most 250 events per statement by default, so a batch holds the event loop only briefly", async () => {
    const batches: number[] = [];
    const { logger } = capture();
    const writer = createEventWriter({ logger, maxBuffer: 10_000, flushMs: 60_000, write: async (events) => void batches.push(events.length) });
    for (let i = 0; i < 2 * 250 + 7; i += 1) writer.record(click(`t${i}`));
    await writer.flush();
    expect(DEFAULT_BATCH_SIZE).toBe(250);
    expect(batches).toEqual([250, 250, 7]);
    await writer.stop();
  });

  it("writes on its timer", async () => {
    const written: EventInput[] = [];
    const { logger } = capture();
    const writer = createEventWriter({ logger, maxBuffer: 100, flushMs: 20, write: async (events) => void written.push(...events) });
    writer.record(click("t1"));
    await expect.poll(() => written.length, { timeout: 2_000 }).toBe(1);
    await writer.stop();
  });

  it("drops (and counts, and logs) only what does not fit in the buffer, never blocking the caller", async () => {
    const written: EventInput[] = [];
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => (release = resolve));
    const { logger, lines } = capture();
    // The store hangs: nothing leaves the buffer until it answers.
    const writer = createEventWriter({ logger, maxBuffer: 5, flushMs: 60_000, batchSize: 100, write: async (events) => {
      await blocked;
      written.push(...events);
    } });
    for (let i = 0; i < 8; i += 1) writer.record(click(`t${i}`));
    expect(writer.stats()).toMatchObject({ buffered: 5, dropped: 3 });
    const drops = lines.filter((line) => line.event === "analytics_events_dropped");
    expect(drops).toHaveLength(1); // one line per interval, not one per event
    expect(drops[0]).toMatchObject({ level: 40, dropped: 1, maxBuffer: 5 });
    const flushing = writer.flush();
    release();
    await flushing;
    expect(written.map((event) => event.tid)).toEqual(["t0", "t1", "t2", "t3", "t4"]);
    await writer.stop();
    // stop() reports the drops not yet logged.
    const total = lines.filter((line) => line.event === "analytics_events_dropped").reduce((sum, line) => sum + Number(line.dropped), 0);
    expect(total).toBe(3);
  });

  it("keeps a batch the store refused and writes it when the store answers again", async () => {
    const written: EventInput[] = [];
    let failing = true;
    const { logger, lines } = capture();
    const writer = createEventWriter({ logger, maxBuffer: 100, flushMs: 60_000, batchSize: 2, write: async (events) => {
      if (failing) throw new Error("connection refused");
      written.push(...events);
    } });
    for (let i = 0; i < 3; i += 1) writer.record(click(`t${i}`));
    await writer.flush();
    expect(writer.stats()).toMatchObject({ buffered: 3, written: 0, failedWrites: 1, dropped: 0 });
    expect(lines.some((line) => line.event === "analytics_write_failed")).toBe(true);
    failing = false;
    await writer.flush();
    expect(written.map((event) => event.tid)).toEqual(["t0", "t1", "t2"]);
    expect(writer.stats()).toMatchObject({ buffered: 0, written: 3 });
    await writer.stop();
  });

  it("stop() writes everything still buffered, retrying a store that is briefly down", async () => {
    const written: EventInput[] = [];
    let failures = 2;
    const { logger } = capture();
    const writer = createEventWriter({ logger, maxBuffer: 10_000, flushMs: 60_000, batchSize: 500, write: async (events) => {
      if (failures > 0) {
        failures -= 1;
        throw new Error("restarting");
      }
      written.push(...events);
    } });
    for (let i = 0; i < 1_200; i += 1) writer.record(click(`t${i}`));
    await writer.stop(5_000);
    expect(written).toHaveLength(1_200);
    expect(writer.stats()).toMatchObject({ buffered: 0, written: 1_200, dropped: 0 });
    // After stop, nothing more is taken in: counted as dropped, not silently lost.
    writer.record(click("late"));
    expect(writer.stats().dropped).toBe(1);
  });

  it("stop() gives up at its deadline and says how many events were lost", async () => {
    const { logger, lines } = capture();
    const writer = createEventWriter({ logger, maxBuffer: 100, flushMs: 60_000, write: async () => {
      throw new Error("down");
    } });
    writer.record(click("t1"));
    writer.record(click("t2"));
    await writer.stop(300);
    expect(lines.find((line) => line.event === "analytics_events_lost")).toMatchObject({ level: 50, lost: 2 });
    expect(writer.stats()).toMatchObject({ buffered: 0, dropped: 2 });
  });
});
