/**
 * Checking answers with the shared rules (shared/lead/fields.ts), the server's own: a step on
 * Next, a field on leaving it, and a shown message again as the answer is edited, so it goes as
 * soon as the answer is fixed. Also what editing does besides: the insurer's name answers
 * "insured today", and the date of birth gets its slashes.
 */
import { checkLeadFields, checkRecordFields, type LeadField, type RecordKind } from "../../shared/lead/fields";
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

  // A press on a button (Next, Back) that takes focus from a field: that button checks the screen
  // itself. A message shown on the way would move the button between the press and its release,
  // and the click would be lost (a tap on a phone, a click with a mouse).
  let pressingButton = false;
  form.addEventListener("pointerdown", (event) => {
    pressingButton = Boolean((event.target as Element | null)?.closest?.("button"));
  });
  form.addEventListener("click", () => (pressingButton = false));

  // On leaving a field: its message (only once something was entered, or to update a shown one).
  form.addEventListener("focusout", (event) => {
    const field = view.fieldOf(event.target);
    if (!field || field === "consent" || view.blockOf(field).hidden || pressingButton) return;
    const next = (event as FocusEvent).relatedTarget;
    if (next instanceof Node && view.blockOf(field).contains(next)) return; // moving between one group's radios
    const raw = view.readRaw()[field];
    if ((raw === "" || raw === undefined) && !view.hasError(field)) return;
    void check([field]).then((errors) => {
      const message = errors[field];
      if (message) view.announce(message);
    });
  });

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
    if (field === "dateOfBirth") formatDate(target as HTMLInputElement);
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

/** Types "04151990" as "04/15/1990"; leaves alone a date typed with its own slashes ("4/5/1990"). */
function formatDate(control: HTMLInputElement): void {
  const value = control.value;
  if (!/^[\d/]*$/.test(value) || value.split("/").slice(0, -1).some((part) => part.length !== 2)) return;
  const digits = value.replace(/\//g, "").slice(0, 8);
  const formatted = [digits.slice(0, 2), digits.slice(2, 4), digits.slice(4)].filter(Boolean).join("/");
  // "04/" typed by hand stays as it is; anything else takes the formatted form.
  if (formatted !== value && value !== `${formatted}/`) control.value = formatted;
}
