/**
 * Dates of birth as visitors type them, and ages as the US counts them. Used by the date of
 * birth rule (shared/lead/fields.ts) on both sides, and by the server for reports.
 */
import { dateTimeFormat } from "../formatters";

/** The date today in the US's easternmost mainland time zone: nobody is turned away on their 18th birthday. */
function todayInUs(now: Date): { year: number; month: number; day: number } {
  const parts = dateTimeFormat("en-US", { timeZone: "America/New_York", year: "numeric", month: "numeric", day: "numeric" }).formatToParts(now);
  const get = (type: string) => Number(parts.find((part) => part.type === type)?.value);
  return { year: get("year"), month: get("month"), day: get("day") };
}

/**
 * "04/15/1990", "4/15/1990" or "1990-04-15" → "1990-04-15"; undefined when it is not a real
 * calendar date (31 April, 29 February of a common year).
 */
export function parseDateOfBirth(input: string): string | undefined {
  const us = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(input);
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(input);
  const [year, month, day] = us ? [us[3], us[1], us[2]].map(Number) : iso ? [iso[1], iso[2], iso[3]].map(Number) : [];
  if (year === undefined || month === undefined || day === undefined) return undefined;
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  return `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

/** Whole years between an ISO birth date and today (US Eastern). Born 29 February: a year older on 1 March. */
export function ageOn(isoBirthDate: string, now: Date): number {
  const [year, month, day] = isoBirthDate.split("-").map(Number) as [number, number, number];
  const today = todayInUs(now);
  const birthdayPassed = today.month > month || (today.month === month && today.day >= day);
  return today.year - year - (birthdayPassed ? 0 : 1);
}
