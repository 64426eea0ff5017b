/**
 * Resident memory of a process and how it moves under load: what the bench's memory run
 * (scripts/lib/bench-rss.ts) samples and how it reads the samples. And the CPU time processes and
 * process trees have used, from the same /proc files (the auction bench's CPU per lead).
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

/**
 * Clock ticks per second of /proc's CPU fields (USER_HZ, `getconf CLK_TCK`): Linux fixes it at
 * 100 for user space on the architectures this runs on (x86-64, arm64), whatever the kernel's HZ.
 */
export const USER_HZ = 100;

/** The CPU fields of a /proc/<pid>/stat text, in ms: the process's own (utime + stime, all threads) and its reaped children's (cutime + cstime). */
export function parseStatCpuMs(stat: string): { ownMs: number; reapedChildrenMs: number } | undefined {
  // The command name (field 2) may hold spaces and parentheses; the fields after its last ")" are fixed.
  const close = stat.lastIndexOf(")");
  if (close < 0) return undefined;
  const fields = stat.slice(close + 2).split(" ");
  // fields[0] is field 3 (state); utime, stime, cutime and cstime are fields 14 to 17.
  const [utime, stime, cutime, cstime] = [11, 12, 13, 14].map((index) => (fields[index] === undefined || fields[index] === "" ? Number.NaN : Number(fields[index])));
  if (![utime, stime, cutime, cstime].every((value) => Number.isInteger(value))) return undefined;
  return { ownMs: ((utime! + stime!) * 1000) / USER_HZ, reapedChildrenMs: ((cutime! + cstime!) * 1000) / USER_HZ };
}

/** A process's CPU fields (Linux), in ms; undefined when /proc/<pid>/stat cannot be read. */
export function statCpuMs(pid: number | undefined): { ownMs: number; reapedChildrenMs: number } | undefined {
  if (pid === undefined) return undefined;
  try {
    return parseStatCpuMs(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return undefined;
  }
}

/**
 * CPU milliseconds a process tree has used so far: the root's own and its live children's, plus
 * what each has reaped. A counter that only grows as long as the root reaps its children (the
 * PostgreSQL postmaster does, at once): a backend that came and went between two readings is in
 * the root's cutime/cstime by the second. Grandchildren still running are not counted (PostgreSQL
 * has none). Undefined when the root cannot be read.
 */
export function processTreeCpuMs(root: number | undefined): number | undefined {
  if (root === undefined) return undefined;
  let sum = 0;
  // The children first and the root last: a child that ends between the two readings is in the root's cutime.
  for (const child of childPids(root)) {
    const cpu = statCpuMs(child);
    if (cpu) sum += cpu.ownMs + cpu.reapedChildrenMs;
  }
  const own = statCpuMs(root);
  return own === undefined ? undefined : sum + own.ownMs + own.reapedChildrenMs;
}

/** The first child of `parent` whose command line holds `needle` (e.g. "background.js"); undefined when none. */
export function childWithCommandLine(parent: number | undefined, needle: string): number | undefined {
  if (parent === undefined) return undefined;
  for (const child of childPids(parent)) {
    try {
      if (readFileSync(`/proc/${child}/cmdline`, "utf8").split("\0").some((argument) => argument.includes(needle))) return child;
    } catch {
      // Gone meanwhile.
    }
  }
  return undefined;
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
