/**
 * One experiment (GET /experiments/:id, issue 45): its hypothesis, where it stands, its variants
 * with their shares and what each changes, the sources, the primary metric, start and stop, a
 * link to its results, and its history in sentences. Ops can edit, start and stop it.
 */
import { adminPaths, experimentPaths, type ExperimentDetailView, type ExperimentSummaryView } from "../../../shared/admin-views";
import { AdminLayout } from "../AdminLayout";
import { HistoryTable } from "../SettingsParts";
import { formatTime } from "../format";
import { StartStopButton } from "./ExperimentsPage";

/** The experiment's settings as facts and its variants as a table: this page's, and the edit form's of a started experiment. */
export function ExperimentFacts({ experiment }: { experiment: ExperimentSummaryView }) {
  return (
    <>
      <dl className="facts">
        <div>
          <dt>Status</dt>
          <dd className="experiment-state">{experiment.stateText}</dd>
        </div>
        <div>
          <dt>Hypothesis</dt>
          <dd className="wrap">{experiment.hypothesis}</dd>
        </div>
        <div>
          <dt>Primary metric</dt>
          <dd>{experiment.primaryMetricText}</dd>
        </div>
        <div>
          <dt>Sources</dt>
          <dd>{experiment.sids ? experiment.sids.join(", ") : "every source"}</dd>
        </div>
        <div>
          <dt>Start</dt>
          <dd>
            <time dateTime={experiment.startAt}>{formatTime(experiment.startAt)}</time>
          </dd>
        </div>
        <div>
          <dt>Stop</dt>
          <dd>{experiment.stopAt ? <time dateTime={experiment.stopAt}>{formatTime(experiment.stopAt)}</time> : "none (until stopped)"}</dd>
        </div>
      </dl>
      <div className="table-scroll" role="region" aria-labelledby="variants-caption" tabIndex={0}>
        <table className="data-table variants-table">
          <caption id="variants-caption">Variants: the first is the control and changes nothing</caption>
          <thead>
            <tr>
              <th scope="col">Variant</th>
              <th scope="col">Name</th>
              <th scope="col" className="num">
                Share
              </th>
              <th scope="col">What it changes</th>
            </tr>
          </thead>
          <tbody>
            {experiment.variants.map((variant) => (
              <tr key={variant.id} data-variant={variant.id}>
                <th scope="row">{variant.id}</th>
                <td>{variant.name}</td>
                <td className="num">{variant.share}%</td>
                <td className="wrap">
                  {variant.control ? (
                    "nothing (the control)"
                  ) : (
                    <ul className="changes">
                      {variant.changes.map((change) => (
                        <li key={change.knob}>
                          {change.label}: {change.value}
                        </li>
                      ))}
                    </ul>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

export function ExperimentDetailPage({ view }: { view: ExperimentDetailView }) {
  const { experiment, session } = view;
  const paths = experimentPaths(experiment.id);
  return (
    <AdminLayout session={session} flash={view.flash} current="experiments">
      <p className="breadcrumb">
        <a href={adminPaths.experiments}>Experiments</a> / {experiment.id}
      </p>
      <h1>
        {experiment.name} <span className="muted">({experiment.id})</span>
      </h1>
      <div className="row-actions detail-actions">
        <a href={paths.results} className="button-secondary">
          Results
        </a>
        {session?.role === "ops" ? (
          <>
            <a href={paths.edit} className="button">
              Edit settings
            </a>
            <StartStopButton session={session} experiment={experiment} />
          </>
        ) : null}
      </div>
      <section aria-labelledby="settings-title">
        <h2 id="settings-title">Settings (revision {view.revision})</h2>
        <ExperimentFacts experiment={experiment} />
      </section>
      <section aria-labelledby="history-title">
        <h2 id="history-title">History</h2>
        <HistoryTable rows={view.history} what={`experiment ${experiment.id}`} />
      </section>
    </AdminLayout>
  );
}
