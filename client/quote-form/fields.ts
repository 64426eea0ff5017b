/**
 * Each of the quote form's fields as HTML: label, control, hint, "Why we ask" and error slot,
 * written from the presentation the field's rule carries (shared/lead/fields.ts), the same rule
 * the server applies. A field is named by its own name: the request's fields, a vehicle's and a
 * driver's never share one, and a record screen's inputs hold the record being edited.
 * The one renderer of a field: the build writes it into rapidfire.html, and the script adopts
 * what it wrote (view.ts). A new field needs its rule and nothing here, unless it brings a new
 * kind of control.
 */
import type { Choices, LeadFieldInfo } from "../../shared/lead/fields";
import { CONSENT_DISCLOSURE, PHONE_PLACEHOLDER, type DisclosurePart } from "../../shared/consent-disclosure";
import { element, escapeHtml } from "./markup";

export const idOf = (field: string) => `rf-${field}`;
export const errorIdOf = (field: string) => `rf-${field}-error`;
export const fieldIdOf = (field: string) => `rf-field-${field}`;
const hintIdOf = (field: string) => `${idOf(field)}-hint`;

const errorSlot = (field: string) => element("p", { class: "rf-error", id: errorIdOf(field) });

function describedBy(field: string, hint: string | undefined): string {
  return hint ? `${hintIdOf(field)} ${errorIdOf(field)}` : errorIdOf(field);
}

const hintOf = (field: string, hint: string | undefined) => (hint ? element("p", { class: "rf-hint", id: hintIdOf(field) }, escapeHtml(hint)) : "");

/** "Why we ask": a native disclosure, so it opens by keyboard and without script. */
const whyOf = (why: string | undefined) => (why ? element("details", { class: "rf-why" }, element("summary", {}, "Why we ask"), element("p", {}, escapeHtml(why))) : "");

/** A list's options: the prompt (no answer), then each choice. */
export function optionsMarkup(prompt: string, choices: Choices): string {
  return [["", prompt] as const, ...choices].map(([value, text]) => element("option", { value }, escapeHtml(text))).join("");
}

/** Where the consent text shows the phone number being typed (consent.ts fills it). */
export const CONSENT_PHONE_CLASS = "rf-consent-phone";

/**
 * A consent disclosure's text, its links opening in a new tab so the form keeps its answers, and
 * its phone placeholder in a span the form fills with the number typed.
 */
export function disclosureMarkup(parts: readonly DisclosurePart[]): string {
  const text = (run: string) => run.split(PHONE_PLACEHOLDER).map(escapeHtml).join(element("span", { class: CONSENT_PHONE_CLASS }, escapeHtml(PHONE_PLACEHOLDER)));
  return parts.map((part) => (typeof part === "string" ? text(part) : element("a", { href: part.href, target: "_blank", rel: "noopener" }, escapeHtml(part.text)))).join("");
}

/**
 * The field's block: its label, control(s), hint and error slot. A field asked only for some
 * answers (askedWhen) starts hidden when the empty form does not ask it.
 */
export function fieldMarkup(field: string, info: LeadFieldInfo): string {
  const { label, hint, why, control: spec, askedWhen } = info;
  const block = (attributes: Record<string, string>, tag: "div" | "fieldset", ...children: string[]) =>
    element(tag, { ...attributes, id: fieldIdOf(field), hidden: askedWhen !== undefined && !askedWhen({}, 0) }, ...children, whyOf(why));
  switch (spec.kind) {
    case "text":
      return block(
        { class: "rf-field" },
        "div",
        element("label", { for: idOf(field) }, escapeHtml(label)),
        hintOf(field, hint),
        element("input", {
          id: idOf(field),
          name: field,
          type: spec.type ?? "text",
          autocomplete: spec.autocomplete,
          inputmode: spec.inputmode,
          maxlength: String(spec.maxLength),
          placeholder: spec.placeholder,
          spellcheck: "false",
          "aria-describedby": describedBy(field, hint),
        }),
        errorSlot(field),
      );
    case "select":
      return block(
        { class: "rf-field" },
        "div",
        element("label", { for: idOf(field) }, escapeHtml(label)),
        hintOf(field, hint),
        element("select", { id: idOf(field), name: field, "aria-describedby": describedBy(field, hint) }, optionsMarkup(spec.prompt, spec.choices)),
        errorSlot(field),
      );
    case "choice":
      return block(
        { class: "rf-field rf-choice", "aria-describedby": errorIdOf(field) },
        "fieldset",
        element("legend", {}, escapeHtml(label)),
        element(
          "div",
          { class: "rf-options" },
          ...spec.choices.map(([value, text], index) =>
            element("label", { class: "rf-option" }, element("input", { type: "radio", name: field, value, id: index === 0 ? idOf(field) : undefined }), escapeHtml(text)),
          ),
        ),
        errorSlot(field),
      );
    case "consent":
      return block(
        { class: "rf-field rf-consent" },
        "div",
        // autocomplete off: a browser must not tick the box again by itself on a reload or Back
        // (HTML §4.10.18.7.1); consent is the visitor's act, on the words shown now.
        element("input", { type: "checkbox", id: idOf(field), name: field, autocomplete: "off", "aria-describedby": errorIdOf(field) }),
        // The bundle's text until the session brings the stored one (consent.ts).
        element("label", { for: idOf(field) }, disclosureMarkup(CONSENT_DISCLOSURE.parts)),
        errorSlot(field),
      );
  }
}
