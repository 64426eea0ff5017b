/**
 * Checking answers with the shared rules (shared/lead/fields.ts), the server's own: a step on
 * Next, a field on leaving it, and a shown message again as the answer is edited, so it goes as
 * soon as the answer is fixed, never under a finger's press (press.ts). Also what editing does
 * besides: the insurer's name answers "insured today". (The numeric fields keep their digits
 * in numeric-input.ts.)
 */
import { checkLeadFields, checkRecordFields, type LeadField, type RecordKind } from "../../shared/lead/fields";
import { watchPresses } from "./press";
import { RECORD_FIELDS } from "./records";
import { recordOf, type View } from "./view";
import { unknownZip, type ZipPlace } from "./zip-place";

/** Messages by field name (the screen's own names). */
export type FieldErrors = Partial<Record<string, string>>;
export type Check = (fields: readonly string[]) => Promise<FieldErrors>;

/**
 * Checks fields (and the ZIP against the directory) and shows each one's message. A vehicle's or
 * a driver's field is checked as part of the record being edited (`editing`: its place, from 0).
 */
export function createCheck(view: View, zipPlace: ZipPlace, editing: () => Record<RecordKind, number>): Check {
  return async (fields) => {
    const own = fields.filter((field) => recordOf(field) === undefined) as LeadField[];
    const { errors, values } = checkLeadFields(view.readRaw(), own) as { errors: FieldErrors; values: Partial<Record<LeadField, unknown>> };
    for (const kind of ["vehicle", "driver"] as const) {
      // The kind's own fields (the filter sees to it); the type checker cannot narrow a filter by kind.
      const asked = fields.filter((field) => recordOf(field) === kind) as never[];
      if (asked.length === 0) continue;
      // The whole record is checked, so a rule across its fields (the age first licensed against
      // the date of birth on the screen before) applies; only the asked fields' messages count.
      const all = checkRecordFields(kind, view.readRaw(RECORD_FIELDS[kind]), editing()[kind]).errors;
      for (const field of asked) if (all[field]) errors[field] = all[field];
    }
    if (fields.includes("zip") && !errors.zip && typeof values.zip === "string") {
      const place = await zipPlace.placeOf(values.zip);
      if (place === null) errors.zip = unknownZip(values.zip);
      else if (place) zipPlace.show(place);
    }
    for (const field of fields) view.showError(field, errors[field]);
    if (errors.zip) zipPlace.show(null);
    return errors;
  };
}

/** Listens to the form's fields; onFirstEdit runs once, at the visitor's first answer. */
export function watchAnswers(view: View, check: Check, onFirstEdit: () => void): void {
  const { form } = view;
  let started = false;

  // A press that takes focus from a field: the field's message waits until the press has landed,
  // so it never moves the control under the finger (press.ts; issue 42: the consent box stayed
  // unticked). A press on a button (Next, Back) needs none: that button checks the screen itself
  // (issue 32).
  const presses = watchPresses(form.ownerDocument);

  // On leaving a field: its message (only once something was entered, or to update a shown one).
  form.addEventListener("focusout", (event) => {
    const field = view.fieldOf(event.target);
    if (!field || field === "consent" || view.blockOf(field).hidden || presses.pressed === "button") return;
    const next = (event as FocusEvent).relatedTarget;
    if (next instanceof Node && view.blockOf(field).contains(next)) return; // moving between one group's radios
    presses.afterPress(() => checkLeft(field));
  });

  function checkLeft(field: string): void {
    // The tap may have gone on to another screen meanwhile (a choice answers its screen).
    if (view.blockOf(field).closest("[hidden]")) return;
    const raw = view.readRaw()[field];
    if ((raw === "" || raw === undefined) && !view.hasError(field)) return;
    void check([field]).then((errors) => {
      const message = errors[field];
      if (message) view.announce(message);
    });
  }

  // While a message shows, it goes away as soon as the answer is fixed.
  form.addEventListener("input", (event) => onEdit(event.target));
  form.addEventListener("change", (event) => onEdit(event.target));

  function onEdit(target: EventTarget | null): void {
    const field = view.fieldOf(target);
    if (!field) return;
    if (!started) {
      started = true;
      onFirstEdit();
    }
    if (field === "currentInsurer" || field === "currentlyInsured") linkInsurer(view, field);
    if (view.hasError(field) && field !== "zip") void check([field]);
  }
}

/**
 * The insurer screen asks one thing (shared/lead/fields.ts, FORM_SCREENS `none`): a company chosen
 * means insured today; "I don't have car insurance today" means not, and clears the company.
 */
export function linkInsurer(view: View, changed: "currentInsurer" | "currentlyInsured"): void {
  const { currentInsurer, currentlyInsured } = view.readRaw(["currentInsurer", "currentlyInsured"]);
  if (changed === "currentInsurer" && currentInsurer) view.writeRaw(["currentlyInsured"], { currentlyInsured: "yes" });
  if (changed === "currentlyInsured" && currentlyInsured === "no") view.writeRaw(["currentInsurer"], {});
  view.showError(changed === "currentInsurer" ? "currentlyInsured" : "currentInsurer", undefined);
}
