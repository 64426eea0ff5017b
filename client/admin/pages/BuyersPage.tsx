/**
 * Buyers at a glance: each buyer's status, mode and base price, every cap and budget against this
 * period's usage ("Day 45 / 200", with a <meter>; the numbers are in text), the last 30 days'
 * acceptance rate and revenue, failed and pending deliveries, and whether it is open now. Archived
 * buyers are listed apart, collapsed. Ops get the way to create, edit, pause, resume and archive.
 */
import { adminPaths, buyerPaths, type AdminSession, type BuyerSummaryView, type BuyersView } from "../../../shared/admin-views";
import { AdminLayout } from "../AdminLayout";
import { formatCount, formatMoney, formatRate } from "../format";
import { LimitsList, openNowText, StatusButton } from "../SettingsParts";

function BuyerActions({ buyer, session }: { buyer: BuyerSummaryView; session: AdminSession }) {
  const paths = buyerPaths(buyer.id);
  return (
    <div className="row-actions">
      <a href={paths.edit} className="button-quiet" aria-label={`Edit ${buyer.name}`}>
        Edit
      </a>
      {buyer.status === "active" ? <StatusButton session={session} action={paths.status} status="paused" label={`Pause ${buyer.id}`} /> : <StatusButton session={session} action={paths.status} status="active" label={`${buyer.status === "archived" ? "Restore" : "Resume"} ${buyer.id}`} />}
      {buyer.status !== "archived" ? <StatusButton session={session} action={paths.status} status="archived" label={`Archive ${buyer.id}`} danger /> : null}
    </div>
  );
}

function BuyersTable({ buyers, caption, id, session }: { buyers: BuyerSummaryView[]; caption: string; id: string; session?: AdminSession }) {
  const isOps = session?.role === "ops";
  return (
    <div className="table-scroll" role="region" aria-labelledby={id} tabIndex={0}>
      <table className="data-table buyers-table">
        <caption id={id}>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Buyer</th>
            <th scope="col">Status</th>
            <th scope="col">Mode</th>
            <th scope="col" className="num">
              Price
            </th>
            <th scope="col">Caps and budget (this period)</th>
            <th scope="col" className="num">
              Acceptance
            </th>
            <th scope="col" className="num">
              Revenue (30 days)
            </th>
            <th scope="col" className="num">
              Failed
            </th>
            <th scope="col" className="num">
              Pending
            </th>
            <th scope="col">Open now</th>
            {isOps ? <th scope="col">Actions</th> : null}
          </tr>
        </thead>
        <tbody>
          {buyers.map((buyer) => (
            <tr key={buyer.id} data-buyer={buyer.id} className={`status-${buyer.status}`}>
              <th scope="row">
                <a href={buyerPaths(buyer.id).detail}>{buyer.name}</a> <span className="muted">({buyer.id})</span>
              </th>
              <td className="buyer-status">{buyer.status}</td>
              <td>{buyer.mode === "pingpost" ? "ping/post" : "post"}</td>
              <td className="num">{formatMoney(buyer.price)}</td>
              <td>
                <LimitsList name={buyer.name} limits={buyer.limits} />
                {buyer.dailyCap === null ? <span className="muted"> · today {formatCount(buyer.today)}</span> : null}
              </td>
              <td className="num">{buyer.acceptanceRate === null ? "—" : formatRate(buyer.acceptanceRate)}</td>
              <td className="num">{formatMoney(buyer.revenue30d)}</td>
              <td className={buyer.failed > 0 ? "num attention" : "num"}>{formatCount(buyer.failed)}</td>
              <td className="num">{formatCount(buyer.pending)}</td>
              <td>{openNowText(buyer, true)}</td>
              {isOps && session ? (
                <td>
                  <BuyerActions buyer={buyer} session={session} />
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function BuyersPage({ view }: { view: BuyersView }) {
  const isOps = view.session?.role === "ops";
  const current = view.buyers.filter((buyer) => buyer.status !== "archived");
  const archived = view.buyers.filter((buyer) => buyer.status === "archived");
  return (
    <AdminLayout session={view.session} flash={view.flash} current="buyers">
      <div className="page-heading">
        <h1>Buyers</h1>
        {isOps && view.configured ? (
          <a href={adminPaths.buyerNew} className="button">
            New buyer
          </a>
        ) : null}
      </div>
      {!view.configured ? (
        <p className="empty">No buyers are configured: this console runs without business settings, so leads are stored but not delivered.</p>
      ) : current.length === 0 ? (
        <p className="empty">No active or paused buyers.</p>
      ) : (
        <BuyersTable buyers={current} caption="Active and paused buyers: caps and budgets this period; acceptance and revenue over the last 30 days" id="buyers-caption" session={view.session} />
      )}
      {archived.length > 0 ? (
        <details className="archived">
          <summary>
            <h2>Archived buyers ({archived.length})</h2>
          </summary>
          <BuyersTable buyers={archived} caption="Archived buyers: offered no leads; kept for their history and returns" id="archived-caption" session={view.session} />
        </details>
      ) : null}
    </AdminLayout>
  );
}
