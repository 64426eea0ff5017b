/**
 * Whether a lead may be offered to a buyer, and if not which rule said no (issue 33, item 4): the
 * one evaluator that fixed-price delivery (plan.ts, routing.ts), the auction's eligible buyers
 * (server/auction/auctions.ts) and the console's lead page all use, so what ops read there is what
 * happened. Pure: the lead's facts are worked out once per lead (`offerFacts`: the drivers' ages
 * at the time of offer, the household's incident totals) and then checked against each buyer
 * cheaply. Caps and budgets are not here: they are counted by the database where the lead is
 * written (server/db/buyer-counters.ts). `priceFor` prices a lead for a fixed-price buyer by the
 * same rules.
 */
import { ageOn } from "../../shared/lead/dates";
import { INSURED_FOR } from "../../shared/lead/fields";
import { isOpen, takesState, type Buyer } from "./buyers";
import { INSURED_FOR_KEYS, type CoverageWanted, type InsuredFor } from "./filter-schema";

/** A driver as the filters read one; a lead stored before migration 10 lacks the incident facts. */
export interface OfferDriver {
  dateOfBirth: string;
  accidents?: number | undefined;
  tickets?: number | undefined;
  claims?: number | undefined;
  dui?: boolean | undefined;
  sr22?: boolean | undefined;
}

/** What the filters look at: a new lead's answers (`Lead`) or a stored one's (`LeadRecord`) both fit. */
export interface OfferLead {
  state: string;
  zip: string;
  /** A test lead (server/auction/sandbox.ts): for sandbox buyers only. */
  test: boolean;
  drivers: readonly OfferDriver[];
  vehicles: readonly unknown[];
  currentlyInsured: boolean;
  /** Null or absent: not answered (insured today: asked since migration 10). */
  insuredFor?: InsuredFor | null | undefined;
  coverage?: CoverageWanted | null | undefined;
  residence?: string | null | undefined;
}

/** A lead's facts, computed once per lead and time of offer; null: the lead has no answer (an older lead). */
export interface OfferFacts {
  state: string;
  zip: string;
  test: boolean;
  youngest: number;
  oldest: number;
  drivers: number;
  vehicles: number;
  currentlyInsured: boolean;
  insuredFor: InsuredFor | null;
  coverage: CoverageWanted | null;
  homeowner: boolean | null;
  accidents: number | null;
  tickets: number | null;
  claims: number | null;
  dui: boolean | null;
  sr22: boolean | null;
}

export type OfferRule =
  | "status"
  | "sandbox"
  | "consent"
  | "state"
  | "zip"
  | "driverAge"
  | "currentlyInsured"
  | "insuredFor"
  | "homeowner"
  | "vehicles"
  | "drivers"
  | "accidents"
  | "tickets"
  | "claims"
  | "dui"
  | "sr22"
  | "coverage"
  | "schedule";

export type Offer = { offered: true } | { offered: false; rule: OfferRule; reason: string };

export interface OfferContext {
  /** The buyers named in the consent disclosure the lead was agreed under. */
  named: ReadonlySet<string>;
  /** The time of offer: the buyer's schedule is read at it. */
  now: Date;
  /** false: the schedule is not applied (a lead sent as the visitor directed, not sold). */
  schedule?: boolean;
}

/** Counts are 0–3 on the form, 3 meaning "3 or more": a household's total is capped there too. */
const COUNT_CAP = 3;

function total(drivers: readonly OfferDriver[], key: "accidents" | "tickets" | "claims"): number | null {
  let sum = 0;
  for (const driver of drivers) {
    const value = driver[key];
    if (value === undefined) return null;
    sum += value;
  }
  return Math.min(sum, COUNT_CAP);
}

function any(drivers: readonly OfferDriver[], key: "dui" | "sr22"): boolean | null {
  let found = false;
  for (const driver of drivers) {
    const value = driver[key];
    if (value === undefined) return null;
    found ||= value;
  }
  return found;
}

/** The lead's facts at `now` (the time of offer): each driver's age by the US calendar (shared/lead/dates.ts). */
export function offerFacts(lead: OfferLead, now: Date): OfferFacts {
  const ages = lead.drivers.map((driver) => ageOn(driver.dateOfBirth, now));
  return {
    state: lead.state,
    zip: lead.zip,
    test: lead.test,
    youngest: Math.min(...ages),
    oldest: Math.max(...ages),
    drivers: lead.drivers.length,
    vehicles: lead.vehicles.length,
    currentlyInsured: lead.currentlyInsured,
    insuredFor: lead.currentlyInsured ? (lead.insuredFor ?? null) : null,
    coverage: lead.coverage ?? null,
    homeowner: lead.residence === undefined || lead.residence === null ? null : lead.residence === "own",
    accidents: total(lead.drivers, "accidents"),
    tickets: total(lead.drivers, "tickets"),
    claims: total(lead.drivers, "claims"),
    dui: any(lead.drivers, "dui"),
    sr22: any(lead.drivers, "sr22"),
  };
}

