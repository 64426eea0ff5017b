/**
 * The columns of a lead export, one row per lead: the lead, its answers (every vehicle and driver
 * slot flattened) and its consent record. `npm run leads -- export` and the console's
 * /leads.csv both write these, so a file from either has the same columns and the same
 * personal information: only ops get one (docs/lead-operations.md, docs/operations-console.md).
 */
import type { LeadRecord } from "../db/leads";
import { LEAD_ANSWER_COLUMNS } from "../db/lead-rows";
import { DRIVER_FIELDS, MAX_DRIVERS, MAX_VEHICLES, VEHICLE_FIELDS } from "../../shared/lead/fields";
import { csv } from "../cli/common";

const iso = (date: Date | null | undefined) => date?.toISOString() ?? "";

export type Column<Row = LeadRecord> = [name: string, value: (row: Row) => string];
const snakeCase = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** The first vehicle's and driver's copies in the lead's own columns (server/db/lead-rows.ts). */
const SUMMARY_COLUMNS: ReadonlySet<string> = new Set(["vehicleYear", "vehicleMake", "vehicleModel", "ownership", "primaryUse", "firstName", "lastName", "dateOfBirth", "licenseStatus", "incidents"]);

/** One column per slot and field: "vehicle_2_year". */
function slotColumns(prefix: string, slots: number, fields: readonly string[], records: (row: LeadRecord) => readonly object[]): Column[] {
  return Array.from({ length: slots }, (_, slot) =>
    fields.map((field): Column => [`${prefix}_${slot + 1}_${snakeCase(field)}`, (row) => String((records(row)[slot] as Record<string, unknown> | undefined)?.[field] ?? "")]),
  ).flat();
}

/** The export's columns, in order: the lead, then its consent record. */
export const LEAD_EXPORT_COLUMNS: Column[] = [
  ["reference", (row) => row.reference],
  ["received_at", (row) => iso(row.receivedAt)],
  ["duplicate_of", (row) => row.duplicateOf ?? ""],
  ["sid", (row) => row.sid ?? ""],
  ["tid", (row) => row.tid ?? ""],
  // The answers, each under its column's name; the ZIP's place beside it; every vehicle and
  // driver slot flattened (vehicle_1_year … driver_4_sr22, empty when absent). The first
  // vehicle's and driver's summary columns are left out: vehicle_1_* and driver_1_* are them.
  ...LEAD_ANSWER_COLUMNS.flatMap((column): Column[] => {
    if (column === "vehicles") return slotColumns("vehicle", MAX_VEHICLES, VEHICLE_FIELDS, (row) => row.vehicles);
    if (column === "drivers") return slotColumns("driver", MAX_DRIVERS, [...DRIVER_FIELDS, "incidents"], (row) => row.drivers);
    if (SUMMARY_COLUMNS.has(column)) return [];
    const answer: Column = [snakeCase(column), (row) => String(row[column] ?? "")];
    return column === "zip" ? [answer, ["city", (row) => row.city], ["state", (row) => row.state]] : [answer];
  }),
  ["gpc", (row) => String(row.gpc)],
  ["consent_disclosure_version", (row) => String(row.consent?.disclosureVersion ?? "")],
  ["consent_disclosure_sha256", (row) => row.consent?.disclosureSha256 ?? ""],
  ["consent_checkbox", (row) => String(row.consent?.checkboxChecked ?? "")],
  ["consented_at", (row) => iso(row.consent?.consentedAt)],
  ["consent_ip", (row) => row.consent?.ip ?? ""],
  ["consent_user_agent", (row) => row.consent?.userAgent ?? ""],
  ["consent_form_url", (row) => row.consent?.formUrl ?? ""],
  ["consent_page_url", (row) => row.consent?.pageUrl ?? ""],
];

/**
 * The export as CSV (cells defused against formula injection by csv()); `extra` columns, computed
 * from each row's own `extra` value, follow the lead's (the console adds status and buyers).
 */
export function leadsCsv(rows: readonly LeadRecord[]): string;
export function leadsCsv<Extra>(rows: readonly (LeadRecord & { extra: Extra })[], extra: readonly Column<Extra>[]): string;
export function leadsCsv<Extra>(rows: readonly (LeadRecord & { extra?: Extra })[], extra: readonly Column<Extra>[] = []): string {
  return csv([
    [...LEAD_EXPORT_COLUMNS.map(([name]) => name), ...extra.map(([name]) => name)],
    ...rows.map((row) => [...LEAD_EXPORT_COLUMNS.map(([, get]) => get(row)), ...extra.map(([, get]) => get(row.extra as Extra))]),
  ]);
}
