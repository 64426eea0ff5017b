/**
 * One traffic source (GET /sources/:sid): its settings and history; ops can edit, archive or
 * restore it.
 */
import { adminPaths, sourcePaths, type SourceDetailView } from "../../../shared/admin-views";
import { AdminLayout } from "../AdminLayout";
import { formatMoney } from "../format";
import { HistoryTable, StatusButton } from "../SettingsParts";

export function SourceDetailPage({ view }: { view: SourceDetailView }) {
  const { source, session } = view;
  const paths = sourcePaths(source.sid);
  return (
    <AdminLayout session={session} flash={view.flash} current="sources">
      <p className="breadcrumb">
        <a href={adminPaths.sources}>Sources</a> / {source.sid}
      </p>
      <h1>
        Source {source.sid} {source.name ? <span className="muted">({source.name})</span> : null}
      </h1>
      {session?.role === "ops" ? (
        <div className="row-actions detail-actions">
          <a href={paths.edit} className="button">
            Edit settings
          </a>
          {source.status === "active" ? <StatusButton session={session} action={paths.status} status="archived" label="Archive" danger /> : <StatusButton session={session} action={paths.status} status="active" label="Restore" />}
        </div>
      ) : null}
      <section aria-labelledby="settings-title">
        <h2 id="settings-title">Settings (revision {view.revision})</h2>
        <dl className="facts">
          <div>
            <dt>Status</dt>
            <dd className="source-status">{source.status}</dd>
          </div>
          <div>
            <dt>Payout per sold lead</dt>
            <dd>{formatMoney(source.payout)}</dd>
          </div>
          <div>
            <dt>Auction floor</dt>
            <dd>{formatMoney(source.floor)}</dd>
          </div>
          <div>
            <dt>Postback URL</dt>
            <dd className="wrap">{source.postbackUrl ?? "—"}</dd>
          </div>
        </dl>
      </section>
      <section aria-labelledby="history-title">
        <h2 id="history-title">History</h2>
        <HistoryTable rows={view.history} what={`source ${source.sid}`} />
      </section>
    </AdminLayout>
  );
}
