/**
 * What the experiments' stopping rule costs and gives (server/experiments/stats.ts; issue 45: "a
 * simulated 10% lift in net revenue per visitor is found by the stopping rule, and the sample it
 * took is printed"). A figure to report, not a timed test:
 *
 *   npm run bench:experiments
 *
 * Simulated traffic shaped like this site's (tools/experiment-traffic.ts: ~8% leads, ~70% sold at
 * $10–40, ~8% of those returned), split 50/50, looked at after every 1,000 visitors and stopped
 * at the first verdict, as ops would. Prints the A/A false-winner rates (and the rate of the
 * fixed 95% interval at the same looks, the peeking the sequence replaces), then for lifts of 5,
 * 10 and 20% the share found and the median and 90th percentile of the visitors it took, and the
 * effect of the planned-visitors tuning. Seeded: the same figures every run. Under a minute on
 * two cores. The figures are recorded in docs/experiments.md, "Statistics".
 */
import { DEFAULT_ALPHA, DEFAULT_PLANNED_VISITORS, MIN_VISITORS, SRM_THRESHOLD, VERDICT_METHOD } from "../server/experiments/stats";
import { meanValue, mulberry32, NET_REVENUE_MODEL, quantile, runExperiment, visitorLead, visitorValue, withLift, type VisitorModel } from "../tools/experiment-traffic";

const Z_95 = 1.959964;
const Z_80_POWER = 0.841621;
const LOOK_EVERY = 1_000;

const count = (value: number) => Math.round(value).toLocaleString("en-US");
const percent = (share: number) => `${(share * 100).toFixed(1)}%`;

function aaRate(label: string, runs: number, maxVisitors: number, lookEvery: number, value: typeof visitorValue, seed: number): void {
  const random = mulberry32(seed);
  let sequence = 0;
  let naive = 0;
  for (let index = 0; index < runs; index += 1) {
    const run = runExperiment({ control: NET_REVENUE_MODEL, variant: NET_REVENUE_MODEL, maxVisitors, lookEvery, random, value, naiveZ: Z_95 });
    if (run.decidedAt !== null) sequence += 1;
    if (run.naiveDecidedAt !== null) naive += 1;
  }
  const looks = Math.floor(maxVisitors / lookEvery);
  console.log(`| ${label} | ${count(runs)} × ${count(maxVisitors)} | ${count(looks)} | ${percent(sequence / runs)} | ${percent(naive / runs)} |`);
}

/** The fixed-horizon test's visitors (both arms) for 80% power at α: 4·(z₁₋α/₂ + z₀.₈)²·σ²/δ². */
function fixedHorizonVisitors(model: VisitorModel, lift: number): number {
  const kept = model.leadRate * model.soldShare * (1 - model.returnedShare);
  const { priceLow: a, priceHigh: b } = model;
  const variance = (kept * (a * a + a * b + b * b)) / 3 - meanValue(model) ** 2;
  const delta = meanValue(model) * lift;
  return (4 * (Z_95 + Z_80_POWER) ** 2 * variance) / (delta * delta);
}

function liftRow(lift: number, runs: number, maxVisitors: number, plannedVisitors: number, seed: number): void {
  const random = mulberry32(seed);
  const decidedAt: number[] = [];
  let worse = 0;
  for (let index = 0; index < runs; index += 1) {
    const run = runExperiment({ control: NET_REVENUE_MODEL, variant: withLift(NET_REVENUE_MODEL, lift), maxVisitors, lookEvery: LOOK_EVERY, random, sequence: { plannedVisitors } });
    if (run.verdict === "better") decidedAt.push(run.decidedAt!);
    if (run.verdict === "worse") worse += 1;
  }
  decidedAt.sort((a, b) => a - b);
  const by = (visitors: number) => percent(decidedAt.filter((at) => at <= visitors).length / runs);
  console.log(
    `| ${percent(lift)} | ${count(plannedVisitors)} | ${count(runs)} | ${count(quantile(decidedAt, 0.5))} | ${count(quantile(decidedAt, 0.9))} | ${by(20_000)} | ${by(100_000)} | ${percent(decidedAt.length / runs)} by ${count(maxVisitors)} | ${worse} | ${count(fixedHorizonVisitors(NET_REVENUE_MODEL, lift))} |`,
  );
}

const started = performance.now();
console.log(`Experiment statistics by simulation, ${new Date().toISOString().slice(0, 10)} (Node ${process.version})`);
console.log(`Method: ${VERDICT_METHOD}`);
console.log(`alpha ${DEFAULT_ALPHA}; planned visitors ${count(DEFAULT_PLANNED_VISITORS)} unless stated; no verdict below ${MIN_VISITORS} visitors per arm; SRM flagged at p < ${SRM_THRESHOLD}`);
console.log(`Traffic: ${percent(NET_REVENUE_MODEL.leadRate)} leads, ${percent(NET_REVENUE_MODEL.soldShare)} of them sold at $${NET_REVENUE_MODEL.priceLow}–${NET_REVENUE_MODEL.priceHigh}, ${percent(NET_REVENUE_MODEL.returnedShare)} of sold leads returned; net revenue per visitor $${meanValue(NET_REVENUE_MODEL).toFixed(3)}; 50/50 split`);
console.log("");
console.log("A/A experiments (no true difference): share with a false winner at any look");
console.log("| metric, looks | experiments × visitors | looks | confidence sequence | fixed 95% interval |");
console.log("|---|---|---|---|---|");
aaRate("net revenue per visitor, every 1,000", 1_000, 20_000, LOOK_EVERY, visitorValue, 45);
aaRate("net revenue per visitor, every 100", 1_000, 20_000, 100, visitorValue, 46);
aaRate("net revenue per visitor, every 1,000", 500, 200_000, LOOK_EVERY, visitorValue, 47);
aaRate("lead rate, every 100", 1_000, 20_000, 100, visitorLead, 48);
console.log("");
console.log(`Lifts in net revenue per visitor, looked at every ${count(LOOK_EVERY)} visitors and stopped at the verdict (visitors are both arms together)`);
console.log("| lift | planned visitors | experiments | median visitors to the verdict | 90th percentile | found by 20,000 | found by 100,000 | found | called worse | fixed-horizon visitors for 80% power |");
console.log("|---|---|---|---|---|---|---|---|---|---|");
liftRow(0.05, 300, 1_500_000, DEFAULT_PLANNED_VISITORS, 505);
liftRow(0.1, 500, 500_000, DEFAULT_PLANNED_VISITORS, 510);
liftRow(0.2, 500, 200_000, DEFAULT_PLANNED_VISITORS, 520);
liftRow(0.1, 500, 500_000, 20_000, 511);
liftRow(0.1, 500, 500_000, 300_000, 512);
console.log("");
console.log(`${((performance.now() - started) / 1000).toFixed(1)} s`);
