/**
 * Report days: "YYYY-MM-DD" strings in the report time zone (REPORT_TIME_ZONE), as the rollup
 * stores them. Arithmetic on them is calendar arithmetic (done in UTC, where no day is 23 or 25
 * hours long), never "add 86,400,000 ms to a local time". The day an instant falls on is
 * shared/formatters.ts's dayIn, as the event store uses it.
 */

const DAY_MS = 86_400_000;
const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

/** Whether `value` is a real day written "YYYY-MM-DD" (2026-02-30 is not). */
export function isDay(value: string): boolean {
  if (!DAY_PATTERN.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

/** The day `count` days after `day` (before, when negative). */
export function addDays(day: string, count: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + count * DAY_MS).toISOString().slice(0, 10);
}

/** How many days from `since` to `until` (until exclusive): 2026-11-01 → 2026-11-08 is 7. */
export function daysBetween(since: string, until: string): number {
  return Math.round((Date.parse(`${until}T00:00:00Z`) - Date.parse(`${since}T00:00:00Z`)) / DAY_MS);
}
