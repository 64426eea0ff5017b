/**
 * The report's pure parts (server/analytics/report*.ts): ratios rounded as PostgreSQL rounds them,
 * totals, the funnel, report days and the checks of a report's range.
 */
import { describe, expect, it } from "vitest";
import { funnel, reportTotals, roundedRatio } from "../../server/analytics/report";
import { addDays, daysBetween, isDay } from "../../server/analytics/report-days";
import { REPORT_MAX_DAYS, reportQueryErrors } from "../../server/analytics/report-query";
import type { ReportRow } from "../../shared/analytics";

function row(counts: Partial<ReportRow>): ReportRow {
  const zero = { clicks: 0, unique_clicks: 0, zip_submits: 0, quote_views: 0, form_starts: 0, leads: 0, duplicates: 0, sold: 0, returned: 0, revenue: 0, payout: 0, profit: 0, cr: 0, epc: 0, bids: 0, bid_total: 0, avg_bid: 0, revenue_per_lead: 0 };
  return { date: "2026-11-02", sid: "a1", ...zero, ...counts };
}

describe("roundedRatio", () => {
  it("rounds half away from zero on the exact quotient, as PostgreSQL's round(numeric) does", () => {
    expect(roundedRatio(2, 3, 4)).toBe(0.6667);
    expect(roundedRatio(1, 8, 2)).toBe(0.13);
    expect(roundedRatio(-1, 8, 2)).toBe(-0.13);
    // 1.005 is 1.00499… in binary floating point: (1.005).toFixed(2) gives "1.00".
    expect(roundedRatio(1005, 1000, 2)).toBe(1.01);
    expect(roundedRatio(100_500, 100_000, 2)).toBe(1.01);
    expect(roundedRatio(1, 3, 2)).toBe(0.33);
  });

  it("is 0 without a denominator, never NaN, Infinity or -0", () => {
    expect(roundedRatio(5, 0, 4)).toBe(0);
    expect(Object.is(roundedRatio(-1, 1_000_000, 2), 0)).toBe(true);
  });

  it("stays exact for large counts", () => {
    expect(roundedRatio(123_456_789_01, 7, 2)).toBe(1_763_668_414.43);
  });
});

describe("reportTotals", () => {
  it("adds the counts and money and takes the ratios of the sums, not the sum of the ratios", () => {
    const totals = reportTotals([
      row({ clicks: 4, unique_clicks: 3, leads: 2, sold: 2, revenue: 55.5, payout: 22, profit: 33.5, cr: 0.6667, epc: 18.5, bids: 3, bid_total: 50, avg_bid: 16.67, revenue_per_lead: 27.75 }),
      row({ sid: "b2", clicks: 1, unique_clicks: 1, leads: 1, sold: 1, revenue: 40, payout: 15, profit: 25, cr: 1, epc: 40, bids: 1, bid_total: 40.01, avg_bid: 40.01, revenue_per_lead: 40 }),
      row({ date: "2026-11-03", clicks: 1, unique_clicks: 1, returned: 1, revenue: -25.5, payout: -10, profit: -15.5, epc: -25.5 }),
    ]);
    expect(totals).toEqual({
      date: null,
      sid: null,
      clicks: 6,
      unique_clicks: 5,
      zip_submits: 0,
      quote_views: 0,
      form_starts: 0,
      leads: 3,
      duplicates: 0,
      sold: 3,
      returned: 1,
      revenue: 70,
      payout: 27,
      profit: 43,
      cr: 0.6,
      epc: 14,
      bids: 4,
      bid_total: 90.01,
      // 90.01 / 4 = 22.5025: the total's average, not the average of the rows' averages (28.34).
      avg_bid: 22.5,
      revenue_per_lead: 23.33,
    });
  });

  it("keeps money to the cent however many rows are added", () => {
    const totals = reportTotals(Array.from({ length: 10 }, () => row({ unique_clicks: 1, revenue: 0.1, payout: 0.2 })));
    expect([totals.revenue, totals.payout, totals.profit, totals.epc]).toEqual([1, 2, -1, 0.1]);
  });

  it("is all zeros for no rows", () => {
    expect(reportTotals([])).toMatchObject({ clicks: 0, unique_clicks: 0, revenue: 0, cr: 0, epc: 0 });
  });
});

describe("funnel", () => {
  it("goes from clicks to sales in funnel order", () => {
    const stages = funnel(row({ clicks: 100, unique_clicks: 90, zip_submits: 60, quote_views: 55, form_starts: 30, leads: 10, duplicates: 2, sold: 6 }));
    expect(stages).toEqual([
      { stage: "Clicks", count: 100 },
      { stage: "Unique clicks", count: 90 },
      { stage: "ZIP submits", count: 60 },
      { stage: "Quote page views", count: 55 },
      { stage: "Form starts", count: 30 },
      { stage: "Leads", count: 10 },
      { stage: "Sold", count: 6 },
    ]);
  });
});

describe("report days", () => {
  it("knows real days from impossible ones", () => {
    for (const day of ["2026-11-01", "2028-02-29"]) expect(isDay(day), day).toBe(true);
    for (const day of ["2026-02-29", "2026-13-01", "2026-11-1", "11/01/2026", "", "2026-11-01T00:00"]) expect(isDay(day), day).toBe(false);
  });

  it("counts calendar days, across month, year and daylight-saving changes", () => {
    expect(addDays("2026-10-31", 1)).toBe("2026-11-01");
    expect(addDays("2026-12-31", 1)).toBe("2027-01-01");
    expect(addDays("2026-03-01", -1)).toBe("2026-02-28");
    expect(daysBetween("2026-11-01", "2026-12-01")).toBe(30);
    expect(daysBetween("2026-03-01", "2026-04-01")).toBe(31);
  });
});

describe("reportQueryErrors", () => {
  it("accepts a range, a grouping and a sid (or \"\" for traffic without one)", () => {
    expect(reportQueryErrors({ since: "2026-11-01", until: "2026-12-01", by: "day,sid", sid: "a1" })).toEqual([]);
    expect(reportQueryErrors({ since: "2026-11-01", until: "2026-11-02", sid: "" })).toEqual([]);
  });

  it("says what is wrong with each value", () => {
    expect(reportQueryErrors({ since: "2026-02-30", until: "soon" })).toEqual([
      "since must be a date like 2026-11-01.",
      "until must be a date like 2026-12-01.",
    ]);
    expect(reportQueryErrors({ since: "2026-11-02", until: "2026-11-02" })).toEqual(["until must be after since (until is the day after the last one reported)."]);
    expect(reportQueryErrors({ since: "2026-11-01", until: addDays("2026-11-01", REPORT_MAX_DAYS + 1) })).toEqual([`The range is at most ${REPORT_MAX_DAYS} days.`]);
    expect(reportQueryErrors({ since: "2026-11-01", until: "2026-12-01", by: "week" })).toEqual(["by must be one of day, sid, day,sid."]);
    expect(reportQueryErrors({ since: "2026-11-01", until: "2026-12-01", sid: "a b" })).toHaveLength(1);
  });
});
