/**
 * The quote form's DOM: the markup of the shared screen table (form-markup.ts), which the build
 * writes into rapidfire.html, adopted as it stands (never rebuilt, so nothing a quick visitor
 * typed before the script ran is lost, and the screen showing is the very element they saw); the
 * screens and their fields, the ZIP's place summary, the record lists, the navigation buttons,
 * the form-level message and the screen-reader announcer. It reads the answers in the inputs and
 * shows or clears each field's message; it decides nothing.
 *
 * Fields are named by their own names ("zip", "year", "firstName"): the request's, a vehicle's
 * and a driver's never clash. A record screen's inputs hold the one record being edited.
 */
import { DRIVER_FIELDS, FORM_SCREENS, LEAD_FIELDS, VEHICLE_FIELDS, fieldInfo, type FieldControl, type LeadFieldInfo, type RecordKind } from "../../shared/lead/fields";
import { choiceOptionsMarkup, errorIdOf, fieldIdOf, optionsIdOf } from "./fields";
import { FORM_ID, quoteFormMarkup, screenIdOf } from "./form-markup";
import { gpcNotice } from "./gpc-notice";

export type Control = HTMLInputElement | HTMLSelectElement;
/** Every answer in the inputs as typed: text, the chosen radio's value ("" for none), the consent box's state. */
export type RawAnswers = Record<string, string | boolean>;

/** Every field the form shows: the request's own, a vehicle's, a driver's. */
export const ALL_FIELDS: readonly string[] = [...LEAD_FIELDS, ...VEHICLE_FIELDS, ...DRIVER_FIELDS];

/** Which record a field belongs to; undefined for the request's own fields. */
export function recordOf(field: string): RecordKind | undefined {
  if ((VEHICLE_FIELDS as readonly string[]).includes(field)) return "vehicle";
  if ((DRIVER_FIELDS as readonly string[]).includes(field)) return "driver";
  return undefined;
}

/** A field's presentation, wherever it belongs. */
export function infoOf(field: string): LeadFieldInfo {
  const record = recordOf(field);
  return record ? fieldInfo(field, record) : fieldInfo(field as (typeof LEAD_FIELDS)[number]);
}

