/**
 * The numeric fields take digits only, as they are typed (issue 42), as the ZIP field always did:
 * a letter typed by mistake never shows, and pasted text keeps its digits ("+1 (415) 555-0134"
 * gives 14155550134, which the phone's rule reads as the US number it is). Which fields: every
 * text field the shared rules give a numeric or phone keyboard (shared/lead/fields.ts: the age
 * first licensed, the phone, the ZIP, the date of birth).
 *
 * The date of birth keeps its slashes, and gets them as it is typed ("04151990" shows as
 * 04/15/1990); a dash, dot or space is read as the slash, and a date pasted year first
 * (1990-04-15, as a computer writes it) is put in the field's own order.
 */
import { infoOf, type View } from "./view";

/** The digits of a text, in order. */
export const digitsOf = (text: string): string => text.replace(/\D+/g, "");

/** Types "04151990" as "04/15/1990"; leaves alone a date typed with its own slashes ("4/5/1990"). */
export function slashDate(value: string): string {
  if (!/^[\d/]*$/.test(value) || value.split("/").slice(0, -1).some((part) => part.length !== 2)) return value;
  const digits = value.replace(/\//g, "").slice(0, 8);
  const formatted = [digits.slice(0, 2), digits.slice(2, 4), digits.slice(4)].filter(Boolean).join("/");
  // "04/" typed by hand stays as it is; anything else takes the formatted form.
  return value === `${formatted}/` ? value : formatted;
}

/** A date of birth as typed or pasted: digits and slashes only, in MM/DD/YYYY order. */
export function dateAsTyped(value: string): string {
  const yearFirst = /^\s*(\d{4})[-/. ](\d{1,2})[-/. ](\d{1,2})\s*$/.exec(value);
  if (yearFirst) return `${yearFirst[2]!.padStart(2, "0")}/${yearFirst[3]!.padStart(2, "0")}/${yearFirst[1]!}`;
  const kept = value
    .replace(/[-.\s]+/g, "/")
    .replace(/[^\d/]+/g, "")
    .replace(/\/{2,}/g, "/")
    .replace(/^\//, "");
  return slashDate(kept);
}

/**
 * Where the caret goes once `before` became `after`: after the same number of digits as it had
 * before it (past a slash too, when it stood past a separator), or at the end when it was there.
 */
export function caretAfter(before: string, caret: number, after: string): number {
  if (caret >= before.length) return after.length;
  let digits = digitsOf(before.slice(0, caret)).length;
  let at = 0;
  while (digits > 0 && at < after.length) if (/\d/.test(after[at++]!)) digits -= 1;
  if (caret > 0 && !/\d/.test(before[caret - 1]!)) while (at < after.length && !/\d/.test(after[at]!)) at += 1;
  return at;
}

/** The cleaner of each numeric field of the form, by name. */
function numericFields(view: View, fields: readonly string[]): Map<string, (value: string) => string> {
  const cleaners = new Map<string, (value: string) => string>();
  for (const field of fields) {
    const control = infoOf(field).control;
    if (control.kind !== "text" || (control.inputmode !== "numeric" && control.inputmode !== "tel")) continue;
    if (view.controlsOf(field).length === 0) continue;
    cleaners.set(field, field === "dateOfBirth" ? dateAsTyped : digitsOf);
  }
  return cleaners;
}

/**
 * Keeps the numeric fields' answers to their digits at every input, before anything else reads
 * them (a capturing listener: the consent words show the phone being typed, saved answers keep it).
 */
export function watchNumericFields(view: View, fields: readonly string[]): void {
  const cleaners = numericFields(view, fields);
  view.form.addEventListener(
    "input",
    (event) => {
      const input = event.target;
      if (!(input instanceof HTMLInputElement)) return;
      const clean = cleaners.get(input.name);
      if (!clean) return;
      const before = input.value;
      const after = clean(before);
      if (after === before) return;
      const caret = input.selectionStart ?? before.length;
      input.value = after;
      // Only the focused field has a caret to keep (setting it elsewhere would move the focus on some browsers).
      if (input.ownerDocument.activeElement === input) {
        const at = caretAfter(before, caret, after);
        input.setSelectionRange(at, at);
      }
    },
    true,
  );
}
