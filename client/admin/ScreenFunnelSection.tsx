/**
 * The report page's "Where visitors leave the form": the quote form's funnel per question screen
 * (reached, answered, left), for the page's sources, then per source, so analysts see which
 * question costs leads. The numbers come from server/analytics/screen-funnel.ts; docs/analytics.md
 * defines them. Screens are shown by their ids, as the CLI and the events name them.
 */
import { REQUEST_STORED, type ScreenFunnel } from "../../shared/analytics";
import type { ReportView } from "../../shared/admin-views";
import { formatCount, formatRate, formatSid } from "./format";
import { reportScreensHref } from "./report-query";

/** Sources shown one by one (the largest first); the rest are one filter away (a page of 50 tables helps nobody). */
export const SCREEN_SOURCES_SHOWN = 10;

const plural = (count: number, one: string, many: string) => `${formatCount(count)} ${count === 1 ? one : many}`;

function summary(funnel: ScreenFunnel): string {
  const earlier = funnel.earlier > 0 ? `; ${plural(funnel.earlier, "visit", "visits")} on an earlier form left out` : "";
  return `${plural(funnel.visits, "visit", "visits")} in the form, ${plural(funnel.leads, "request", "requests")} stored${earlier}`;
}

function ScreenTable({ funnel, id, caption }: { funnel: ScreenFunnel; id: string; caption: string }) {
  return (
    <div className="table-scroll" role="region" aria-labelledby={`${id}-caption`} tabIndex={0}>
      <table className="data-table screen-funnel-table" data-sid={funnel.sid ?? ""}>
        <caption id={`${id}-caption`}>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Screen</th>
            <th scope="col" className="num">
              <abbr title="Visits that answered the screen or left here, each once">Reached</abbr>
            </th>
            <th scope="col" className="num">Answered</th>
            <th scope="col" className="num">
              <abbr title="Visits that stopped on this screen and stored no request">Left</abbr>
            </th>
            <th scope="col" className="num">
              <abbr title="Left / reached">Left rate</abbr>
            </th>
          </tr>
        </thead>
        <tbody>
          {funnel.screens.map((row) => (
            <tr key={row.screen} data-screen={row.screen}>
              <th scope="row">{row.screen === REQUEST_STORED ? "Request stored" : row.screen}</th>
              <td className="num">{formatCount(row.reached)}</td>
              <td className="num">{formatCount(row.answered)}</td>
              <td className="num">{formatCount(row.left)}</td>
              <td className="num">{formatRate(row.left_rate)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function ScreenFunnelSection({ view }: { view: ReportView }) {
  if (!view.screens) {
    // Not asked for: it reads every form event of the range, the rest of the page a small rollup.
    return (
      <section aria-labelledby="screen-funnel-heading" className="screen-funnel">
        <h2 id="screen-funnel-heading">Where visitors leave the form</h2>
        <p className="note">
          Per question screen and source: which question costs leads. It reads every form event of the range, so it is drawn when asked:{" "}
          <a href={reportScreensHref(view.query)}>show where visitors leave the form</a>.
        </p>
      </section>
    );
  }
  const [all, ...sources] = view.screens;
  const scope = view.query.sid === undefined ? "All sources" : `Source ${formatSid(view.query.sid)}`;
  const shown = [...sources].sort((a, b) => b.visits - a.visits).slice(0, SCREEN_SOURCES_SHOWN);
  const hidden = sources.length - shown.length;
  return (
    <section aria-labelledby="screen-funnel-heading" className="screen-funnel">
      <h2 id="screen-funnel-heading">Where visitors leave the form</h2>
      {!all || (all.visits === 0 && all.earlier === 0) ? (
        <p className="empty">No quote form traffic in this range.</p>
      ) : (
        <>
          <p className="note">
            Per question screen, in the form&apos;s order: answered = visits that completed it; left = visits that stored no request and stopped here (the screen visitors most often went
            on to from their last answer); reached = visits that answered it or left here. The last line is the request itself. Screens some visitors skip have a smaller reach. Every
            number is defined in docs/analytics.md.
          </p>
          <ScreenTable funnel={all} id="screen-funnel-all" caption={`${scope}: ${summary(all)}`} />
          {view.query.sid === undefined && shown.length > 0 ? (
            <>
              <h3 id="screen-funnel-sources-heading">By source</h3>
              {shown.map((funnel, index) => (
                <details key={funnel.sid ?? ""} className="screen-funnel-source" data-sid={funnel.sid ?? ""}>
                  <summary>
                    {formatSid(funnel.sid)}: {summary(funnel)}
                  </summary>
                  <ScreenTable funnel={funnel} id={`screen-funnel-source-${index}`} caption={`Source ${formatSid(funnel.sid)}`} />
                </details>
              ))}
              {hidden > 0 ? (
                <p className="note">
                  {plural(hidden, "more source", "more sources")} with fewer visits: choose one under &ldquo;Only source (sid)&rdquo;, or run npm run report -- screens.
                </p>
              ) : null}
            </>
          ) : null}
        </>
      )}
    </section>
  );
}
