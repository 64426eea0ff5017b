/**
 * The privacy requests queue, for ops: open requests by legal deadline (the server's order),
 * overdue ones highlighted and said in words ("Overdue by 3 days"), each open one with a form to
 * close it as completed or denied with a note; then the recently closed ones.
 */
import { adminPaths, type AdminSession, type PrivacyRequestView, type PrivacyView } from "../../../shared/admin-views";
import { PRIVACY_REQUEST_LABELS, type PrivacyRequestType } from "../../../shared/privacy-request";
import { AdminLayout } from "../AdminLayout";
import { CsrfField } from "../CsrfField";
import { formatDay, formatTime, pluralDays } from "../format";

/** The deadline in words, so it never depends on the row's colour. */
export function deadlineText(request: PrivacyRequestView): string {
  if (request.status !== "received") return request.status === "completed" ? "Completed" : "Denied";
  if (request.overdue) return request.daysLeft < 0 ? `Overdue by ${pluralDays(-request.daysLeft)}` : "Overdue (was due today)";
  return request.daysLeft === 0 ? "Due today" : `${pluralDays(request.daysLeft)} left`;
}

/** The request type as the form offered it; an unknown one as stored. */
function typeLabel(type: string): string {
  return Object.hasOwn(PRIVACY_REQUEST_LABELS, type) ? PRIVACY_REQUEST_LABELS[type as PrivacyRequestType] : type;
}

function CloseForm({ request, session }: { request: PrivacyRequestView; session: AdminSession }) {
  const id = request.reference.replace(/[^A-Za-z0-9_-]/g, "_");
  return (
    <form method="post" action={adminPaths.privacyClose} className="close-form">
      <CsrfField token={session.csrfToken} />
      <input type="hidden" name="reference" value={request.reference} />
      <div className="field">
        <label htmlFor={`outcome-${id}`}>Outcome</label>
        {/* Not `required`: one of the two is always chosen (HTML allows `required` only with a placeholder first option). */}
        <select id={`outcome-${id}`} name="outcome" defaultValue="completed">
          <option value="completed">Completed</option>
          <option value="denied">Denied</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor={`note-${id}`}>Note</label>
        <textarea id={`note-${id}`} name="note" rows={2} maxLength={1000} required />
      </div>
      <button type="submit" className="button">
        Close {request.reference}
      </button>
    </form>
  );
}

function RequestRow({ request, session }: { request: PrivacyRequestView; session?: AdminSession }) {
  const open = request.status === "received";
  const className = [open && request.overdue ? "overdue" : "", open ? "open" : "closed"].filter(Boolean).join(" ");
  return (
    <tr className={className} data-reference={request.reference}>
      <th scope="row">
        <code>{request.reference}</code>
      </th>
      <td>{typeLabel(request.type)}</td>
      <td>
        <time dateTime={request.receivedAt}>{formatDay(request.receivedAt)}</time>
      </td>
      <td>
        <time dateTime={request.dueAt}>{formatDay(request.dueAt)}</time>
      </td>
      <td className="deadline">{open && request.overdue ? <strong>{deadlineText(request)}</strong> : deadlineText(request)}</td>
      <td>{request.state ?? "—"}</td>
      <td>{request.gpc ? "Yes" : "No"}</td>
      <td>
        {open ? (
          session?.role === "ops" ? <CloseForm request={request} session={session} /> : null
        ) : (
          <>
            {request.closedAt ? <time dateTime={request.closedAt}>{formatTime(request.closedAt)}</time> : null}
            {request.note ? <p className="note">{request.note}</p> : null}
          </>
        )}
      </td>
    </tr>
  );
}

export function PrivacyPage({ view }: { view: PrivacyView }) {
  const openCount = view.requests.filter((request) => request.status === "received").length;
  const overdueCount = view.requests.filter((request) => request.status === "received" && request.overdue).length;
  return (
    <AdminLayout session={view.session} flash={view.flash} current="privacy">
      <h1>Privacy requests</h1>
      <p className="summary">
        {openCount} open{overdueCount > 0 ? <strong className="overdue-count">, {overdueCount} overdue</strong> : null}
      </p>
      {view.requests.length === 0 ? (
        <p className="empty">No privacy requests.</p>
      ) : (
        <div className="table-scroll" role="region" aria-labelledby="privacy-caption" tabIndex={0}>
          <table className="data-table privacy-table">
            <caption id="privacy-caption">Open requests by legal deadline, earliest first, then recently closed ones</caption>
            <thead>
              <tr>
                <th scope="col">Reference</th>
                <th scope="col">Type</th>
                <th scope="col">Received</th>
                <th scope="col">Due</th>
                <th scope="col">Deadline</th>
                <th scope="col">State</th>
                <th scope="col">GPC</th>
                <th scope="col">Action or outcome</th>
              </tr>
            </thead>
            <tbody>
              {view.requests.map((request) => (
                <RequestRow key={request.reference} request={request} session={view.session} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </AdminLayout>
  );
}
