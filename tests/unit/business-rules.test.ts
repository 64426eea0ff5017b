/**
 * The business rules ops set from the console, as pure functions (issue 33, items 2, 5 and 6):
 * the periods caps and budgets count in (the buyer's own hour, day, week and month, across DST),
 * the price a buyer's rules give a lead and the words that say why, the signature that carries two
 * secrets while a rotation overlaps, and the buyer schema's newer fields.
 */
import { describe, expect, it } from "vitest";
import { activeSecrets, buyerSchema, capPeriods, isLimited, shutByLimits } from "../../server/delivery/buyers";
import { offerFacts, priceFor, evaluateOffer } from "../../server/delivery/offer";
import { signBody, verifySignature } from "../../server/delivery/signature";
import { SAMPLE_ANSWERS } from "../../tools/lead-session";

const base = { id: "acme", name: "Acme Insurance Agency", url: "https://leads.acme.example/post", secret: "s".repeat(32), price: 12 };
const buyer = (overrides: Record<string, unknown> = {}) => buyerSchema.parse({ ...base, ...overrides });
const T0 = new Date("2026-11-23T15:00:00Z"); // a Monday, 10:00 in New York
const facts = (overrides: Record<string, unknown> = {}) => offerFacts({ ...SAMPLE_ANSWERS, state: "CA", test: false, ...overrides } as Parameters<typeof offerFacts>[0], T0);

describe("capPeriods: the buyer's hour, day, week (from Monday) and month", () => {
  it("counts in the buyer's time zone, else its schedule's, else US Eastern", () => {
    expect(capPeriods(buyer(), T0)).toEqual({ hour: "2026-11-23T10", day: "2026-11-23", week: "2026-11-23", month: "2026-11" });
    expect(capPeriods(buyer({ timeZone: "America/Los_Angeles" }), new Date("2026-12-01T05:30:00Z"))).toEqual({ hour: "2026-11-30T21", day: "2026-11-30", week: "2026-11-30", month: "2026-11" });
    expect(capPeriods(buyer({ schedule: { timeZone: "Pacific/Honolulu" } }), T0).hour).toBe("2026-11-23T05");
  });

  it("starts a week on Monday, also across a month, a year and a DST change", () => {
    expect(capPeriods(buyer(), new Date("2026-11-29T23:00:00Z")).week).toBe("2026-11-23"); // Sunday evening in New York
    expect(capPeriods(buyer(), new Date("2026-11-30T05:00:00Z")).week).toBe("2026-11-30"); // Monday 00:00
    expect(capPeriods(buyer(), new Date("2027-01-01T15:00:00Z"))).toMatchObject({ week: "2026-12-28", month: "2027-01" });
    // 2026-11-01 01:30 happens twice in New York: both are the same hour key, in the week of 26 October.
    expect(capPeriods(buyer(), new Date("2026-11-01T05:30:00Z"))).toMatchObject({ hour: "2026-11-01T01", week: "2026-10-26" });
    expect(capPeriods(buyer(), new Date("2026-11-01T06:30:00Z"))).toMatchObject({ hour: "2026-11-01T01", week: "2026-10-26" });
  });
});

describe("limits", () => {
  it("knows a buyer with any cap or budget, and one that can take nothing (a cap of 0, a budget below the price)", () => {
    expect(isLimited(buyer())).toBe(false);
    expect(isLimited(buyer({ caps: { week: 10 } }))).toBe(true);
    expect(isLimited(buyer({ budget: { month: 500 } }))).toBe(true);
    expect(shutByLimits(buyer({ caps: { hour: 0 } }), 12)).toBe(true);
    expect(shutByLimits(buyer({ budget: { day: 11.99 } }), 12)).toBe(true);
    expect(shutByLimits(buyer({ budget: { day: 12 } }), 12)).toBe(false);
  });

  it("reads a file's dailyCap as caps.day, and refuses both at once", () => {
    expect(buyer({ dailyCap: 200 }).caps).toEqual({ day: 200 });
    expect(buyer({ dailyCap: 200, caps: { hour: 20 } }).caps).toEqual({ hour: 20, day: 200 });
    expect(buyerSchema.safeParse({ ...base, dailyCap: 200, caps: { day: 100 } }).error?.issues.map((issue) => issue.path.join("."))).toEqual(["dailyCap"]);
    expect(buyerSchema.safeParse({ ...base, caps: { daily: 100 } }).success).toBe(false);
  });
});

