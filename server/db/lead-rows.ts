/**
 * How a lead's answers are stored: the column mapping between the quote form's fields
 * (shared/lead/fields.ts) and the `leads` table. The columns carry the fields' own names (snake_case
 * in SQL), so the mapping is this list; the type checker refuses a field missing from it.
 *
 * Adding a form field: its rule in shared/lead/fields.ts, one migration (server/db/migrations/),
 * and its name here.
 */
import type { Lead } from "../../shared/lead/fields";

/** Every answer but the consent tick, which lives in the consent record (lead_consents). */
type Answers = Omit<Lead, "consent">;

/** An answer's column: optional answers (asked only of some visitors) are NULL when not asked. */
export type LeadAnswerColumns = { [K in keyof Answers]-?: undefined extends Answers[K] ? Exclude<Answers[K], undefined> | null : Answers[K] };

/** The answer columns, in the order exports show them. */
export const LEAD_ANSWER_COLUMNS = [
  "zip",
  "vehicleYear",
  "vehicleMake",
  "vehicleModel",
  "ownership",
  "primaryUse",
  "firstName",
  "lastName",
  "dateOfBirth",
  "licenseStatus",
  "incidents",
  "currentlyInsured",
  "currentInsurer",
  "streetAddress",
  "email",
  "phone",
] as const satisfies readonly (keyof LeadAnswerColumns)[];

// A form field without its column fails here: "true" is not assignable to the missing field's name.
type Unmapped = Exclude<keyof LeadAnswerColumns, (typeof LEAD_ANSWER_COLUMNS)[number]>;
export const everyAnswerHasAColumn: [Unmapped] extends [never] ? true : Unmapped = true;

/** A checked lead's answers as the row's columns. */
export function answerColumns(lead: Lead): LeadAnswerColumns {
  return Object.fromEntries(LEAD_ANSWER_COLUMNS.map((column) => [column, lead[column] ?? null])) as LeadAnswerColumns;
}
