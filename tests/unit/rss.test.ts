import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { childPids, memoryTable, parentPidOfStat, parsePssKiB, pssMiB, RSS_WARMUP_REQUESTS, rssFigures, slopePer10k, type RssSample } from "../../tools/rss";

const line = (from: number, to: number, step: number, at: (requests: number) => number): RssSample[] => {
  const samples: RssSample[] = [];
  for (let requests = from; requests <= to; requests += step) samples.push({ requests, rssMiB: at(requests) });
  return samples;
};

describe("RSS samples (tools/rss.ts, the bench's memory run)", () => {
  it("measures the slope in MB per 10,000 requests by least squares", () => {
    expect(slopePer10k(line(0, 100_000, 1_000, (requests) => 80 + requests / 10_000))).toBeCloseTo(1, 6);
    expect(slopePer10k(line(0, 100_000, 1_000, () => 120))).toBe(0);
    expect(slopePer10k([{ requests: 5, rssMiB: 90 }])).toBe(0);
  });

  it("reads the figures after warm-up: a start-up climb does not count as growth", () => {
    const samples = [...line(0, RSS_WARMUP_REQUESTS - 1_000, 1_000, (requests) => 60 + requests / 200), ...line(RSS_WARMUP_REQUESTS, 100_000, 1_000, () => 110)];
    const figures = rssFigures(samples);
    expect(figures.startMiB).toBe(60);
    expect(figures.afterWarmupMiB).toBe(110);
    expect(figures.endMiB).toBe(110);
    expect(figures.slopeMiBPer10k).toBe(0);
    expect(figures.peakMiB).toBe(110);
  });

  it("sees a steady climb as a slope, and the start-up as nothing", () => {
    const leaking = rssFigures(line(0, 100_000, 1_000, (requests) => 100 + requests / 2_000));
    expect(leaking.slopeMiBPer10k).toBeCloseTo(5, 6);
    expect(leaking.endMiB - leaking.afterWarmupMiB).toBeCloseTo(45, 6);
  });

  it("has nothing to read without samples", () => {
    expect(() => rssFigures([])).toThrow(/no RSS samples/);
  });
});

const SMAPS_ROLLUP = `55a8b7531000-7ffdcc290000 ---p 00000000 00:00 0                          [rollup]
Rss:              181620 kB
Pss:               95568 kB
Pss_Dirty:           108 kB
Pss_Anon:            108 kB
Pss_File:            460 kB
Shared_Clean:       1428 kB
`;

describe("PSS and process trees (tools/rss.ts, the database's memory in the bench's memory run)", () => {
  it("reads the Pss line of smaps_rollup, not Pss_Dirty or Rss", () => {
    expect(parsePssKiB(SMAPS_ROLLUP)).toBe(95_568);
    expect(parsePssKiB("Rss: 10 kB\nPss_Anon: 4 kB\n")).toBeUndefined();
  });

  it("reads the parent pid from /proc/<pid>/stat, even when the command name holds spaces and parentheses", () => {
    expect(parentPidOfStat("4242 (postgres) S 4100 4100 4100 0 -1 4194560 1 0")).toBe(4100);
    expect(parentPidOfStat("77 (a (b) c) R 12 77 77 0 -1")).toBe(12);
    expect(parentPidOfStat("garbage")).toBeUndefined();
  });

  it.skipIf(process.platform !== "linux")("finds a process's children and measures its PSS", async () => {
    const child = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      expect(childPids(process.pid)).toContain(child.pid);
      expect(pssMiB(process.pid)).toBeGreaterThan(0);
      expect(pssMiB(undefined)).toBeUndefined();
    } finally {
      child.kill();
    }
  });
});

describe("the memory run's side-by-side table (tools/rss.ts memoryTable)", () => {
  const server = { startMiB: 110, afterWarmupMiB: 150, peakMiB: 165.04, endMiB: 158, slopeMiBPer10k: 0.8 };
  const table = memoryTable([
    { store: "PostgreSQL", server, database: { startMiB: 40, peakMiB: 62, endMiB: 61 }, totalPeakMiB: 226, seconds: 40.4, errors: 0 },
    { store: "embedded", server: { ...server, peakMiB: 205 }, database: { startMiB: 90, peakMiB: 97.5, endMiB: 96 }, totalPeakMiB: 301.25, seconds: 61, errors: 3 },
    { store: "remote", server, database: null, totalPeakMiB: null, seconds: 40, errors: 0 },
  ]);
  const cells = (line: string) => line.trim().split(/\s+/);

  it("has a header, a rule and a row per store, every column lined up", () => {
    expect(table).toHaveLength(5);
    expect(table[0]).toMatch(/^store\s+server start\s+after 10k\s+peak\s+end\s+slope\/10k\s+database start\s+peak\s+end\s+total peak\s+s\s+errors$/);
    expect(new Set(table.map((line) => line.length)).size).toBe(1);
  });

  it("puts the server's RSS, the database's figures and the total peak in one row per store", () => {
    expect(cells(table[2]!)).toEqual(["PostgreSQL", "110.0", "150.0", "165.0", "158.0", "0.80", "40.0", "62.0", "61.0", "226.0", "40", "0"]);
    expect(cells(table[3]!)).toEqual(["embedded", "110.0", "150.0", "205.0", "158.0", "0.80", "90.0", "97.5", "96.0", "301.3", "61", "3"]);
  });

  it("writes n/a where the database was not measured", () => {
    expect(cells(table[4]!).slice(6, 10)).toEqual(["n/a", "n/a", "n/a", "n/a"]);
  });
});
