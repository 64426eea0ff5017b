/**
 * The one offer evaluator (server/delivery/offer.ts) and the buyers' `filters` schema
 * (server/delivery/filter-schema.ts): every filter at its edges (include and exclude, ZIP
 * prefixes, ages on a birthday by the US calendar, how long insured, counts and yes/no facts,
 * coverage), the order the rules are read in and the words ops read, and each refusal of a bad
 * `filters` object naming the buyer's field.
 */
import { describe, expect, it } from "vitest";
import { buyerSchema, type Buyer } from "../../server/delivery/buyers";
import { evaluateOffer, mayOffer, offerFacts, type OfferDriver, type OfferLead } from "../../server/delivery/offer";
import { filtersSchema } from "../../server/delivery/filter-schema";

const NOW = new Date("2026-06-15T16:00:00Z");
const named = new Set(["acme"]);

function buyer(extra: Record<string, unknown> = {}): Buyer {
  return buyerSchema.parse({ id: "acme", name: "Acme Insurance Agency", url: "https://buyer.example/leads", secret: "x".repeat(32), price: 10, ...extra });
}

const driver = (overrides: Partial<OfferDriver> = {}): OfferDriver => ({ dateOfBirth: "1990-04-15", accidents: 0, tickets: 0, claims: 0, dui: false, sr22: false, ...overrides });

function lead(overrides: Partial<OfferLead> = {}): OfferLead {
  return { state: "CA", zip: "90210", test: false, drivers: [driver()], vehicles: [{}], currentlyInsured: true, insuredFor: "1_3y", coverage: "standard", residence: "own", ...overrides };
}

/** The evaluator's answer for a buyer with these filters and this lead, at NOW. */
function verdict(filters: Record<string, unknown>, overrides: Partial<OfferLead> = {}, now = NOW) {
  return evaluateOffer(buyer({ filters }), offerFacts(lead(overrides), now), { named, now });
}
const reason = (filters: Record<string, unknown>, overrides: Partial<OfferLead> = {}, now = NOW) => {
  const result = verdict(filters, overrides, now);
  return result.offered ? "offered" : result.reason;
};

describe("the rules before the filters", () => {
  it("offers a real lead to a buyer named in its consent with no filters at all", () => {
    expect(evaluateOffer(buyer(), offerFacts(lead(), NOW), { named, now: NOW })).toEqual({ offered: true });
    expect(mayOffer(buyer(), offerFacts(lead(), NOW), named, NOW)).toBe(true);
  });

  it("keeps test leads and sandbox buyers to each other, and real leads to buyers named in the consent", () => {
    const facts = offerFacts(lead(), NOW);
    const test = offerFacts(lead({ test: true }), NOW);
    expect(evaluateOffer(buyer({ sandbox: true }), facts, { named, now: NOW })).toEqual({ offered: false, rule: "sandbox", reason: "a real lead: a sandbox buyer takes test leads only" });
    expect(evaluateOffer(buyer(), test, { named, now: NOW })).toEqual({ offered: false, rule: "sandbox", reason: "a test lead: only sandbox buyers take them" });
    // A test lead needs no consent naming (sandbox buyers are never named to visitors).
    expect(evaluateOffer(buyer({ sandbox: true }), test, { named: new Set(), now: NOW }).offered).toBe(true);
    expect(evaluateOffer(buyer(), facts, { named: new Set(["other"]), now: NOW })).toEqual({ offered: false, rule: "consent", reason: "not named in the consent the visitor agreed to" });
  });

  it("reads today's `states` as before", () => {
    expect(evaluateOffer(buyer({ states: ["CA", "TX"] }), offerFacts(lead({ state: "TX" }), NOW), { named, now: NOW }).offered).toBe(true);
    expect(evaluateOffer(buyer({ states: ["CA", "TX"] }), offerFacts(lead({ state: "FL" }), NOW), { named, now: NOW })).toEqual({ offered: false, rule: "state", reason: "state FL is not among its states" });
  });

  it("applies the schedule last, at the time of offer, unless told not to", () => {
    // 16:00 UTC on a Monday is 12:00 in New York: outside 13:00–17:00.
    const closed = buyer({ schedule: { timeZone: "America/New_York", from: "13:00", to: "17:00" }, filters: { dui: false } });
    const facts = offerFacts(lead(), NOW);
    expect(evaluateOffer(closed, facts, { named, now: NOW })).toEqual({ offered: false, rule: "schedule", reason: "closed by its schedule at the time of offer" });
    expect(evaluateOffer(closed, facts, { named, now: new Date("2026-06-15T17:00:00Z") }).offered).toBe(true);
    expect(evaluateOffer(closed, facts, { named, now: NOW, schedule: false }).offered).toBe(true);
    // A filter that excludes is named before the schedule.
    expect(evaluateOffer(closed, offerFacts(lead({ drivers: [driver({ dui: true })] }), NOW), { named, now: NOW })).toMatchObject({ rule: "dui" });
  });
});

