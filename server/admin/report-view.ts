/** The report page (GET /) and its CSV download (GET /report.csv): the same query, the same rows. */
import type { Database } from "../db/database";
import { REPORT_COLUMNS, type ReportRow } from "../../shared/analytics";
import type { ReportView } from "../../shared/admin-views";
import { csv } from "../cli/common";
import type { AdminReports } from "./reports";
import { parseReportQuery, type ReportQuery } from "./report-query";

export async function reportView(db: Database, reports: AdminReports, raw: Record<string, unknown>, timeZone: string, now: Date = new Date()): Promise<ReportView> {
  const { query, errors } = parseReportQuery(raw, timeZone, now);
  const request = { ...query, includeBots: query.bots };
  const [rows, trend, buyers, screens, bots] = await Promise.all([
    reports.rows(db, request),
    reports.trend(db, request),
    reports.buyers(db, request),
    query.screens ? reports.screens(db, request) : undefined,
    // Left out: say how much, so an empty report is not taken for no traffic (issue 42, item 6).
    query.bots ? undefined : reports.botsLeftOut(db, query),
  ]);
  const totals = reports.totals(rows);
  return {
    page: "report",
    query,
    rows,
    totals,
    buyers,
    funnel: reports.funnel(totals),
    trend,
    ...(screens ? { screens } : {}),
    ...(bots && bots.events > 0 ? { botsLeftOut: bots } : {}),
    ...(errors.length > 0 ? { errors } : {}),
  };
}

/** One CSV cell: null (the grouping left it out) is empty; numbers as the report computed them. */
const cellOf = (value: ReportRow[keyof ReportRow]) => (value === null ? "" : String(value));

export function reportCsv(rows: readonly ReportRow[]): string {
  return csv([[...REPORT_COLUMNS], ...rows.map((row) => REPORT_COLUMNS.map((column) => cellOf(row[column])))]);
}

/** report-2026-11-01-to-2026-12-01-by-day-sid.csv: says what is inside, safe as a file name everywhere. */
export function reportFileName(query: ReportQuery): string {
  const sid = query.sid === undefined ? "" : `-sid-${query.sid.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  return `report-${query.since}-to-${query.until}-by-${query.by.replace(",", "-")}${sid}${query.bots ? "-with-bots" : ""}.csv`;
}

export async function reportCsvFor(db: Database, reports: AdminReports, raw: Record<string, unknown>, timeZone: string, now: Date = new Date()): Promise<{ body: string; fileName: string; errors: string[] }> {
  const { query, errors } = parseReportQuery(raw, timeZone, now);
  const rows = await reports.rows(db, { ...query, includeBots: query.bots });
  return { body: reportCsv(rows), fileName: reportFileName(query), errors };
}