/** "insured for at least X", as ops say it. */
const AT_LEAST: Record<InsuredFor, string> = {
  under_6m: "any length of time",
  "6_12m": "6 months or more",
  "1_3y": "1 year or more",
  "3_5y": "3 years or more",
  over_5y: "more than 5 years",
};
const COVERAGE_NAME: Record<CoverageWanted, string> = { state_minimum: "state minimum", standard: "standard", premium: "premium" };
const plural = (count: number, one: string) => `${count} ${one}${count === 1 ? "" : "s"}`;
const no = (rule: OfferRule, reason: string): Offer => ({ offered: false, rule, reason });
const OFFERED: Offer = { offered: true };

function rangeRule(rule: OfferRule, value: number, one: string, range: { min?: number | undefined; max?: number | undefined } | undefined): Offer | undefined {
  if (range?.min !== undefined && value < range.min) return no(rule, `${plural(value, one)}, fewer than its ${range.min}`);
  if (range?.max !== undefined && value > range.max) return no(rule, `${plural(value, one)}, more than its ${range.max}`);
  return undefined;
}

function countRule(rule: "accidents" | "tickets" | "claims", value: number | null, max: number | undefined): Offer | undefined {
  if (max === undefined) return undefined;
  const one = rule.slice(0, -1);
  if (value === null) return no(rule, `${rule} not answered (a lead from before they were asked)`);
  return value > max ? no(rule, `${value === COUNT_CAP ? `${COUNT_CAP} or more ${rule}` : plural(value, one)} in the household, more than its ${max}`) : undefined;
}

function yesNoRule(rule: "dui" | "sr22", value: boolean | null, wanted: boolean | undefined, name: string): Offer | undefined {
  if (wanted === undefined) return undefined;
  if (value === null) return no(rule, `${name} not answered (a lead from before it was asked)`);
  if (value === wanted) return undefined;
  return no(rule, value ? `a driver has ${name === "DUI" ? "a DUI" : "to file an SR-22"}` : `no driver has ${name === "DUI" ? "a DUI" : "to file an SR-22"}; it takes only those that do`);
}

/** The ZIP rules: an exclusion first (exact or by prefix), then the include lists taken together. */
function zipRule(zip: string, filters: NonNullable<Buyer["filters"]>): Offer | undefined {
  if (filters.zips?.exclude?.includes(zip)) return no("zip", `ZIP ${zip} is excluded`);
  const prefix = filters.zipPrefixes?.exclude?.find((one) => zip.startsWith(one));
  if (prefix !== undefined) return no("zip", `ZIP ${zip} is excluded (prefix ${prefix})`);
  const zips = filters.zips?.include;
  const prefixes = filters.zipPrefixes?.include;
  if (zips === undefined && prefixes === undefined) return undefined;
  if (zips?.includes(zip) || prefixes?.some((one) => zip.startsWith(one))) return undefined;
  return no("zip", `ZIP ${zip} is not among its ZIP codes and prefixes`);
}

function insuredRule(facts: OfferFacts, filters: NonNullable<Buyer["filters"]>): Offer | undefined {
  if (filters.currentlyInsured === true && !facts.currentlyInsured) return no("currentlyInsured", "not insured today");
  if (filters.currentlyInsured === false && facts.currentlyInsured) return no("currentlyInsured", "insured today; it takes uninsured drivers only");
  const least = filters.insuredForAtLeast;
  if (least === undefined) return undefined;
  const wanted = `not insured for ${AT_LEAST[least]}`;
  if (!facts.currentlyInsured) return no("insuredFor", `${wanted} (not insured today)`);
  if (facts.insuredFor === null) return no("insuredFor", `${wanted} (how long was not asked then)`);
  if (INSURED_FOR_KEYS.indexOf(facts.insuredFor) < INSURED_FOR_KEYS.indexOf(least)) return no("insuredFor", `${wanted} (${INSURED_FOR[facts.insuredFor].toLowerCase()})`);
  return undefined;
}