describe("ZIP codes and prefixes", () => {
  it("excludes a listed ZIP, and a ZIP under an excluded prefix, naming it", () => {
    expect(reason({ zips: { exclude: ["90210", "10001"] } })).toBe("ZIP 90210 is excluded");
    expect(reason({ zips: { exclude: ["90211"] } })).toBe("offered");
    expect(reason({ zipPrefixes: { exclude: ["902"] } })).toBe("ZIP 90210 is excluded (prefix 902)");
    expect(reason({ zipPrefixes: { exclude: ["9"] } })).toBe("ZIP 90210 is excluded (prefix 9)");
    expect(reason({ zipPrefixes: { exclude: ["9021"] } }, { zip: "90219" })).toBe("ZIP 90219 is excluded (prefix 9021)");
    expect(reason({ zipPrefixes: { exclude: ["903"] } })).toBe("offered");
  });

  it("with include lists, takes a ZIP listed exactly or under a listed prefix, and nothing else", () => {
    const include = { zips: { include: ["10001"] }, zipPrefixes: { include: ["902", "33"] } };
    expect(reason(include)).toBe("offered");
    expect(reason(include, { zip: "10001" })).toBe("offered");
    expect(reason(include, { zip: "33101" })).toBe("offered");
    expect(reason(include, { zip: "10002" })).toBe("ZIP 10002 is not among its ZIP codes and prefixes");
    expect(reason({ zips: { include: ["90211"] } })).toBe("ZIP 90210 is not among its ZIP codes and prefixes");
  });

  it("lets an exclusion win over an inclusion", () => {
    expect(reason({ zipPrefixes: { include: ["90"] }, zips: { exclude: ["90210"] } })).toBe("ZIP 90210 is excluded");
  });
});

describe("drivers' ages, at the time of offer by the US calendar", () => {
  // Born 15 June 2005: 21 from the first minute of 15 June 2026 in New York (04:00 UTC, daylight time).
  const young = { drivers: [driver(), driver({ dateOfBirth: "2005-06-15" })] };
  it("counts a driver a year older from the birthday, not before", () => {
    expect(reason({ driverAge: { min: 21 } }, young, new Date("2026-06-15T03:59:00Z"))).toBe("youngest driver 20 is under 21");
    expect(reason({ driverAge: { min: 21 } }, young, new Date("2026-06-15T04:00:00Z"))).toBe("offered");
  });

  it("holds the oldest driver to the maximum, the birthday being the first day over it", () => {
    const old = { drivers: [driver({ dateOfBirth: "1951-06-15" }), driver()] };
    expect(reason({ driverAge: { max: 74 } }, old, new Date("2026-06-14T16:00:00Z"))).toBe("offered");
    expect(reason({ driverAge: { max: 74 } }, old, NOW)).toBe("oldest driver 75 is over 74");
    expect(reason({ driverAge: { min: 18, max: 75 } }, old, NOW)).toBe("offered");
  });
});

describe("insurance today and for how long", () => {
  it("takes insured or uninsured drivers only, as asked", () => {
    expect(reason({ currentlyInsured: true }, { currentlyInsured: false, insuredFor: undefined })).toBe("not insured today");
    expect(reason({ currentlyInsured: false })).toBe("insured today; it takes uninsured drivers only");
    expect(reason({ currentlyInsured: false }, { currentlyInsured: false })).toBe("offered");
  });

  it("takes a lead insured at least as long as asked, the next shorter one not", () => {
    expect(reason({ insuredForAtLeast: "1_3y" })).toBe("offered");
    expect(reason({ insuredForAtLeast: "1_3y" }, { insuredFor: "over_5y" })).toBe("offered");
    expect(reason({ insuredForAtLeast: "1_3y" }, { insuredFor: "6_12m" })).toBe("not insured for 1 year or more (6 to 12 months)");
    expect(reason({ insuredForAtLeast: "1_3y" }, { currentlyInsured: false, insuredFor: undefined })).toBe("not insured for 1 year or more (not insured today)");
    expect(reason({ insuredForAtLeast: "under_6m" }, { insuredFor: "under_6m" })).toBe("offered");
    // A lead stored before the question was asked cannot show it.
    expect(reason({ insuredForAtLeast: "6_12m" }, { insuredFor: null })).toBe("not insured for 6 months or more (how long was not asked then)");
  });
});

