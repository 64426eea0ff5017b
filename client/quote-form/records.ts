/**
 * The vehicles and drivers being entered (issue 13): each record's answers as typed, kept here
 * while the record screens' inputs show the one being edited. Up to MAX_VEHICLES and MAX_DRIVERS;
 * the first driver is the visitor and is never removed; there is always at least one vehicle.
 */
import { COUNT_CHOICES, DRIVER_FIELDS, MAX_DRIVERS, MAX_VEHICLES, RELATIONSHIP, VEHICLE_FIELDS, type RecordKind } from "../../shared/lead/fields";

export type Answers = Record<string, string | boolean>;

export const RECORD_FIELDS: Readonly<Record<RecordKind, readonly string[]>> = { vehicle: VEHICLE_FIELDS, driver: DRIVER_FIELDS };
export const RECORD_MAX: Readonly<Record<RecordKind, number>> = { vehicle: MAX_VEHICLES, driver: MAX_DRIVERS };
/** Where each kind's records go in the request. */
export const RECORD_KEY = { vehicle: "vehicles", driver: "drivers" } as const;

/** Whether a record has any answer at all (a new one left empty is dropped). */
export const isEmpty = (answers: Answers | undefined) => !answers || Object.values(answers).every((value) => value === "" || value === false);

/** How a list names a record: "2019 Toyota Camry", "Ana Diaz (you)". */
export function summaryOf(kind: RecordKind, answers: Answers, index: number): string {
  const text = (field: string) => (typeof answers[field] === "string" ? (answers[field] as string).trim() : "");
  if (kind === "vehicle") return [text("year"), text("make"), text("model")].filter(Boolean).join(" ") || `Vehicle ${index + 1}`;
  const name = [text("firstName"), text("lastName")].filter(Boolean).join(" ") || `Driver ${index + 1}`;
  const relationship = RELATIONSHIP[text("relationship") as keyof typeof RELATIONSHIP];
  return index === 0 ? `${name} (you)` : relationship ? `${name} (${relationship.toLowerCase()})` : name;
}

/** A short second line for the list: what the record says besides its name. */
export function detailOf(kind: RecordKind, answers: Answers): string {
  const text = (field: string) => (typeof answers[field] === "string" ? (answers[field] as string) : "");
  if (kind === "vehicle") return text("vin") ? `VIN ${text("vin").toUpperCase()}` : "";
  const accidents = COUNT_CHOICES[text("accidents") as keyof typeof COUNT_CHOICES];
  return accidents ? `Accidents in 3 years: ${accidents.toLowerCase()}` : "";
}
