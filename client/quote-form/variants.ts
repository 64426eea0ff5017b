/**
 * The quote form's A/B variants (issue 45, docs/experiments.md "The quote form's variants"): the
 * order the screens are asked in for the knobs the session brought. Two knobs touch the form, both
 * on the household's screens, long after the first screen, so applying them when the session
 * arrives changes nothing the visitor has seen:
 * - `form.coverageFirst`: the coverage question comes before the current-insurer question (and
 *   its follow-up, "insured for how long", which must stay right after the insurer it asks about);
 * - `form.skipCoverage`: the coverage question is not asked; the request carries the default,
 *   SKIPPED_COVERAGE_DEFAULT, which the server checks like any answer.
 */
import { SKIPPED_COVERAGE_DEFAULT } from "../../shared/experiments";
import { FORM_KNOB_NAMES, type FormKnobs, type SessionExperiments } from "../../shared/lead/api";
import { FORM_SCREENS, type ScreenId } from "../../shared/lead/fields";

export { SKIPPED_COVERAGE_DEFAULT };

/** No experiment: the order of FORM_SCREENS, every screen asked. */
export const CONTROL_FORM_KNOBS: FormKnobs = { "form.coverageFirst": false, "form.skipCoverage": false };

const indexOf = (id: ScreenId) => FORM_SCREENS.findIndex((screen) => screen.id === id);

/**
 * The screens asked, in order, as indices into FORM_SCREENS (a position keeps naming a screen by
 * its FORM_SCREENS index whatever the order, so a saved position means the same screen in every
 * variant). Skipping wins over reordering: two experiments could set both, and there is then
 * nothing left to reorder.
 */
export function screenOrder(knobs: FormKnobs): number[] {
  const ids: ScreenId[] = FORM_SCREENS.map((screen) => screen.id);
  if (!knobs["form.skipCoverage"] && !knobs["form.coverageFirst"]) return ids.map(indexOf);
  const order: ScreenId[] = ids.filter((id) => id !== "coverage");
  if (!knobs["form.skipCoverage"]) order.splice(order.indexOf("insurer"), 0, "coverage");
  return order.map(indexOf);
}

/**
 * The knobs in a session's answer, or in a saved copy: only true booleans count, anything else is
 * the control's value (a malformed answer must never break the form; it asks every question).
 */
export function formKnobsOf(value: unknown): FormKnobs {
  const knobs = value !== null && typeof value === "object" ? (value as Record<string, unknown>) : {};
  return Object.fromEntries(FORM_KNOB_NAMES.map((name) => [name, knobs[name] === true])) as Record<keyof FormKnobs, boolean>;
}

/** A session's knobs: the control's when no experiment applies (the answer then has no `experiments`). */
export const sessionKnobs = (experiments: SessionExperiments | undefined): FormKnobs => formKnobsOf(experiments?.knobs);
