/**
 * Each of the quote form's fields as HTML: label, control, hint, "Why we ask" and error slot,
 * written from the presentation the field's rule carries (shared/lead/fields.ts), the same rule
 * the server applies. A field is named by its own name: the request's fields, a vehicle's and a
 * driver's never share one, and a record screen's inputs hold the record being edited.
 * The one renderer of a field: the build writes it into rapidfire.html, and the script adopts
 * what it wrote (view.ts). A new field needs its rule and nothing here, unless it brings a new
 * kind of control.
 */
import type { FieldControl, LeadFieldInfo } from "../../shared/lead/fields";
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

/** The filter box of a long choice list and the element holding its options. */
export const searchIdOf = (field: string) => `rf-${field}-search`;
export const optionsIdOf = (field: string) => `rf-${field}-options`;

/**
 * The options a searchable list shows before anything is typed: its featured ones (most asked
 * first), else the first `shown` (years: the newest), and always the one chosen.
 */
export function initiallyShown(spec: Extract<FieldControl, { kind: "choice" }>, chosen = ""): Set<string> {
  const values = spec.choices.map(([value]) => value);
  const first = (spec.search?.featured ?? values).slice(0, spec.search?.shown ?? values.length);
  return new Set(chosen ? [...first, chosen] : first);
}

/** A choice list's options: each one a native radio inside a large tap target (its label). */
export function choiceOptionsMarkup(field: string, spec: Extract<FieldControl, { kind: "choice" }>, chosen = ""): string {
  const shown = spec.search ? initiallyShown(spec, chosen) : undefined;
  return spec.choices
    .map(([value, text], index) =>
      element(
        "label",
        { class: "rf-option", hidden: shown !== undefined && !shown.has(value) },
        element("input", { type: "radio", name: field, value, id: index === 0 ? idOf(field) : undefined, checked: value === chosen }),
        element("span", {}, escapeHtml(text)),
      ),
    )
    .join("");
}

export interface FieldMarkupOptions {
  /** The screen's heading asks this field's question: its own label is kept for screen readers only. */
  asked?: boolean;
  /** The block starts hidden: the VIN behind its link; the ZIP behind its place line until the script finds none in the address. */
  startsHidden?: boolean;
  /** The field shows only its "no" option, with this label (FormScreen `none`: the insurer screen). */
  noneLabel?: string;
}

/** The field's block: its label, control(s), hint and error slot. */
export function fieldMarkup(field: string, info: LeadFieldInfo, options: FieldMarkupOptions = {}): string {
  const { label, hint, why, control: spec } = info;
  const classes = (kind: string) => ["rf-field", kind, options.asked ? "rf-asked" : ""].filter(Boolean).join(" ");
  const block = (attributes: Record<string, string>, tag: "div" | "fieldset", ...children: string[]) =>
    element(tag, { ...attributes, id: fieldIdOf(field), hidden: options.startsHidden === true }, ...children, whyOf(why));
  switch (spec.kind) {
    case "text":
      return block(
        { class: classes("") },
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
          // The keyboard's Enter key says what it does: on to the next question.
          enterkeyhint: "next",
          "aria-describedby": describedBy(field, hint),
        }),
        errorSlot(field),
      );
    case "choice": {
      if (options.noneLabel !== undefined) {
        // Only "no" shows; "yes" is set by answering the screen's question (checks.ts). The
        // question's own "Why we ask" covers it.
        return element(
          "fieldset",
          { id: fieldIdOf(field), class: "rf-field rf-choice rf-none", "aria-describedby": errorIdOf(field) },
          element("legend", { class: "rf-visually-hidden" }, escapeHtml(label)),
          element(
            "div",
            { class: "rf-options" },
            element("label", { class: "rf-option", hidden: true }, element("input", { type: "radio", name: field, value: "yes", tabindex: "-1" }), element("span", {}, "Yes")),
            element("label", { class: "rf-option" }, element("input", { type: "radio", name: field, value: "no", id: idOf(field) }), element("span", {}, escapeHtml(options.noneLabel))),
          ),
          errorSlot(field),
        );
      }
      const search = spec.search
        ? element(
            "div",
            { class: "rf-search" },
            element("label", { for: searchIdOf(field) }, escapeHtml(spec.search.label)),
            element("input", {
              id: searchIdOf(field),
              type: "text",
              class: "rf-filter",
              inputmode: spec.search.inputmode,
              autocomplete: "off",
              spellcheck: "false",
              enterkeyhint: "go",
              "aria-controls": optionsIdOf(field),
              "data-for": field,
            }),
            element("p", { class: "rf-no-match", role: "status", "aria-live": "polite" }),
          )
        : "";
      const layout = spec.columns ? ` rf-cols-${spec.columns}` : "";
      return block(
        { class: classes(`rf-choice${layout}`), "aria-describedby": hint ? `${hintIdOf(field)} ${errorIdOf(field)}` : errorIdOf(field) },
        "fieldset",
        element("legend", {}, escapeHtml(label)),
        hintOf(field, hint),
        element("div", { class: "rf-options", id: optionsIdOf(field) }, choiceOptionsMarkup(field, spec)),
        search,
        errorSlot(field),
      );
    }
    case "consent":
      return block(
        { class: "rf-field rf-consent" },
        "div",
        // A browser must not tick the box again by itself on a reload or Back: consent is the
        // visitor's act, on the words shown now. consent.ts unticks what a browser restores (HTML
        // allows `autocomplete` on a checkbox only through its form, where "off" would reset every answer).
        element("input", { type: "checkbox", id: idOf(field), name: field, "aria-describedby": errorIdOf(field) }),
        // The bundle's text until the session brings the stored one (consent.ts).
        element("label", { for: idOf(field) }, disclosureMarkup(CONSENT_DISCLOSURE.parts)),
        errorSlot(field),
      );
  }
}
