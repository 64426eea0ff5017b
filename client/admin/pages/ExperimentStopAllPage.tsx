/**
 * The kill switch asks first (issue 45: "a kill switch … sends everyone to the control within
 * seconds"): which experiments it stops and what visitors then see. The button posts the same
 * action with confirm=yes.
 */
import { adminPaths, type ExperimentsStopAllView } from "../../../shared/admin-views";
import { AdminLayout } from "../AdminLayout";
import { CsrfField } from "../CsrfField";

export function ExperimentStopAllPage({ view }: { view: ExperimentsStopAllView }) {
  return (
    <AdminLayout session={view.session} flash={view.flash} current="experiments">
      <p className="breadcrumb">
        <a href={adminPaths.experiments}>Experiments</a> / Stop every experiment
      </p>
      <h1>Stop every experiment?</h1>
      {view.running.length === 0 ? (
        <p className="empty">No experiment is running: there is nothing to stop.</p>
      ) : (
        <>
          <ul className="consequences">
            {view.running.map((experiment) => (
              <li key={experiment.id} data-experiment={experiment.id}>
                <strong>{experiment.name}</strong> ({experiment.id}): {experiment.stateText}
              </li>
            ))}
          </ul>
          <p>
            Each is stopped: every visitor sees the control on every replica within a few seconds. Their results so far are kept; each can be started again from its page.
          </p>
        </>
      )}
      {view.session && view.running.length > 0 ? (
        <form method="post" action={adminPaths.experimentsStopAll} className="row-actions">
          <CsrfField token={view.session.csrfToken} />
          <input type="hidden" name="confirm" value="yes" />
          <button type="submit" className="button-danger">
            Stop {view.running.length === 1 ? "it" : `all ${view.running.length}`}
          </button>
          <a href={adminPaths.experiments} className="button-quiet">
            Cancel
          </a>
        </form>
      ) : (
        <p>
          <a href={adminPaths.experiments}>Back to the experiments</a>
        </p>
      )}
    </AdminLayout>
  );
}
