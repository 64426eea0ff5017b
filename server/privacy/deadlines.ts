/**
 * When a privacy request must be answered (docs/privacy-operations.md):
 * - opt-out of sale/sharing: 15 business days (Cal. Code Regs. tit. 11, §7026(f));
 * - revocation of consent to be contacted: 10 business days (47 CFR 64.1200(a)(10), the FCC's
 *   revocation rule): the honour-by date;
 * - Nevada opt-out: 60 days (NRS 603A.345);
 * - know/access, deletion, correction: 45 days (Cal. Civ. Code §1798.130(a)(2));
 * - appeal of a decision: 45 days, the shortest any state with an appeals duty allows (Colorado,
 *   Oregon; most give 60), as the privacy policy promises (section 17, "Appeals").
 * Business days are weekdays in the business's time zone (US Pacific: the requests are made
 * under California law), counted from the calendar day the request arrived there. Public
 * holidays are not subtracted, so the due date is never later than the legal one.
 */
import type { PrivacyRequestType } from "../../shared/privacy-request";
import { dateTimeFormat } from "../../shared/formatters";

const DAY_MS = 86_400_000;
export const BUSINESS_TIME_ZONE = "America/Los_Angeles";

/** The calendar date of `instant` in `timeZone`, as a UTC-midnight Date (for date arithmetic only). */
function localDate(instant: Date, timeZone: string): Date {
  const parts = dateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(instant);
  return new Date(`${parts}T00:00:00Z`);
}

/** `start` moved forward by `days` weekdays, weekdays being those of the business's calendar. */
export function addBusinessDays(start: Date, days: number, timeZone: string = BUSINESS_TIME_ZONE): Date {
  const day = localDate(start, timeZone);
  let remaining = days;
  let elapsed = 0;
  while (remaining > 0) {
    day.setUTCDate(day.getUTCDate() + 1);
    elapsed += 1;
    const weekday = day.getUTCDay();
    if (weekday !== 0 && weekday !== 6) remaining -= 1;
  }
  return new Date(start.getTime() + elapsed * DAY_MS);
}

export function dueDate(type: PrivacyRequestType, receivedAt: Date): Date {
  switch (type) {
    case "opt_out_sale_sharing":
      return addBusinessDays(receivedAt, 15);
    case "revoke_consent":
      return addBusinessDays(receivedAt, 10);
    case "nevada_opt_out":
      return new Date(receivedAt.getTime() + 60 * DAY_MS);
    case "access":
    case "deletion":
    case "correction":
    case "appeal":
      return new Date(receivedAt.getTime() + 45 * DAY_MS);
  }
}
