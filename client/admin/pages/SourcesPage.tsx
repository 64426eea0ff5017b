/**
 * Traffic sources (GET /sources): sid, name, status, what each is paid per sold lead, its auction
 * floor and postback URL; archived ones last. Ops get the way to create, edit and archive.
 */
import { adminPaths, sourcePaths, type SourcesView } from "../../../shared/admin-views";
import { AdminLayout } from "../AdminLayout";
import { formatMoney } from "../format";

export function SourcesPage({ view }: { view: SourcesView }) {
  const isOps = view.session?.role === "ops";
  return (
    <AdminLayout session={view.session} flash={view.flash} current="sources">
      <div className="page-heading">
        <h1>Sources</h1>
        {isOps && view.configured ? (
          <a href={adminPaths.sourceNew} className="button">
            New source
          </a>
        ) : null}
      </div>
      {!view.configured ? (
        <p className="empty">This console runs without business settings.</p>
      ) : view.sources.length === 0 ? (
        <p className="empty">No traffic sources yet.</p>
      ) : (
        <div className="table-scroll" role="region" aria-labelledby="sources-caption" tabIndex={0}>
          <table className="data-table sources-table">
            <caption id="sources-caption">Traffic sources: payout per sold lead and auction floor; archived ones last</caption>
            <thead>
              <tr>
                <th scope="col">Sid</th>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">
                  Payout
                </th>
                <th scope="col" className="num">
                  Floor
                </th>
                <th scope="col">Postback URL</th>
                {isOps ? <th scope="col">Actions</th> : null}
              </tr>
            </thead>
            <tbody>
              {view.sources.map((source) => (
                <tr key={source.sid} data-sid={source.sid} className={`status-${source.status}`}>
                  <th scope="row">
                    <a href={sourcePaths(source.sid).detail}>{source.sid}</a>
                  </th>
                  <td>{source.name ?? "—"}</td>
                  <td>{source.status}</td>
                  <td className="num">{formatMoney(source.payout)}</td>
                  <td className="num">{formatMoney(source.floor)}</td>
                  <td className="wrap">{source.postbackUrl ?? "—"}</td>
                  {isOps ? (
                    <td>
                      <a href={sourcePaths(source.sid).edit} className="button-quiet" aria-label={`Edit ${source.sid}`}>
                        Edit
                      </a>
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </AdminLayout>
  );
}
