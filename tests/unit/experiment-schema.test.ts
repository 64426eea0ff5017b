/**
 * An experiment's own rules (server/experiments/schema.ts, issue 45's bad-input target): shares
 * that do not add up to 100, a value a knob's page cannot show and a control that changes something
 * are refused with the field's path; two experiments that are not stopped clash when they change the
 * same knob for overlapping sources, and a stopped one never clashes.
 */
import { describe, expect, it } from "vitest";
import { clashes, experimentSchema, type Experiment } from "../../server/experiments/schema";

const base = {
  id: "headline-test",
  name: "Headline test",
  hypothesis: "A shorter headline gets more visitors to enter their ZIP code.",
  startAt: "2026-05-01T09:00:00.000Z",
  variants: [
    { id: "control", name: "Control", share: 50 },
    { id: "short", name: "Short headline", share: 50, values: { "landing.headline": "Cheaper car insurance, fast" } },
  ],
};

const issuesOf = (input: unknown) => {
  const parsed = experimentSchema.safeParse(input);
  if (parsed.success) throw new Error("expected the experiment to be refused");
  return parsed.error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message }));
};

const experiment = (overrides: Record<string, unknown> = {}): Experiment => experimentSchema.parse({ ...base, ...overrides });

describe("an experiment's schema", () => {
  it("accepts a control and a variant that changes one knob, as a draft measured by net revenue per visitor", () => {
    expect(experiment()).toMatchObject({ status: "draft", primaryMetric: "net_revenue_per_visitor", variants: [{ values: {} }, { values: { "landing.headline": "Cheaper car insurance, fast" } }] });
  });

  it("refuses shares that do not add up to 100, naming the variants and the total", () => {
    const issues = issuesOf({ ...base, variants: [{ ...base.variants[0], share: 50 }, { ...base.variants[1], share: 40 }] });
    expect(issues).toContainEqual({ path: "variants", message: "the variants' shares add up to 90, not 100" });
  });

  it("refuses a share that is not a whole percent, at that variant's share", () => {
    expect(issuesOf({ ...base, variants: [{ ...base.variants[0], share: 49.5 }, { ...base.variants[1], share: 50.5 }] }).map((issue) => issue.path)).toContain("variants.0.share");
  });

  it.each([
    ["landing.headline", "<b>Cheap</b> car insurance", "plain text, one line"],
    ["landing.headline", "Too short", "at least 10 characters"],
    ["landing.headline", "x".repeat(71), "at most 70 characters, to fit a phone's first screen"],
    ["landing.buttonText", "Go →", "plain text, one line, without the arrow (the page adds it)"],
    ["landing.buttonText", "Get my quotes from every carrier now", "at most 24 characters, to fit the button on a phone"],
  ])("refuses %s = %j beside that knob's field", (knob, value, message) => {
    const issues = issuesOf({ ...base, variants: [base.variants[0], { ...base.variants[1], values: { [knob]: value } }] });
    expect(issues).toContainEqual({ path: `variants.1.values.${knob}`, message });
  });

  it("refuses a yes/no knob given anything but a boolean, and a knob that does not exist, each at its field", () => {
    const issues = issuesOf({ ...base, variants: [base.variants[0], { ...base.variants[1], values: { "landing.carrierLogos": "no", "landing.colour": "red" } }] });
    expect(issues.map((issue) => issue.path)).toEqual(expect.arrayContaining(["variants.1.values.landing.carrierLogos", "variants.1.values.landing.colour"]));
    expect(issues.find((issue) => issue.path === "variants.1.values.landing.colour")?.message).toMatch(/^not something a variant can change/);
  });

  it("refuses a control that changes something, and a variant that changes nothing", () => {
    const issues = issuesOf({ ...base, variants: [{ ...base.variants[0], values: { "form.skipCoverage": true } }, { ...base.variants[1], values: {} }] });
    expect(issues).toContainEqual({ path: "variants.0.values", message: "the first variant is the control: it changes nothing" });
    expect(issues).toContainEqual({ path: "variants.1.values", message: "a variant changes at least one thing" });
  });

  it("refuses a stop before the start, at the stop", () => {
    expect(issuesOf({ ...base, stopAt: "2026-04-30T09:00:00.000Z" })).toContainEqual({ path: "stopAt", message: "the stop must be after the start" });
  });
});

describe("clashes between experiments", () => {
  const headline = (id: string, overrides: Record<string, unknown> = {}) => experiment({ id, ...overrides });
  const logos = (id: string, overrides: Record<string, unknown> = {}) =>
    experiment({ id, variants: [base.variants[0], { id: "no-logos", name: "No logos", share: 50, values: { "landing.carrierLogos": false } }], ...overrides });

  it("refuses two experiments changing the same knob for every visitor, naming the other and the knob", () => {
    expect(clashes(headline("b", { status: "running" }), [headline("a", { status: "running" })])).toEqual(["experiment a already changes landing page headline for the same traffic"]);
  });

  it("counts a draft: it would clash the moment both run", () => {
    expect(clashes(headline("b"), [headline("a", { status: "running" })])).toHaveLength(1);
  });

  it("refuses the same knob when the sources overlap, and when one of them takes every source", () => {
    expect(clashes(headline("b", { sids: ["fb", "tiktok"] }), [headline("a", { sids: ["tiktok", "google"] })])).toHaveLength(1);
    expect(clashes(headline("b", { sids: ["fb"] }), [headline("a")])).toHaveLength(1);
  });

  it("allows the same knob for sources that do not overlap, and different knobs for the same traffic", () => {
    expect(clashes(headline("b", { sids: ["fb"] }), [headline("a", { sids: ["google"] })])).toEqual([]);
    expect(clashes(logos("b"), [headline("a")])).toEqual([]);
  });

  it("never counts a stopped experiment, on either side", () => {
    expect(clashes(headline("b"), [headline("a", { status: "stopped" })])).toEqual([]);
    expect(clashes(headline("b", { status: "stopped" }), [headline("a", { status: "running" })])).toEqual([]);
  });

  it("does not compare an experiment with its own stored version", () => {
    expect(clashes(headline("a", { status: "running" }), [headline("a", { status: "running" })])).toEqual([]);
  });
});
