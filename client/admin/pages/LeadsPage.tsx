/**
 * Leads: the recent leads, filtered and a page at a time (contact details masked, for ops only),
 * with their CSV for ops; one lead by reference with its checks (issue 44), its deliveries to buyers and postbacks and
 * every attempt, where ops retry a failed one or record a buyer's return; and the recently
 * dead-lettered deliveries. A lead's own page shows ops who sent it (name, ZIP, city; phone and
 * email masked, shown whole on a logged POST); analysts see no contact details anywhere.
 */
import { SentRequest } from "../SentRequest";
import { adminPaths, LEAD_STATUSES, type AdminSession, type AuctionView, type LeadCheckView, type LeadContactView, type LeadDeliveryView, type LeadListView, type LeadsView, type QuoteFactsView } from "../../../shared/admin-views";
import { AdminLayout } from "../AdminLayout";
import { SearchForm } from "../SearchForm";
import { CsrfField } from "../CsrfField";
import { formatMoney, formatSid, formatTime } from "../format";
import { BuyerOffersSection } from "../BuyerOffersSection";

function leadHref(reference: string): string {
  return `${adminPaths.leads}?${new URLSearchParams({ reference }).toString()}`;
}

function OptionalTime({ iso }: { iso: string | null }) {
  return iso ? <time dateTime={iso}>{formatTime(iso)}</time> : <>—</>;
}

function LeadFacts({ lead }: { lead: NonNullable<LeadsView["lead"]> }) {
  return (
    <dl className="facts">
      <div>
        <dt>Reference</dt>
        <dd>
          <code>{lead.reference}</code>
        </dd>
      </div>
      <div>
        <dt>Received</dt>
        <dd>
          <OptionalTime iso={lead.receivedAt} />
        </dd>
      </div>
      <div>
        <dt>State</dt>
        <dd>{lead.state}</dd>
      </div>
      <div>
        <dt>Source (sid)</dt>
        <dd>{formatSid(lead.sid)}</dd>
      </div>
      <div>
        <dt>Click (tid)</dt>
        <dd>{lead.tid ? <a href={`${adminPaths.journey}?${new URLSearchParams({ tid: lead.tid }).toString()}`}>{lead.tid}</a> : "—"}</dd>
      </div>
      <div>
        <dt>Duplicate of</dt>
        <dd>{lead.duplicateOf ? <a href={leadHref(lead.duplicateOf)}>{lead.duplicateOf}</a> : "—"}</dd>
      </div>
      <div>
        <dt>GPC</dt>
        <dd>{lead.gpc ? "Yes" : "No"}</dd>
      </div>
    </dl>
  );
}

/** What the visitor asked quotes for: every vehicle and driver, and the household's insurance. */
/**
 * Who sent the lead (ops only: analysts' views carry none of it), for a visitor who calls with a
 * reference: name, ZIP and city, the phone and email masked until "Show phone and email", a POST
 * that answers with them once and is logged with the user's name.
 */
function CallerSection({ reference, contact, session }: { reference: string; contact: LeadContactView; session: AdminSession | undefined }) {
  const revealed = contact.revealed;
  return (
    <section className="caller card" aria-labelledby="caller-title">
      <h3 id="caller-title">Who sent it</h3>
      <dl className="facts-inline">
        <div>
          <dt>Name</dt>
          <dd>{contact.name}</dd>
        </div>
        <div>
          <dt>ZIP</dt>
          <dd>{contact.zip}</dd>
        </div>
        <div>
          <dt>City</dt>
          <dd>{contact.city}</dd>
        </div>
        <div>
          <dt>Phone</dt>
          <dd>{revealed ? <a href={`tel:${revealed.tel}`}>{revealed.phone}</a> : contact.phone}</dd>
        </div>
        <div>
          <dt>Email</dt>
          <dd>{revealed ? revealed.email : contact.email}</dd>
        </div>
      </dl>
      {revealed ? (
        <p className="note">Shown to you on this page only; the console logged that you looked.</p>
      ) : session ? (
        <form method="post" action={adminPaths.leadContact} className="inline-form">
          <CsrfField token={session.csrfToken} />
          <input type="hidden" name="reference" value={reference} />
          <button type="submit" className="button-secondary" aria-describedby="caller-show-note">
            Show phone and email
          </button>
          <p id="caller-show-note" className="hint">
            For a visitor who calls with this reference: check the last digits first. Each look is logged with your name.
          </p>
        </form>
      ) : null}
    </section>
  );
}

