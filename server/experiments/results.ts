/**
 * An experiment's results (issue 45, items 4 and 5; docs/experiments.md, "Results"): per variant,
 * and per source when asked, the visitors, form starts, leads, sales, revenue less returns, and
 * the statistics of server/experiments/stats.ts over them. What the console's results page and
 * `npm run report -- experiment NAME` show.
 *
 * One statement reads everything. Its unit is the visitor (the qr_vis cookie): visitors are the
 * experiment's exposures, one row per visitor, so each counts once in it and, being in another
 * experiment's rows too, in that one as well. Each visitor's leads, form start, sales and returns
 * are gathered per visitor FIRST and only then added up per variant, because the interval of net
 * revenue per visitor needs the sum of the squares of each visitor's net, not of each sale's.
 */
import { sql } from "kysely";
import type { Database } from "../db/database";
import { TEST_LEAD_PHONE } from "../auction/sandbox";
import type { Experiment } from "./schema";
import { armEstimate, compareArms, DEFAULT_ALPHA, MIN_VISITORS, SRM_THRESHOLD, srmPValue, VERDICT_METHOD, type ArmSummary, type Comparison, type Estimate } from "./stats";
import type { ComparisonResult, EstimateResult, ExperimentResults, GuardrailStatus, ResultGroup, VariantResult } from "../../shared/experiment-results";

export interface ResultsOptions {
  /** Also per source (the sid each visitor was first exposed with). */
  bySid?: boolean;
  /** Everything up to this instant counts: exposures, leads, form starts, sales and returns. */
  now: Date;
}

/** One variant's sums in one group, as the statement returns them (counts are bigint, money numeric: text or number by driver). */
interface SumsRow {
  variant: string;
  sid: string | null;
  allSources: boolean;
  visitors: string | number;
  formStarts: string | number;
  formCompletions: string | number;
  leads: string | number;
  leadVisitors: string | number;
  soldLeads: string | number;
  sales: string | number;
  returns: string | number;
  revenue: string | number;
  returnedRevenue: string | number;
  netSquares: string | number;
}

interface Sums {
  visitors: number;
  formStarts: number;
  formCompletions: number;
  leads: number;
  leadVisitors: number;
  soldLeads: number;
  sales: number;
  returns: number;
  revenue: number;
  returnedRevenue: number;
  netSquares: number;
}

const NO_SUMS: Sums = { visitors: 0, formStarts: 0, formCompletions: 0, leads: 0, leadVisitors: 0, soldLeads: 0, sales: 0, returns: 0, revenue: 0, returnedRevenue: 0, netSquares: 0 };

/**
 * The statement. Its parts, each a CTE:
 * - exposed: the experiment's visitors up to `now`, bots left out (the exposure's flag);
 * - counted_leads: their NEW leads received at or after their first exposure (a lead before it
 *   could not have been changed by the variant), neither duplicates (stored, never sold: they
 *   would count one request twice) nor test leads (never billed);
 * - lead_money: each such lead's sales and returns up to `now`, whenever they came (a return
 *   weeks later lowers the variant's revenue as soon as it is recorded);
 * - per_visitor: per visitor, leads, sales, returns and money; `started`: a form_started event
 *   carrying the visitor's id at or after the exposure;
 * - the SELECT adds visitors up per variant (and per sid, in the same pass, with GROUPING SETS).
 */
