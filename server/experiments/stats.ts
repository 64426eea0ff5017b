/**
 * The statistics of an experiment's results (issue 45, docs/experiments.md "Statistics"): pure
 * functions over per-variant sums, no I/O, so the report, the console and the simulations in
 * tests/unit/experiment-stats.test.ts and scripts/experiment-power.ts all use the same numbers.
 *
 * The verdict must stay valid while ops look at the results every day (issue 45): a fixed-horizon
 * 95% interval looked at 20 times calls a false winner in roughly a quarter of A/A experiments.
 * So every interval here is an always-valid confidence sequence: the asymptotic confidence
 * sequence of Waudby-Smith, Arbour, Sinha, Kennedy & Ramdas, "Time-uniform central limit theory
 * and asymptotic confidence sequences" (2021, arXiv:2103.06476), built on the two-sided
 * normal-mixture boundary of Howard, Ramdas, McAuliffe & Sekhon, "Time-uniform, nonparametric,
 * nonasymptotic confidence sequences" (Ann. Statist. 2021). It is what GrowthBook's frequentist
 * engine uses for sequential testing (docs.growthbook.io/statistics/sequential), with the same
 * tuning: the sample size at which the sequence should be tightest, fixed before the start.
 *
 * For a mean of t observations with sample standard deviation σ̂ and mixture parameter ρ²:
 *
 *   mean ± σ̂ · sqrt( 2(tρ² + 1) / (t²ρ²) · ln( sqrt(tρ² + 1) / α ) )
 *
 * and ρ² is chosen to make that narrowest at the planned t* (Waudby-Smith et al., the choice
 * "best_rho2_exact" in their code): ρ² = (−W₋₁(−α²/e) − 1) / t*, with W₋₁ the lower branch of
 * Lambert's W. For α = 0.05 the sequence at t* is 1.55 times as wide as the fixed 95% interval.
 *
 * For the difference of two arms (a randomized experiment, Waudby-Smith et al. §4; GrowthBook's
 * implementation): t = the two arms' visitors together, N, and σ̂² = N · (s²_c/n_c + s²_v/n_v),
 * the per-visitor variance of the difference's estimate, unequal shares included.
 *
 * The guarantee is asymptotic (the normal approximation of the whole running mean), so the
 * simulations check it where it matters: sparse, skewed net revenue per visitor, looked at after
 * every 1,000 visitors. The sample ratio check is Pearson's chi-square goodness of fit, flagged
 * at p < 0.001 as GrowthBook does (docs.growthbook.io/statistics/srm).
 */

/** Per-visitor values of one variant: n visitors, the sum of their values and of their squares (net revenue per visitor: each visitor's sold revenue less returns, mostly 0; lead rate: 1 or 0). */
export interface ArmSummary {
  n: number;
  sum: number;
  sumSquares: number;
}

/** A mean with its always-valid confidence sequence at level 1 − alpha. */
export interface Estimate {
  mean: number;
  low: number;
  high: number;
}

export interface Comparison {
  /** variant mean − control mean, with its always-valid interval */
  difference: number;
  low: number;
  high: number;
  /** difference / control mean; null when the control's mean is 0 */
  relative: number | null;
  /** "better"/"worse": the interval excludes 0; otherwise "no_difference_yet" (also while either arm has fewer than MIN_VISITORS) */
  verdict: "better" | "worse" | "no_difference_yet";
}

/**
 * Options of the confidence sequences. `plannedVisitors` is the sample size at which the interval
 * should be tightest (GrowthBook's "tuning parameter"): for an arm's estimate, that arm's
 * visitors; for a comparison, the two arms' visitors together. Set it to where a decision is
 * expected and keep it for the experiment's life: any value keeps the guarantee, but choosing it
 * after seeing the data does not.
 */
export interface SequenceOptions {
  alpha?: number;
  plannedVisitors?: number;
}

/** A sample ratio mismatch is flagged below this p-value (GrowthBook's default: a warning every ~1,000 sound experiments, so each one is worth investigating). */
export const SRM_THRESHOLD = 0.001;
/** The chance, over the experiment's whole life and however often it is looked at, that an A/A experiment shows a winner. */
export const DEFAULT_ALPHA = 0.05;
/**
 * No verdict below this many visitors in either arm: the interval rests on a normal approximation
 * of the running mean, which a handful of visitors (a sale or two) does not support yet.
 */
export const MIN_VISITORS = 100;
/**
 * The planned visitors of a two-arm experiment when none is given: where a 10% change in lead rate
 * or net revenue per visitor is typically found on this site's traffic (docs/experiments.md,
 * "Statistics"; scripts/experiment-power.ts). An arm's estimate is tuned for half of it.
 */
export const DEFAULT_PLANNED_VISITORS = 100_000;

