import { describe, expect, it } from "vitest";
import { RSS_WARMUP_REQUESTS, rssFigures, slopePer10k, type RssSample } from "../../tools/rss";

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
