/**
 * The report's query as an address: the CSV download repeats exactly what the page shows, with
 * the field names of the report form (since, until, by, bots=1, sid).
 */
import { adminPaths, type ReportView } from "../../shared/admin-views";

export function reportQueryString(query: ReportView["query"]): string {
  const params = new URLSearchParams({ since: query.since, until: query.until, by: query.by });
  if (query.bots) params.set("bots", "1");
  if (query.sid) params.set("sid", query.sid);
  return params.toString();
}

/** The report page with where visitors leave the form drawn, for the same query. */
export function reportScreensHref(query: ReportView["query"]): string {
  return `${adminPaths.report}?${reportQueryString(query)}&screens=1#screen-funnel-heading`;
}

export function reportCsvHref(query: ReportView["query"]): string {
  return `${adminPaths.reportCsv}?${reportQueryString(query)}`;
}
