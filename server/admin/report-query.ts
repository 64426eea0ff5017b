/**
 * The report page's form (GET / and /report.csv): since, until (exclusive), by, bots, sid, and
 * screens (draw where visitors leave the form: it reads raw events, so only when asked).
 * Whatever arrives, the page gets a usable query: each bad value is named in `errors` and
 * replaced by its default (the last 30 days, by day and sid, bots excluded), never a 500.
 */
import { REPORT_GROUPINGS, type ReportGrouping } from "../../shared/analytics";
import { campaignIdSchema } from "../../shared/campaign";
import { dayIn } from "../../shared/formatters";
import { addDays, daysBetween, isDay } from "../analytics/report-days";

export interface ReportQuery {
  since: string;
  until: string;
  by: ReportGrouping;
  bots: boolean;
  sid?: string;
  /** Present (true) when the page is to draw where visitors leave the form. */
  screens?: true;
}

export const DEFAULT_DAYS = 30;
/** A longer range is refused: a year of days by sid is already thousands of rows. */
export const MAX_RANGE_DAYS = 400;

/** Today in the analysts' time zone (REPORT_TIME_ZONE). */
const today = (timeZone: string, now: Date) => dayIn(now, timeZone);

/** A query value as one string: absent → undefined; repeated (?a=1&a=2) → a problem. */
function single(raw: unknown): string | undefined | null {
  if (raw === undefined) return undefined;
  return typeof raw === "string" ? raw.trim() : null;
}

export function parseReportQuery(raw: Record<string, unknown>, timeZone: string, now: Date = new Date()): { query: ReportQuery; errors: string[] } {
  const errors: string[] = [];
  const end = addDays(today(timeZone, now), 1);
  const defaults: ReportQuery = { since: addDays(end, -DEFAULT_DAYS), until: end, by: "day,sid", bots: false };
  const query: ReportQuery = { ...defaults };

  const since = single(raw.since);
  const until = single(raw.until);
  let sinceOk = false;
  let untilOk = false;
  if (since) {
    if (isDay(since)) {
      query.since = since;
      sinceOk = true;
    } else errors.push("From must be a date like 2026-11-01.");
  } else if (since === null) errors.push("From was given more than once.");
  if (until) {
    if (isDay(until)) {
      query.until = until;
      untilOk = true;
    } else errors.push("Until must be a date like 2026-12-01.");
  } else if (until === null) errors.push("Until was given more than once.");
  // Only one end given: the other keeps the 30-day span.
  if (sinceOk && !untilOk && !until) query.until = addDays(query.since, DEFAULT_DAYS);
  if (untilOk && !sinceOk && !since) query.since = addDays(query.until, -DEFAULT_DAYS);
  if (query.until <= query.since) {
    errors.push("Until must be after From.");
    query.since = defaults.since;
    query.until = defaults.until;
  } else if (daysBetween(query.since, query.until) > MAX_RANGE_DAYS) {
    errors.push(`The range is at most ${MAX_RANGE_DAYS} days.`);
    query.since = defaults.since;
    query.until = defaults.until;
  }

  const by = single(raw.by);
  if (by) {
    if ((REPORT_GROUPINGS as readonly string[]).includes(by)) query.by = by as ReportGrouping;
    else errors.push(`Group by must be one of ${REPORT_GROUPINGS.join(", ")}.`);
  } else if (by === null) errors.push("Group by was given more than once.");

  const bots = single(raw.bots);
  if (bots === null) errors.push("Include bots was given more than once.");
  else if (bots !== undefined && bots !== "" && bots !== "0") {
    if (bots === "1" || bots === "on" || bots === "true") query.bots = true;
    else errors.push("Include bots must be 1 or absent.");
  }

  const screens = single(raw.screens);
  if (screens === null) errors.push("Where visitors leave the form was given more than once.");
  else if (screens !== undefined && screens !== "" && screens !== "0") {
    if (screens === "1" || screens === "on" || screens === "true") query.screens = true;
    else errors.push("Where visitors leave the form must be 1 or absent.");
  }

  const sid = single(raw.sid);
  if (sid) {
    if (campaignIdSchema.safeParse(sid).success) query.sid = sid;
    else errors.push("Source must be a sid: letters, digits and - _ . ~, at most 64.");
  } else if (sid === null) errors.push("Source was given more than once.");

  return { query, errors };
}
