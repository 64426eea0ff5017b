/**
 * An experiment's results as server/experiments/results.ts computes them and the console's results
 * page and `npm run report -- experiment NAME` show them (issue 45, items 4 and 5;
 * docs/experiments.md, "Results"). Types only, shared so the page renders exactly what the server
 * measured. Intervals are always-valid confidence sequences (server/experiments/stats.ts); an
 * interval end is null where it is unbounded (fewer than two visitors: nothing is known yet).
 */
import type { PrimaryMetric } from "./experiments";

export type Verdict = "better" | "worse" | "no_difference_yet";

/** A mean with its always-valid interval. */
export interface EstimateResult {
  mean: number;
  low: number | null;
  high: number | null;
}

/** A variant against the control: variant − control, its interval, the relative change, and what it says. */
export interface ComparisonResult {
  difference: number;
  low: number | null;
  high: number | null;
  /** difference / the control's mean; null when the control's mean is 0. */
  relative: number | null;
  verdict: Verdict;
}

/**
 * The guardrail: the return rate. `worse`: the variant's is higher and its interval says so;
 * `higher`: higher, not yet beyond doubt; `ok`: not higher; null for the control, or while either
 * arm has no sale.
 */
export type GuardrailStatus = "ok" | "higher" | "worse";

export interface VariantResult {
  id: string;
  name: string;
  /** Its designed share of the visitors, in percent. */
  share: number;
  control: boolean;
  /** Exposed visitors, bots left out: each once in this experiment. */
  visitors: number;
  /** Of those, visitors who started the quote form at or after their first exposure. */
  formStarts: number;
  /** Of the visitors who started the form, those with a counted lead (they finished it). */
  formCompletions: number;
  /** formCompletions / formStarts; null without form starts. */
  formCompletion: number | null;
  /** New leads of the visitors, received at or after their first exposure (duplicates and test leads aside). */
  leads: number;
  /** Visitors with at least one such lead. */
  leadVisitors: number;
  /** leadVisitors / visitors, with its interval (a per-visitor 0/1 mean); null without visitors. */
  leadRate: EstimateResult | null;
  /** Those leads sold at least once. */
  soldLeads: number;
  /** Their sales (lead_sold events: a lead shared with two buyers is two sales). */
  sales: number;
  /** What the buyers paid for those sales, US dollars. */
  revenue: number;
  /** Sales returned (lead_returned events). */
  returns: number;
  /** The prices of those returns, US dollars (positive: subtracted from revenue). */
  returnedRevenue: number;
  /** revenue − returnedRevenue. */
  netRevenue: number;
  /** netRevenue / visitors, with its interval; null without visitors. */
  netRevenuePerVisitor: EstimateResult | null;
  /** The guardrail: returns / sales; null without sales. */
  returnRate: number | null;
  /** Against the control; null for the control itself, and while either has no visitor. */
  vsControl: {
    netRevenuePerVisitor: ComparisonResult;
    leadRate: ComparisonResult;
    /** The guardrail's own comparison (per sale); null while either arm has no sale. */
    returnRate: ComparisonResult | null;
  } | null;
  /** The primary metric's verdict; null for the control, without visitors to compare, and while the SRM check fails (hidden). */
  verdict: Verdict | null;
  guardrail: GuardrailStatus | null;
}

/** One set of results: all sources, or one source's visitors (the sid they were first exposed with). */
export interface ResultGroup {
  /** null: all sources; "": visitors who came without a sid. */
  sid: string | null;
  visitors: number;
  /** The sample ratio check's p-value: visitors per variant against the designed shares. */
  srmPValue: number;
  /** srmPValue < the threshold: the verdicts of this group are hidden. */
  srmFailed: boolean;
  variants: VariantResult[];
  /** In words: the SRM warning, the guardrail's warnings. */
  warnings: string[];
}

export interface ExperimentResults {
  experiment: {
    id: string;
    name: string;
    hypothesis: string;
    status: "draft" | "running" | "stopped";
    primaryMetric: PrimaryMetric;
    startAt: string;
    stopAt: string | null;
  };
  /** Everything up to this instant counts (ISO, UTC). */
  asOf: string;
  /** The verdict's method in a sentence (stats.ts VERDICT_METHOD). */
  method: string;
  /** The chance of a false winner over the experiment's life, however often looked at. */
  alpha: number;
  srmThreshold: number;
  /** Below this many visitors in either arm there is no verdict. */
  minVisitors: number;
  all: ResultGroup;
  /** Per source, when asked (byte order of the sid; "" first). */
  bySid?: ResultGroup[];
  /** Exposures to a variant the experiment no longer lists: left out of every count. */
  unlisted: { variant: string; visitors: number }[];
}

/** The primary metrics as the results name them. */
export const PRIMARY_METRIC_LABELS: Record<PrimaryMetric, string> = {
  net_revenue_per_visitor: "net revenue per visitor",
  lead_rate: "lead rate",
};
