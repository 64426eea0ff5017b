/**
 * CPU accounting around each load run, so a shared 2-core machine can be read honestly:
 * how much CPU each server process spent (→ CPU time per request, which is far less sensitive to
 * contention than req/s), how much the load generator (this process) spent, and how much went to
 * processes that are not part of the benchmark at all.
 *
 * Per-process figures come from /proc/<pid>/stat (Linux; utime+stime of all threads, in USER_HZ
 * ticks, which Linux fixes at 100 for user space; tools/rss.ts reads them). Machine totals come from os.cpus(). Elsewhere
 * the per-process figures are reported as unavailable.
 */
import os from "node:os";
import { statCpuMs } from "../../tools/rss";

/** CPU milliseconds (user + system, all threads) a process has used so far; undefined off Linux. */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined || process.platform !== "linux") return undefined;
  return statCpuMs(pid)?.ownMs;
}

/** Busy milliseconds summed over every core of the machine. */
function machineBusyMs(): number {
  return os.cpus().reduce((sum, cpu) => sum + cpu.times.user + cpu.times.nice + cpu.times.sys + cpu.times.irq, 0);
}

export interface CpuSample {
  at: number;
  machineBusyMs: number;
  selfMs: number;
  processes: Record<string, number | undefined>;
}

export function sampleCpu(pids: Record<string, number | undefined>): CpuSample {
  const usage = process.cpuUsage();
  const processes: Record<string, number | undefined> = {};
  for (const [name, pid] of Object.entries(pids)) processes[name] = processCpuMs(pid);
  return { at: performance.now(), machineBusyMs: machineBusyMs(), selfMs: (usage.user + usage.system) / 1000, processes };
}

export interface CpuDelta {
  wallMs: number;
  /** Cores' worth of capacity during the interval (wall time × core count). */
  capacityMs: number;
  /** CPU ms per named process (undefined where unavailable). */
  processes: Record<string, number | undefined>;
  /** The load generator: this process (autocannon runs in it). */
  selfMs: number;
  /** Busy CPU on the machine not spent by the processes above nor by this one. */
  othersMs: number | undefined;
}

export function cpuDelta(before: CpuSample, after: CpuSample): CpuDelta {
  const processes: Record<string, number | undefined> = {};
  let ours = after.selfMs - before.selfMs;
  let complete = true;
  for (const name of Object.keys(after.processes)) {
    const start = before.processes[name];
    const end = after.processes[name];
    const delta = start !== undefined && end !== undefined ? end - start : undefined;
    processes[name] = delta;
    if (delta === undefined) complete = false;
    else ours += delta;
  }
  const wallMs = after.at - before.at;
  const busy = after.machineBusyMs - before.machineBusyMs;
  return {
    wallMs,
    capacityMs: wallMs * os.cpus().length,
    processes,
    selfMs: after.selfMs - before.selfMs,
    othersMs: complete ? Math.max(0, busy - ours) : undefined,
  };
}