function QuoteFacts({ quote }: { quote: QuoteFactsView }) {
  return (
    <section aria-labelledby="quote-facts">
      <h3 id="quote-facts">The quote</h3>
      <h4>Vehicles</h4>
      <ol>
        {quote.vehicles.map((line, index) => (
          <li key={index}>{line}</li>
        ))}
      </ol>
      <h4>Drivers</h4>
      <ol>
        {quote.drivers.map((line, index) => (
          <li key={index}>{line}</li>
        ))}
      </ol>
      <h4>Insurance</h4>
      <p>{quote.insurance}</p>
    </section>
  );
}

const money = (value: number | null) => (value === null ? "—" : formatMoney(value));

/** One lead's auction: how it ended, and each buyer's ping, bid and latency, the winners marked. */
function AuctionSection({ auction }: { auction: AuctionView }) {
  return (
    <section aria-labelledby="auction">
      <h2 id="auction">Auction</h2>
      <dl className="facts">
        <dt>Status</dt>
        <dd>
          {auction.status}
          {auction.saleType ? `, ${auction.saleType}` : ""}
          {auction.reason ? ` (${auction.reason})` : ""}
          {auction.test ? ", test lead" : ""}
        </dd>
        <dt>Floor</dt>
        <dd>{money(auction.floor)}</dd>
        <dt>Pinged</dt>
        <dd>
          <OptionalTime iso={auction.pingedAt} />
        </dd>
        <dt>Decided</dt>
        <dd>
          <OptionalTime iso={auction.decidedAt} />
        </dd>
      </dl>
      <div className="table-scroll">
        <table>
          <caption>Pings and bids</caption>
          <thead>
            <tr>
              <th scope="col">Buyer</th>
              <th scope="col">Outcome</th>
              <th scope="col">Bid</th>
              <th scope="col">Type</th>
              <th scope="col">Bid id</th>
              <th scope="col">Latency</th>
              <th scope="col">Won</th>
            </tr>
          </thead>
          <tbody>
            {auction.pings.map((ping) => (
              <tr key={ping.buyerId}>
                <th scope="row">{ping.buyerId}</th>
                <td>
                  {ping.outcome.replaceAll("_", " ")}
                  {ping.detail ? `: ${ping.detail}` : ""}
                </td>
                <td>{money(ping.price)}</td>
                <td>{ping.saleType ?? "—"}</td>
                <td>{ping.bidId ?? "—"}</td>
                <td>{ping.outcome === "standing" ? "no ping" : `${ping.latencyMs} ms`}</td>
                <td>{ping.won ? "Yes" : "No"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {auction.pings
        .filter((ping) => ping.requestSent || ping.excerpt)
        .map((ping) => (
          <details key={`sent-${ping.buyerId}`} className="request-sent">
            <summary>The ping to {ping.buyerId}: as sent and answered</summary>
            {ping.requestSent ? <SentRequest request={ping.requestSent} label={`The ping sent to ${ping.buyerId}, masked`} /> : null}
            {ping.excerpt ? (
              <p>
                Its answer (excerpt, masked): <code>{ping.excerpt}</code>
              </p>
            ) : null}
          </details>
        ))}
    </section>
  );
}

/**
 * The lead's checks (issue 44): each consent proof or phone scrub recorded for it, with its
 * provider, answer and latency; "cached" when the answer came from the phone cache (no call for
 * this lead). Checks run only for a buyer that requires them, so none is the usual case.
 */
function ChecksSection({ checks }: { checks: LeadCheckView[] }) {
  return (
    <section aria-labelledby="checks">
      <h2 id="checks">Checks</h2>
      {checks.length === 0 ? (
        <p className="empty">No checks ran: no buyer that could take this lead requires one.</p>
      ) : (
        <div className="table-scroll" role="region" aria-labelledby="checks-caption" tabIndex={0}>
          <table className="data-table lead-checks">
            <caption id="checks-caption">Checks recorded for this lead, in the order they started</caption>
            <thead>
              <tr>
                <th scope="col">Check</th>
                <th scope="col">Provider</th>
                <th scope="col">Status</th>
                <th scope="col">Outcome</th>
                <th scope="col" className="num">
                  Latency
                </th>
                <th scope="col">Cached</th>
                <th scope="col">When</th>
              </tr>
            </thead>
            <tbody>
              {checks.map((check) => (
                <tr key={check.kind} data-kind={check.kind} data-status={check.status}>
                  <th scope="row">{check.kindText}</th>
                  <td>{check.provider}</td>
                  <td>{check.statusText}</td>
                  <td className="wrap">
                    {check.outcomeText ?? "—"}
                    {check.detail ? <span className="check-detail">: {check.detail}</span> : null}
                  </td>
                  <td className="num">{check.latencyMs === null ? "—" : `${check.latencyMs} ms`}</td>
                  <td>{check.cached ? "cached" : "—"}</td>
                  <td>
                    <time dateTime={check.finishedAt ?? check.startedAt}>{formatTime(check.finishedAt ?? check.startedAt)}</time>
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

function RetryForm({ reference, delivery, session }: { reference: string; delivery: LeadDeliveryView; session: AdminSession }) {
  return (
    <form method="post" action={adminPaths.leadRetry} className="inline-form">
      <CsrfField token={session.csrfToken} />
      <input type="hidden" name="reference" value={reference} />
      {/* A postback has no buyer: without one the server retries the lead's failed deliveries. */}
      {delivery.kind === "buyer" ? <input type="hidden" name="buyer" value={delivery.target} /> : null}
      <button type="submit" className="button">
        Retry delivery to {delivery.target}
      </button>
    </form>
  );
}

function ReturnForm({ reference, delivery, session, index }: { reference: string; delivery: LeadDeliveryView; session: AdminSession; index: number }) {
  const reasonId = `return-reason-${index}`;
  return (
    <form method="post" action={adminPaths.leadReturn} className="inline-form">
      <CsrfField token={session.csrfToken} />
      <input type="hidden" name="reference" value={reference} />
      <input type="hidden" name="buyer" value={delivery.target} />
      <div className="field">
        <label htmlFor={reasonId}>Reason for the return</label>
        <input id={reasonId} type="text" name="reason" required maxLength={200} />
      </div>
      <button type="submit" className="button-danger">
        Record return from {delivery.target}
      </button>
    </form>
  );
}

function DeliveryCard({ reference, delivery, session, index }: { reference: string; delivery: LeadDeliveryView; session?: AdminSession; index: number }) {
  const isOps = session?.role === "ops";
  return (
    <section className={`card delivery delivery-${delivery.status}`} aria-labelledby={`delivery-${index}`}>
      <h3 id={`delivery-${index}`}>
        {delivery.kind === "buyer" ? "Buyer" : "Postback"} {delivery.target}: <span className="status-text">{delivery.status}</span>
      </h3>
      <dl className="facts-inline">
        <div>
          <dt>sold</dt>
          <dd>{delivery.sale ? "yes" : "no"}</dd>
        </div>
        <div>
          <dt>price</dt>
          <dd>{delivery.price === null ? "—" : formatMoney(delivery.price)}</dd>
        </div>
        <div>
          <dt>price reason</dt>
          <dd className="price-reason">{delivery.priceReason ?? "—"}</dd>
        </div>
        <div>
          <dt>created</dt>
          <dd>
            <OptionalTime iso={delivery.createdAt} />
          </dd>
        </div>
        <div>
          <dt>completed</dt>
          <dd>
            <OptionalTime iso={delivery.completedAt} />
          </dd>
        </div>
        {delivery.reason ? (
          <div>
            <dt>reason</dt>
            <dd>{delivery.reason}</dd>
          </div>
        ) : null}
        {delivery.lastError ? (
          <div>
            <dt>last error</dt>
            <dd>{delivery.lastError}</dd>
          </div>
        ) : null}
        {delivery.kind === "buyer" && delivery.buyerLeadId ? (
          <div>
            <dt>their lead id</dt>
            <dd className="buyer-lead-id">
              <code>{delivery.buyerLeadId}</code> (ours: {reference})
            </dd>
          </div>
        ) : null}
      </dl>
      {delivery.requestSent ? (
        <details className="request-sent">
          <summary>Request as sent (masked)</summary>
          <SentRequest request={delivery.requestSent} label={`The request last sent to ${delivery.target}, masked`} />
        </details>
      ) : null}
      {delivery.attempts.length > 0 ? (
        <div className="table-scroll">
          <table className="data-table">
            <caption>
              {delivery.attempts.length} {delivery.attempts.length === 1 ? "attempt" : "attempts"}
            </caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Outcome</th>
                <th scope="col" className="num">
                  HTTP
                </th>
                <th scope="col" className="num">
                  Latency
                </th>
                <th scope="col">Answer</th>
              </tr>
            </thead>
            <tbody>
              {delivery.attempts.map((attempt, attemptIndex) => (
                <tr key={`${attempt.at}-${attemptIndex}`}>
                  <td>
                    <time dateTime={attempt.at}>{formatTime(attempt.at)}</time>
                  </td>
                  <td>{attempt.outcome}</td>
                  <td className="num">{attempt.httpStatus ?? "—"}</td>
                  <td className="num">{attempt.latencyMs} ms</td>
                  <td className="excerpt">{attempt.excerpt ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p className="empty">No attempts yet.</p>
      )}
      {isOps && session && delivery.canRetry ? <RetryForm reference={reference} delivery={delivery} session={session} /> : null}
      {isOps && session && delivery.canReturn ? <ReturnForm reference={reference} delivery={delivery} session={session} index={index} /> : null}
    </section>
  );
}

function FailedList({ failed }: { failed: LeadsView["failed"] }) {
  if (failed.length === 0) return <p className="empty">No failed deliveries.</p>;
  return (
    <div className="table-scroll" role="region" aria-labelledby="failed-caption" tabIndex={0}>
      <table className="data-table">
        <caption id="failed-caption">Recent failed deliveries</caption>
        <thead>
          <tr>
            <th scope="col">Lead</th>
            <th scope="col">Target</th>
            <th scope="col">Last error</th>
            <th scope="col">Failed at</th>
          </tr>
        </thead>
        <tbody>
          {failed.map((item, index) => (
            <tr key={`${item.reference}-${item.target}-${index}`}>
              <th scope="row">
                <a href={leadHref(item.reference)}>{item.reference}</a>
              </th>
              <td>{item.target}</td>
              <td>{item.lastError ?? "—"}</td>
              <td>
                <OptionalTime iso={item.completedAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

type ListForm = NonNullable<LeadsView["listForm"]>;

/** The list's filters: a GET form, so a filtered list is a link to share and the back button works. */
/** One of the list's filters that picks a value from a short list, or none ("Any"). */
function ListFilter({ name, label, any, values, chosen }: { name: string; label: string; any: string; values: readonly string[]; chosen: string | undefined }) {
  return (
    <div className="field">
      <label htmlFor={`leads-${name}`}>{label}</label>
      <select id={`leads-${name}`} name={name} defaultValue={chosen ?? ""}>
        <option value="">{any}</option>
        {values.map((value) => (
          <option key={value} value={value}>
            {value}
          </option>
        ))}
      </select>
    </div>
  );
}

function LeadListForm({ form, buyers, contacts }: { form: ListForm; buyers: readonly string[]; contacts: boolean }) {
  return (
    <form method="get" action={adminPaths.leads} className="query-form" aria-label="Filter leads">
      <div className="field">
        <label htmlFor="leads-find">{contacts ? "Reference, phone or email" : "Lead reference"}</label>
        <input id="leads-find" type="text" name="find" defaultValue={form.find ?? ""} maxLength={254} autoComplete="off" spellCheck={false} />
      </div>
      <div className="field">
        <label htmlFor="leads-since">From</label>
        <input id="leads-since" type="date" name="since" defaultValue={form.since ?? ""} />
      </div>
      <div className="field">
        <label htmlFor="leads-until">Until (not included)</label>
        <input id="leads-until" type="date" name="until" defaultValue={form.until ?? ""} />
      </div>
      <div className="field">
        <label htmlFor="leads-sid">Source (sid)</label>
        <input id="leads-sid" type="text" name="sid" defaultValue={form.sid ?? ""} maxLength={64} autoComplete="off" spellCheck={false} />
      </div>
      <div className="field">
        <label htmlFor="leads-state">State</label>
        <input id="leads-state" type="text" name="state" defaultValue={form.state ?? ""} maxLength={2} autoComplete="off" spellCheck={false} />
      </div>
      <ListFilter name="status" label="Status" any="Any" values={LEAD_STATUSES} chosen={form.status} />
      <ListFilter name="buyer" label="Bought by" any="Any buyer" values={buyers} chosen={form.buyer} />
      <div className="field field-submit">
        <button type="submit" className="button">
          Show leads
        </button>
      </div>
    </form>
  );
}

function Purchases({ purchases }: { purchases: LeadListView["rows"][number]["purchases"] }) {
  if (purchases.length === 0) return <>—</>;
  return (
    <>
      {purchases.map((purchase, index) => (
        <span key={`${purchase.buyer}-${index}`}>
          {index > 0 ? ", " : ""}
          {purchase.buyer}
          {purchase.returned ? " (returned)" : ""}
        </span>
      ))}
    </>
  );
}

function LeadList({ list }: { list: LeadListView }) {
  const { query } = list;
  const range = query.since && query.until ? `${query.since} to ${query.until} (not included)` : "every lead kept";
  return (
    <section aria-labelledby="lead-list">
      <div className="page-heading">
        <h2 id="lead-list">
          {list.total} {list.total === 1 ? "lead" : "leads"}, newest first
        </h2>
        {list.csv ? (
          <a className="button-secondary" href={list.csv} download>
            Download CSV
          </a>
        ) : null}
      </div>
      {list.rows.length === 0 ? (
        <p className="empty">No leads match.</p>
      ) : (
        <div className="table-scroll" role="region" aria-labelledby="lead-list-caption" tabIndex={0}>
          <table className="data-table lead-list">
            <caption id="lead-list-caption">
              Leads received {range}
              {query.sid ? `, source ${query.sid}` : ""}
              {query.state ? `, ${query.state}` : ""}
              {query.status ? `, ${query.status}` : ""}
              {query.buyer ? `, bought by ${query.buyer}` : ""}
              {query.find ? `, matching ${query.find}` : ""}
            </caption>
            <thead>
              <tr>
                <th scope="col">Lead</th>
                <th scope="col">Received</th>
                <th scope="col">Source</th>
                <th scope="col">State</th>
                <th scope="col">Status</th>
                <th scope="col">Bought by</th>
                <th scope="col" className="num">
                  Price
                </th>
                {list.contacts ? <th scope="col">Contact</th> : null}
              </tr>
            </thead>
            <tbody>
              {list.rows.map((row) => (
                <tr key={row.reference}>
                  <th scope="row">
                    <a href={leadHref(row.reference)}>{row.reference}</a>
                  </th>
                  <td>
                    <time dateTime={row.receivedAt}>{formatTime(row.receivedAt)}</time>
                  </td>
                  <td>{formatSid(row.sid)}</td>
                  <td>{row.state}</td>
                  <td>{row.status}</td>
                  <td>
                    <Purchases purchases={row.purchases} />
                  </td>
                  <td className="num">{money(row.price)}</td>
                  {list.contacts ? (
                    <td>
                      {row.contact?.phone}
                      <br />
                      {row.contact?.email}
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.older || list.paged ? (
        <nav className="pager" aria-label="Pages of leads">
          {list.paged ? <a href={`${adminPaths.leads}?${new URLSearchParams(Object.entries(query).filter((entry): entry is [string, string] => typeof entry[1] === "string")).toString()}`}>Newest leads</a> : null}
          {list.older ? <a href={`${adminPaths.leads}?${list.older}`}>Older leads</a> : null}
        </nav>
      ) : null}
    </section>
  );
}

export function LeadsPage({ view }: { view: LeadsView }) {
  if (!view.lead && view.reference === undefined) return <LeadListPage view={view} />;
  return <LeadPage view={view} />;
}

/** The list, or the list's form with its problems (400, or 403 for an analyst's contact search). */
function LeadListPage({ view }: { view: LeadsView }) {
  const list = view.list;
  const contacts = view.session?.role === "ops";
  const form: ListForm = list ? list.query : (view.listForm ?? {});
  return (
    <AdminLayout session={view.session} flash={view.flash} current="leads">
      <h1>Leads</h1>
      <LeadListForm form={form} buyers={list?.buyers ?? view.listBuyers ?? []} contacts={contacts} />
      {view.listErrors ? (
        <div className="form-errors" role="alert">
          <ul>
            {view.listErrors.map((error) => (
              <li key={error}>{error}</li>
            ))}
          </ul>
        </div>
      ) : null}
      {list ? <LeadList list={list} /> : null}
      {view.failed.length > 0 ? (
        <>
          <h2>Failed deliveries</h2>
          <FailedList failed={view.failed} />
        </>
      ) : null}
    </AdminLayout>
  );
}

function LeadPage({ view }: { view: LeadsView }) {
  return (
    <AdminLayout session={view.session} flash={view.flash} current="leads">
      <h1>Leads</h1>
      <SearchForm action={adminPaths.leads} id="lead-reference" name="reference" label="Lead reference" value={view.reference} maxLength={64} button="Find lead" error={view.error} />
      {view.lead ? (
        <>
          <h2>Lead {view.lead.reference}</h2>
          {view.lead.contact ? <CallerSection reference={view.lead.reference} contact={view.lead.contact} session={view.session} /> : null}
          <LeadFacts lead={view.lead} />
          <QuoteFacts quote={view.lead.quote} />
          {/* Before the auction and deliveries: the checks are what a buyer's ping or post waited on. */}
          {view.checks ? <ChecksSection checks={view.checks} /> : null}
          {view.auction ? <AuctionSection auction={view.auction} /> : null}
          {view.offers ? <BuyerOffersSection offers={view.offers} /> : null}
          <h2>Deliveries</h2>
          {view.deliveries.length === 0 ? (
            <p className="empty">No deliveries for this lead.</p>
          ) : (
            view.deliveries.map((delivery, index) => (
              <DeliveryCard key={`${delivery.kind}-${delivery.target}`} reference={view.lead?.reference ?? ""} delivery={delivery} session={view.session} index={index} />
            ))
          )}
        </>
      ) : (
        <>
          <h2>Failed deliveries</h2>
          <FailedList failed={view.failed} />
        </>
      )}
    </AdminLayout>
  );
}
