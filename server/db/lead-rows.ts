/**
 * How a lead's answers are stored (shared/lead/fields.ts ↔ the `leads` table; migrations 2 and
 * 10): the request's own answers in their columns, the vehicles and drivers as jsonb arrays, and
 * the first vehicle and the first driver (the visitor) also in the columns every lead has had
 * since migration 2, which reports, suppression and consent records read
 * (docs/decisions/015-vehicles-and-drivers.md).
 *
 * Adding a form field: its rule in shared/lead/fields.ts; a vehicle's or a driver's goes into the
 * arrays as it is; a request-level one needs a migration, and its name here.
 */
import type { ColumnType } from "kysely";
import type { Driver, Lead, Vehicle } from "../../shared/lead/fields";

/** A vehicle as stored: a lead from before migration 10 lacks the newer facts (VIN, mileage). */
export type StoredVehicle = Pick<Vehicle, "year" | "make" | "model" | "ownership" | "primaryUse"> & Partial<Vehicle>;
/** A driver as stored: a lead from before migration 10 has `incidents` instead of the newer facts. */
export type StoredDriver = Pick<Driver, "firstName" | "lastName" | "dateOfBirth" | "relationship"> & Partial<Driver> & { incidents?: Incidents };

type Incidents = "none" | "one" | "two_or_more";
/** jsonb: read as parsed JSON by both drivers; written as JSON text with a ::jsonb cast (lead inserts). */
type Json<T> = ColumnType<T, string, string>;

/** The answer columns of `leads`. */
export interface LeadAnswerColumns {
  zip: string;
  vehicles: Json<StoredVehicle[]>;
  drivers: Json<StoredDriver[]>;
  /** The first vehicle's. */
  vehicleYear: number;
  vehicleMake: string;
  vehicleModel: string;
  ownership: Vehicle["ownership"];
  primaryUse: Vehicle["primaryUse"];
  /** The first driver's (the visitor's). */
  firstName: string;
  lastName: string;
  dateOfBirth: string;
  licenseStatus: Driver["licenseStatus"];
  incidents: Incidents;
  currentlyInsured: boolean;
  currentInsurer: string | null;
  /** Null for leads stored before migration 10. */
  insuredFor: Lead["insuredFor"] | null;
  coverage: Lead["coverage"] | null;
  residence: Lead["residence"] | null;
  streetAddress: string;
  email: string;
  phone: string;
}

/** The answer columns, in the order exports show them. */
export const LEAD_ANSWER_COLUMNS = [
  "zip",
  "vehicles",
  "drivers",
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
  "insuredFor",
  "coverage",
  "residence",
  "streetAddress",
  "email",
  "phone",
] as const satisfies readonly (keyof LeadAnswerColumns)[];

// A column without its place in the list fails here: "true" is not assignable to the missing name.
type Unlisted = Exclude<keyof LeadAnswerColumns, (typeof LEAD_ANSWER_COLUMNS)[number]>;
export const everyAnswerHasAColumn: [Unlisted] extends [never] ? true : Unlisted = true;

/** The old `incidents` summary of a driver: accidents and tickets in 3 years together. */
export function incidentsOf(driver: Pick<Driver, "accidents" | "tickets">): Incidents {
  const total = driver.accidents + driver.tickets;
  return total === 0 ? "none" : total === 1 ? "one" : "two_or_more";
}

/** The values written for a checked lead: its columns, with the arrays as JSON text (cast to jsonb by the insert). */
export type LeadAnswerValues = { [K in keyof LeadAnswerColumns]: LeadAnswerColumns[K] extends ColumnType<unknown, infer W, unknown> ? W : LeadAnswerColumns[K] };

/** A checked lead's answers as the row's columns. */
export function answerColumns(lead: Lead): LeadAnswerValues {
  const [vehicle] = lead.vehicles;
  const [driver] = lead.drivers;
  if (!vehicle || !driver) throw new Error("A checked lead has at least one vehicle and one driver");
  return {
    zip: lead.zip,
    vehicles: JSON.stringify(lead.vehicles),
    drivers: JSON.stringify(lead.drivers),
    vehicleYear: vehicle.year,
    vehicleMake: vehicle.make,
    vehicleModel: vehicle.model,
    ownership: vehicle.ownership,
    primaryUse: vehicle.primaryUse,
    firstName: driver.firstName,
    lastName: driver.lastName,
    dateOfBirth: driver.dateOfBirth,
    licenseStatus: driver.licenseStatus,
    incidents: incidentsOf(driver),
    currentlyInsured: lead.currentlyInsured,
    currentInsurer: lead.currentInsurer ?? null,
    insuredFor: lead.insuredFor ?? null,
    coverage: lead.coverage,
    residence: lead.residence,
    streetAddress: lead.streetAddress,
    email: lead.email,
    phone: lead.phone,
  };
}

/** Columns written as JSON text that the insert must cast to jsonb. */
export const JSON_COLUMNS: ReadonlySet<string> = new Set(["vehicles", "drivers"]);
