/**
 * A/B experiments (GET /experiments, issue 45): each one's name, where it stands, its variants
 * with their shares, what it changes, the sources it includes, its start and stop, and a link to
 * its results. Ops get the way to create, edit, start and stop them, and the kill switch that
 * stops every running one (after a page that names them).
 */
import { adminPaths, experimentPaths, type AdminSession, type ExperimentSummaryView, type ExperimentsView } from "../../../shared/admin-views";
import { AdminLayout } from "../AdminLayout";
import { CsrfField } from "../CsrfField";
import { StatusButton } from "../SettingsParts";
import { formatTime } from "../format";

/** "control 50% · big-headline 50%". */
export function sharesText(experiment: Pick<ExperimentSummaryView, "variants">): string {
  return experiment.variants.map((variant) => `${variant.id} ${variant.share}%`).join(" · ");
}

/** Start or stop, as the status allows (a stopped experiment may be started again). */
export function StartStopButton({ session, experiment }: { session: AdminSession; experiment: Pick<ExperimentSummaryView, "id" | "status"> }) {
  const action = experimentPaths(experiment.id).status;
  return experiment.status === "running" ? <StatusButton session={session} action={action} status="stopped" label="Stop" danger /> : <StatusButton session={session} action={action} status="running" label="Start" />;
}

export function ExperimentsPage({ view }: { view: ExperimentsView }) {
  const session = view.session;
  const isOps = session?.role === "ops";
  return (
    <AdminLayout session={session} flash={view.flash} current="experiments">
      <div className="page-heading">
        <h1>Experiments</h1>
        {isOps && view.configured ? (
          <a href={adminPaths.experimentNew} className="button">
            New experiment
          </a>
        ) : null}
      </div>
      {!view.configured ? (
        <p className="empty">This console runs without business settings.</p>
      ) : view.experiments.length === 0 ? (
        <p className="empty">No experiments yet.</p>
      ) : (
        <div className="table-scroll" role="region" aria-labelledby="experiments-caption" tabIndex={0}>
          <table className="data-table experiments-table">
            <caption id="experiments-caption">A/B experiments, oldest first: times in UTC</caption>
            <thead>
              <tr>
                <th scope="col">Experiment</th>
                <th scope="col">Status</th>
                <th scope="col">Variants and shares</th>
                <th scope="col">Changes</th>
                <th scope="col">Sources</th>
                <th scope="col">Start</th>
                <th scope="col">Stop</th>
                <th scope="col">Results</th>
                {isOps ? <th scope="col">Actions</th> : null}
              </tr>
            </thead>
            <tbody>
              {view.experiments.map((experiment) => (
                <tr key={experiment.id} data-experiment={experiment.id} data-state={experiment.state}>
                  <th scope="row">
                    <a href={experimentPaths(experiment.id).detail}>{experiment.name}</a> <span className="muted">({experiment.id})</span>
                  </th>
                  <td className="experiment-state">{experiment.stateText}</td>
                  <td>{sharesText(experiment)}</td>
                  <td>{experiment.changes.join(", ")}</td>
                  <td>{experiment.sids ? experiment.sids.join(", ") : "every source"}</td>
                  <td>
                    <time dateTime={experiment.startAt}>{formatTime(experiment.startAt)}</time>
                  </td>
                  <td>{experiment.stopAt ? <time dateTime={experiment.stopAt}>{formatTime(experiment.stopAt)}</time> : "none"}</td>
                  <td>
                    <a href={experimentPaths(experiment.id).results} aria-label={`Results of ${experiment.name}`}>
                      Results
                    </a>
                  </td>
                  {isOps && session ? (
                    <td>
                      <div className="row-actions">
                        <a href={experimentPaths(experiment.id).edit} className="button-quiet" aria-label={`Edit ${experiment.id}`}>
                          Edit
                        </a>
                        <StartStopButton session={session} experiment={experiment} />
                      </div>
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {isOps && session && view.configured ? (
        <section aria-labelledby="kill-switch-title">
          <h2 id="kill-switch-title">Kill switch</h2>
          {view.running > 0 ? (
            <form method="post" action={adminPaths.experimentsStopAll} className="row-actions">
              <CsrfField token={session.csrfToken} />
              <p className="hint">
                Stops all {view.running} running {view.running === 1 ? "experiment" : "experiments"}: every visitor sees the control within seconds. A page asks you to confirm first.
              </p>
              <button type="submit" className="button-danger">
                Stop every experiment
              </button>
            </form>
          ) : (
            <p className="empty">No experiment is running.</p>
          )}
        </section>
      ) : null}
    </AdminLayout>
  );
}
