/** Where sign-in sends the user afterwards (server/admin/next-path.ts): console pages only, no open redirect. */
import { describe, expect, it } from "vitest";
import { safeNextPath } from "../../server/admin/next-path";

describe("the sign-in's next page", () => {
  it.each([
    ["/", "/"],
    ["/journey?tid=t1", "/journey?tid=t1"],
    ["/leads?reference=LD-7K3M-Q9XD", "/leads?reference=LD-7K3M-Q9XD"],
    ["/privacy-requests", "/privacy-requests"],
    ["/buyers", "/buyers"],
  ])("keeps the console page %s", (next, expected) => {
    expect(safeNextPath(next)).toBe(expected);
  });

  it.each([
    "https://evil.example/",
    "//evil.example/",
    "/\\evil.example",
    "\\\\evil.example",
    "javascript:alert(1)",
    "/sign-in",
    "/sign-out",
    "/leads/retry",
    "/report.csv",
    "/nowhere",
    "/ /evil",
    "",
    "/".repeat(600),
  ])("sends %s to the report instead", (next) => {
    expect(safeNextPath(next)).toBe("/");
  });

  it("ignores what is not one string (a repeated field)", () => {
    expect(safeNextPath(["/buyers", "/leads"])).toBe("/");
    expect(safeNextPath(undefined)).toBe("/");
  });
});