export interface View {
  form: HTMLFormElement;
  /** One fieldset per screen, in FORM_SCREENS order. */
  screens: HTMLFieldSetElement[];
  formError: HTMLElement;
  backButton: HTMLButtonElement;
  nextButton: HTMLButtonElement;
  /** "Question 5 of 24" and its bar (screens.ts keeps them true). */
  count: HTMLElement;
  progress: HTMLElement;
  honeypot: HTMLInputElement;
  /** "Quotes for City, ST 12345." and its "Change ZIP code" button, on the first vehicle's screen. */
  placeSummary: HTMLElement;
  placeText: HTMLElement;
  changeZipButton: HTMLButtonElement;
  /** The field's control(s): one input or select, or a group's radios. */
  controlsOf(field: string): Control[];
  /** The field's block: label, control(s), hint, why and message. */
  blockOf(field: string): HTMLElement;
  /** These fields' answers as typed (all of them by default). */
  readRaw(fields?: readonly string[]): RawAnswers;
  /** Puts answers into the inputs: text, a radio's value, the box's state; missing ones empty. */
  writeRaw(fields: readonly string[], answers: Readonly<Record<string, unknown>>): void;
  showError(field: string, message: string | undefined): void;
  hasError(field: string): boolean;
  /** Focuses the field: its chosen radio, else its first control. */
  focusField(field: string): void;
  /** Says the message through the polite live region. */
  announce(message: string): void;
  /** The field an event's target answers, if any. */
  fieldOf(target: EventTarget | null): string | undefined;
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
function refreshOptions(block: HTMLElement, field: string, spec: Extract<FieldControl, { kind: "choice" }>): void {
  const container = block.querySelector<HTMLElement>(`#${optionsIdOf(field)}`);
  if (!container) return;
  const radios = [...container.querySelectorAll<HTMLInputElement>("input[type=radio]")];
  if (radios.length === spec.choices.length && radios.every((radio, index) => radio.value === spec.choices[index]![0])) return;
  const chosen = radios.find((radio) => radio.checked)?.value ?? "";
  container.innerHTML = choiceOptionsMarkup(field, spec, chosen);
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
  const count = find<HTMLElement>(form, ".rf-count");
  const progress = find<HTMLElement>(form, ".rf-progress");
  const placeSummary = find<HTMLElement>(form, ".rf-place");
  const placeText = find<HTMLElement>(placeSummary, "span");
  const changeZipButton = find<HTMLButtonElement>(placeSummary, "button");
  const honeypot = find<HTMLInputElement>(form, "#rf-website");
  const screens = FORM_SCREENS.map((screen) => find<HTMLFieldSetElement>(form, `#${screenIdOf(screen.id)}`));
  const blocks = new Map(ALL_FIELDS.map((field) => [field, find<HTMLElement>(form, `#${fieldIdOf(field)}`)]));
  for (const field of ALL_FIELDS) {
    const spec = infoOf(field).control;
    if (spec.kind === "choice" && spec.search) refreshOptions(blocks.get(field)!, field, spec);
  }
  // The Global Privacy Control notice, when the browser sends it, just above the consent box.
  const notice = gpcNotice();
  if (notice) blocks.get("consent")!.before(notice);

  const blockOf = (field: string) => {
    const block = blocks.get(field);
    if (!block) throw new Error(`The quote form has no field ${field}`);
    return block;
  };
  const controlsOf = (field: string) => [...blockOf(field).querySelectorAll<Control>(`[name="${field}"]`)];
  const errorOf = (field: string) => blockOf(field).querySelector<HTMLElement>(`#${errorIdOf(field)}`)!;

  function readRaw(fields: readonly string[] = ALL_FIELDS): RawAnswers {
    const raw: RawAnswers = {};
    for (const field of fields) {
      const controls = controlsOf(field);
      const first = controls[0];
      if (!first) continue;
      if (first instanceof HTMLInputElement && first.type === "checkbox") raw[field] = first.checked;
      else if (first instanceof HTMLInputElement && first.type === "radio") raw[field] = (controls as HTMLInputElement[]).find((radio) => radio.checked)?.value ?? "";
      else raw[field] = first.value;
    }
    return raw;
  }

  function writeRaw(fields: readonly string[], answers: Readonly<Record<string, unknown>>): void {
    for (const field of fields) {
      const value = answers[field];
      const text = typeof value === "string" ? value : "";
      for (const control of controlsOf(field)) {
        if (control instanceof HTMLInputElement && control.type === "checkbox") control.checked = value === true;
        else if (control instanceof HTMLInputElement && control.type === "radio") control.checked = control.value === text;
        else control.value = text;
      }
      showError(field, undefined);
    }
  }

  function showError(field: string, message: string | undefined): void {
    errorOf(field).textContent = message ?? "";
    for (const control of controlsOf(field)) {
      if (message) control.setAttribute("aria-invalid", "true");
      else control.removeAttribute("aria-invalid");
    }
  }

  function focusField(field: string): void {
    const controls = controlsOf(field);
    // The chosen radio, else the first one the visitor can see (the insurer screen's "yes" is never shown).
    const target = (controls as HTMLInputElement[]).find((control) => "checked" in control && control.checked) ?? controls.find((control) => !control.closest("[hidden]"));
    target?.focus();
  }

  function announce(message: string): void {
    live.textContent = "";
    // A fresh text node after a tick, so screen readers announce a repeat of the same message.
    window.setTimeout(() => (live.textContent = message), 50);
  }

  function fieldOf(target: EventTarget | null): string | undefined {
    const name = target instanceof HTMLInputElement || target instanceof HTMLSelectElement ? target.name : "";
    return blocks.has(name) ? name : undefined;
  }

  return {
    form,
    screens,
    formError,
    backButton,
    nextButton,
    count,
    progress,
    honeypot,
    placeSummary,
    placeText,
    changeZipButton,
    controlsOf,
    blockOf,
    readRaw,
    writeRaw,
    showError,
    hasError: (field) => errorOf(field).textContent !== "",
    focusField,
    announce,
    fieldOf,
  };
}