function resultsStatement(experimentId: string, now: Date, bySid: boolean) {
  const grouping = bySid ? sql`GROUPING SETS ((variant), (variant, sid))` : sql`variant`;
  // GROUPING(sid) is 1 on the rows that add every source up (sid then reads NULL).
  const groupColumns = bySid ? sql`sid, GROUPING(sid) = 1 AS all_sources` : sql`NULL::text AS sid, true AS all_sources`;
  return sql<SumsRow>`
    WITH exposed AS (
      SELECT visitor_id, variant, first_at, COALESCE(sid, '') AS sid
        FROM experiment_exposures
       WHERE experiment = ${experimentId} AND NOT bot AND first_at <= ${now}
    ),
    counted_leads AS (
      SELECT l.visitor_id, l.reference
        FROM exposed e
        JOIN leads l ON l.visitor_id = e.visitor_id
       WHERE l.received_at >= e.first_at AND l.received_at <= ${now}
         AND l.duplicate_of IS NULL
         AND NOT l.test AND l.phone <> ${TEST_LEAD_PHONE}
    ),
    lead_money AS (
      SELECT c.visitor_id,
             count(ev.id) FILTER (WHERE ev.name = 'lead_sold') AS sales,
             count(ev.id) FILTER (WHERE ev.name = 'lead_returned') AS returns,
             COALESCE(sum(ev.revenue) FILTER (WHERE ev.name = 'lead_sold'), 0) AS revenue,
             COALESCE(sum(ev.revenue) FILTER (WHERE ev.name = 'lead_returned'), 0) AS returned_revenue
        FROM counted_leads c
        LEFT JOIN analytics_events ev
          ON ev.lead_reference = c.reference AND ev.name IN ('lead_sold', 'lead_returned') AND ev.occurred_at <= ${now}
       GROUP BY c.visitor_id, c.reference
    ),
    per_visitor AS (
      SELECT visitor_id, count(*) AS leads, count(*) FILTER (WHERE sales > 0) AS sold_leads,
             sum(sales) AS sales, sum(returns) AS returns, sum(revenue) AS revenue, sum(returned_revenue) AS returned_revenue
        FROM lead_money
       GROUP BY visitor_id
    ),
    started AS (
      SELECT DISTINCT ev.visitor_id
        FROM exposed e
        JOIN analytics_events ev ON ev.visitor_id = e.visitor_id
       WHERE ev.name = 'form_started' AND ev.occurred_at >= e.first_at AND ev.occurred_at <= ${now}
    ),
    visitors AS (
      SELECT e.variant, e.sid, s.visitor_id IS NOT NULL AS started,
             COALESCE(p.leads, 0) AS leads, COALESCE(p.sold_leads, 0) AS sold_leads,
             COALESCE(p.sales, 0) AS sales, COALESCE(p.returns, 0) AS returns,
             COALESCE(p.revenue, 0) AS revenue, COALESCE(p.returned_revenue, 0) AS returned_revenue
        FROM exposed e
        LEFT JOIN started s ON s.visitor_id = e.visitor_id
        LEFT JOIN per_visitor p ON p.visitor_id = e.visitor_id
    )
    SELECT variant, ${groupColumns},
           count(*) AS visitors,
           count(*) FILTER (WHERE started) AS form_starts,
           count(*) FILTER (WHERE started AND leads > 0) AS form_completions,
           sum(leads) AS leads,
           count(*) FILTER (WHERE leads > 0) AS lead_visitors,
           sum(sold_leads) AS sold_leads,
           sum(sales) AS sales,
           sum(returns) AS returns,
           sum(revenue) AS revenue,
           sum(returned_revenue) AS returned_revenue,
           sum((revenue - returned_revenue) * (revenue - returned_revenue)) AS net_squares
      FROM visitors
     GROUP BY ${grouping}`;
}

/** Money as whole cents: the sums are exact decimals, and this keeps them exact in the output. */
const dollars = (value: number) => Math.round(value * 100) / 100;

function sumsOf(row: SumsRow): Sums {
  return {
    visitors: Number(row.visitors),
    formStarts: Number(row.formStarts),
    formCompletions: Number(row.formCompletions),
    leads: Number(row.leads),
    leadVisitors: Number(row.leadVisitors),
    soldLeads: Number(row.soldLeads),
    sales: Number(row.sales),
    returns: Number(row.returns),
    revenue: dollars(Number(row.revenue)),
    returnedRevenue: dollars(Number(row.returnedRevenue)),
    netSquares: Number(row.netSquares),
  };
}

/** The three per-unit series the statistics read: net revenue and leads per visitor, returns per sale (each 0/1). */
const netArm = (sums: Sums): ArmSummary => ({ n: sums.visitors, sum: sums.revenue - sums.returnedRevenue, sumSquares: sums.netSquares });
const leadArm = (sums: Sums): ArmSummary => ({ n: sums.visitors, sum: sums.leadVisitors, sumSquares: sums.leadVisitors });
const returnArm = (sums: Sums): ArmSummary => ({ n: sums.sales, sum: sums.returns, sumSquares: sums.returns });

/** An unbounded end (fewer than two visitors) is null, so JSON keeps it (JSON has no Infinity). */
const bounded = (value: number) => (Number.isFinite(value) ? value : null);
const estimateOf = (estimate: Estimate): EstimateResult => ({ mean: estimate.mean, low: bounded(estimate.low), high: bounded(estimate.high) });
const comparisonOf = (comparison: Comparison): ComparisonResult => ({ ...comparison, low: bounded(comparison.low), high: bounded(comparison.high) });

const ratio = (part: number, whole: number) => (whole > 0 ? part / whole : null);
const percent = (value: number | null) => (value === null ? "–" : `${(value * 100).toFixed(1)} %`);

/** The guardrail from the return rate's comparison: "worse" only when its interval is above 0 (the comparison's "better" is a higher rate). */
function guardrailOf(comparison: ComparisonResult | null): GuardrailStatus | null {
  if (!comparison) return null;
  if (comparison.verdict === "better") return "worse";
  return comparison.difference > 0 ? "higher" : "ok";
}