describe("home, vehicles and drivers", () => {
  it("takes homeowners or others only, as asked", () => {
    expect(reason({ homeowner: true })).toBe("offered");
    expect(reason({ homeowner: true }, { residence: "rent" })).toBe("not a homeowner");
    expect(reason({ homeowner: false })).toBe("a homeowner; it takes renters and others only");
    expect(reason({ homeowner: false }, { residence: "other" })).toBe("offered");
    expect(reason({ homeowner: true }, { residence: null })).toBe("home ownership not answered (a lead from before it was asked)");
  });

  it("counts vehicles and drivers within the range, its ends included", () => {
    expect(reason({ vehicles: { min: 1, max: 2 } }, { vehicles: [{}, {}] })).toBe("offered");
    expect(reason({ vehicles: { max: 2 } }, { vehicles: [{}, {}, {}] })).toBe("3 vehicles, more than its 2");
    expect(reason({ vehicles: { min: 2 } })).toBe("1 vehicle, fewer than its 2");
    expect(reason({ drivers: { max: 1 } }, { drivers: [driver(), driver()] })).toBe("2 drivers, more than its 1");
    expect(reason({ drivers: { min: 1, max: 1 } })).toBe("offered");
  });
});

describe("accidents, tickets, claims, DUI and SR-22", () => {
  it("adds the household's incidents, the maximum itself taken", () => {
    const two = { drivers: [driver({ accidents: 1, tickets: 2 }), driver({ accidents: 1, claims: 1 })] };
    expect(reason({ maxAccidents: 2, maxTickets: 2, maxClaims: 1 }, two)).toBe("offered");
    expect(reason({ maxAccidents: 1 }, two)).toBe("2 accidents in the household, more than its 1");
    expect(reason({ maxTickets: 1 }, two)).toBe("2 tickets in the household, more than its 1");
    expect(reason({ maxClaims: 0 }, two)).toBe("1 claim in the household, more than its 0");
    // "3" on the form is "3 or more": so is the household's total past it.
    expect(reason({ maxAccidents: 2 }, { drivers: [driver({ accidents: 3 }), driver({ accidents: 2 })] })).toBe("3 or more accidents in the household, more than its 2");
    expect(reason({ maxAccidents: 3 }, { drivers: [driver({ accidents: 3 }), driver({ accidents: 3 })] })).toBe("offered");
    expect(reason({ maxAccidents: 0 }, { drivers: [driver({ accidents: undefined })] })).toBe("accidents not answered (a lead from before they were asked)");
  });

  it("refuses or requires a DUI and an SR-22, for any driver", () => {
    const dui = { drivers: [driver(), driver({ dui: true })] };
    expect(reason({ dui: false }, dui)).toBe("a driver has a DUI");
    expect(reason({ dui: false })).toBe("offered");
    expect(reason({ dui: true })).toBe("no driver has a DUI; it takes only those that do");
    expect(reason({ dui: true }, dui)).toBe("offered");
    expect(reason({ sr22: false }, { drivers: [driver({ sr22: true })] })).toBe("a driver has to file an SR-22");
    expect(reason({ sr22: true })).toBe("no driver has to file an SR-22; it takes only those that do");
  });
});

describe("coverage wanted", () => {
  it("takes the listed coverages only", () => {
    expect(reason({ coverage: ["standard", "premium"] })).toBe("offered");
    expect(reason({ coverage: ["standard", "premium"] }, { coverage: "state_minimum" })).toBe("wants state minimum coverage; it takes standard, premium");
    expect(reason({ coverage: ["premium"] }, { coverage: null })).toBe("coverage wanted not answered (a lead from before it was asked)");
  });
});

