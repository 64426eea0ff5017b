/**
 * The console's experiment form as data (server/admin/experiment-form.ts) and its history in words
 * (server/admin/experiment-history.ts), issue 45: fields read into the schema's experiment with
 * every problem beside the field it belongs to (a variant row's own field even when an empty row
 * sits before it), times read as UTC, a clash with another experiment named at the knob's field,
 * and a started experiment keeping what defines it.
 */
import { describe, expect, it } from "vitest";
import { checkExperimentForm, experimentToForm, problemsToErrors } from "../../server/admin/experiment-form";
import { experimentChangeSentences } from "../../server/admin/experiment-history";
import { experimentSchema, type Experiment } from "../../server/experiments/schema";
import { experimentProblems } from "../../server/settings/store";
import type { FormValues } from "../../shared/admin-views";

const FORM: FormValues = {
  id: "headline-test",
  name: "Headline test",
  hypothesis: "A shorter headline gets more visitors to enter their ZIP code.",
  primaryMetric: "lead_rate",
  sids: "fb, tiktok",
  startAt: "2026-05-01T09:00",
  stopAt: "",
  "variants.0.id": "control",
  "variants.0.name": "Control",
  "variants.0.share": "50",
  "variants.1.id": "short",
  "variants.1.name": "Short headline",
  "variants.1.share": "50",
  "variants.1.values.landing.headline": "Cheaper car insurance, fast",
  "variants.1.values.landing.carrierLogos": "no",
  "variants.1.values.form.skipCoverage": "",
};

const stored = (overrides: Partial<Experiment> = {}): Experiment => {
  const checked = checkExperimentForm(FORM, { others: [] });
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
  return experimentSchema.parse({ ...checked.experiment, ...overrides });
};

describe("the experiment form", () => {
  it("reads a draft with typed knob values (text, yes/no; unchanged left out), the sources, and the start as UTC", () => {
    const checked = checkExperimentForm(FORM, { others: [] });
    expect(checked).toEqual({
      ok: true,
      experiment: {
        id: "headline-test",
        name: "Headline test",
        hypothesis: "A shorter headline gets more visitors to enter their ZIP code.",
        status: "draft",
        primaryMetric: "lead_rate",
        sids: ["fb", "tiktok"],
        startAt: "2026-05-01T09:00:00.000Z",
        variants: [
          { id: "control", name: "Control", share: 50, values: {} },
          { id: "short", name: "Short headline", share: 50, values: { "landing.headline": "Cheaper car insurance, fast", "landing.carrierLogos": false } },
        ],
      },
    });
  });

  it("writes a stored experiment back into the same fields", () => {
    const values = experimentToForm(stored());
    expect(values).toMatchObject({ sids: "fb, tiktok", startAt: "2026-05-01T09:00", stopAt: "", "variants.1.values.landing.carrierLogos": "no", "variants.1.values.landing.headline": "Cheaper car insurance, fast" });
    expect(checkExperimentForm(values, { stored: stored(), others: [] })).toEqual({ ok: true, experiment: stored() });
  });

  it("names the variants when the shares do not add up to 100, and each bad value at its own row's field", () => {
    // Row 1 left empty: row 2's problems are still shown beside row 2's fields.
    const form: FormValues = { ...FORM };
    for (const key of Object.keys(form)) if (key.startsWith("variants.1.")) delete form[key];
    Object.assign(form, { "variants.2.id": "arrow", "variants.2.name": "Arrow", "variants.2.share": "40", "variants.2.values.landing.buttonText": "Go →" });
    const checked = checkExperimentForm(form, { others: [] });
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.errors).toEqual({
      variants: "The variants' shares add up to 90, not 100.",
      "variants.2.values.landing.buttonText": "Plain text, one line, without the arrow (the page adds it).",
    });
  });

  it("refuses a time that is no time, and a day the month does not have, beside its field", () => {
    const checked = checkExperimentForm({ ...FORM, startAt: "tomorrow", stopAt: "2026-02-30T10:00" }, { others: [] });
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.errors.startAt).toMatch(/^Enter a date and time in UTC/);
    expect(checked.errors.stopAt).toMatch(/that day does not exist/);
  });

  it("names a clash with another experiment at the knob's field, and a taken or reserved id at the id", () => {
    const other = stored({ id: "older", status: "running", sids: ["tiktok"] });
    const checked = checkExperimentForm(FORM, { others: [other] });
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.errors).toEqual({
      "variants.1.values.landing.headline": "Experiment older already changes landing page headline for the same traffic.",
      "variants.1.values.landing.carrierLogos": "Experiment older already changes landing page shows the carrier logos for the same traffic.",
    });
    const taken = checkExperimentForm({ ...FORM, sids: "google" }, { others: [stored({ id: "headline-test", sids: ["tiktok"] })] });
    expect(taken.ok || taken.errors).toEqual({ id: "An experiment with id headline-test exists already." });
    const reserved = checkExperimentForm({ ...FORM, id: "new" }, { others: [] });
    expect(reserved.ok || reserved.errors.id).toMatch(/address of a console page/);
  });

  it("changes only the name, hypothesis and stop of a started experiment, whatever else the form sends", () => {
    const running = stored({ status: "running" });
    const checked = checkExperimentForm({ name: "Headline test, week 2", hypothesis: running.hypothesis, stopAt: "2026-06-01T00:00", "variants.1.share": "90", sids: "" }, { stored: running, others: [] });
    expect(checked).toEqual({ ok: true, experiment: { ...running, name: "Headline test, week 2", stopAt: "2026-06-01T00:00:00.000Z" } });
  });

  it("puts the store's refusals beside the fields the form would have", () => {
    const problems = experimentProblems(stored({ status: "running", variants: [{ id: "control", name: "Control", share: 40, values: {} }, { id: "short", name: "Short", share: 60, values: { "form.coverageFirst": true } }] }), stored({ status: "running" }), []);
    expect(problems).toEqual([{ path: ["variants"], message: expect.stringMatching(/^fixed once the experiment has started/) }]);
    expect(problemsToErrors(problems, FORM, stored({ status: "running" }))).toEqual({ variants: expect.stringMatching(/^Fixed once the experiment has started/) });
  });
});

