/**
 * What the console needs of the analytics report (server/analytics/report.ts), as one
 * dependency: the app takes it from its caller, so the console's tests and the server share the
 * real queries, and nothing else here knows where they live.
 */
import type { Database } from "../db/database";
import type { BuyerReportRow, JourneyEvent, ReportRow, ScreenFunnel } from "../../shared/analytics";
import type { ReportView, TrendSeries } from "../../shared/admin-views";
import type { ReportQuery } from "./report-query";
import { botsLeftOut, buyerRows, funnel, journey, reportRows, reportTotals, trend, type BotsLeftOut } from "../analytics/report";
import { screenFunnels } from "../analytics/screen-funnel";

export interface AdminReports {
  rows(db: Database, query: ReportQuery & { includeBots: boolean }): Promise<ReportRow[]>;
  totals(rows: ReportRow[]): ReportRow;
  funnel(totals: ReportRow): ReportView["funnel"];
  trend(db: Database, query: ReportQuery & { includeBots: boolean }): Promise<TrendSeries[]>;
  journey(db: Database, tid: string): Promise<JourneyEvent[]>;
  buyers(db: Database, query: ReportQuery & { includeBots: boolean }): Promise<BuyerReportRow[]>;
  screens(db: Database, query: ReportQuery & { includeBots: boolean }): Promise<ScreenFunnel[]>;
  /** The bots' clicks, leads and events of the range (and sid), which the report leaves out unless asked. */
  botsLeftOut(db: Database, query: ReportQuery): Promise<BotsLeftOut>;
}

export const analyticsReports: AdminReports = {
  rows: (db, query) => reportRows(db, query),
  totals: reportTotals,
  funnel,
  trend: (db, query) => trend(db, query),
  journey: (db, tid) => journey(db, tid),
  buyers: (db, query) => buyerRows(db, query),
  screens: (db, query) => screenFunnels(db, query),
  botsLeftOut: (db, query) => botsLeftOut(db, query),
};