export const VERDICT_METHOD = `Always-valid ${Math.round((1 - DEFAULT_ALPHA) * 100)}% confidence sequences (the asymptotic normal-mixture sequences of Waudby-Smith et al. 2021 and Howard et al. 2021, as in GrowthBook's sequential testing), tuned for the planned visitors: a variant is called better or worse only when the sequence for its difference to the control excludes 0, so the results may be looked at any time without raising the ${Math.round(DEFAULT_ALPHA * 100)}% chance of a false winner.`;

/** What the sums say: mean and sample variance (0 when every value is the same). */
function moments(arm: ArmSummary): { n: number; mean: number; variance: number } {
  const n = Number.isFinite(arm.n) && arm.n > 0 ? arm.n : 0;
  if (n === 0) return { n: 0, mean: 0, variance: 0 };
  const sum = Number.isFinite(arm.sum) ? arm.sum : 0;
  const sumSquares = Number.isFinite(arm.sumSquares) ? arm.sumSquares : 0;
  const mean = sum / n;
  // Sums of squares can lose a last digit to rounding and dip below zero: clamp.
  const variance = n > 1 ? Math.max(0, (sumSquares - sum * mean) / (n - 1)) : 0;
  return { n, mean, variance };
}

function checkedAlpha(alpha: number | undefined): number {
  const value = alpha ?? DEFAULT_ALPHA;
  if (!(value > 0 && value < 1)) throw new RangeError(`alpha must be between 0 and 1, not ${value}`);
  return value;
}

function checkedPlanned(planned: number | undefined, fallback: number): number {
  const value = planned ?? fallback;
  if (!(value >= 1 && Number.isFinite(value))) throw new RangeError(`plannedVisitors must be at least 1, not ${value}`);
  return value;
}

/**
 * The lower branch W₋₁ of Lambert's W at z in [−1/e, 0): the w ≤ −1 with w·eʷ = z. Newton's
 * method from the asymptotic start ln(−z) − ln(−ln(−z)) (Corless et al. 1996, "On the Lambert W
 * function", §4); near −1/e, where that start is poor, from the branch point's series.
 */
function lambertWm1(z: number): number {
  if (z >= 0 || z < -1 / Math.E) throw new RangeError(`W₋₁ is defined on [−1/e, 0), not at ${z}`);
  let w = z < -0.25 ? -1 - Math.sqrt(2 * (1 + Math.E * z)) : Math.log(-z) - Math.log(-Math.log(-z));
  for (let step = 0; step < 50; step += 1) {
    const ew = Math.exp(w);
    const next = w - (w * ew - z) / (ew * (w + 1));
    if (!Number.isFinite(next)) break;
    if (Math.abs(next - w) <= 1e-12 * Math.abs(w)) return next;
    w = next;
  }
  return w;
}

/** ρ² of the normal mixture, tightest at `planned` observations (Waudby-Smith et al. 2021). */
export function mixtureRho2(planned: number, alpha: number = DEFAULT_ALPHA): number {
  return (-lambertWm1(-(alpha * alpha) / Math.E) - 1) / planned;
}

/**
 * The confidence sequence's half-width per unit standard deviation after t observations:
 * sqrt(2(tρ² + 1)/(t²ρ²) · ln(sqrt(tρ² + 1)/α)). The fixed-horizon interval's is z/sqrt(t).
 */
export function sequenceMargin(t: number, rho2: number, alpha: number): number {
  const grown = t * rho2 + 1;
  return Math.sqrt(((2 * grown) / (t * t * rho2)) * Math.log(Math.sqrt(grown) / alpha));
}

export function armEstimate(arm: ArmSummary, options?: SequenceOptions): Estimate {
  const alpha = checkedAlpha(options?.alpha);
  const planned = checkedPlanned(options?.plannedVisitors, DEFAULT_PLANNED_VISITORS / 2);
  const { n, mean, variance } = moments(arm);
  // One visitor says nothing about the spread: the interval is everything.
  if (n < 2) return { mean, low: -Infinity, high: Infinity };
  const half = Math.sqrt(variance) * sequenceMargin(n, mixtureRho2(planned, alpha), alpha);
  return { mean, low: mean - half, high: mean + half };
}

export function compareArms(control: ArmSummary, variant: ArmSummary, options?: SequenceOptions): Comparison {
  const alpha = checkedAlpha(options?.alpha);
  const planned = checkedPlanned(options?.plannedVisitors, DEFAULT_PLANNED_VISITORS);
  const c = moments(control);
  const v = moments(variant);
  const difference = v.mean - c.mean;
  const relative = c.n > 0 && c.mean !== 0 ? difference / c.mean : null;
  if (c.n < 2 || v.n < 2) return { difference, low: -Infinity, high: Infinity, relative, verdict: "no_difference_yet" };
  const total = c.n + v.n;
  // N · Var(difference): the per-visitor variance of the difference, the σ̂² of the sequence at t = N.
  const perVisitorVariance = total * (c.variance / c.n + v.variance / v.n);
  const half = Math.sqrt(perVisitorVariance) * sequenceMargin(total, mixtureRho2(planned, alpha), alpha);
  const low = difference - half;
  const high = difference + half;
  const enough = c.n >= MIN_VISITORS && v.n >= MIN_VISITORS;
  const verdict = !enough ? "no_difference_yet" : low > 0 ? "better" : high < 0 ? "worse" : "no_difference_yet";
  return { difference, low, high, relative, verdict };
}

