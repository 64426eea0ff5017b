/**
 * A lead's quote as the console shows it (issue 13): every vehicle, every driver and the
 * household's insurance, in words, without anything that identifies the person (no names, dates
 * of birth, VINs, address or contact: ages instead of birth dates), as the console's rule is.
 */
import type { LeadRecord } from "../db/leads";
import type { StoredDriver, StoredVehicle } from "../db/lead-rows";
import type { QuoteFactsView } from "../../shared/admin-views";
import { ANNUAL_MILEAGE, COUNT_CHOICES, COVERAGE, INSURED_FOR, LICENSE_STATUS, MARITAL_STATUS, OWNERSHIP, PRIMARY_USE, RELATIONSHIP, RESIDENCE } from "../../shared/lead/fields";
import { ageOn } from "../../shared/lead/dates";

/** An option's label, or the stored value itself if it is not (or no longer) an option. */
function label(options: Readonly<Record<string, string>>, value: string | null | undefined): string | undefined {
  if (value === null || value === undefined) return undefined;
  return Object.hasOwn(options, value) ? options[value] : value;
}

const join = (parts: readonly (string | undefined | false)[]) => parts.filter(Boolean).join(" · ");
const count = (what: string, value: number | undefined) => (value === undefined ? undefined : `${what}: ${COUNT_CHOICES[String(value) as keyof typeof COUNT_CHOICES] ?? value}`);
const yesNo = (what: string, value: boolean | undefined) => (value === undefined ? undefined : `${what}: ${value ? "yes" : "no"}`);

function vehicleLine(vehicle: StoredVehicle): string {
  return join([
    `${vehicle.year} ${vehicle.make} ${vehicle.model}`,
    vehicle.vin ? "VIN given" : undefined,
    label(OWNERSHIP, vehicle.ownership),
    label(PRIMARY_USE, vehicle.primaryUse),
    label(ANNUAL_MILEAGE, vehicle.annualMileage),
  ]);
}

function driverLine(driver: StoredDriver, now: Date): string {
  return join([
    `${label(RELATIONSHIP, driver.relationship)}, age ${ageOn(driver.dateOfBirth, now)}`,
    label(MARITAL_STATUS, driver.maritalStatus),
    label(LICENSE_STATUS, driver.licenseStatus),
    driver.ageFirstLicensed === undefined ? undefined : `first licensed at ${driver.ageFirstLicensed}`,
    count("accidents", driver.accidents),
    count("tickets", driver.tickets),
    count("claims", driver.claims),
    yesNo("DUI", driver.dui),
    yesNo("SR-22", driver.sr22),
    // Leads stored before issue 13 had one answer for accidents and tickets together.
    driver.incidents ? `incidents (before 2026-11-24): ${driver.incidents.replaceAll("_", " ")}` : undefined,
  ]);
}

export function quoteFacts(lead: LeadRecord, now: Date = new Date()): QuoteFactsView {
  return {
    vehicles: lead.vehicles.map(vehicleLine),
    drivers: lead.drivers.map((driver) => driverLine(driver, now)),
    insurance: join([
      lead.currentlyInsured ? `Insured now${lead.currentInsurer ? ` (${lead.currentInsurer})` : ""}` : "Not insured now",
      lead.insuredFor ? `continuously ${label(INSURED_FOR, lead.insuredFor)?.toLowerCase()}` : undefined,
      lead.coverage ? `wants ${label(COVERAGE, lead.coverage)?.split(":")[0]?.toLowerCase()} coverage` : undefined,
      label(RESIDENCE, lead.residence),
    ]),
  };
}
