/**
 * The report's columns as the console shows them: a heading and a formatter for each of
 * REPORT_COLUMNS (shared/analytics.ts), and which of them a grouping leaves out (a report by sid
 * has no date, a report by day no sid). docs/analytics.md defines what each number means.
 */
import { REPORT_COLUMNS, type ReportGrouping, type ReportRow } from "../../shared/analytics";
import { formatCount, formatMoney, formatRate, formatSid } from "./format";

export type ReportColumn = (typeof REPORT_COLUMNS)[number];

const headings: Record<ReportColumn, string> = {
  date: "Date",
  sid: "Source (sid)",
  clicks: "Clicks",
  unique_clicks: "Unique clicks",
  zip_submits: "ZIP submits",
  quote_views: "Quote views",
  form_starts: "Form starts",
  leads: "Leads",
  duplicates: "Duplicates",
  sold: "Sold",
  returned: "Returned",
  revenue: "Revenue",
  payout: "Payout",
  profit: "Profit",
  cr: "CR",
  epc: "EPC",
  bids: "Bids",
  avg_bid: "Avg bid",
  revenue_per_lead: "Revenue / lead",
};

/** Longer names for the columns whose heading is an abbreviation. */
export const columnTitles: Partial<Record<ReportColumn, string>> = {
  cr: "Conversion rate: leads / unique clicks",
  epc: "Earnings per click: revenue / unique clicks",
  avg_bid: "Average bid: the bids added up / bids",
  revenue_per_lead: "Revenue per lead: revenue / leads",
};

export function columnHeading(column: ReportColumn): string {
  return headings[column];
}

/** The columns a grouping shows, in REPORT_COLUMNS order. */
export function columnsFor(by: ReportGrouping): ReportColumn[] {
  return REPORT_COLUMNS.filter((column) => (column === "date" ? by.includes("day") : column === "sid" ? by.includes("sid") : true));
}

export function isNumeric(column: ReportColumn): boolean {
  return column !== "date" && column !== "sid";
}

export function formatCell(row: ReportRow, column: ReportColumn): string {
  switch (column) {
    case "date":
      return row.date ?? "";
    case "sid":
      return formatSid(row.sid);
    case "revenue":
    case "payout":
    case "profit":
    case "epc":
    case "avg_bid":
    case "revenue_per_lead":
      return formatMoney(row[column]);
    case "cr":
      return formatRate(row.cr);
    default:
      return formatCount(row[column]);
  }
}