/** ln Γ(x) for x > 0: Lanczos' approximation, g = 7, nine terms (Godfrey's coefficients; ~15 digits). */
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
  1.5056327351493116e-7,
];
function logGamma(x: number): number {
  // Reflection for small x, where the series is less accurate: Γ(x)Γ(1 − x) = π / sin(πx).
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
  const y = x - 1;
  let series = LANCZOS[0]!;
  for (let index = 1; index < LANCZOS.length; index += 1) series += LANCZOS[index]! / (y + index);
  const t = y + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (y + 0.5) * Math.log(t) - t + Math.log(series);
}

const GAMMA_EPSILON = 1e-15;
const GAMMA_TINY = 1e-300;
const GAMMA_MAX_TERMS = 1_000;

/**
 * The regularized upper incomplete gamma Q(a, x) = Γ(a, x) / Γ(a), for a > 0, x ≥ 0. As in the
 * standard numerical references (Press et al., Numerical Recipes, §6.2; Abramowitz & Stegun
 * 6.5.29 and 6.5.31): below x = a + 1 the series for P = 1 − Q converges fast, above it the
 * continued fraction for Q does (evaluated by Lentz's method).
 */
export function regularizedGammaQ(a: number, x: number): number {
  if (!(a > 0) || !(x >= 0)) throw new RangeError(`Q(a, x) needs a > 0 and x ≥ 0, not a = ${a}, x = ${x}`);
  if (x === 0) return 1;
  if (x === Infinity) return 0;
  const front = Math.exp(-x + a * Math.log(x) - logGamma(a));
  if (x < a + 1) {
    // P(a, x) = e^−x x^a / Γ(a + 1) · Σ xⁿ / ((a + 1)…(a + n))
    let term = 1 / a;
    let sum = term;
    for (let n = 1; n < GAMMA_MAX_TERMS; n += 1) {
      term *= x / (a + n);
      sum += term;
      if (Math.abs(term) < Math.abs(sum) * GAMMA_EPSILON) break;
    }
    return Math.min(1, Math.max(0, 1 - sum * front));
  }
  // Q(a, x) = e^−x x^a / Γ(a) · 1/(x + 1 − a − 1·(1 − a)/(x + 3 − a − 2·(2 − a)/(x + 5 − a − …)))
  let b = x + 1 - a;
  let c = 1 / GAMMA_TINY;
  let d = 1 / b;
  let fraction = d;
  for (let i = 1; i < GAMMA_MAX_TERMS; i += 1) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < GAMMA_TINY) d = GAMMA_TINY;
    c = b + an / c;
    if (Math.abs(c) < GAMMA_TINY) c = GAMMA_TINY;
    d = 1 / d;
    const change = d * c;
    fraction *= change;
    if (Math.abs(change - 1) < GAMMA_EPSILON) break;
  }
  return Math.min(1, Math.max(0, front * fraction));
}

/** P(χ²_df ≥ statistic): the chi-square distribution's survival function, Q(df/2, statistic/2). */
export function chiSquareSurvival(statistic: number, degreesOfFreedom: number): number {
  if (degreesOfFreedom <= 0) return 1;
  if (!(statistic > 0)) return 1;
  return regularizedGammaQ(degreesOfFreedom / 2, statistic / 2);
}

/** Chi-square goodness-of-fit p-value of the visitors per variant against their designed shares (percents or fractions). */
export function srmPValue(observed: readonly number[], expectedShares: readonly number[]): number {
  if (observed.length !== expectedShares.length) throw new RangeError(`${observed.length} variants counted but ${expectedShares.length} shares designed`);
  const shareTotal = expectedShares.reduce((sum, share) => sum + (share > 0 ? share : 0), 0);
  const visitors = observed.reduce((sum, count) => sum + (count > 0 ? count : 0), 0);
  if (!(shareTotal > 0) || !(visitors > 0)) return 1;
  let statistic = 0;
  let cells = 0;
  for (let index = 0; index < observed.length; index += 1) {
    const count = Math.max(0, observed[index] ?? 0);
    const share = Math.max(0, expectedShares[index] ?? 0);
    if (share === 0) {
      // A variant designed to get nobody that got visitors: assignment is broken, whatever the numbers.
      if (count > 0) return 0;
      continue;
    }
    const expected = (visitors * share) / shareTotal;
    statistic += ((count - expected) * (count - expected)) / expected;
    cells += 1;
  }
  return chiSquareSurvival(statistic, cells - 1);
}
