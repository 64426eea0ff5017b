/**
 * The quote form's DOM: the markup of the shared step table (form-markup.ts), which the build
 * writes into rapidfire.html, adopted as it stands (never rebuilt, so nothing a quick visitor
 * typed before the script ran is lost, and the step showing is the very element they saw); the
 * steps and their fields, the ZIP's place summary, the navigation buttons, the form-level
 * message and the screen-reader announcer. It reads the answers from the inputs and shows or
 * clears each field's message; it decides nothing.
 */
import { LEAD_FIELDS, LEAD_STEPS, fieldInfo, type Choices, type LeadField, type RawLead } from "../../shared/lead/fields";
import { errorIdOf, fieldIdOf, optionsMarkup } from "./fields";
import { FORM_ID, quoteFormMarkup, stepIdOf } from "./form-markup";
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

/** The element matching selector inside root; a missing one is a bug in the markup, so it throws. */
function find<T extends Element>(root: ParentNode, selector: string): T {
  const element = root.querySelector<T>(selector);
  if (!element) throw new Error(`The quote form's ${selector} is missing`);
  return element;
}

/**
 * A list whose choices depend on the day (the model years run to next year) may be a build
 * behind: its options are written afresh, keeping the visitor's choice, when they differ.
 */
function refreshOptions(list: HTMLSelectElement, prompt: string, choices: Choices): void {
  const wanted = [["", prompt], ...choices].map(([value, text]) => `${value}\n${text}`);
  const shown = [...list.options].map((option) => `${option.value}\n${option.text}`);
  if (wanted.length === shown.length && wanted.every((entry, index) => entry === shown[index])) return;
  const chosen = list.value;
  list.innerHTML = optionsMarkup(prompt, choices);
  list.value = chosen;
}

/**
 * Adopts the form in root (as rapidfire.html carries it) and hands back its parts. A root
 * without the form (a page not built by Vite: the unit tests' page) gets the same markup first.
 */
export function adoptView(root: HTMLElement): View {
  if (!root.querySelector(`#${FORM_ID}`)) root.innerHTML = quoteFormMarkup();
  const form = find<HTMLFormElement>(root, `#${FORM_ID}`);
  const live = find<HTMLElement>(root, '[role="status"][aria-live="polite"]');
  const formError = find<HTMLElement>(form, ".rf-form-error");
  const backButton = find<HTMLButtonElement>(form, ".rf-back");
  const nextButton = find<HTMLButtonElement>(form, ".rf-next");
  const placeSummary = find<HTMLElement>(form, ".rf-place");
  const placeText = find<HTMLElement>(placeSummary, "span");
  const changeZipButton = find<HTMLButtonElement>(placeSummary, "button");
  const honeypot = find<HTMLInputElement>(form, "#rf-website");
  const steps = LEAD_STEPS.map((_, index) => find<HTMLFieldSetElement>(form, `#${stepIdOf(index)}`));
  const blocks = Object.fromEntries(LEAD_FIELDS.map((field) => [field, find<HTMLElement>(form, `#${fieldIdOf(field)}`)])) as Record<LeadField, HTMLElement>;
  for (const field of LEAD_FIELDS) {
    const spec = fieldInfo(field).control;
    if (spec.kind === "select") refreshOptions(find<HTMLSelectElement>(blocks[field], "select"), spec.prompt, spec.choices);
  }
  // The Global Privacy Control notice, when the browser sends it, just above the consent box.
  const notice = gpcNotice();
  if (notice) blocks.consent.before(notice);

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
