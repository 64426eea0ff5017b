/**
 * The leads list's form (server/admin/lead-list-query.ts): defaults, days in REPORT_TIME_ZONE,
 * the contact search's normal forms and who may use it, and each bad value named.
 */
import { describe, expect, it } from "vitest";
import { CONTACT_SEARCH_FORBIDDEN, dayStart, leadListSearch, parseLeadListQuery } from "../../server/admin/lead-list-query";
import { maskEmail, maskPhone } from "../../server/admin/lead-list-view";

const ZONE = "America/New_York";
// 02:30 UTC on Nov 3 is still Nov 2 in New York.
const NOW = new Date("2026-11-03T02:30:00Z");
const ops = { role: "ops" as const, buyers: ["summit", "harbor"], timeZone: ZONE, now: NOW };
const analyst = { ...ops, role: "analyst" as const };

describe("the leads list's query", () => {
  it("defaults to the last 7 days of the report's time zone, today included", () => {
    const parsed = parseLeadListQuery({}, ops);
    expect(parsed).toEqual({ kind: "list", query: { since: "2026-10-27", until: "2026-11-03" }, filter: { since: new Date("2026-10-27T04:00:00Z"), until: new Date("2026-11-03T05:00:00Z") } });
  });

  it("starts a day at the zone's midnight, on both sides of a DST change", () => {
    expect(dayStart("2026-11-01", ZONE).toISOString()).toBe("2026-11-01T04:00:00.000Z");
    expect(dayStart("2026-11-02", ZONE).toISOString()).toBe("2026-11-02T05:00:00.000Z");
    expect(dayStart("2026-03-09", ZONE).toISOString()).toBe("2026-03-09T04:00:00.000Z");
    expect(dayStart("2026-07-01", "UTC").toISOString()).toBe("2026-07-01T00:00:00.000Z");
  });

  it("keeps a week when only one end is given, and takes every filter", () => {
    const parsed = parseLeadListQuery({ since: "2026-10-01", sid: "fb01", state: "tx", status: "returned", buyer: "harbor" }, ops);
    expect(parsed).toMatchObject({ kind: "list", query: { since: "2026-10-01", until: "2026-10-08", sid: "fb01", state: "TX", status: "returned", buyer: "harbor" } });
  });

  it("normalizes a phone to E.164 and an email to lower case, and searches every lead kept unless days are given", () => {
    expect(parseLeadListQuery({ find: "(415) 555-0134" }, ops)).toEqual({ kind: "list", query: { find: "(415) 555-0134" }, filter: { phone: "+14155550134" } });
    expect(parseLeadListQuery({ find: " Jane@Example.COM " }, ops)).toMatchObject({ kind: "list", filter: { email: "jane@example.com" } });
    expect(parseLeadListQuery({ find: "jane@example.com", since: "2026-11-01" }, ops)).toMatchObject({ kind: "list", filter: { email: "jane@example.com", since: new Date("2026-11-01T04:00:00Z") } });
  });

  it("sends a reference to its lead, for either role", () => {
    expect(parseLeadListQuery({ find: "ld-7k3m-q9xd " }, analyst)).toEqual({ kind: "reference", reference: "LD-7K3M-Q9XD" });
  });

  it("refuses an analyst's search by phone or email", () => {
    for (const find of ["4155550134", "jane@example.com"]) expect(parseLeadListQuery({ find }, analyst)).toEqual({ kind: "forbidden", message: CONTACT_SEARCH_FORBIDDEN, form: { find } });
  });

  it("names every bad value, repeated keys included", () => {
    const parsed = parseLeadListQuery({ since: "2026-11-31", until: ["2026-11-01", "2026-11-02"], status: "lost", buyer: "nobody", state: "XX", sid: "<b>", after: "page 2" }, ops);
    expect(parsed.kind).toBe("invalid");
    expect(parsed.kind === "invalid" && parsed.errors).toEqual([
      "Until was given more than once.",
      "From must be a date like 2026-11-01.",
      "Source must be a sid: letters, digits, dot, dash or underscore.",
      "State must be a two-letter US state code, like CA.",
      "Status must be one of sold, unsold, returned, test.",
      "There is no buyer nobody.",
      "The page asked for is not one of this list's (after must be a lead reference).",
    ]);
    expect(parseLeadListQuery({ since: "2025-01-01", until: "2026-11-01" }, ops)).toMatchObject({ kind: "invalid", errors: ["The range is at most 400 days."] });
    expect(parseLeadListQuery({ buyer: "summit" }, { ...ops, buyers: [] })).toMatchObject({ kind: "invalid", errors: [expect.stringContaining("No buyers are configured")] });
  });

  it("writes a query back as the links' query string", () => {
    expect(leadListSearch({ since: "2026-11-01", until: "2026-11-08", state: "TX" }, "LD-AAAA-BBBB")).toBe("since=2026-11-01&until=2026-11-08&state=TX&after=LD-AAAA-BBBB");
  });
});

describe("contact details on a screen", () => {
  it("masks all but the phone's last four digits and the email's first letter and domain", () => {
    expect(maskPhone("+14155550134")).toBe("(•••) •••-0134");
    expect(maskEmail("jane.doe@example.com")).toBe("j•••@example.com");
  });
});
