/**
 * How each of the quote form's fields looks: label, control, hint and error slot. The rules and
 * messages are not here: they are shared/lead.ts's, the same the server applies.
 */
import {
  CURRENT_INSURERS,
  INCIDENTS,
  LICENSE_STATUS,
  MODEL_MAX_LENGTH,
  NAME_MAX_LENGTH,
  OWNERSHIP,
  PRIMARY_USE,
  STREET_MAX_LENGTH,
  YES_NO,
  type LeadField,
} from "../../shared/lead";
import { EMAIL_MAX_LENGTH } from "../../shared/contact";
import { CONSENT_DISCLOSURE } from "../../shared/consent-disclosure";
import { VEHICLE_MAKES, vehicleYears } from "../../shared/vehicles";
import { ZIP_LENGTH } from "../../shared/campaign";
import { h } from "./dom";

type Pairs = readonly (readonly [value: string, label: string])[];

type FieldSpec =
  | {
      kind: "text";
      label: string;
      hint?: string;
      type?: "text" | "email" | "tel";
      autocomplete: string;
      inputmode?: "numeric" | "email" | "tel" | "text";
      maxLength: number;
      placeholder?: string;
    }
  | { kind: "select"; label: string; prompt: string; options: Pairs; hint?: string }
  | { kind: "choice"; label: string; options: Pairs }
  | { kind: "consent" };

const pairs = (options: Readonly<Record<string, string>>): Pairs => Object.entries(options);
const same = (values: readonly (string | number)[]): Pairs => values.map((value) => [String(value), String(value)] as const);

const SPECS: Record<LeadField, FieldSpec> = {
  zip: { kind: "text", label: "ZIP code where the car is kept", autocomplete: "postal-code", inputmode: "numeric", maxLength: ZIP_LENGTH },
  vehicleYear: { kind: "select", label: "Year", prompt: "Choose the year", options: same(vehicleYears()) },
  vehicleMake: { kind: "select", label: "Make", prompt: "Choose the make", options: same(VEHICLE_MAKES) },
  vehicleModel: { kind: "text", label: "Model", hint: "For example Camry, Civic or F-150.", autocomplete: "off", maxLength: MODEL_MAX_LENGTH },
  ownership: { kind: "choice", label: "Do you own, finance or lease it?", options: pairs(OWNERSHIP) },
  primaryUse: { kind: "choice", label: "What is it mostly used for?", options: pairs(PRIMARY_USE) },
  firstName: { kind: "text", label: "First name", autocomplete: "given-name", maxLength: NAME_MAX_LENGTH },
  lastName: { kind: "text", label: "Last name", autocomplete: "family-name", maxLength: NAME_MAX_LENGTH },
  dateOfBirth: {
    kind: "text",
    label: "Date of birth",
    hint: "MM/DD/YYYY. You must be 18 or older.",
    autocomplete: "bday",
    inputmode: "numeric",
    maxLength: 10,
    placeholder: "MM/DD/YYYY",
  },
  licenseStatus: { kind: "select", label: "Driver's license status", prompt: "Choose your license status", options: pairs(LICENSE_STATUS) },
  incidents: { kind: "choice", label: "Accidents, tickets or other violations in the past 3 years", options: pairs(INCIDENTS) },
  currentlyInsured: { kind: "choice", label: "Is the car insured today?", options: pairs(YES_NO) },
  currentInsurer: { kind: "select", label: "Current insurance company", prompt: "Choose the company", options: same(CURRENT_INSURERS) },
  streetAddress: { kind: "text", label: "Street address", hint: "House number and street, and an apartment if you have one.", autocomplete: "address-line1", maxLength: STREET_MAX_LENGTH },
  email: { kind: "text", type: "email", label: "Email address", autocomplete: "email", inputmode: "email", maxLength: EMAIL_MAX_LENGTH },
  phone: { kind: "text", type: "tel", label: "Phone number", hint: "A US number, like (415) 555-0134.", autocomplete: "tel", inputmode: "tel", maxLength: 20 },
  consent: { kind: "consent" },
};

export const idOf = (field: LeadField) => `rf-${field}`;
export const errorIdOf = (field: LeadField) => `rf-${field}-error`;
export const fieldIdOf = (field: LeadField) => `rf-field-${field}`;

const errorSlot = (field: LeadField) => h("p", { class: "rf-error", id: errorIdOf(field) });

function describedBy(field: LeadField, hint: string | undefined): string {
  return hint ? `${idOf(field)}-hint ${errorIdOf(field)}` : errorIdOf(field);
}

const hintOf = (field: LeadField, hint: string | undefined) => (hint ? h("p", { class: "rf-hint", id: `${idOf(field)}-hint` }, hint) : null);

/** The consent disclosure, its links opening in a new tab so the form keeps its answers. */
function disclosure(): Node[] {
  return CONSENT_DISCLOSURE.parts.map((part) =>
    typeof part === "string" ? document.createTextNode(part) : h("a", { href: part.href, target: "_blank", rel: "noopener" }, part.text),
  );
}

/** The field's block: its label, control(s), hint and error slot. */
export function buildField(field: LeadField): HTMLElement {
  const spec = SPECS[field];
  switch (spec.kind) {
    case "text":
      return h(
        "div",
        { class: "rf-field", id: fieldIdOf(field) },
        h("label", { for: idOf(field) }, spec.label),
        hintOf(field, spec.hint),
        h("input", {
          id: idOf(field),
          name: field,
          type: spec.type ?? "text",
          autocomplete: spec.autocomplete,
          inputmode: spec.inputmode,
          maxlength: String(spec.maxLength),
          placeholder: spec.placeholder,
          spellcheck: "false",
          "aria-describedby": describedBy(field, spec.hint),
        }),
        errorSlot(field),
      );
    case "select":
      return h(
        "div",
        { class: "rf-field", id: fieldIdOf(field) },
        h("label", { for: idOf(field) }, spec.label),
        hintOf(field, spec.hint),
        h(
          "select",
          { id: idOf(field), name: field, "aria-describedby": describedBy(field, spec.hint) },
          h("option", { value: "" }, spec.prompt),
          ...spec.options.map(([value, label]) => h("option", { value }, label)),
        ),
        errorSlot(field),
      );
    case "choice":
      return h(
        "fieldset",
        { class: "rf-field rf-choice", id: fieldIdOf(field), "aria-describedby": errorIdOf(field) },
        h("legend", {}, spec.label),
        h(
          "div",
          { class: "rf-options" },
          ...spec.options.map(([value, label], index) =>
            h("label", { class: "rf-option" }, h("input", { type: "radio", name: field, value, id: index === 0 ? idOf(field) : undefined }), label),
          ),
        ),
        errorSlot(field),
      );
    case "consent":
      return h(
        "div",
        { class: "rf-field rf-consent", id: fieldIdOf(field) },
        h("input", { type: "checkbox", id: idOf(field), name: field, "aria-describedby": errorIdOf(field) }),
        h("label", { for: idOf(field) }, ...disclosure()),
        errorSlot(field),
      );
  }
}
