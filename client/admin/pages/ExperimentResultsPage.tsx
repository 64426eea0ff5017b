/**
 * An experiment's results (GET /experiments/:id/results, issue 45 item 4): the verdict on the
 * primary metric, or the sample ratio warning in its place; the per-variant table (visitors, form,
 * leads, sales, revenue less returns, net revenue per visitor with its interval and the difference
 * to the control); the guardrail (return rate); the method; per source with "By source".
 * The server computed every number (server/experiments/results.ts); this only words them.
 */
import { adminPaths, experimentPaths, type ExperimentResultsView } from "../../../shared/admin-views";
import { PRIMARY_METRIC_LABELS, type ComparisonResult, type EstimateResult, type ExperimentResults, type GuardrailStatus, type ResultGroup, type Verdict, type VariantResult } from "../../../shared/experiment-results";
import { AdminLayout } from "../AdminLayout";
import { formatCount, formatMoney, formatRate, formatSid, formatTime } from "../format";

/** Net revenue per visitor is mostly cents: a tenth of a cent keeps a small difference from reading $0.00. */
const perVisitor = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", minimumFractionDigits: 3, maximumFractionDigits: 3 });
const signedPerVisitor = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", minimumFractionDigits: 3, maximumFractionDigits: 3, signDisplay: "exceptZero" });
const signedPercent = new Intl.NumberFormat("en-US", { style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1, signDisplay: "exceptZero" });
/** A difference of two rates, in percentage points. */
const points = (value: number) => `${value > 0 ? "+" : ""}${(value * 100).toFixed(1)} pp`;

const VERDICT_TEXT: Record<Verdict, string> = { better: "Better", worse: "Worse", no_difference_yet: "No difference yet" };
const GUARDRAIL_TEXT: Record<GuardrailStatus, string> = { ok: "ok", higher: "higher, not yet beyond doubt", worse: "worse" };

function Interval({ value, format }: { value: { low: number | null; high: number | null }; format: (value: number) => string }) {
  if (value.low === null || value.high === null) return <span className="muted">not bounded yet</span>;
  return (
    <span className="muted">
      {format(value.low)} to {format(value.high)}
    </span>
  );
}

function EstimateCell({ estimate }: { estimate: EstimateResult | null }) {
  if (!estimate) return <>–</>;
  return (
    <>
      {perVisitor.format(estimate.mean)}
      <br />
      <Interval value={estimate} format={(value) => perVisitor.format(value)} />
    </>
  );
}

function DifferenceCell({ comparison }: { comparison: ComparisonResult | undefined }) {
  if (!comparison) return <>–</>;
  return (
    <>
      {signedPerVisitor.format(comparison.difference)}
      {comparison.relative === null ? null : <> ({signedPercent.format(comparison.relative)})</>}
      <br />
      <Interval value={comparison} format={(value) => signedPerVisitor.format(value)} />
    </>
  );
}

const rate = (value: number | null) => (value === null ? "–" : formatRate(value));

function verdictCell(group: ResultGroup, variant: VariantResult): string {
  if (variant.control) return "control";
  if (group.srmFailed) return "hidden (SRM)";
  return variant.verdict === null ? "no visitors yet" : VERDICT_TEXT[variant.verdict];
}

