/**
 * Resident memory of a process and how it moves under load: what the bench's memory run
 * (scripts/lib/bench-rss.ts) samples and how it reads the samples.
 */
import { readdirSync, readFileSync } from "node:fs";

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

/** The `Pss:` figure of /proc/<pid>/smaps_rollup, in kB; undefined when the text has none. */
export function parsePssKiB(smapsRollup: string): number | undefined {
  const match = /^Pss:\s+(\d+)\s+kB$/m.exec(smapsRollup);
  return match ? Number(match[1]) : undefined;
}

/**
 * Proportional set size of a process in MiB (Linux): its private pages plus its share of the
 * pages it shares (a page mapped by four processes counts a quarter in each), so the PSS of a
 * group of processes adds up to what the group holds. Undefined when it cannot be read.
 */
export function pssMiB(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const kib = parsePssKiB(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
    return kib === undefined ? undefined : kib / 1024;
  } catch {
    return undefined;
  }
}

/** The parent pid in the text of /proc/<pid>/stat (the field after the command name, which may hold spaces and parentheses). */
export function parentPidOfStat(stat: string): number | undefined {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ppid = Number(fields[1]);
  return Number.isInteger(ppid) && ppid > 0 ? ppid : undefined;
}

/** The pids of a process's children: /proc/<pid>/task/<pid>/children, or a scan of /proc where the kernel lacks it. */
export function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    // No such file (CONFIG_PROC_CHILDREN off): every process's parent, from its stat.
  }
  const children: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return children;
  }
  for (const name of entries) {
    try {
      if (parentPidOfStat(readFileSync(`/proc/${name}/stat`, "utf8")) === pid) children.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return children;
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


/** One store's row of the memory run's side-by-side table. */
export interface MemoryRow {
  store: string;
  /** The server process's RSS. */
  server: RssFigures;
  /** The database's figures (its processes' PSS, or its process's RSS); null when not measured. */
  database: Pick<RssFigures, "startMiB" | "peakMiB" | "endMiB"> | null;
  /** The highest server + database of one sample; null without database figures. */
  totalPeakMiB: number | null;
  seconds: number;
  /** Errors and unexpected statuses. */
  errors: number;
}

/** The stores side by side, one row each, columns right-aligned (MB, one decimal). */
export function memoryTable(rows: MemoryRow[]): string[] {
  const mb = (value: number | null | undefined) => (value === null || value === undefined ? "n/a" : value.toFixed(1));
  const headers = ["store", "server start", `after ${RSS_WARMUP_REQUESTS / 1000}k`, "peak", "end", "slope/10k", "database start", "peak", "end", "total peak", "s", "errors"];
  const cells = rows.map((row) => [
    row.store,
    mb(row.server.startMiB),
    mb(row.server.afterWarmupMiB),
    mb(row.server.peakMiB),
    mb(row.server.endMiB),
    row.server.slopeMiBPer10k.toFixed(2),
    mb(row.database?.startMiB),
    mb(row.database?.peakMiB),
    mb(row.database?.endMiB),
    mb(row.totalPeakMiB),
    row.seconds.toFixed(0),
    String(row.errors),
  ]);
  const widths = headers.map((header, column) => Math.max(header.length, ...cells.map((row) => row[column]!.length)));
  const line = (row: string[]) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join("  ");
  return [line(headers), widths.map((width) => "-".repeat(width)).join("  "), ...cells.map(line)];
}
