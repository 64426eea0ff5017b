/** The console report's form (server/admin/report-query.ts): bad values are named and replaced by defaults. */
import { describe, expect, it } from "vitest";
import { parseReportQuery } from "../../server/admin/report-query";
import { reportQueryString } from "../../client/admin/report-query";

const ZONE = "America/New_York";
// 02:00 UTC on 15 November is still 14 November in New York.
const NOW = new Date("2026-11-15T02:00:00Z");

describe("the console report's query", () => {
  it("defaults to the last 30 days of the report time zone, by day and sid, bots excluded", () => {
    expect(parseReportQuery({}, ZONE, NOW)).toEqual({ query: { since: "2026-10-16", until: "2026-11-15", by: "day,sid", bots: false }, errors: [] });
  });

  it("takes valid values as they are", () => {
    const { query, errors } = parseReportQuery({ since: "2026-11-01", until: "2026-11-08", by: "sid", bots: "1", sid: "a1" }, ZONE, NOW);
    expect(errors).toEqual([]);
    expect(query).toEqual({ since: "2026-11-01", until: "2026-11-08", by: "sid", bots: true, sid: "a1" });
    // The CSV link the page renders carries exactly the query parsed.
    expect(reportQueryString(query)).toBe("since=2026-11-01&until=2026-11-08&by=sid&bots=1&sid=a1");
  });

  it("draws where visitors leave the form only when asked, and keeps it out of the CSV link", () => {
    expect(parseReportQuery({ screens: "1" }, ZONE, NOW).query.screens).toBe(true);
    expect(parseReportQuery({ screens: "0" }, ZONE, NOW).query).not.toHaveProperty("screens");
    const { query } = parseReportQuery({ since: "2026-11-01", until: "2026-11-08", screens: "on" }, ZONE, NOW);
    expect(reportQueryString(query)).toBe("since=2026-11-01&until=2026-11-08&by=day%2Csid");
  });

  it("keeps a 30-day span when only one end is given", () => {
    expect(parseReportQuery({ since: "2026-10-01" }, ZONE, NOW).query).toMatchObject({ since: "2026-10-01", until: "2026-10-31" });
  });

  it.each([
    [{ since: "2026-02-30" }, /From must be a date/],
    [{ until: "yesterday" }, /Until must be a date/],
    [{ since: "2026-11-10", until: "2026-11-01" }, /after From/],
    [{ since: "2020-01-01", until: "2026-01-01" }, /at most 400 days/],
    [{ by: "week" }, /Group by/],
    [{ bots: "yes please" }, /Include bots/],
    [{ sid: "<script>" }, /Source must be a sid/],
    [{ sid: ["a", "b"] }, /more than once/],
    [{ screens: "please" }, /Where visitors leave the form must be 1 or absent/],
  ] as [Record<string, unknown>, RegExp][])("names the problem with %j and falls back to the defaults", (raw, message) => {
    const { query, errors } = parseReportQuery(raw, ZONE, NOW);
    expect(errors.join(" ")).toMatch(message);
    expect(query.since <= query.until).toBe(true);
    expect(query.by).toBe("day,sid");
    expect(query.sid).toBeUndefined();
  });
});