function ResultsTable({ results, group, captionId }: { results: ExperimentResults; group: ResultGroup; captionId: string }) {
  return (
    <div className="table-scroll" role="region" aria-labelledby={captionId} tabIndex={0}>
      <table className="data-table experiment-results-table">
        <caption id={captionId}>
          {group.sid === null ? "All sources" : `Source ${formatSid(group.sid)}`}: {formatCount(group.visitors)} visitors, bots left out, as of {formatTime(results.asOf)}
        </caption>
        <thead>
          <tr>
            <th scope="col">Variant</th>
            <th scope="col" className="num">Share</th>
            <th scope="col" className="num">Visitors</th>
            <th scope="col" className="num">Form starts</th>
            <th scope="col" className="num">
              <abbr title="Of the visitors who started the form, the share who sent a lead">Form completion</abbr>
            </th>
            <th scope="col" className="num">Leads</th>
            <th scope="col" className="num">
              <abbr title="Visitors with a lead / visitors">Lead rate</abbr>
            </th>
            <th scope="col" className="num">Sold leads</th>
            <th scope="col" className="num">Revenue</th>
            <th scope="col" className="num">Returns</th>
            <th scope="col" className="num">
              <abbr title="Returned sales / sales: the guardrail">Return rate</abbr>
            </th>
            <th scope="col" className="num">Net revenue</th>
            <th scope="col" className="num">
              <abbr title="Revenue less returns, per visitor, with its always-valid interval">Net revenue / visitor</abbr>
            </th>
            <th scope="col" className="num">
              <abbr title="Variant − control, with its always-valid interval">Difference to control</abbr>
            </th>
            <th scope="col">Guardrail</th>
            <th scope="col">Verdict</th>
          </tr>
        </thead>
        <tbody>
          {group.variants.map((variant) => (
            <tr key={variant.id} data-variant={variant.id}>
              <th scope="row">
                {variant.name} <span className="muted">({variant.id})</span>
              </th>
              <td className="num">{variant.share}%</td>
              <td className="num">{formatCount(variant.visitors)}</td>
              <td className="num">{formatCount(variant.formStarts)}</td>
              <td className="num">{rate(variant.formCompletion)}</td>
              <td className="num">{formatCount(variant.leads)}</td>
              <td className="num">{rate(variant.leadRate?.mean ?? null)}</td>
              <td className="num">{formatCount(variant.soldLeads)}</td>
              <td className="num">{formatMoney(variant.revenue)}</td>
              <td className="num">
                {formatCount(variant.returns)} <span className="muted">({formatMoney(0 - variant.returnedRevenue || 0)})</span>
              </td>
              <td className="num">{rate(variant.returnRate)}</td>
              <td className="num">{formatMoney(variant.netRevenue)}</td>
              <td className="num">
                <EstimateCell estimate={variant.netRevenuePerVisitor} />
              </td>
              <td className="num">{variant.control ? "–" : <DifferenceCell comparison={variant.vsControl?.netRevenuePerVisitor} />}</td>
              <td className={variant.guardrail === "worse" ? "attention" : undefined}>{variant.guardrail === null ? "–" : GUARDRAIL_TEXT[variant.guardrail]}</td>
              <td className={group.srmFailed && !variant.control ? "attention" : undefined}>{verdictCell(group, variant)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The verdict in sentences, one per variant; or, when the split failed its check, the warning instead. */
function Verdicts({ results, group }: { results: ExperimentResults; group: ResultGroup }) {
  const metric = PRIMARY_METRIC_LABELS[results.experiment.primaryMetric];
  const control = group.variants[0];
  if (group.srmFailed) return null;
  return (
    <ul className="experiment-verdicts">
      {group.variants
        .filter((variant) => !variant.control)
        .map((variant) => {
          const comparison = results.experiment.primaryMetric === "lead_rate" ? variant.vsControl?.leadRate : variant.vsControl?.netRevenuePerVisitor;
          const format = results.experiment.primaryMetric === "lead_rate" ? points : (value: number) => signedPerVisitor.format(value);
          return (
            <li key={variant.id} data-variant={variant.id}>
              <strong>
                {variant.name}: {variant.verdict === null ? "no visitors yet" : VERDICT_TEXT[variant.verdict].toLowerCase()}
              </strong>{" "}
              {comparison ? (
                <>
                  on {metric} against {control?.name ?? "the control"}: {format(comparison.difference)}
                  {comparison.relative === null ? "" : ` (${signedPercent.format(comparison.relative)})`}, interval{" "}
                  {comparison.low === null || comparison.high === null ? "not bounded yet" : `${format(comparison.low)} to ${format(comparison.high)}`}.
                </>
              ) : null}
            </li>
          );
        })}
    </ul>
  );
}

function Guardrails({ group }: { group: ResultGroup }) {
  const control = group.variants[0];
  return (
    <p className="note">
      Guardrail, the return rate (returned sales / sales): {control ? `${control.name} ${rate(control.returnRate)}` : ""}
      {group.variants
        .filter((variant) => !variant.control)
        .map((variant) => `; ${variant.name} ${rate(variant.returnRate)}${variant.guardrail === null ? "" : ` (${GUARDRAIL_TEXT[variant.guardrail]})`}`)
        .join("")}
      . A variant that makes more leads that buyers return is a loss.
    </p>
  );
}

function GroupSection({ results, group, index }: { results: ExperimentResults; group: ResultGroup; index: number }) {
  const heading = group.sid === null ? "All sources" : `Source ${formatSid(group.sid)}`;
  const id = `results-${index}`;
  return (
    <section aria-labelledby={`${id}-title`} className="experiment-results-group" data-sid={group.sid ?? undefined}>
      <h2 id={`${id}-title`}>{heading}</h2>
      {group.warnings.map((warning) => (
        <div key={warning} className="status-notice status-notice-paused" role="note">
          {warning}
        </div>
      ))}
      <Verdicts results={results} group={group} />
      <ResultsTable results={results} group={group} captionId={`${id}-caption`} />
      <p className="note srm-line">
        Sample ratio check: visitors {group.variants.map((variant) => formatCount(variant.visitors)).join(" / ")} against the designed {group.variants.map((variant) => `${variant.share}%`).join(" / ")}, p ={" "}
        {group.srmPValue.toPrecision(3)}
        {group.srmFailed ? ` (below ${results.srmThreshold}: failed, the verdict is hidden)` : ` (not below ${results.srmThreshold}: as designed)`}.
      </p>
      <Guardrails group={group} />
    </section>
  );
}

export function ExperimentResultsPage({ view }: { view: ExperimentResultsView }) {
  const { results, session } = view;
  const { experiment } = results;
  const paths = experimentPaths(experiment.id);
  const groups = [results.all, ...(view.bySid ? (results.bySid ?? []) : [])];
  return (
    <AdminLayout session={session} flash={view.flash} current="experiments">
      <p className="breadcrumb">
        <a href={adminPaths.experiments}>Experiments</a> / <a href={paths.detail}>{experiment.id}</a> / Results
      </p>
      <h1>
        Results: {experiment.name} <span className="muted">({experiment.id})</span>
      </h1>
      <dl className="facts facts-inline">
        <div>
          <dt>Status</dt>
          <dd>{experiment.status}</dd>
        </div>
        <div>
          <dt>From</dt>
          <dd>{formatTime(experiment.startAt)}</dd>
        </div>
        <div>
          <dt>Until</dt>
          <dd>{experiment.stopAt ? formatTime(experiment.stopAt) : "stopped by ops"}</dd>
        </div>
        <div>
          <dt>Primary metric</dt>
          <dd>{PRIMARY_METRIC_LABELS[experiment.primaryMetric]}</dd>
        </div>
      </dl>
      <p className="summary">Hypothesis: {experiment.hypothesis}</p>
      <nav aria-label="Results view" className="row-actions">
        {view.bySid ? <a href={paths.results}>All sources only</a> : <strong aria-current="page">All sources only</strong>}
        {" · "}
        {view.bySid ? <strong aria-current="page">By source</strong> : <a href={`${paths.results}?by=sid`}>By source</a>}
      </nav>
      {groups.map((group, index) => (
        <GroupSection key={group.sid ?? "(all)"} results={results} group={group} index={index} />
      ))}
      {view.bySid && (results.bySid ?? []).length === 0 ? <p className="empty">No visitors from any source yet.</p> : null}
      {results.unlisted.length > 0 ? (
        <p className="note">
          Left out: visitors of variants this experiment no longer lists ({results.unlisted.map((entry) => `${entry.variant}: ${formatCount(entry.visitors)}`).join(", ")}).
        </p>
      ) : null}
      <section aria-labelledby="method-title">
        <h2 id="method-title">How the verdict is reached</h2>
        <p className="method">{results.method}</p>
        <p className="note">
          Visitors count once in this experiment (and in every other one they saw), from their first exposure; leads are new leads sent at or after it (duplicates and test leads aside); revenue is
          what buyers paid for those leads less what they returned, as the returns arrive. No verdict below {formatCount(results.minVisitors)} visitors in either arm.
        </p>
      </section>
    </AdminLayout>
  );
}
