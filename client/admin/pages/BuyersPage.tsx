/**
 * Buyers at a glance: today's leads against each daily cap (a <meter>, with the numbers in
 * text), the last 30 days' acceptance rate and revenue, failed and pending deliveries, and
 * whether the buyer is open now.
 */
import type { BuyerSummaryView, BuyersView } from "../../../shared/admin-views";
import { AdminLayout } from "../AdminLayout";
import { formatCount, formatMoney, formatRate } from "../format";

function TodayAgainstCap({ buyer }: { buyer: BuyerSummaryView }) {
  if (buyer.dailyCap === null) return <>{formatCount(buyer.today)} (no cap)</>;
  return (
    <span className="cap">
      <span>
        {formatCount(buyer.today)} / {formatCount(buyer.dailyCap)}
      </span>
      <meter min={0} max={buyer.dailyCap} low={buyer.dailyCap * 0.8} high={buyer.dailyCap * 0.95} optimum={0} value={Math.min(buyer.today, buyer.dailyCap)} aria-label={`${buyer.name}: ${buyer.today} of a daily cap of ${buyer.dailyCap}`} />
    </span>
  );
}

export function BuyersPage({ view }: { view: BuyersView }) {
  return (
    <AdminLayout session={view.session} flash={view.flash} current="buyers">
      <h1>Buyers</h1>
      {!view.configured ? (
        <p className="empty">No buyers are configured: the server runs without BUYERS_FILE, so leads are stored but not delivered.</p>
      ) : view.buyers.length === 0 ? (
        <p className="empty">The buyers file lists no buyers.</p>
      ) : (
        <div className="table-scroll" role="region" aria-labelledby="buyers-caption" tabIndex={0}>
          <table className="data-table buyers-table">
            <caption id="buyers-caption">Today against the daily cap; acceptance and revenue over the last 30 days</caption>
            <thead>
              <tr>
                <th scope="col">Buyer</th>
                <th scope="col">Today / cap</th>
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
              </tr>
            </thead>
            <tbody>
              {view.buyers.map((buyer) => (
                <tr key={buyer.id} data-buyer={buyer.id}>
                  <th scope="row">
                    {buyer.name} <span className="muted">({buyer.id})</span>
                  </th>
                  <td>
                    <TodayAgainstCap buyer={buyer} />
                  </td>
                  <td className="num">{buyer.acceptanceRate === null ? "—" : formatRate(buyer.acceptanceRate)}</td>
                  <td className="num">{formatMoney(buyer.revenue30d)}</td>
                  <td className={buyer.failed > 0 ? "num attention" : "num"}>{formatCount(buyer.failed)}</td>
                  <td className="num">{formatCount(buyer.pending)}</td>
                  <td>{buyer.open ? "Open" : "Closed"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </AdminLayout>
  );
}
