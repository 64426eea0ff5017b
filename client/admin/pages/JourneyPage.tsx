/**
 * One click's journey: every stored event of a tid, in order, with its time and what it
 * carried (source, visit, page, step, lead, buyer, amounts, bot and GPC flags).
 */
import type { ReactNode } from "react";
import type { JourneyEvent } from "../../../shared/analytics";
import { adminPaths, type AdminSession, type JourneyView } from "../../../shared/admin-views";
import { AdminLayout } from "../AdminLayout";
import { SearchForm } from "../SearchForm";
import { eventLabels } from "../event-names";
import { formatMoney, formatSid, formatTime } from "../format";

function EventDetails({ event, session }: { event: JourneyEvent; session?: AdminSession }) {
  const facts: { term: string; value: ReactNode }[] = [];
  facts.push({ term: "sid", value: formatSid(event.sid) });
  if (event.visitId) facts.push({ term: "visit", value: <code>{event.visitId}</code> });
  if (event.path) facts.push({ term: "page", value: <code>{event.path}</code> });
  if (event.step !== null) facts.push({ term: "step", value: String(event.step) });
  if (event.leadReference) {
    // Only ops may open the leads page; an analyst sees the reference as text.
    const reference = session?.role === "ops" ? <a href={`${adminPaths.leads}?${new URLSearchParams({ reference: event.leadReference }).toString()}`}>{event.leadReference}</a> : event.leadReference;
    facts.push({ term: "lead", value: reference });
  }
  if (event.target) facts.push({ term: "buyer", value: event.target });
  if (event.detail) facts.push({ term: "detail", value: event.detail });
  if (event.revenue !== null) facts.push({ term: "revenue", value: formatMoney(event.revenue) });
  if (event.payout !== null) facts.push({ term: "payout", value: formatMoney(event.payout) });
  if (event.bid !== null) facts.push({ term: "bid", value: formatMoney(event.bid) });
  if (event.bot) facts.push({ term: "bot", value: "yes" });
  if (event.gpc) facts.push({ term: "GPC", value: "yes" });
  return (
    <dl className="facts-inline">
      {facts.map((fact) => (
        <div key={fact.term}>
          <dt>{fact.term}</dt>
          <dd>{fact.value}</dd>
        </div>
      ))}
    </dl>
  );
}

export function JourneyPage({ view }: { view: JourneyView }) {
  return (
    <AdminLayout session={view.session} flash={view.flash} current="journey">
      <h1>Click journey</h1>
      <SearchForm action={adminPaths.journey} id="journey-tid" name="tid" label="Click id (tid)" value={view.tid} maxLength={128} button="Show journey" error={view.error} />
      {view.tid && !view.error ? (
        view.events.length === 0 ? (
          <p className="empty">No events for tid {view.tid}.</p>
        ) : (
          <div className="table-scroll" role="region" aria-labelledby="journey-caption" tabIndex={0}>
            <table className="data-table journey-table">
              <caption id="journey-caption">
                {view.events.length} {view.events.length === 1 ? "event" : "events"} for tid {view.tid}, oldest first
              </caption>
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Event</th>
                  <th scope="col">Details</th>
                </tr>
              </thead>
              <tbody>
                {view.events.map((event, index) => (
                  <tr key={`${event.at}-${index}`} className={event.bot ? "bot" : undefined} data-event={event.name}>
                    <td>
                      <time dateTime={event.at}>{formatTime(event.at)}</time>
                    </td>
                    <th scope="row">{eventLabels[event.name] ?? event.name}</th>
                    <td>
                      <EventDetails event={event} session={view.session} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )
      ) : null}
    </AdminLayout>
  );
}
