/**
 * Resident memory of a process and how it moves under load: what the bench's memory run
 * (scripts/lib/bench-rss.ts) samples and how it reads the samples.
 */
import { readFileSync } from "node:fs";

/** Requests before the server counts as warm: its caches, JIT and heap have settled. */
export const RSS_WARMUP_REQUESTS = 10_000;

export interface RssSample {
  /** Requests answered when the sample was taken. */
  requests: number;
  rssMiB: number;
}

/** VmRSS of a process in MiB (Linux); undefined when it cannot be read. */
export function rssMiB(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Least-squares slope of RSS against requests, in MiB per 10,000 requests (0 with fewer than two points). */
export function slopePer10k(samples: RssSample[]): number {
  if (samples.length < 2) return 0;
  const n = samples.length;
  const meanX = samples.reduce((sum, sample) => sum + sample.requests, 0) / n;
  const meanY = samples.reduce((sum, sample) => sum + sample.rssMiB, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (const sample of samples) {
    covariance += (sample.requests - meanX) * (sample.rssMiB - meanY);
    variance += (sample.requests - meanX) ** 2;
  }
  return variance === 0 ? 0 : (covariance / variance) * 10_000;
}

/** The figures of a finished run, from its samples. */
export interface RssFigures {
  startMiB: number;
  afterWarmupMiB: number;
  peakMiB: number;
  endMiB: number;
  /** MiB per 10,000 requests, least squares over the samples after warm-up. */
  slopeMiBPer10k: number;
}

export function rssFigures(samples: RssSample[]): RssFigures {
  if (samples.length === 0) throw new Error("no RSS samples were taken");
  const warm = samples.filter((sample) => sample.requests >= RSS_WARMUP_REQUESTS);
  const steady = warm.length > 0 ? warm : samples;
  return {
    startMiB: samples[0]!.rssMiB,
    afterWarmupMiB: steady[0]!.rssMiB,
    peakMiB: Math.max(...samples.map((sample) => sample.rssMiB)),
    endMiB: samples.at(-1)!.rssMiB,
    slopeMiBPer10k: slopePer10k(steady),
  };
}

