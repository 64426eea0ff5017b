// @vitest-environment happy-dom
/**
 * The quote form's A/B variants (issue 45, client/quote-form/variants.ts): the session's knobs
 * rearrange the household's screens before the visitor reaches them. `form.coverageFirst` asks the
 * coverage question before the insurer's, and the count, Next, Back and a reload follow that
 * order; `form.skipCoverage` asks no coverage question and sends the default, "standard". A
 * session without knobs (no experiment for this visitor) or with malformed ones is the control.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Session } from "../../../client/quote-form/api";
import { screenOrder } from "../../../client/quote-form/variants";
import { SAVED_KEY } from "../../../client/quote-form/saved-answers";
import { CONSENT_DISCLOSURE } from "../../../shared/consent-disclosure";
import { SKIPPED_COVERAGE_DEFAULT } from "../../../shared/experiments";
import type { FormKnobs } from "../../../shared/lead/api";
import { FORM_SCREENS } from "../../../shared/lead/fields";
import {
  $,
  answer,
  backButton,
  countShown,
  fillContact,
  fillDriver,
  fillVehicle,
  headingShown,
  liveRegion,
  nextButton,
  openForm,
  pressNext,
  screenShown,
  settle,
  wall,
} from "./harness";

afterEach(() => {
  document.body.innerHTML = "";
});

const COVERAGE_FIRST: FormKnobs = { "form.coverageFirst": true, "form.skipCoverage": false };
const SKIP_COVERAGE: FormKnobs = { "form.coverageFirst": false, "form.skipCoverage": true };

/** A session the server answers for a visitor in a variant (or, with no knobs, in none). */
function sessionWith(experiments?: unknown) {
  let sessions = 0;
  return vi.fn(async (): Promise<Session> => {
    sessions += 1;
    return { csrfToken: `csrf-${sessions}`, formToken: `form-token-${sessions}`, disclosure: CONSENT_DISCLOSURE, ...(experiments === undefined ? {} : { experiments: experiments as Session["experiments"] }) };
  });
}

/** A session that has not answered yet: the form runs on what it has (its saved order, or the control's). */
function pendingSession() {
  let answer: (session: Session) => void = () => {};
  const openSession = vi.fn(() => new Promise<Session>((resolve) => (answer = resolve)));
  return { openSession, answer: (experiments?: { knobs: FormKnobs }) => answer({ csrfToken: "csrf-late", formToken: "form-token-late", disclosure: CONSENT_DISCLOSURE, ...(experiments ? { experiments } : {}) }) };
}

/** The heading has focus and the count is announced: what a screen reader user meets on each new screen. */
async function expectArrivedOn(screen: string, count: string): Promise<void> {
  expect(screenShown()).toEqual([screen]);
  expect(countShown()).toBe(count);
  expect(document.activeElement).toBe($(".rf-step:not([hidden]) h2"));
  // The announcer writes a moment later (view.ts), so a repeat is heard too.
  await vi.waitFor(() => expect(liveRegion().textContent).toBe(count));
}

/** One car and the visitor, ending on the drivers list. */
async function upToDrivers(): Promise<void> {
  await fillVehicle();
  await pressNext();
  await fillDriver();
}

describe("the screen order of each variant", () => {
  it("is FORM_SCREENS's for the control; coverage before the insurer (and its follow-up) for coverageFirst; no coverage for skipCoverage", () => {
    const ids = (knobs: FormKnobs) => screenOrder(knobs).map((index) => FORM_SCREENS[index]!.id);
    const control = FORM_SCREENS.map((screen) => screen.id);
    expect(ids({ "form.coverageFirst": false, "form.skipCoverage": false })).toEqual(control);
    expect(ids(COVERAGE_FIRST).slice(-6)).toEqual(["drivers", "coverage", "insurer", "insured-for", "residence", "contact"]);
    expect(ids(SKIP_COVERAGE)).toEqual(control.filter((id) => id !== "coverage"));
    // Both set by two experiments: nothing is left to move.
    expect(ids({ "form.coverageFirst": true, "form.skipCoverage": true })).toEqual(ids(SKIP_COVERAGE));
    for (const knobs of [COVERAGE_FIRST, SKIP_COVERAGE]) expect(ids(knobs).at(-1)).toBe("contact");
  });
});