function groupResults(experiment: Experiment, sid: string | null, sums: ReadonlyMap<string, Sums>): ResultGroup {
  const arms = experiment.variants.map((variant) => ({ variant, sums: sums.get(variant.id) ?? NO_SUMS }));
  const observed = arms.map((arm) => arm.sums.visitors);
  const visitors = observed.reduce((total, count) => total + count, 0);
  const pValue = srmPValue(observed, experiment.variants.map((variant) => variant.share));
  const srmFailed = pValue < SRM_THRESHOLD;
  const control = arms[0]!.sums;
  const warnings: string[] = [];
  if (srmFailed) {
    warnings.push(
      `Sample ratio mismatch: the visitors per variant (${observed.join(" / ")}) do not match the designed split (${experiment.variants.map((variant) => `${variant.share} %`).join(" / ")}); ` +
        `p = ${pValue.toPrecision(2)} < ${SRM_THRESHOLD}. Something besides the assignment decides who is counted where (a redirect, a cache, a bot filter, a crash on one variant), so no verdict is shown until it is found.`,
    );
  }
  const variants = arms.map(({ variant, sums: arm }, index): VariantResult => {
    const isControl = index === 0;
    // A mean of nobody is no mean: against an arm without visitors there is nothing to compare.
    const vsControl = isControl || arm.visitors === 0 || control.visitors === 0
      ? null
      : {
          netRevenuePerVisitor: comparisonOf(compareArms(netArm(control), netArm(arm))),
          leadRate: comparisonOf(compareArms(leadArm(control), leadArm(arm))),
          returnRate: control.sales > 0 && arm.sales > 0 ? comparisonOf(compareArms(returnArm(control), returnArm(arm))) : null,
        };
    const guardrail = vsControl ? guardrailOf(vsControl.returnRate) : null;
    if (guardrail === "worse") {
      warnings.push(`Guardrail: ${variant.name}'s return rate (${percent(ratio(arm.returns, arm.sales))}) is above the control's (${percent(ratio(control.returns, control.sales))}) beyond doubt. A variant that makes more leads that buyers return is a loss.`);
    }
    const primary = vsControl ? (experiment.primaryMetric === "lead_rate" ? vsControl.leadRate : vsControl.netRevenuePerVisitor) : null;
    return {
      id: variant.id,
      name: variant.name,
      share: variant.share,
      control: isControl,
      visitors: arm.visitors,
      formStarts: arm.formStarts,
      formCompletions: arm.formCompletions,
      formCompletion: ratio(arm.formCompletions, arm.formStarts),
      leads: arm.leads,
      leadVisitors: arm.leadVisitors,
      leadRate: arm.visitors > 0 ? estimateOf(armEstimate(leadArm(arm))) : null,
      soldLeads: arm.soldLeads,
      sales: arm.sales,
      revenue: arm.revenue,
      returns: arm.returns,
      returnedRevenue: arm.returnedRevenue,
      netRevenue: dollars(arm.revenue - arm.returnedRevenue),
      netRevenuePerVisitor: arm.visitors > 0 ? estimateOf(armEstimate(netArm(arm))) : null,
      returnRate: ratio(arm.returns, arm.sales),
      vsControl,
      // A failed SRM check means the arms are not comparable: the verdict is hidden, not softened.
      verdict: primary && !srmFailed ? primary.verdict : null,
      guardrail,
    };
  });
  return { sid, visitors, srmPValue: pValue, srmFailed, variants, warnings };
}

/** Byte order, as the report sorts sids ("B2" before "a1"). */
const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export async function experimentResults(db: Pick<Database, "builder">, experiment: Experiment, options: ResultsOptions): Promise<ExperimentResults> {
  const bySid = options.bySid ?? false;
  const { rows } = await resultsStatement(experiment.id, options.now, bySid).execute(db.builder);
  const listed = new Set(experiment.variants.map((variant) => variant.id));
  const all = new Map<string, Sums>();
  const sids = new Map<string, Map<string, Sums>>();
  const unlisted: ExperimentResults["unlisted"] = [];
  for (const row of rows) {
    const sums = sumsOf(row);
    if (row.allSources) {
      // A variant removed or renamed after it was shown: its visitors fit no designed share, so they
      // are named rather than counted (counting them under another variant would bias it).
      if (!listed.has(row.variant)) unlisted.push({ variant: row.variant, visitors: sums.visitors });
      else all.set(row.variant, sums);
    } else if (listed.has(row.variant)) {
      const sid = row.sid ?? "";
      if (!sids.has(sid)) sids.set(sid, new Map());
      sids.get(sid)!.set(row.variant, sums);
    }
  }
  unlisted.sort((a, b) => byteOrder(a.variant, b.variant));
  return {
    experiment: {
      id: experiment.id,
      name: experiment.name,
      hypothesis: experiment.hypothesis,
      status: experiment.status,
      primaryMetric: experiment.primaryMetric,
      startAt: experiment.startAt,
      stopAt: experiment.stopAt ?? null,
    },
    asOf: options.now.toISOString(),
    method: VERDICT_METHOD,
    alpha: DEFAULT_ALPHA,
    srmThreshold: SRM_THRESHOLD,
    minVisitors: MIN_VISITORS,
    all: groupResults(experiment, null, all),
    ...(bySid ? { bySid: [...sids.keys()].sort(byteOrder).map((sid) => groupResults(experiment, sid, sids.get(sid)!)) } : {}),
    unlisted,
  };
}
