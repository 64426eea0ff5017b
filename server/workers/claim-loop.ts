/**
 * The one claim loop of the background workers (issue 43: one loop per kind of work; DESIGN.md):
 * claim the due rows there is room for, start each, then wait, and claim again. The auction and
 * the delivery worker each had a hand-written copy with flags of its own; they differed only in
 * the numbers below and in whether a nudge ends a gathering wait.
 *
 * After each claim it waits in one of three ways:
 * - **idle** (nothing was due): `idleMs()`, or until a nudge (a lead stored, a cascade queued);
 * - **gathering** (some was due, room is left): `gatherMs`, to claim the next batch in one
 *   statement rather than one per row; a nudge ends it only with `nudgeEndsGathering`;
 * - **full** (fewer than `refill` places free): `fullMs`, or until tasks end and `refill` places
 *   are free again (one wake-up per refill, not a claim per task's end).
 * A nudge that arrives while a claim runs may have been missed by it: the loop claims again at
 * once (when idle, or with `nudgeEndsGathering`). So does a claim that filled every place it had
 * while more places came free meanwhile.
 */
export interface ClaimLoopOptions {
  /** Claims at most `room` due rows and starts each: resolves with their tasks, not when they end. */
  claim(room: number): Promise<Promise<unknown>[]>;
  /** Tasks at most at once. */
  concurrency: number;
  /** The idle wait, read at each wait (the auction waits longer while no buyer bids). */
  idleMs: () => number;
  gatherMs: number;
  /** Whether a nudge ends a gathering wait (the auction: a new lead's auction starts at once). */
  nudgeEndsGathering: boolean;
  fullMs: number;
  /** Free places a full loop waits for before claiming again (default 1). */
  refill?: number;
  /** A claim that threw (the database went away): the loop waits as if idle and claims again. */
  onError(error: unknown): void;
}

export interface ClaimLoop {
  start(): void;
  /** Stops claiming and waits for the tasks in flight. */
  stop(): Promise<void>;
  /** New work is due. */
  nudge(): void;
  /** One claim, and its tasks to their ends (tests, and commands that drain a queue): how many were claimed. */
  runOnce(): Promise<number>;
  readonly inFlight: number;
}

type Waiting = "no" | "idle" | "gathering" | "full";

export function createClaimLoop(options: ClaimLoopOptions): ClaimLoop {
  const { concurrency } = options;
  const refill = Math.max(1, Math.min(options.refill ?? 1, concurrency));
  const inFlight = new Set<Promise<unknown>>();
  let running = false;
  let loop: Promise<void> | undefined;
  let nudged = false;
  let waiting: Waiting = "no";
  let wake: (() => void) | undefined;
  const free = () => concurrency - inFlight.size;

  /** Claims and tracks what it started; the number claimed. */
  async function claimInto(room: number): Promise<Promise<unknown>[]> {
    const tasks = await options.claim(room);
    for (const task of tasks) {
      const tracked: Promise<unknown> = task.finally(() => {
        inFlight.delete(tracked);
        if (waiting === "full" && free() >= refill) wake?.();
      });
      // A task's own failure is its owner's to log; the loop only counts it out.
      tracked.catch(() => {});
      inFlight.add(tracked);
    }
    return tasks;
  }

  const pause = (ms: number, state: Exclude<Waiting, "no">) =>
    new Promise<void>((resolve) => {
      waiting = state;
      const done = () => {
        clearTimeout(timer);
        wake = undefined;
        waiting = "no";
        resolve();
      };
      const timer = setTimeout(done, ms);
      wake = done;
    });

  async function run(): Promise<void> {
    while (running) {
      nudged = false;
      const room = free();
      let claimed = 0;
      if (room > 0) {
        try {
          claimed = (await claimInto(room)).length;
        } catch (error) {
          options.onError(error);
        }
      }
      if (!running) break;
      const left = free();
      if (nudged && left > 0 && (claimed === 0 || options.nudgeEndsGathering)) continue;
      if (claimed > 0 && claimed === room && left >= refill) continue;
      if (room === 0 || (claimed > 0 && left < refill)) await pause(options.fullMs, "full");
      else if (claimed === 0) await pause(options.idleMs(), "idle");
      else await pause(options.gatherMs, "gathering");
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      loop = run();
    },
    async stop() {
      running = false;
      wake?.();
      await loop;
      await Promise.allSettled([...inFlight]);
    },
    nudge() {
      nudged = true;
      if (waiting === "idle" || (waiting === "gathering" && options.nudgeEndsGathering)) wake?.();
    },
    async runOnce() {
      const room = free();
      if (room <= 0) return 0;
      const tasks = await claimInto(room);
      await Promise.allSettled(tasks);
      return tasks.length;
    },
    get inFlight() {
      return inFlight.size;
    },
  };
}
