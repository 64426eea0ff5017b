/**
 * Archiving a buyer asks first (issue 33, "changes that would strand leads say what will happen"):
 * how many of its deliveries are still in flight, that they will still be sent and finish, and
 * that it will be offered no more leads. The button posts the same action with confirm=yes.
 */
import { adminPaths, buyerPaths, type BuyerArchiveView } from "../../../shared/admin-views";
import { AdminLayout } from "../AdminLayout";
import { CsrfField } from "../CsrfField";

export function BuyerArchivePage({ view }: { view: BuyerArchiveView }) {
  const paths = buyerPaths(view.id);
  return (
    <AdminLayout session={view.session} flash={view.flash} current="buyers">
      <p className="breadcrumb">
        <a href={adminPaths.buyers}>Buyers</a> / <a href={paths.detail}>{view.id}</a>
      </p>
      <h1>Archive {view.name}?</h1>
      <ul className="consequences">
        <li>
          It will be offered <strong>no more leads</strong>, by fixed price or by auction.
        </li>
        <li className="in-flight">
          {view.inFlight === 0
            ? "It has no deliveries in flight."
            : `Its ${view.inFlight} ${view.inFlight === 1 ? "delivery" : "deliveries"} in flight (pending or being sent) will still be sent and finish.`}
        </li>
        <li>Its history, deliveries and returns are kept; ops can restore it later.</li>
      </ul>
      {view.session ? (
        <form method="post" action={paths.status} className="row-actions">
          <CsrfField token={view.session.csrfToken} />
          <input type="hidden" name="status" value="archived" />
          <input type="hidden" name="confirm" value="yes" />
          <button type="submit" className="button-danger">
            Archive {view.id}
          </button>
          <a href={paths.detail} className="button-quiet">
            Cancel
          </a>
        </form>
      ) : null}
    </AdminLayout>
  );
}