describe("form.coverageFirst", () => {
  it("asks coverage before the insurer, with the count, focus and heading of every screen following the order", async () => {
    const openSession = sessionWith({ knobs: COVERAGE_FIRST });
    const { server } = await openForm(undefined, { openSession });
    // The form's own campaign ids go to the session: experiments may run for some sources only.
    expect(openSession).toHaveBeenCalledWith({ sid: "a1", tid: "b2" });
    expect(countShown()).toBe("Question 1 of 22");
    await upToDrivers();
    expect(countShown()).toBe("Question 18 of 22");
    await pressNext();
    await expectArrivedOn("coverage", "Question 19 of 22");
    expect(headingShown()).toBe("What coverage do you want?");
    await answer("coverage", "premium");
    await expectArrivedOn("insurer", "Question 20 of 22");
    await answer("currentInsurer", "GEICO");
    // A company chosen asks how long: one question more, right after it.
    await expectArrivedOn("insured-for", "Question 21 of 23");
    await answer("insuredFor", "1_3y");
    await expectArrivedOn("residence", "Question 22 of 23");
    await answer("residence", "rent");
    await expectArrivedOn("contact", "Question 23 of 23");
    fillContact();
    await pressNext();
    expect(server.submitLead).toHaveBeenCalledTimes(1);
    const body = server.submitLead.mock.calls[0]![1];
    expect(body).toMatchObject({ coverage: "premium", currentInsurer: "GEICO", insuredFor: "1_3y", residence: "rent" });
    // The variant is the server's to know: the request does not claim one.
    expect(JSON.stringify(body)).not.toMatch(/coverageFirst|experiment|variant/);
  });

  it("goes Back across the swapped screens, every answer kept, and forward again", async () => {
    await openForm(undefined, { openSession: sessionWith({ knobs: COVERAGE_FIRST }) });
    await upToDrivers();
    await pressNext();
    await answer("coverage", "state_minimum");
    await answer("currentInsurer", "GEICO");
    await answer("insuredFor", "1_3y");
    expect(screenShown()).toEqual(["residence"]);
    const back = async (screen: string, count: string) => {
      backButton().click();
      await settle();
      expect(screenShown()).toEqual([screen]);
      expect(countShown()).toBe(count);
      expect(document.activeElement).toBe($(".rf-step:not([hidden]) h2"));
    };
    await back("insured-for", "Question 21 of 23");
    await back("insurer", "Question 20 of 23");
    await back("coverage", "Question 19 of 23");
    expect($<HTMLInputElement>('input[name="coverage"][value="state_minimum"]').checked).toBe(true);
    await back("drivers", "Question 18 of 23");
    for (const screen of ["coverage", "insurer", "insured-for", "residence"]) {
      await pressNext();
      expect(screenShown()).toEqual([screen]);
    }
    // Without a company, "how long" is skipped both ways.
    backButton().click();
    backButton().click();
    await settle();
    await answer("currentlyInsured", "no");
    await expectArrivedOn("residence", "Question 21 of 22");
    backButton().click();
    await settle();
    expect(screenShown()).toEqual(["insurer"]);
  });
});

describe("form.skipCoverage", () => {
  it("never shows the coverage question, counts one question less, and sends the default coverage", async () => {
    const { server } = await openForm(undefined, { openSession: sessionWith({ knobs: SKIP_COVERAGE }) });
    await settle();
    expect(countShown()).toBe("Question 1 of 21");
    await upToDrivers();
    await pressNext();
    await expectArrivedOn("insurer", "Question 19 of 21");
    await answer("currentInsurer", "GEICO");
    await expectArrivedOn("insured-for", "Question 20 of 22");
    await answer("insuredFor", "1_3y");
    await expectArrivedOn("residence", "Question 21 of 22");
    backButton().click();
    await settle();
    expect(screenShown()).toEqual(["insured-for"]);
    await pressNext();
    await answer("residence", "own");
    await expectArrivedOn("contact", "Question 22 of 22");
    // No screen completed was the coverage question: the funnel report sees it was never asked.
    expect(server.sendEvent.mock.calls.map(([event]) => ("screen" in event ? event.screen : undefined))).not.toContain("coverage");
    fillContact();
    await pressNext();
    expect(server.submitLead).toHaveBeenCalledTimes(1);
    expect(server.submitLead.mock.calls[0]![1]).toMatchObject({ coverage: SKIPPED_COVERAGE_DEFAULT, residence: "own" });
    expect(SKIPPED_COVERAGE_DEFAULT).toBe("standard");
  });
});

