/** Watching processes the tests start (servers, their database and background processes). */
import { setTimeout as sleep } from "node:timers/promises";

/** Whether a process with this pid still exists. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Resolves true as soon as `check` holds (checked every 100 ms), false after `ms` without it. */
export async function until(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await sleep(100);
  }
  return check();
}
