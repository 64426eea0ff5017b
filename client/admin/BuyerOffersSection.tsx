/**
 * The lead page's per-buyer offers (issue 33, item 4): each configured buyer, whether the rules
 * offer it this lead or the rule that excluded it, as the evaluator delivery and the auction use
 * reads it, beside what the records show (with a requirement's reason, issue 44). Its own file: the Leads list is another page's part.
 */
import type { BuyerOffersView } from "../../shared/admin-offers-view";
import { formatTime } from "./format";

export function BuyerOffersSection({ offers }: { offers: BuyerOffersView }) {
  return (
    <section aria-labelledby="offers">
      <h2 id="offers">Offers by buyer</h2>
      <p>
        Each buyer's rules (test or real, named in the consent, states, filters, schedule) read at the lead's receipt,{" "}
        <time dateTime={offers.at}>{formatTime(offers.at)}</time>, with the buyers configured now. Daily caps are applied when the lead is offered, and so are a buyer's requirements (the checks it needs): the last column shows what happened, with the reason a requirement held the lead back.
      </p>
      {offers.buyers.length === 0 ? (
        <p className="empty">No buyers are configured.</p>
      ) : (
        <div className="table-scroll">
          <table>
            <caption>Offered or excluded, per buyer</caption>
            <thead>
              <tr>
                <th scope="col">Buyer</th>
                <th scope="col">Mode</th>
                <th scope="col">Offer</th>
                <th scope="col">Excluded by</th>
                <th scope="col">Recorded</th>
              </tr>
            </thead>
            <tbody>
              {offers.buyers.map((buyer) => (
                <tr key={buyer.buyerId}>
                  <th scope="row">
                    {buyer.name} <code>{buyer.buyerId}</code>
                  </th>
                  <td>{buyer.mode === "pingpost" ? "ping/post" : "fixed price"}</td>
                  <td>{buyer.offered ? "Offered" : "Excluded"}</td>
                  <td>{buyer.reason === null ? "—" : `${buyer.reason} (${buyer.rule ?? ""})`}</td>
                  <td className="wrap">
                    {buyer.recorded ?? "—"}
                    {/* The requirements' reason whole, never cut: it is what ops act on (a provider to fix, a requirement to ease). */}
                    {buyer.requirement ? <span className="requirement-verdict">: {buyer.requirement}</span> : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