describe("the control", () => {
  it("keeps FORM_SCREENS's order when the session brings no experiment, or knobs that are not booleans", async () => {
    for (const experiments of [undefined, { knobs: { "form.coverageFirst": "yes", "form.skipCoverage": 1 } }, { knobs: null }]) {
      const { server } = await openForm(undefined, { openSession: sessionWith(experiments) });
      await settle();
      expect(countShown(), JSON.stringify(experiments)).toBe("Question 1 of 22");
      await upToDrivers();
      await pressNext();
      expect(screenShown()).toEqual(["insurer"]);
      await answer("currentlyInsured", "no");
      expect(screenShown()).toEqual(["coverage"]);
      expect(server.submitLead).not.toHaveBeenCalled();
      document.body.innerHTML = "";
    }
  });
});

describe("a reload in a variant", () => {
  it("restores the position in the variant's order at once, before its session answers: count and Back agree", async () => {
    await openForm(undefined, { openSession: sessionWith({ knobs: COVERAGE_FIRST }) });
    await upToDrivers();
    await pressNext();
    await answer("coverage", "premium");
    expect(screenShown()).toEqual(["insurer"]);
    wall.ms += 60_000;
    const late = pendingSession();
    await openForm(undefined, { openSession: late.openSession }, { reload: true });
    expect(screenShown()).toEqual(["insurer"]);
    expect(countShown()).toBe("Question 20 of 22");
    backButton().click();
    await settle();
    expect(screenShown()).toEqual(["coverage"]);
    expect($<HTMLInputElement>('input[name="coverage"][value="premium"]').checked).toBe(true);
    // The session confirms the variant (the assignment is sticky): nothing moves.
    late.answer({ knobs: COVERAGE_FIRST });
    await settle();
    expect(screenShown()).toEqual(["coverage"]);
    expect(countShown()).toBe("Question 19 of 22");
    backButton().click();
    expect(screenShown()).toEqual(["drivers"]);
  });

  it("restores a skip variant's form past the coverage question, which a reload never brings back", async () => {
    await openForm(undefined, { openSession: sessionWith({ knobs: SKIP_COVERAGE }) });
    await upToDrivers();
    await pressNext();
    await answer("currentlyInsured", "no");
    expect(screenShown()).toEqual(["residence"]);
    expect(JSON.parse(window.sessionStorage.getItem(SAVED_KEY)!)).toMatchObject({ knobs: SKIP_COVERAGE, top: { coverage: "standard" } });
    wall.ms += 60_000;
    const late = pendingSession();
    await openForm(undefined, { openSession: late.openSession }, { reload: true });
    expect(screenShown()).toEqual(["residence"]);
    expect(countShown()).toBe("Question 20 of 21");
    backButton().click();
    await settle();
    expect(screenShown()).toEqual(["insurer"]);
    late.answer({ knobs: SKIP_COVERAGE });
    await settle();
    await pressNext();
    await pressNext();
    expect(screenShown()).toEqual(["residence"]);
  });

  it("moves a position the session's variant leaves out to the next question asked, with the default filled in", async () => {
    // Saved by a control form on the coverage question; the session now puts the visitor in the skip variant.
    await openForm(undefined, { openSession: sessionWith() });
    await upToDrivers();
    await pressNext();
    await answer("currentlyInsured", "no");
    expect(screenShown()).toEqual(["coverage"]);
    wall.ms += 60_000;
    const late = pendingSession();
    await openForm(undefined, { openSession: late.openSession }, { reload: true });
    expect(screenShown()).toEqual(["coverage"]);
    late.answer({ knobs: SKIP_COVERAGE });
    await settle();
    expect(screenShown()).toEqual(["residence"]);
    expect(countShown()).toBe("Question 20 of 21");
    expect($<HTMLInputElement>('input[name="coverage"][value="standard"]').checked).toBe(true);
    expect(nextButton().textContent).toBe("Next");
  });
});