/** The lead's answers against the buyer's `filters` (absent: takes every lead). */
function filterRules(facts: OfferFacts, filters: Buyer["filters"]): Offer | undefined {
  if (filters === undefined) return undefined;
  const age = filters.driverAge;
  return (
    zipRule(facts.zip, filters) ??
    (age?.min !== undefined && facts.youngest < age.min ? no("driverAge", `youngest driver ${facts.youngest} is under ${age.min}`) : undefined) ??
    (age?.max !== undefined && facts.oldest > age.max ? no("driverAge", `oldest driver ${facts.oldest} is over ${age.max}`) : undefined) ??
    insuredRule(facts, filters) ??
    (filters.homeowner !== undefined && facts.homeowner === null ? no("homeowner", "home ownership not answered (a lead from before it was asked)") : undefined) ??
    (filters.homeowner === true && facts.homeowner === false ? no("homeowner", "not a homeowner") : undefined) ??
    (filters.homeowner === false && facts.homeowner === true ? no("homeowner", "a homeowner; it takes renters and others only") : undefined) ??
    rangeRule("vehicles", facts.vehicles, "vehicle", filters.vehicles) ??
    rangeRule("drivers", facts.drivers, "driver", filters.drivers) ??
    countRule("accidents", facts.accidents, filters.maxAccidents) ??
    countRule("tickets", facts.tickets, filters.maxTickets) ??
    countRule("claims", facts.claims, filters.maxClaims) ??
    yesNoRule("dui", facts.dui, filters.dui, "DUI") ??
    yesNoRule("sr22", facts.sr22, filters.sr22, "SR-22") ??
    (filters.coverage !== undefined && (facts.coverage === null || !filters.coverage.includes(facts.coverage))
      ? no("coverage", facts.coverage === null ? "coverage wanted not answered (a lead from before it was asked)" : `wants ${COVERAGE_NAME[facts.coverage]} coverage; it takes ${filters.coverage.map((one) => COVERAGE_NAME[one]).join(", ")}`)
      : undefined)
  );
}

/**
 * Offered, or the first rule that excluded the lead, in words ops understand. In order: the buyer
 * is active (not paused nor archived from the console); a real
 * lead to a non-sandbox buyer named in its consent disclosure, a test lead (server/auction/sandbox.ts)
 * to a sandbox buyer only (no visitor consented to those: they are never named); the buyer's
 * `states`; its `filters`; last its schedule (the only rule that depends on the clock's time of day).
 */
export function evaluateOffer(buyer: Buyer, facts: OfferFacts, context: OfferContext): Offer {
  if (buyer.status !== "active") return no("status", buyer.status === "paused" ? "paused by ops" : "archived by ops");
  if (buyer.sandbox !== facts.test) return facts.test ? no("sandbox", "a test lead: only sandbox buyers take them") : no("sandbox", "a real lead: a sandbox buyer takes test leads only");
  if (!facts.test && !context.named.has(buyer.id)) return no("consent", "not named in the consent the visitor agreed to");
  if (!takesState(buyer, facts.state)) return no("state", `state ${facts.state} is not among its states`);
  const filtered = filterRules(facts, buyer.filters);
  if (filtered) return filtered;
  if (context.schedule !== false && !isOpen(buyer, context.now)) return no("schedule", "closed by its schedule at the time of offer");
  return OFFERED;
}

/** Whether the lead may be offered to the buyer now, by fixed-price post or in the auction (caps aside). */
export function mayOffer(buyer: Buyer, facts: OfferFacts, named: ReadonlySet<string>, now: Date): boolean {
  return evaluateOffer(buyer, facts, { named, now }).offered;
}

/** The price a fixed-price buyer pays for this lead, and how it was reached (kept with the delivery). */
export interface PricedOffer {
  price: number;
  /** "base $12.00", or "base $12.00 + Homeowners +$4.00 + CA −$1.50". */
  reason: string;
}

const dollars = (amount: number) => `$${Math.abs(amount).toFixed(2)}`;

/**
 * The buyer's base price with each of its price rules the lead matches added in order (a rule
 * matches when the lead is from one of its states and passes its filters, read as offer() reads
 * a buyer's); never below 0, rounded to the cent.
 */
export function priceFor(buyer: Pick<Buyer, "price" | "priceRules">, facts: OfferFacts): PricedOffer {
  let price = buyer.price;
  const parts = [`base ${dollars(buyer.price)}`];
  for (const rule of buyer.priceRules ?? []) {
    const { states, ...filters } = rule.when;
    if (states !== undefined && !states.includes(facts.state)) continue;
    if (filterRules(facts, filters) !== undefined) continue;
    price += rule.add;
    parts.push(`${rule.label} ${rule.add < 0 ? "−" : "+"}${dollars(rule.add)}`);
  }
  const final = Math.max(0, Math.round(price * 100) / 100);
  return { price: final, reason: parts.join(" + ") + (final !== Math.round(price * 100) / 100 ? " (floored at $0.00)" : "") };
}