describe("the filters' order: the first rule that excludes is the one named", () => {
  it("names the ZIP before the ages, the ages before the incidents", () => {
    const filters = { zips: { exclude: ["90210"] }, driverAge: { min: 40 }, maxAccidents: 0 };
    const facts = { drivers: [driver({ accidents: 2 })] };
    expect(verdict(filters, facts)).toMatchObject({ rule: "zip" });
    expect(verdict(filters, { ...facts, zip: "90211" })).toMatchObject({ rule: "driverAge" });
    expect(verdict({ ...filters, driverAge: { min: 30 } }, { ...facts, zip: "90211" })).toMatchObject({ rule: "accidents" });
  });
});

describe("a bad `filters` object is refused, naming the buyer's field", () => {
  /** The problems of a buyer with these filters, as the file's loader words them (path: message). */
  function problems(filters: unknown): string[] {
    const result = buyerSchema.safeParse({ id: "acme", name: "Acme Insurance Agency", url: "https://buyer.example/leads", secret: "x".repeat(32), price: 10, filters });
    expect(result.success).toBe(false);
    return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
  }

  it("refuses an unknown key, so a misspelt filter never takes every lead", () => {
    expect(problems({ maxAccident: 1 })).toEqual([expect.stringMatching(/^filters: Unrecognized key: "maxAccident"/)]);
    expect(problems({ zips: { incude: ["90210"] } })[0]).toMatch(/^filters\.zips: Unrecognized key: "incude"/);
  });

  it("refuses ZIPs that are not 5 digits and prefixes that are not 1 to 4", () => {
    expect(problems({ zips: { include: ["9021"] } })).toEqual(["filters.zips.include.0: a 5-digit ZIP code, like 90210"]);
    expect(problems({ zips: { exclude: ["902100"] } })).toEqual(["filters.zips.exclude.0: a 5-digit ZIP code, like 90210"]);
    expect(problems({ zipPrefixes: { exclude: ["90210"] } })).toEqual(["filters.zipPrefixes.exclude.0: a ZIP prefix of 1 to 4 digits, like 902"]);
    expect(problems({ zipPrefixes: { include: [""] } })).toEqual(["filters.zipPrefixes.include.0: a ZIP prefix of 1 to 4 digits, like 902"]);
    expect(problems({ zips: {} })).toEqual(["filters.zips: give include, exclude or both"]);
    expect(problems({ zips: { include: [] } })[0]).toMatch(/^filters\.zips\.include: /);
  });

  it("refuses ages outside 16–110, a minimum over the maximum, and an empty range", () => {
    expect(problems({ driverAge: { min: 15 } })[0]).toMatch(/^filters\.driverAge\.min: .*16/);
    expect(problems({ driverAge: { max: 111 } })[0]).toMatch(/^filters\.driverAge\.max: .*110/);
    expect(problems({ driverAge: { min: 30, max: 25 } })).toEqual(["filters.driverAge.max: min must not be more than max"]);
    expect(problems({ driverAge: { min: 21.5 } })[0]).toMatch(/^filters\.driverAge\.min: /);
    expect(problems({ driverAge: {} })).toEqual(["filters.driverAge: give min, max or both"]);
    expect(filtersSchema.parse({ driverAge: { min: 25, max: 25 } })).toEqual({ driverAge: { min: 25, max: 25 } });
  });

  it("refuses an insured-for, a coverage or a count the form never gives", () => {
    expect(problems({ insuredForAtLeast: "2y" })[0]).toMatch(/^filters\.insuredForAtLeast: .*"1_3y"/);
    expect(problems({ coverage: ["gold"] })[0]).toMatch(/^filters\.coverage\.0: .*"state_minimum"/);
    expect(problems({ coverage: [] })[0]).toMatch(/^filters\.coverage: /);
    expect(problems({ maxAccidents: 4 })[0]).toMatch(/^filters\.maxAccidents: /);
    expect(problems({ maxTickets: -1 })[0]).toMatch(/^filters\.maxTickets: /);
    expect(problems({ vehicles: { max: 5 } })[0]).toMatch(/^filters\.vehicles\.max: /);
    expect(problems({ drivers: { min: 0 } })[0]).toMatch(/^filters\.drivers\.min: /);
    expect(problems({ dui: "no" })[0]).toMatch(/^filters\.dui: /);
    expect(problems({ homeowner: 1 })[0]).toMatch(/^filters\.homeowner: /);
    expect(problems([])[0]).toMatch(/^filters: /);
  });
});