describe("an experiment's history in words", () => {
  const before = stored();
  const change = (action: string, after: Experiment, actor = "console:ana") => experimentChangeSentences({ action: action as "update", actor, before: before as unknown as Record<string, unknown>, after: after as unknown as Record<string, unknown> });

  it("says each field that changed, the variants by id, in the form's order", () => {
    const after: Experiment = {
      ...before,
      name: "Headline test 2",
      variants: [
        { ...before.variants[0]!, share: 40 },
        { ...before.variants[1]!, share: 30, values: { "landing.headline": "Car insurance for less, today" } },
        { id: "logos", name: "No logos", share: 30, values: { "landing.carrierLogos": false } },
      ],
      sids: undefined,
      stopAt: "2026-06-01T00:00:00.000Z",
    };
    expect(change("update", after)).toEqual([
      "Name changed from “Headline test” to “Headline test 2” by ana.",
      "Variant control share changed from 50% to 40% by ana.",
      "Variant short share changed from 50% to 30% by ana.",
      "Variant short: landing page headline changed from “Cheaper car insurance, fast” to “Car insurance for less, today” by ana.",
      "Variant short: landing page shows the carrier logos removed by ana (it was no).",
      "Variant logos (No logos) 30%: landing page shows the carrier logos no added by ana.",
      "Sources changed from fb, tiktok to every source by ana.",
      "Stop set to 2026-06-01 00:00 UTC by ana.",
    ]);
  });

  it("says a start, a stop and the kill switch, naming who", () => {
    expect(change("start", { ...before, status: "running" })).toEqual(["Started by ana: visitors are assigned from its start."]);
    expect(change("stop", { ...before, status: "stopped" })).toEqual(["Stopped by ana: everyone sees the control."]);
    expect(change("stop_all", { ...before, status: "stopped" }, "console:olivia")).toEqual(["Stopped by olivia with “Stop every experiment”: everyone sees the control."]);
  });
});
