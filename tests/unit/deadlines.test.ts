import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { addBusinessDays, dueDate } from "../../server/privacy/deadlines";

const DAY_MS = 86_400_000;
const at = (iso: string) => new Date(iso);
const weekday = (date: Date) => date.toLocaleDateString("en-US", { weekday: "long", timeZone: "UTC" });

describe("addBusinessDays", () => {
  it("from a Friday, skips two weekends: 15 business days is the Friday three weeks later", () => {
    const friday = at("2024-03-01T15:30:00.000Z");
    expect(weekday(friday)).toBe("Friday");
    const due = addBusinessDays(friday, 15);
    expect(due.toISOString()).toBe("2024-03-22T15:30:00.000Z");
    expect(weekday(due)).toBe("Friday");
  });

  it("from a Friday, the first business day is the Monday", () => {
    expect(addBusinessDays(at("2024-03-01T15:30:00Z"), 1).toISOString()).toBe("2024-03-04T15:30:00.000Z");
  });

  it("from a Monday, 15 business days is the Monday three weeks later", () => {
    expect(addBusinessDays(at("2024-03-04T09:00:00Z"), 15).toISOString()).toBe("2024-03-25T09:00:00.000Z");
  });

  it("from a Saturday or Sunday, counting starts on the Monday", () => {
    expect(addBusinessDays(at("2024-03-02T12:00:00Z"), 1).toISOString()).toBe("2024-03-04T12:00:00.000Z");
    expect(addBusinessDays(at("2024-03-03T12:00:00Z"), 15).toISOString()).toBe("2024-03-22T12:00:00.000Z");
  });

  it("zero business days is the same instant, and the input is not changed", () => {
    const start = at("2024-03-01T15:30:00Z");
    expect(addBusinessDays(start, 0).getTime()).toBe(start.getTime());
    addBusinessDays(start, 15);
    expect(start.toISOString()).toBe("2024-03-01T15:30:00.000Z");
  });

  it("lands on a weekday after exactly n weekdays, keeping the time of day (weekdays of the given time zone: UTC here)", () => {
    const start = fc.date({ min: at("2000-01-01T00:00:00Z"), max: at("2100-01-01T00:00:00Z"), noInvalidDate: true });
    fc.assert(
      fc.property(start, fc.integer({ min: 1, max: 60 }), (from, days) => {
        const due = addBusinessDays(from, days, "UTC");
        expect([0, 6]).not.toContain(due.getUTCDay());
        expect((due.getTime() - from.getTime()) % DAY_MS).toBe(0);
        let weekdays = 0;
        for (let t = from.getTime() + DAY_MS; t <= due.getTime(); t += DAY_MS) {
          const day = new Date(t).getUTCDay();
          if (day !== 0 && day !== 6) weekdays += 1;
        }
        expect(weekdays).toBe(days);
      }),
      { numRuns: 300 },
    );
  });
});

describe("dueDate", () => {
  const received = at("2024-03-01T15:30:00.000Z"); // a Friday

  it("opt-out of sale/sharing: 15 business days", () => {
    expect(dueDate("opt_out_sale_sharing", received).toISOString()).toBe("2024-03-22T15:30:00.000Z");
  });

  it("Nevada opt-out: 60 calendar days", () => {
    expect(dueDate("nevada_opt_out", received).toISOString()).toBe("2024-04-30T15:30:00.000Z");
  });

  it.each(["access", "deletion", "correction"] as const)("%s: 45 calendar days, weekends included", (type) => {
    expect(dueDate(type, received).toISOString()).toBe("2024-04-15T15:30:00.000Z");
    // 45 days from a Thursday lands on a Sunday: not moved.
    const due = dueDate(type, at("2024-03-07T10:00:00Z"));
    expect(due.toISOString()).toBe("2024-04-21T10:00:00.000Z");
    expect(weekday(due)).toBe("Sunday");
  });

  it("calendar deadlines are exact multiples of 24 hours across a DST change and a leap day", () => {
    const start = at("2024-02-20T08:00:00Z");
    expect(dueDate("deletion", start).getTime() - start.getTime()).toBe(45 * DAY_MS);
    expect(dueDate("nevada_opt_out", start).getTime() - start.getTime()).toBe(60 * DAY_MS);
  });

  it("counts business days in US time: a request received Sunday evening Pacific is due by the 15th US business day after", () => {
    // Sunday 3 March 2024, 17:00 PST (Monday 01:00 UTC). In California the request arrived on a
    // Sunday; the 15 business days after it run Monday 4 March … Friday 22 March, which ends at
    // midnight PDT (07:00 UTC on the 23rd). Weekdays taken in UTC make it Monday 25 March 01:00 UTC
    // (Sunday 24 March, 18:00 PDT): two days past the legal deadline, against the module's own
    // promise that "the due date is never later than the legal one".
    const sundayEveningPacific = at("2024-03-04T01:00:00Z");
    const endOfFriday22Pacific = at("2024-03-23T07:00:00Z");
    const due = dueDate("opt_out_sale_sharing", sundayEveningPacific);
    expect(due.getTime(), `due ${due.toISOString()}, legal deadline ${endOfFriday22Pacific.toISOString()}`).toBeLessThanOrEqual(endOfFriday22Pacific.getTime());
  });
});