describe("priceFor: the base price and the buyer's rules, in order", () => {
  const ruled = buyer({
    priceRules: [
      { label: "Homeowners", when: { homeowner: true }, add: 4 },
      { label: "California", when: { states: ["CA"] }, add: -1.5 },
      { label: "Young drivers", when: { driverAge: { max: 24 } }, add: 6 },
      { label: "Discount", when: {}, add: -20 },
    ],
  });

  it("adds each rule the lead matches and says how the price was reached", () => {
    expect(priceFor(buyer(), facts())).toEqual({ price: 12, reason: "base $12.00" });
    expect(priceFor(buyer({ priceRules: ruled.priceRules!.slice(0, 3) }), facts())).toEqual({ price: 14.5, reason: "base $12.00 + Homeowners +$4.00 + California −$1.50" });
    expect(priceFor(buyer({ priceRules: ruled.priceRules!.slice(0, 3) }), facts({ state: "TX", residence: "rent" }))).toEqual({ price: 12, reason: "base $12.00" });
  });

  it("never goes below $0, and says so", () => {
    expect(priceFor(ruled, facts())).toEqual({ price: 0, reason: "base $12.00 + Homeowners +$4.00 + California −$1.50 + Discount −$20.00 (floored at $0.00)" });
  });

  it("refuses a rule without a label, an unknown condition, or more than 50", () => {
    expect(buyerSchema.safeParse({ ...base, priceRules: [{ label: "", when: {}, add: 1 }] }).success).toBe(false);
    expect(buyerSchema.safeParse({ ...base, priceRules: [{ label: "x", when: { homeOwner: true }, add: 1 }] }).success).toBe(false);
    expect(buyerSchema.safeParse({ ...base, priceRules: Array.from({ length: 51 }, () => ({ label: "x", when: {}, add: 1 })) }).success).toBe(false);
  });
});

describe("status", () => {
  it("offers nothing to a paused or archived buyer, and says which", () => {
    const context = { named: new Set(["acme"]), now: T0 };
    expect(evaluateOffer(buyer(), facts(), context)).toEqual({ offered: true });
    expect(evaluateOffer(buyer({ status: "paused" }), facts(), context)).toEqual({ offered: false, rule: "status", reason: "paused by ops" });
    expect(evaluateOffer(buyer({ status: "archived" }), facts(), context)).toEqual({ offered: false, rule: "status", reason: "archived by ops" });
  });
});

describe("secrets in rotation", () => {
  const old = "o".repeat(32);
  const fresh = "n".repeat(32);
  const rotating = buyer({ secret: fresh, previousSecret: old, previousSecretUntil: "2026-11-24T15:00:00Z" });

  it("uses both secrets until the overlap ends, then the new one alone", () => {
    expect(activeSecrets(rotating, T0)).toEqual([fresh, old]);
    expect(activeSecrets(rotating, new Date("2026-11-24T15:00:00Z"))).toEqual([fresh]);
    expect(buyerSchema.safeParse({ ...base, previousSecret: old }).success).toBe(false);
  });

  it("signs with one v1 per secret, and a signature verifies with either", () => {
    const header = signBody([fresh, old], "{}", T0);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(verifySignature(old, header, "{}", T0)).toBe("ok");
    expect(verifySignature(fresh, header, "{}", T0)).toBe("ok");
    expect(verifySignature("x".repeat(32), header, "{}", T0)).toBe("mismatch");
    expect(verifySignature([fresh, old], signBody(old, "{}", T0), "{}", T0)).toBe("ok");
    expect(verifySignature(fresh, `${header},t=1`, "{}", T0)).toBe("malformed");
  });
});

