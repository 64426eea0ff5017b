/**
 * The calling rules every delivery carries (server/delivery/calling-rules.ts, docs/calling-rules.md):
 * the federal hours everywhere, narrowed where a state's law is stricter, with its frequency limit
 * and the laws cited; the table in the docs is the same as the code's.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { callingRules, FEDERAL_RULE, STATE_RULES, WEEKDAYS } from "../../server/delivery/calling-rules";
import { projectRoot } from "../../tools/production-server";

const window = (start: string, end: string) => ({ start, end });
const everyDay = (start: string, end: string) => Object.fromEntries(WEEKDAYS.map((day) => [day, window(start, end)]));

describe("callingRules", () => {
  it("gives a state without its own law the federal hours, 8 a.m. to 9 p.m. every day, no frequency limit", () => {
    expect(callingRules("CA", "America/Los_Angeles")).toEqual({
      timeZone: "America/Los_Angeles",
      state: "CA",
      hours: everyDay("08:00", "21:00"),
      maxCallsPer24h: null,
      sources: ["47 CFR § 64.1200(c)(1) (Telephone Consumer Protection Act rules)"],
    });
  });

  it("narrows the hours to Florida's 8 a.m. to 8 p.m. with its three calls in 24 hours, in the lead's own zone", () => {
    const rules = callingRules("FL", "America/Chicago");
    expect(rules.timeZone).toBe("America/Chicago");
    expect(rules.hours).toEqual(everyDay("08:00", "20:00"));
    expect(rules.maxCallsPer24h).toBe(3);
    expect(rules.sources).toEqual([FEDERAL_RULE.source, "Fla. Stat. § 501.616(6) (Florida Telephone Solicitation Act)"]);
  });

  it("keeps Texas's later start on Sundays and Oklahoma's and Maryland's limits", () => {
    expect(callingRules("TX", "America/Denver").hours).toEqual({ ...everyDay("09:00", "21:00"), sun: window("12:00", "21:00") });
    expect(callingRules("TX", "America/Denver").maxCallsPer24h).toBeNull();
    expect(callingRules("OK", "America/Chicago")).toMatchObject({ hours: everyDay("08:00", "20:00"), maxCallsPer24h: 3 });
    expect(callingRules("MD", "America/New_York")).toMatchObject({ hours: everyDay("08:00", "20:00"), maxCallsPer24h: 3 });
    expect(callingRules("CT", "America/New_York").hours.mon).toEqual(window("09:00", "20:00"));
  });

  it("never widens the federal hours, and says when the time zone is unknown", () => {
    for (const state of Object.keys(STATE_RULES)) {
      for (const day of WEEKDAYS) {
        const hours = callingRules(state, null).hours[day];
        if (hours) expect(hours.start >= "08:00" && hours.end <= "21:00", `${state} ${day}`).toBe(true);
      }
    }
    expect(callingRules("NY", null).timeZone).toBeNull();
    expect(callingRules("NY", "").timeZone).toBeNull();
  });

  it("is the table docs/calling-rules.md shows, law by law", () => {
    const docs = readFileSync(path.join(projectRoot, "docs", "calling-rules.md"), "utf8");
    for (const [state, law] of Object.entries(STATE_RULES)) {
      const row = docs.split("\n").find((line) => line.startsWith(`| ${state} |`));
      expect(row, state).toBeDefined();
      expect(row).toContain(law.source);
      expect(row).toContain(law.maxCallsPer24h === null ? "—" : String(law.maxCallsPer24h));
    }
    expect(docs).toContain(FEDERAL_RULE.source);
  });
});
