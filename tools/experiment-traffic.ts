/**
 * Simulated experiment traffic for the checks of server/experiments/stats.ts: the A/A and lift
 * simulations of tests/unit/experiment-stats.test.ts and `npm run bench:experiments`
 * (scripts/experiment-power.ts) share it here (docs/architecture.md, "Imports": what tests and
 * scripts share lives in tools/).
 *
 * Seeded, so a run is the same run every time; visitors are folded into per-arm sums as they
 * arrive, so 20 million of them need no memory.
 */
import { compareArms, type ArmSummary, type Comparison, type SequenceOptions } from "../server/experiments/stats";

/**
 * mulberry32 (Tommy Ettinger's 32-bit generator, public domain): small, fast and good enough for
 * Monte Carlo of this size; Math.random cannot be seeded.
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** How a visitor turns into net revenue: a lead, sold at a uniform price, sometimes returned (then worth 0). */
export interface VisitorModel {
  leadRate: number;
  soldShare: number;
  returnedShare: number;
  priceLow: number;
  priceHigh: number;
}

/** This site's shape (docs/product.md): ~8% of visitors leave a lead, ~70% of leads sell at $10–40, ~8% of sold leads come back. */
export const NET_REVENUE_MODEL: VisitorModel = { leadRate: 0.08, soldShare: 0.7, returnedShare: 0.08, priceLow: 10, priceHigh: 40 };

/** The model with its net revenue per visitor `lift` higher (0.1: 10%), by more leads, as a better page would bring. */
export function withLift(model: VisitorModel, lift: number): VisitorModel {
  return { ...model, leadRate: model.leadRate * (1 + lift) };
}

/** Expected net revenue per visitor. */
export function meanValue(model: VisitorModel): number {
  return model.leadRate * model.soldShare * (1 - model.returnedShare) * ((model.priceLow + model.priceHigh) / 2);
}

/** One visitor's net revenue: one draw decides whether it is a kept sale, a second its price. */
export function visitorValue(model: VisitorModel, random: () => number): number {
  const kept = model.leadRate * model.soldShare * (1 - model.returnedShare);
  if (random() >= kept) return 0;
  return model.priceLow + (model.priceHigh - model.priceLow) * random();
}

/** One visitor's lead: 1 or 0 (the lead rate as a per-visitor value). */
export function visitorLead(model: VisitorModel, random: () => number): number {
  return random() < model.leadRate ? 1 : 0;
}

export function emptyArm(): ArmSummary {
  return { n: 0, sum: 0, sumSquares: 0 };
}

export function addVisitor(arm: ArmSummary, value: number): void {
  arm.n += 1;
  arm.sum += value;
  arm.sumSquares += value * value;
}

export interface RunOptions {
  control: VisitorModel;
  variant: VisitorModel;
  /** The experiment's visitors (both arms), when it ends without a verdict. */
  maxVisitors: number;
  /** Ops look at the results after every this many visitors (both arms). */
  lookEvery: number;
  random: () => number;
  /** The per-visitor value: net revenue (the default) or a lead. */
  value?: (model: VisitorModel, random: () => number) => number;
  sequence?: SequenceOptions;
  /** Also judge every look by the fixed-horizon interval (mean ± z·SE), the peeking the sequence replaces. */
  naiveZ?: number;
}

export interface RunResult {
  /** The visitors (both arms) at the first look whose verdict was better or worse; null: none by the end. */
  decidedAt: number | null;
  verdict: Comparison["verdict"];
  /** The same for the fixed-horizon interval, when asked for (it is not stopped by it). */
  naiveDecidedAt: number | null;
}

/**
 * One experiment, visitors split 50/50 at random (as the hash does), looked at every `lookEvery`
 * visitors and stopped at the first verdict: the stopping rule ops follow.
 */
export function runExperiment(options: RunOptions): RunResult {
  const { control, variant, maxVisitors, lookEvery, random, naiveZ } = options;
  const value = options.value ?? visitorValue;
  const arms = { control: emptyArm(), variant: emptyArm() };
  let decidedAt: number | null = null;
  let verdict: Comparison["verdict"] = "no_difference_yet";
  let naiveDecidedAt: number | null = null;
  for (let visitors = 1; visitors <= maxVisitors; visitors += 1) {
    if (random() < 0.5) addVisitor(arms.control, value(control, random));
    else addVisitor(arms.variant, value(variant, random));
    if (visitors % lookEvery !== 0) continue;
    if (naiveZ !== undefined && naiveDecidedAt === null && naiveVerdict(arms.control, arms.variant, naiveZ)) naiveDecidedAt = visitors;
    if (decidedAt === null) {
      const comparison = compareArms(arms.control, arms.variant, options.sequence);
      if (comparison.verdict !== "no_difference_yet") {
        decidedAt = visitors;
        verdict = comparison.verdict;
      }
    }
    // Ops stop at the verdict; with the naive rule asked for, the run goes on until it has spoken too.
    if (decidedAt !== null && (naiveZ === undefined || naiveDecidedAt !== null)) break;
  }
  return { decidedAt, verdict, naiveDecidedAt };
}

/** Whether the fixed-horizon interval (difference ± z·SE) excludes 0 at this look. */
function naiveVerdict(control: ArmSummary, variant: ArmSummary, z: number): boolean {
  if (control.n < 2 || variant.n < 2) return false;
  const variance = (arm: ArmSummary) => Math.max(0, (arm.sumSquares - (arm.sum * arm.sum) / arm.n) / (arm.n - 1));
  const difference = variant.sum / variant.n - control.sum / control.n;
  const se = Math.sqrt(variance(control) / control.n + variance(variant) / variant.n);
  return Math.abs(difference) > z * se;
}

/** The q-quantile (0–1) of sorted numbers, nearest rank. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}
