/**
 * The offer evaluator's speed (server/delivery/offer.ts; issue 33: under 50 µs per buyer per lead
 * with 100 buyers configured). A figure to report, not a timed test:
 *
 *   npx tsx scripts/bench-filters.ts
 *
 * 100 buyers, each with states, a schedule and a mix of every filter (so every rule runs for most
 * of them), against one lead: the lead's facts worked out once, then every buyer evaluated, as the
 * delivery plan and the auction do; each buyer offered the lead is then priced by its three price
 * rules (priceFor), as fixed-price delivery and the auction's standing bids do. Prints the median
 * of several rounds, per buyer per lead.
 */
import { buyerSchema, type Buyer } from "../server/delivery/buyers";
import { evaluateOffer, offerFacts, priceFor, type OfferLead } from "../server/delivery/offer";

const BUYERS = 100;
const ROUNDS = 15;
const LEADS_PER_ROUND = 2_000;
const TARGET_US = 50;

const STATES = ["CA", "TX", "NY", "FL", "IL", "PA", "OH", "GA", "NC", "MI"];
const buyers: Buyer[] = Array.from({ length: BUYERS }, (_, index) =>
  buyerSchema.parse({
    id: `buyer-${index}`,
    name: `Buyer ${index} Insurance`,
    url: "https://buyer.example/leads",
    secret: "x".repeat(32),
    price: 10 + (index % 20),
    states: STATES.slice(0, 3 + (index % 8)),
    schedule: { timeZone: index % 2 ? "America/New_York" : "America/Los_Angeles", days: ["mon", "tue", "wed", "thu", "fri", "sat", "sun"], from: "00:00", to: "24:00" },
    filters: {
      zips: { exclude: Array.from({ length: 50 }, (_, zip) => String(10_000 + index * 50 + zip)) },
      zipPrefixes: { include: ["9", "1", "3", "6"], exclude: ["006", "007"] },
      driverAge: { min: 16 + (index % 5), max: 80 + (index % 10) },
      currentlyInsured: true,
      insuredForAtLeast: index % 2 ? "6_12m" : "under_6m",
      homeowner: index % 3 === 0 ? true : undefined,
      vehicles: { max: 4 },
      drivers: { max: 4 },
      maxAccidents: 2,
      maxTickets: 3,
      maxClaims: 2,
      dui: false,
      sr22: false,
      coverage: ["state_minimum", "standard", "premium"],
    },
    priceRules: [
      { label: "Homeowners", when: { homeowner: true }, add: 4 },
      { label: "California", when: { states: ["CA"] }, add: -1.5 },
      { label: "Clean record", when: { maxAccidents: 0, maxTickets: 0, zipPrefixes: { include: ["9"] } }, add: 3 },
    ],
  }),
);
const named = new Set(buyers.map((buyer) => buyer.id));
const lead: OfferLead = {
  state: "CA",
  zip: "90210",
  test: false,
  drivers: [
    { dateOfBirth: "1990-04-15", accidents: 0, tickets: 1, claims: 0, dui: false, sr22: false },
    { dateOfBirth: "1988-11-02", accidents: 1, tickets: 0, claims: 1, dui: false, sr22: false },
  ],
  vehicles: [{}, {}],
  currentlyInsured: true,
  insuredFor: "1_3y",
  coverage: "standard",
  residence: "own",
};

let offered = 0;
let revenue = 0;
function oneLead(now: Date): void {
  // As the planner and the auction do: the facts once per lead, then every buyer, priced when offered.
  const facts = offerFacts(lead, now);
  for (const buyer of buyers) {
    if (!evaluateOffer(buyer, facts, { named, now }).offered) continue;
    offered += 1;
    revenue += priceFor(buyer, facts).price;
  }
}

const now = new Date();
for (let warm = 0; warm < 500; warm += 1) oneLead(now);
const perBuyer: number[] = [];
for (let round = 0; round < ROUNDS; round += 1) {
  const start = process.hrtime.bigint();
  for (let index = 0; index < LEADS_PER_ROUND; index += 1) oneLead(now);
  const ns = Number(process.hrtime.bigint() - start);
  perBuyer.push(ns / 1_000 / LEADS_PER_ROUND / BUYERS);
}
perBuyer.sort((a, b) => a - b);
const median = perBuyer[Math.floor(perBuyer.length / 2)]!;
console.log(`offer evaluator and price rules: ${BUYERS} buyers x 1 lead, ${ROUNDS} rounds of ${LEADS_PER_ROUND} leads`);
console.log(`  per buyer per lead: median ${median.toFixed(3)} µs (best ${perBuyer[0]!.toFixed(3)}, worst ${perBuyer.at(-1)!.toFixed(3)}); per lead (100 buyers): ${(median * BUYERS).toFixed(1)} µs`);
console.log(`  target < ${TARGET_US} µs per buyer per lead: ${median < TARGET_US ? "met" : "NOT met"} (${offered > 0 && revenue > 0 ? "some buyers offered and priced" : "no buyer offered"}, as a check the rules ran)`);
