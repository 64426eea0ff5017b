/**
 * The sub-id report: the query form (GET, so a report is a link to share), the table with a
 * totals row, the CSV download of the same query, the per-buyer view, where visitors leave the
 * quote form (per question screen), the funnel and the daily trends by source.
 */
import { REPORT_GROUPINGS, type BuyerReportRow, type ReportGrouping } from "../../../shared/analytics";
import { adminPaths, type ReportView } from "../../../shared/admin-views";
import { AdminLayout } from "../AdminLayout";
import { FunnelChart } from "../charts/FunnelChart";
import { TrendChart } from "../charts/TrendChart";
import { columnHeading, columnsFor, columnTitles, formatCell, isNumeric } from "../report-columns";
import { reportCsvHref, reportQueryString } from "../report-query";
import { ScreenFunnelSection } from "../ScreenFunnelSection";
import { formatCount, formatMoney, formatRate } from "../format";

const groupingLabels: Record<ReportGrouping, string> = { day: "Day", sid: "Source (sid)", "day,sid": "Day and source" };

function ReportForm({ query }: { query: ReportView["query"] }) {
  return (
    <form method="get" action={adminPaths.report} className="query-form">
      <div className="field">
        <label htmlFor="report-since">Since</label>
        <input id="report-since" type="date" name="since" defaultValue={query.since} required />
      </div>
      <div className="field">
        <label htmlFor="report-until">Until (not included)</label>
        <input id="report-until" type="date" name="until" defaultValue={query.until} required />
      </div>
      <div className="field">
        <label htmlFor="report-by">Group by</label>
        <select id="report-by" name="by" defaultValue={query.by}>
          {REPORT_GROUPINGS.map((grouping) => (
            <option key={grouping} value={grouping}>
              {groupingLabels[grouping]}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="report-sid">Only source (sid)</label>
        <input id="report-sid" type="text" name="sid" defaultValue={query.sid ?? ""} maxLength={64} autoComplete="off" spellCheck={false} />
      </div>
      <div className="field field-check">
        <input id="report-bots" type="checkbox" name="bots" value="1" defaultChecked={query.bots} />
        <label htmlFor="report-bots">Include bots</label>
      </div>
      <div className="field field-check">
        <input id="report-screens" type="checkbox" name="screens" value="1" defaultChecked={query.screens ?? false} />
        <label htmlFor="report-screens">Where visitors leave the form</label>
      </div>
      <div className="field field-submit">
        <button type="submit" className="button">
          Show report
        </button>
      </div>
    </form>
  );
}

function ReportTable({ view }: { view: ReportView }) {
  const columns = columnsFor(view.query.by);
  // The totals row's label goes in the first column (date or sid), which the totals leave empty.
  const [labelColumn, ...valueColumns] = columns;
  return (
    <div className="table-scroll" role="region" aria-labelledby="report-table-caption" tabIndex={0}>
      <table className="data-table report-table">
        <caption id="report-table-caption">
          {view.query.since} to {view.query.until} (not included), by {groupingLabels[view.query.by].toLowerCase()}
          {view.query.sid ? `, source ${view.query.sid}` : ""}
          {view.query.bots ? ", bots included" : ", bots excluded"}
        </caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col" data-column={column} className={isNumeric(column) ? "num" : undefined}>
                {columnTitles[column] ? <abbr title={columnTitles[column]}>{columnHeading(column)}</abbr> : columnHeading(column)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {view.rows.length === 0 ? (
            <tr>
              <td colSpan={columns.length} className="empty">
                {view.botsLeftOut ? "Nothing from people in this range: bots' traffic is left out (see above)." : "No events in this range."}
              </td>
            </tr>
          ) : (
            view.rows.map((row) => (
              <tr key={`${row.date ?? ""}|${row.sid ?? ""}`}>
                {columns.map((column, index) =>
                  index === 0 ? (
                    <th key={column} scope="row" data-column={column}>
                      {formatCell(row, column)}
                    </th>
                  ) : (
                    <td key={column} data-column={column} className={isNumeric(column) ? "num" : undefined}>
                      {formatCell(row, column)}
                    </td>
                  ),
                )}
              </tr>
            ))
          )}
        </tbody>
        <tfoot>
          <tr className="totals">
            <th scope="row" data-column={labelColumn} colSpan={labelColumn && !isNumeric(labelColumn) && valueColumns[0] && !isNumeric(valueColumns[0]) ? 2 : 1}>
              Total
            </th>
            {valueColumns
              .filter((column) => isNumeric(column))
              .map((column) => (
                <td key={column} data-column={column} className="num">
                  {formatCell(view.totals, column)}
                </td>
              ))}
          </tr>
        </tfoot>
      </table>
    </div>
  );
}

const counted = (count: number, one: string, many: string) => `${formatCount(count)} ${count === 1 ? one : many}`;

/**
 * "7 clicks and 1 lead from bots left out: show them" (issue 42, item 6): a report that leaves
 * bots out says how much it hid, so an empty table is not read as no traffic.
 */
export function botsLeftOutText(bots: NonNullable<ReportView["botsLeftOut"]>): string {
  const parts = [bots.clicks > 0 ? counted(bots.clicks, "click", "clicks") : "", bots.leads > 0 ? counted(bots.leads, "lead", "leads") : ""].filter(Boolean);
  return `${parts.length > 0 ? parts.join(" and ") : counted(bots.events, "event", "events")} from bots left out`;
}

function BotsLeftOut({ view }: { view: ReportView }) {
  if (!view.botsLeftOut) return null;
  const href = `${adminPaths.report}?${reportQueryString({ ...view.query, bots: true })}`;
  return (
    <p className="note bots-left-out">
      {botsLeftOutText(view.botsLeftOut)}: <a href={href}>show them</a>
    </p>
  );
}

/** The per-buyer view: who was pinged, bid, won, and what each earned, best revenue first. */
function BuyerTable({ view }: { view: ReportView }) {
  const numbers = (row: BuyerReportRow) => [
    formatCount(row.pings),
    formatCount(row.bids),
    row.bids > 0 ? formatMoney(row.avg_bid) : "—",
    formatCount(row.wins),
    row.win_rate === null ? "—" : formatRate(row.win_rate),
    formatCount(row.returned),
    formatMoney(row.revenue),
  ];
  return (
    <section aria-labelledby="buyer-table-heading">
      <h2 id="buyer-table-heading">By buyer</h2>
      <div className="table-scroll" role="region" aria-labelledby="buyer-table-heading" tabIndex={0}>
        <table className="data-table buyer-report-table">
          <thead>
            <tr>
              <th scope="col">Buyer</th>
              <th scope="col" className="num">Pings</th>
              <th scope="col" className="num">Bids</th>
              <th scope="col" className="num">
                <abbr title="Average bid: the bids added up / bids">Avg bid</abbr>
              </th>
              <th scope="col" className="num">Wins</th>
              <th scope="col" className="num">
                <abbr title="Win rate: wins / bids (a fixed-price buyer never bids)">Win rate</abbr>
              </th>
              <th scope="col" className="num">Returned</th>
              <th scope="col" className="num">Revenue</th>
            </tr>
          </thead>
          <tbody>
            {view.buyers.length === 0 ? (
              <tr>
                <td colSpan={8} className="empty">
                  No pings or sales in this range.
                </td>
              </tr>
            ) : (
              view.buyers.map((row) => (
                <tr key={row.buyer} data-buyer={row.buyer}>
                  <th scope="row">{row.buyer}</th>
                  {numbers(row).map((text, index) => (
                    <td key={index} className="num">
                      {text}
                    </td>
                  ))}
                </tr>
              ))
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}

export function ReportPage({ view }: { view: ReportView }) {
  return (
    <AdminLayout session={view.session} flash={view.flash} current="report">
      <div className="page-heading">
        <h1>Sub-id report</h1>
        <a className="button-secondary" href={reportCsvHref(view.query)} download>
          Download CSV
        </a>
      </div>
      {view.errors && view.errors.length > 0 ? (
        <div className="form-errors" role="alert">
          <p>Some values were not understood; the report shows the defaults instead:</p>
          <ul>
            {view.errors.map((error) => (
              <li key={error}>{error}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <ReportForm query={view.query} />
      <BotsLeftOut view={view} />
      <ReportTable view={view} />
      <p className="note">
        CR is leads / unique clicks; EPC is revenue / unique clicks; bids are auction bids (test leads never count); revenue and payout are net of returns. Every column is defined in docs/analytics.md.
      </p>
      <BuyerTable view={view} />
      <ScreenFunnelSection view={view} />
      <div className="charts">
        <FunnelChart stages={view.funnel} />
        <TrendChart series={view.trend} metric="clicks" />
        <TrendChart series={view.trend} metric="leads" />
      </div>
    </AdminLayout>
  );
}
