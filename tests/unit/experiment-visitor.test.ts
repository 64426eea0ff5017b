/**
 * Assignment and the visitor's cookie (issue 45, docs/experiments.md, "Assignment and exposure"):
 * shares hold over many visitors, a visitor keeps their variant, the cookie is first-party,
 * HttpOnly, SameSite=Lax and lives 90 days, the landing page's cache key names only what differs
 * from the control, and the exposure writer buffers a visitor once.
 */
import { describe, expect, it } from "vitest";
import pino from "pino";
import { parse } from "cookie";
import { experimentSchema } from "../../server/experiments/schema";
import { assign, newVisitorId, variantFor } from "../../server/experiments/assign";
import { experimentCookie, expiredExperimentCookie } from "../../server/experiments/visitor";
import { variantOf } from "../../server/experiments/landing";
import { createExposureWriter } from "../../server/experiments/exposure";
import type { ExposureRow } from "../../server/db/experiment-exposures";
import { controlKnobs, EXPERIMENT_COOKIE } from "../../shared/experiments";

const threeWay = experimentSchema.parse({
  id: "three-way",
  name: "Three headlines",
  hypothesis: "One of two new headlines gets more ZIP codes entered",
  status: "running",
  variants: [
    { id: "control", name: "Control", share: 50 },
    { id: "a", name: "A", share: 30, values: { "landing.headline": "Car Insurance Quotes in Two Minutes" } },
    { id: "b", name: "B", share: 20, values: { "landing.headline": "Stop Overpaying for Car Insurance" } },
  ],
  startAt: "2020-01-01T00:00:00Z",
});

describe("assignment", () => {
  it("splits 100,000 visitors by the variants' shares, each within one percentage point", () => {
    const counts = new Map<string, number>();
    const visitors = 100_000;
    for (let index = 0; index < visitors; index += 1) {
      const variant = variantFor(threeWay, newVisitorId()).id;
      counts.set(variant, (counts.get(variant) ?? 0) + 1);
    }
    for (const variant of threeWay.variants) expect(Math.abs(((counts.get(variant.id) ?? 0) / visitors) * 100 - variant.share), variant.id).toBeLessThan(1);
  });

  it("gives a visitor the same variant every time, and a different experiment its own draw", () => {
    const other = { ...threeWay, id: "other-test" };
    let differs = 0;
    for (let index = 0; index < 2_000; index += 1) {
      const id = newVisitorId();
      const first = variantFor(threeWay, id).id;
      for (let again = 0; again < 3; again += 1) expect(variantFor(threeWay, id).id).toBe(first);
      if (variantFor(other, id).id !== first) differs += 1;
    }
    // Independent draws: about 62% of visitors differ between the two (1 − 0.5² − 0.3² − 0.2²).
    expect(differs).toBeGreaterThan(1_000);
  });

  it("is a pure function of the id: a fixed id falls in a fixed variant (every replica agrees)", () => {
    expect(variantFor(threeWay, "AAAAAAAAAAAAAAAAAAAAAA").id).toBe(variantFor({ id: "three-way", variants: threeWay.variants }, "AAAAAAAAAAAAAAAAAAAAAA").id);
  });

  it("gives no variant without an id", () => {
    expect(assign([threeWay], undefined)).toEqual({ assignments: [], knobs: controlKnobs() });
  });
});

describe("the experiments' cookie", () => {
  it("is first-party, HttpOnly, SameSite=Lax, Path=/, 90 days, Secure when asked", () => {
    const id = newVisitorId();
    const line = experimentCookie(id, true);
    expect(parse(line)[EXPERIMENT_COOKIE]).toBe(id);
    const attributes = line.split("; ").slice(1);
    expect(attributes.sort()).toEqual(["HttpOnly", "Max-Age=7776000", "Path=/", "SameSite=Lax", "Secure"]);
    expect(experimentCookie(id, false)).not.toContain("Secure");
  });

  it("is removed with Max-Age=0", () => {
    expect(expiredExperimentCookie(true)).toMatch(/^qr_vis=; Max-Age=0; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
  });
});

describe("the landing page's variant key", () => {
  it("is empty for the control's values, so the control shares today's cache entry", () => {
    expect(variantOf(controlKnobs())).toEqual({ key: "", knobs: {} });
  });

  it("names only what differs, in a fixed order whatever order experiments set it", () => {
    const a = variantOf({ ...controlKnobs(), "landing.carrierLogos": false, "landing.headline": "Stop Overpaying for Car Insurance" });
    const b = variantOf({ ...controlKnobs(), "landing.headline": "Stop Overpaying for Car Insurance", "landing.carrierLogos": false, "form.skipCoverage": true });
    expect(a).toEqual(b);
    expect(a.knobs).toEqual({ "landing.headline": "Stop Overpaying for Car Insurance", "landing.carrierLogos": false });
  });
});

describe("the exposure writer", () => {
  it("buffers a visitor's exposure to an experiment once, and writes batches", async () => {
    const batches: ExposureRow[][] = [];
    const writer = createExposureWriter({ logger: pino({ level: "silent" }), maxBuffer: 100, flushMs: 60_000, write: async (rows) => void batches.push([...rows]) });
    const visitor = newVisitorId();
    for (let view = 0; view < 5; view += 1) writer.record({ experiment: "three-way", variant: "a", visitorId: visitor, sid: "a1", tid: `T${view}` });
    writer.record({ experiment: "other-test", variant: "control", visitorId: visitor });
    await writer.flush();
    expect(batches).toHaveLength(1);
    expect(batches[0]!.map((row) => [row.experiment, row.tid])).toEqual([["three-way", "T0"], ["other-test", null]]);
    await writer.stop();
  });
});

describe("the landing page's campaign id check", () => {
  it("accepts and refuses exactly what campaignIdSchema does", async () => {
    const { campaignIdSchema } = await import("../../shared/campaign");
    const { CAMPAIGN_ID } = await import("../../server/experiments/landing");
    for (const value of ["a1", "A.b_c-d~e", "x".repeat(64), "x".repeat(65), "", "a b", "a/b", "é", "a%20", "<x>"]) {
      expect(CAMPAIGN_ID.test(value), value).toBe(campaignIdSchema.safeParse(value).success);
    }
  });
});
