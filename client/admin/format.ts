/**
 * How the console prints numbers, money, rates and times. One place, so the report table, the
 * charts' tables and the other pages agree (and the browser tests can read what they expect).
 */

const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const dollars = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", minimumFractionDigits: 2, maximumFractionDigits: 2 });
const percent = new Intl.NumberFormat("en-US", { style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1 });

/** "1,234" */
export function formatCount(value: number): string {
  return integer.format(value);
}

/** "$1,234.50", "-$12.00" (a net of returns can be negative). */
export function formatMoney(value: number): string {
  return dollars.format(value);
}

/** A 0–1 ratio as "12.5%". */
export function formatRate(ratio: number): string {
  return percent.format(ratio);
}

/**
 * "2026-11-01 14:03:22 UTC". Stored times are UTC; the console says so rather than guessing the
 * reader's zone on the server (the report's days are in REPORT_TIME_ZONE, docs/analytics.md).
 */
export function formatTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** "2026-11-01" from an ISO time (UTC day), for deadlines where the hour does not matter. */
export function formatDay(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toISOString().slice(0, 10);
}

/** A traffic source as people read it: traffic without a sid is stored as "". */
export function formatSid(sid: string | null): string {
  return sid === null || sid === "" ? "(none)" : sid;
}

/** "1 day", "3 days". */
export function pluralDays(days: number): string {
  return `${days} ${days === 1 ? "day" : "days"}`;
}
