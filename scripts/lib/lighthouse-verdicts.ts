/** The landing page's Lighthouse targets (issue 12) and the median of the runs measured against them. */
import type { Category, RunFigures } from "./lighthouse-run";

export interface Medians {
  lcpMs: number;
  fcpMs: number;
  tbtMs: number;
  speedIndexMs: number;
  cls: number;
  scores: Record<Category, number>;
}

export interface Verdict {
  target: string;
  measured: string;
  pass: boolean;
}

export function median(values: number[]): number {
  if (values.length === 0) throw new Error("median of no values");
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Each figure's median on its own (the run with the median LCP need not have the median score). */
export function mediansOf(runs: RunFigures[]): Medians {
  const of = (pick: (run: RunFigures) => number) => median(runs.map(pick));
  return {
    lcpMs: of((run) => run.lcpMs),
    fcpMs: of((run) => run.fcpMs),
    tbtMs: of((run) => run.tbtMs),
    speedIndexMs: of((run) => run.speedIndexMs),
    cls: of((run) => run.cls),
    scores: {
      performance: of((run) => run.scores.performance),
      accessibility: of((run) => run.scores.accessibility),
      "best-practices": of((run) => run.scores["best-practices"]),
      seo: of((run) => run.scores.seo),
    },
  };
}

export function verdictsOf(medians: Medians): Verdict[] {
  return [
    { target: "LCP ≤ 1.2 s", measured: `${(medians.lcpMs / 1000).toFixed(2)} s`, pass: medians.lcpMs <= 1_200 },
    { target: "performance ≥ 98", measured: String(medians.scores.performance), pass: medians.scores.performance >= 98 },
    { target: "accessibility 100", measured: String(medians.scores.accessibility), pass: medians.scores.accessibility >= 100 },
    { target: "best practices 100", measured: String(medians.scores["best-practices"]), pass: medians.scores["best-practices"] >= 100 },
  ];
}
