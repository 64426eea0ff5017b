/**
 * The steps: which one shows, the progress bar, the Back and Next buttons, and where focus goes
 * (the step's heading on a new step; the first invalid field when answers need attention).
 */
import { SUBMIT_LABEL } from "../../shared/consent-disclosure";
import { LEAD_FIELDS, LEAD_STEPS, type LeadErrors, type LeadField } from "../../shared/lead/fields";
import type { View } from "./view";

export const STEP_COUNT = LEAD_STEPS.length;

export interface Steps {
  /** The step showing, from 0. */
  readonly current: number;
  isLast(): boolean;
  /** Shows a step; with focusHeading, scrolls to the top and focuses its heading. */
  show(index: number, focusHeading?: boolean): void;
  /** The showing step's fields that are asked (the ZIP always is, even while its place shows). */
  visibleFields(): LeadField[];
  /** Shows the first invalid field of the earliest step with errors, focused, and says how many. */
  reveal(errors: LeadErrors): void;
  /** The progress bar once the request is sent. */
  showSent(): void;
}

export function createSteps(view: View, progress: HTMLElement): Steps {
  let current = 0;

  function show(index: number, focusHeading = true): void {
    current = index;
    view.steps.forEach((section, i) => (section.hidden = i !== index));
    view.backButton.hidden = index === 0;
    view.nextButton.textContent = index === STEP_COUNT - 1 ? SUBMIT_LABEL : "Next";
    progress.dataset.step = String(index + 1);
    progress.setAttribute("aria-valuenow", String(index + 1));
    progress.setAttribute("aria-valuetext", `Step ${index + 1} of ${STEP_COUNT}: ${LEAD_STEPS[index]?.title ?? ""}`);
    view.formError.textContent = "";
    if (focusHeading) {
      window.scrollTo(0, 0);
      view.steps[index]?.querySelector("h2")?.focus();
    }
  }

  function reveal(errors: LeadErrors): void {
    const first = LEAD_FIELDS.find((field) => errors[field]);
    if (!first) return;
    const index = LEAD_STEPS.findIndex((definition) => definition.fields.includes(first));
    if (index !== current) show(index, false);
    for (const [field, message] of Object.entries(errors)) view.showError(field as LeadField, message);
    const count = Object.keys(errors).length;
    view.focusField(first);
    view.announce(count === 1 ? `One answer needs attention: ${errors[first]}` : `${count} answers need attention. The first: ${errors[first]}`);
  }

  view.backButton.addEventListener("click", () => show(Math.max(0, current - 1)));

  return {
    get current() {
      return current;
    },
    isLast: () => current === STEP_COUNT - 1,
    show,
    visibleFields: () => (LEAD_STEPS[current]?.fields ?? []).filter((field) => !view.blockOf(field).hidden || field === "zip"),
    reveal,
    showSent() {
      progress.dataset.step = "done";
      progress.setAttribute("aria-valuenow", String(STEP_COUNT));
      progress.setAttribute("aria-valuetext", "Request sent");
    },
  };
}
