import { describe, expect, it } from "vitest";
import { csvCell, parseDay, UsageError } from "../../server/cli/common";

describe("csvCell", () => {
  it("defuses cells a spreadsheet would run as a formula", () => {
    for (const cell of ["=1+2", "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "\t=1", "+1 415"]) {
      expect(csvCell(cell).replace(/^"/, "").startsWith("'"), cell).toBe(true);
    }
  });

  it("leaves plain signed numbers, such as E.164 phones, as they are", () => {
    for (const cell of ["+14155550134", "-12", "-12.5", "+1"]) expect(csvCell(cell)).toBe(cell);
  });

  it("quotes commas, quotes and line breaks per RFC 4180", () => {
    expect(csvCell('a,"b"\nc')).toBe('"a,""b""\nc"');
  });
});

describe("parseDay", () => {
  it("reads a day as midnight UTC", () => {
    expect(parseDay("2026-02-28", "since")?.toISOString()).toBe("2026-02-28T00:00:00.000Z");
    expect(parseDay(undefined, "since")).toBeUndefined();
  });

  it("refuses days that do not exist instead of rolling them over", () => {
    for (const day of ["2026-02-29", "2026-02-30", "2026-04-31", "2026-13-01", "2026-00-10"]) {
      expect(() => parseDay(day, "since"), day).toThrow(UsageError);
    }
    expect(parseDay("2028-02-29", "since")?.toISOString()).toBe("2028-02-29T00:00:00.000Z");
  });
});
