/**
 * When a privacy request must be answered (docs/privacy-operations.md):
 * - opt-out of sale/sharing: 15 business days (Cal. Code Regs. tit. 11, §7026(f));
 * - Nevada opt-out: 60 days (NRS 603A.345);
 * - know/access, deletion, correction: 45 days (Cal. Civ. Code §1798.130(a)(2)).
 * Business days skip Saturdays and Sundays; public holidays are not subtracted (the due date
 * is therefore never later than the legal one).
 */
import type { PrivacyRequestType } from "../../shared/privacy-request";

const DAY_MS = 86_400_000;

export function addBusinessDays(start: Date, days: number): Date {
  const result = new Date(start.getTime());
  let remaining = days;
  while (remaining > 0) {
    result.setTime(result.getTime() + DAY_MS);
    const weekday = result.getUTCDay();
    if (weekday !== 0 && weekday !== 6) remaining -= 1;
  }
  return result;
}

export function dueDate(type: PrivacyRequestType, receivedAt: Date): Date {
  switch (type) {
    case "opt_out_sale_sharing":
      return addBusinessDays(receivedAt, 15);
    case "nevada_opt_out":
      return new Date(receivedAt.getTime() + 60 * DAY_MS);
    case "access":
    case "deletion":
    case "correction":
      return new Date(receivedAt.getTime() + 45 * DAY_MS);
  }
}
