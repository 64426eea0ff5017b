/**
 * The background workers' one claim loop (issue 43): it claims only what it has room for, waits
 * idle, gathering or full as the last claim found, and wakes for a nudge or for room as its
 * options say. Real timers, short waits: each test says what a claim sequence must look like.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { createClaimLoop, type ClaimLoopOptions } from "../../server/workers/claim-loop";

/** A queue of due rows; each claimed row runs until released (or at once). */
function queueOf(due: number) {
  const claims: number[] = [];
  const releases: Array<() => void> = [];
  const state = { due, hold: false, errorOnce: false as unknown };
  const claim = async (room: number) => {
    claims.push(room);
    if (state.errorOnce) {
      const error = state.errorOnce;
      state.errorOnce = false;
      throw error;
    }
    const count = Math.min(room, state.due);
    state.due -= count;
    return Array.from({ length: count }, () => (state.hold ? new Promise<void>((resolve) => releases.push(resolve)) : Promise.resolve()));
  };
  return { claims, releases, state, claim };
}

const base = (claim: ClaimLoopOptions["claim"], extra: Partial<ClaimLoopOptions> = {}): ClaimLoopOptions => ({
  claim,
  concurrency: 4,
  idleMs: () => 10_000,
  gatherMs: 10_000,
  nudgeEndsGathering: false,
  fullMs: 10_000,
  onError: () => {},
  ...extra,
});

describe("the claim loop", () => {
  it("claims once and waits idle; a nudge claims again at once", async () => {
    const queue = queueOf(0);
    const loop = createClaimLoop(base(queue.claim));
    loop.start();
    await sleep(30);
    expect(queue.claims).toEqual([4]);
    queue.state.due = 2;
    loop.nudge();
    await sleep(30);
    expect(queue.claims).toEqual([4, 4]);
    await loop.stop();
  });

  it("polls when idle at idleMs, read at each wait", async () => {
    const queue = queueOf(0);
    let idle = 15;
    const loop = createClaimLoop(base(queue.claim, { idleMs: () => idle }));
    loop.start();
    await sleep(100);
    const fast = queue.claims.length;
    expect(fast).toBeGreaterThanOrEqual(4);
    idle = 10_000;
    await sleep(100);
    expect(queue.claims.length).toBeLessThanOrEqual(fast + 1);
    await loop.stop();
  });

  it("lets a batch gather after a partial claim: a nudge ends that wait only with nudgeEndsGathering", async () => {
    for (const nudgeEndsGathering of [false, true]) {
      const queue = queueOf(1);
      queue.state.hold = true;
      const loop = createClaimLoop(base(queue.claim, { nudgeEndsGathering }));
      loop.start();
      await sleep(20);
      expect(queue.claims).toEqual([4]);
      loop.nudge();
      await sleep(20);
      expect(queue.claims).toEqual(nudgeEndsGathering ? [4, 3] : [4]);
      for (const release of queue.releases) release();
      await loop.stop();
    }
  });

  it("when full, claims nothing until refill places are free, then claims for them at once", async () => {
    const queue = queueOf(100);
    queue.state.hold = true;
    const loop = createClaimLoop(base(queue.claim, { refill: 2 }));
    loop.start();
    await sleep(20);
    expect(queue.claims).toEqual([4]);
    expect(loop.inFlight).toBe(4);
    loop.nudge();
    queue.releases.shift()!();
    await sleep(20);
    // One free place is less than refill: no claim, a nudge does not wake a full loop either.
    expect(queue.claims).toEqual([4]);
    queue.releases.shift()!();
    await sleep(20);
    expect(queue.claims).toEqual([4, 2]);
    for (const release of queue.releases.splice(0)) release();
    await loop.stop();
  });

  it("after a claim that filled its room while places came free, claims again at once", async () => {
    const queue = queueOf(100);
    const loop = createClaimLoop(base(queue.claim));
    loop.start();
    await sleep(30);
    // Every task ends at once: each full claim is followed by the next, until the queue is empty.
    expect(queue.state.due).toBe(0);
    expect(queue.claims.slice(0, 3)).toEqual([4, 4, 4]);
    await loop.stop();
  });

  it("reports a failed claim and claims again after its idle wait", async () => {
    const queue = queueOf(0);
    queue.state.errorOnce = new Error("connect ECONNREFUSED");
    const errors: unknown[] = [];
    const loop = createClaimLoop(base(queue.claim, { idleMs: () => 15, onError: (error) => errors.push(error) }));
    loop.start();
    await sleep(40);
    expect(errors).toHaveLength(1);
    expect(queue.claims.length).toBeGreaterThanOrEqual(2);
    await loop.stop();
  });

  it("stops claiming on stop and waits for the tasks in flight", async () => {
    const queue = queueOf(2);
    queue.state.hold = true;
    const loop = createClaimLoop(base(queue.claim));
    loop.start();
    await sleep(20);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await sleep(20);
    expect(stopped).toBe(false);
    for (const release of queue.releases) release();
    await stopping;
    expect(queue.claims).toEqual([4]);
  });

  it("runs once: claims what it has room for and waits for those tasks to end", async () => {
    const queue = queueOf(6);
    const loop = createClaimLoop(base(queue.claim));
    expect(await loop.runOnce()).toBe(4);
    expect(await loop.runOnce()).toBe(2);
    expect(await loop.runOnce()).toBe(0);
  });
});
