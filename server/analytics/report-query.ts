/**
 * Checking a report's range and filters before any query, with messages a person can act on:
 * the CLI turns them into usage errors (exit 2), the console shows them above the form.
 */
import { campaignIdSchema } from "../../shared/campaign";
import { REPORT_GROUPINGS, type ReportGrouping } from "../../shared/analytics";
import { daysBetween, isDay } from "./report-days";

/** Ten years: past every retention the configuration allows, and a bound on the trend's points. */
export const REPORT_MAX_DAYS = 3_660;

export interface RawReportQuery {
  since: string;
  until: string;
  by?: string;
  sid?: string;
}

/** What is wrong with a report query; empty when it can run. */
export function reportQueryErrors(query: RawReportQuery): string[] {
  const errors: string[] = [];
  if (!isDay(query.since)) errors.push("since must be a date like 2026-11-01.");
  if (!isDay(query.until)) errors.push("until must be a date like 2026-12-01.");
  if (errors.length === 0) {
    const days = daysBetween(query.since, query.until);
    if (days <= 0) errors.push("until must be after since (until is the day after the last one reported).");
    else if (days > REPORT_MAX_DAYS) errors.push(`The range is at most ${REPORT_MAX_DAYS} days.`);
  }
  if (query.by !== undefined && !isReportGrouping(query.by)) errors.push(`by must be one of ${REPORT_GROUPINGS.join(", ")}.`);
  // "" is allowed: the traffic that came without a sid.
  if (query.sid !== undefined && query.sid !== "" && !campaignIdSchema.safeParse(query.sid).success) {
    errors.push("sid must be 1–64 letters, digits or - _ . ~ (as campaign links carry it).");
  }
  return errors;
}

export function isReportGrouping(value: string): value is ReportGrouping {
  return (REPORT_GROUPINGS as readonly string[]).includes(value);
}
