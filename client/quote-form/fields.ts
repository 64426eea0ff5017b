/**
 * Each of the quote form's fields as HTML: label, control, hint and error slot, built from the
 * presentation the field's rule carries (shared/lead/fields.ts), the same rule the server applies.
 */
import { fieldInfo, type LeadField } from "../../shared/lead/fields";
import { CONSENT_DISCLOSURE, type DisclosurePart } from "../../shared/consent-disclosure";
import { h } from "./dom";

export const idOf = (field: LeadField) => `rf-${field}`;
export const errorIdOf = (field: LeadField) => `rf-${field}-error`;
export const fieldIdOf = (field: LeadField) => `rf-field-${field}`;

const errorSlot = (field: LeadField) => h("p", { class: "rf-error", id: errorIdOf(field) });

function describedBy(field: LeadField, hint: string | undefined): string {
  return hint ? `${idOf(field)}-hint ${errorIdOf(field)}` : errorIdOf(field);
}

const hintOf = (field: LeadField, hint: string | undefined) => (hint ? h("p", { class: "rf-hint", id: `${idOf(field)}-hint` }, hint) : null);

/** A consent disclosure's text, its links opening in a new tab so the form keeps its answers. */
export function disclosureNodes(parts: readonly DisclosurePart[]): Node[] {
  return parts.map((part) =>
    typeof part === "string" ? document.createTextNode(part) : h("a", { href: part.href, target: "_blank", rel: "noopener" }, part.text),
  );
}

/** The field's block: its label, control(s), hint and error slot. */
export function buildField(field: LeadField): HTMLElement {
  const { label, hint, control: spec } = fieldInfo(field);
  switch (spec.kind) {
    case "text":
      return h(
        "div",
        { class: "rf-field", id: fieldIdOf(field) },
        h("label", { for: idOf(field) }, label),
        hintOf(field, hint),
        h("input", {
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
      return h(
        "div",
        { class: "rf-field", id: fieldIdOf(field) },
        h("label", { for: idOf(field) }, label),
        hintOf(field, hint),
        h(
          "select",
          { id: idOf(field), name: field, "aria-describedby": describedBy(field, hint) },
          h("option", { value: "" }, spec.prompt),
          ...spec.choices.map(([value, text]) => h("option", { value }, text)),
        ),
        errorSlot(field),
      );
    case "choice":
      return h(
        "fieldset",
        { class: "rf-field rf-choice", id: fieldIdOf(field), "aria-describedby": errorIdOf(field) },
        h("legend", {}, label),
        h(
          "div",
          { class: "rf-options" },
          ...spec.choices.map(([value, text], index) =>
            h("label", { class: "rf-option" }, h("input", { type: "radio", name: field, value, id: index === 0 ? idOf(field) : undefined }), text),
          ),
        ),
        errorSlot(field),
      );
    case "consent":
      return h(
        "div",
        { class: "rf-field rf-consent", id: fieldIdOf(field) },
        h("input", { type: "checkbox", id: idOf(field), name: field, "aria-describedby": errorIdOf(field) }),
        // The bundle's text until the session brings the stored one (consent.ts).
        h("label", { for: idOf(field) }, ...disclosureNodes(CONSENT_DISCLOSURE.parts)),
        errorSlot(field),
      );
  }
}
