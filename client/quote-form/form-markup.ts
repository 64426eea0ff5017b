/**
 * The whole quote form as HTML, from the shared step table (shared/lead/fields.ts): the live
 * region, the honeypot, one fieldset per step (the first showing, the others hidden), the ZIP's
 * place summary, the form-level message and the navigation. build/quote-form-markup.ts writes it
 * into rapidfire.html, so a visitor reads (and answers) the first step before any script runs;
 * view.ts then adopts these very elements.
 *
 * Until the script runs, Next is disabled: the form has no action of its own (answers go out as
 * JSON, with tokens only the script fetches), and a native submit would reload the page and lose
 * what was typed. A disabled default button also stops Enter from submitting (HTML §4.10.21.2).
 */
import { HONEYPOT_FIELD } from "../../shared/lead/api";
import { LEAD_STEPS } from "../../shared/lead/fields";
import { fieldMarkup } from "./fields";
import { element, escapeHtml } from "./markup";

export const FORM_ID = "rf-form";
export const stepIdOf = (index: number) => `rf-step-${index + 1}`;

function stepMarkup(index: number): string {
  const definition = LEAD_STEPS[index]!;
  const heading = `Step ${index + 1} of ${LEAD_STEPS.length}: ${definition.title}`;
  const placeSummary =
    index === 0 ? element("p", { class: "rf-place", hidden: true }, element("span"), " ", element("button", { type: "button", class: "rf-link-button" }, "Change ZIP code")) : "";
  return element(
    "fieldset",
    { class: "rf-step", id: stepIdOf(index), hidden: index > 0 },
    element("legend", {}, element("h2", { tabindex: "-1" }, escapeHtml(heading))),
    placeSummary,
    ...definition.fields.map(fieldMarkup),
  );
}

/** The form's markup, the same on every build and visit: it holds nothing of the visitor's. */
export function quoteFormMarkup(): string {
  return (
    element("p", { class: "rf-visually-hidden", role: "status", "aria-live": "polite" }) +
    element(
      "form",
      { id: FORM_ID, novalidate: true, "aria-label": "Car insurance quote request" },
      // Off-screen and out of the tab order: people never fill it; form-filling bots do.
      element("div", { class: "rf-hp", "aria-hidden": "true" }, element("label", { for: "rf-website" }, "Leave this empty"), element("input", { id: "rf-website", name: HONEYPOT_FIELD, tabindex: "-1", autocomplete: "off" })),
      ...LEAD_STEPS.map((_, index) => stepMarkup(index)),
      element("p", { class: "rf-form-error", role: "alert" }),
      element("div", { class: "rf-nav" }, element("button", { type: "button", class: "rf-back", hidden: true }, "Back"), element("button", { type: "submit", class: "rf-next", disabled: true }, "Next")),
    )
  );
}
