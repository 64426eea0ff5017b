/**
 * The quote form's DOM, built once per form from the shared step table (shared/lead/fields.ts):
 * the steps and their fields, the ZIP's place summary, the navigation buttons, the form-level
 * message and the screen-reader announcer. It reads the answers from the inputs and shows or
 * clears each field's message; it decides nothing.
 */
import { HONEYPOT_FIELD } from "../../shared/lead/api";
import { LEAD_FIELDS, LEAD_STEPS, type LeadField, type RawLead } from "../../shared/lead/fields";
import { buildField, errorIdOf } from "./fields";
import { h } from "./dom";
import { gpcNotice } from "./gpc-notice";

export type Control = HTMLInputElement | HTMLSelectElement;

export interface View {
  form: HTMLFormElement;
  /** One fieldset per step, in order. */
  steps: HTMLFieldSetElement[];
  formError: HTMLElement;
  backButton: HTMLButtonElement;
  nextButton: HTMLButtonElement;
  honeypot: HTMLInputElement;
  /** "Quotes for City, ST 12345." and its "Change ZIP code" button, at the top of step 1. */
  placeSummary: HTMLElement;
  placeText: HTMLElement;
  changeZipButton: HTMLButtonElement;
  /** The field's control(s): one input or select, or a group's radios. */
  controlsOf(field: LeadField): Control[];
  /** The field's block: label, control(s), hint and message. */
  blockOf(field: LeadField): HTMLElement;
  /** Every answer as typed: text, the chosen radio's value ("" for none), the consent box's state. */
  readRaw(): RawLead;
  showError(field: LeadField, message: string | undefined): void;
  hasError(field: LeadField): boolean;
  /** Focuses the field: its chosen radio, else its first control. */
  focusField(field: LeadField): void;
  /** Says the message through the polite live region. */
  announce(message: string): void;
  /** The field an event's target answers, if any. */
  fieldOf(target: EventTarget | null): LeadField | undefined;
}

/** Builds the form into root and hands back its parts. */
export function buildView(root: HTMLElement): View {
  const live = h("p", { class: "rf-visually-hidden", role: "status", "aria-live": "polite" });
  const formError = h("p", { class: "rf-form-error", role: "alert" });
  const backButton = h("button", { type: "button", class: "rf-back" }, "Back");
  const nextButton = h("button", { type: "submit", class: "rf-next" }, "Next");
  const placeText = h("span", {});
  const changeZipButton = h("button", { type: "button", class: "rf-link-button" }, "Change ZIP code");
  const placeSummary = h("p", { class: "rf-place", hidden: true }, placeText, " ", changeZipButton);
  const honeypot = h("input", { id: "rf-website", name: HONEYPOT_FIELD, tabindex: "-1", autocomplete: "off" });
  const blocks = {} as Record<LeadField, HTMLElement>;
  const steps = LEAD_STEPS.map((definition, index) =>
    h(
      "fieldset",
      { class: "rf-step", id: `rf-step-${index + 1}`, hidden: index > 0 },
      h("legend", {}, h("h2", { tabindex: "-1" }, `Step ${index + 1} of ${LEAD_STEPS.length}: ${definition.title}`)),
      index === 0 ? placeSummary : null,
      // The Global Privacy Control notice, when the browser sends it, just above the consent box.
      ...definition.fields.flatMap((field) => [field === "consent" ? gpcNotice() : null, (blocks[field] = buildField(field))]),
    ),
  );
  const form = h(
    "form",
    { id: "rf-form", novalidate: true, "aria-label": "Car insurance quote request" },
    // Off-screen and out of the tab order: people never fill it; form-filling bots do.
    h("div", { class: "rf-hp", "aria-hidden": "true" }, h("label", { for: "rf-website" }, "Leave this empty"), honeypot),
    ...steps,
    formError,
    h("div", { class: "rf-nav" }, backButton, nextButton),
  );
  root.append(live, form);

  const controlsOf = (field: LeadField) => [...form.querySelectorAll<Control>(`[name="${field}"]`)];
  const errorOf = (field: LeadField) => blocks[field].querySelector<HTMLElement>(`#${errorIdOf(field)}`)!;

  function readRaw(): RawLead {
    const raw: RawLead = {};
    for (const field of LEAD_FIELDS) {
      const controls = controlsOf(field);
      const first = controls[0];
      if (!first) continue;
      if (first instanceof HTMLInputElement && first.type === "checkbox") raw[field] = first.checked;
      else if (first instanceof HTMLInputElement && first.type === "radio") raw[field] = (controls as HTMLInputElement[]).find((radio) => radio.checked)?.value ?? "";
      else raw[field] = first.value;
    }
    return raw;
  }

  function showError(field: LeadField, message: string | undefined): void {
    errorOf(field).textContent = message ?? "";
    for (const control of controlsOf(field)) {
      if (message) control.setAttribute("aria-invalid", "true");
      else control.removeAttribute("aria-invalid");
    }
  }

  function focusField(field: LeadField): void {
    const controls = controlsOf(field);
    const target = (controls as HTMLInputElement[]).find((control) => "checked" in control && control.checked) ?? controls[0];
    target?.focus();
  }

  function announce(message: string): void {
    live.textContent = "";
    // A fresh text node after a tick, so screen readers announce a repeat of the same message.
    window.setTimeout(() => (live.textContent = message), 50);
  }

  function fieldOf(target: EventTarget | null): LeadField | undefined {
    const name = target instanceof HTMLInputElement || target instanceof HTMLSelectElement ? target.name : "";
    return (LEAD_FIELDS as readonly string[]).includes(name) ? (name as LeadField) : undefined;
  }

  return {
    form,
    steps,
    formError,
    backButton,
    nextButton,
    honeypot,
    placeSummary,
    placeText,
    changeZipButton,
    controlsOf,
    blockOf: (field) => blocks[field],
    readRaw,
    showError,
    hasError: (field) => errorOf(field).textContent !== "",
    focusField,
    announce,
    fieldOf,
  };
}
