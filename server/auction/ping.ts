/**
 * What a ping carries (issue 16; docs/lead-auction.md): enough for a buyer to price the lead, and
 * nothing that reaches the person. No name, phone, email, street address, exact date of birth,
 * VIN or click id (tid): the place (ZIP, city, state), the vehicles, each driver's age in years and
 * record, the household's insurance facts, the source's sid, and the consent disclosure's version
 * and hash (so a buyer can tell it is named in the wording the visitor agreed to). Only the
 * auction's winners receive the full lead, by the usual delivery post.
 */
import type { LeadRecord } from "../db/leads";

export interface PingVehicle {
  year: number;
  make: string;
  model: string;
  ownership: string;
  primaryUse: string;
  annualMileage: string | null;
}

export interface PingDriver {
  /** Whole years on the day of the ping. */
  age: number;
  relationship: string;
  maritalStatus: string | null;
  licenseStatus: string | null;
  ageFirstLicensed: number | null;
  accidents: number | null;
  tickets: number | null;
  claims: number | null;
  dui: boolean | null;
  sr22: boolean | null;
}

export interface PingPayload {
  pingId: string;
  /** A test lead (server/auction/sandbox.ts): offered to sandbox buyers only, never billed. */
  test: boolean;
  zip: string;
  city: string;
  state: string;
  source: { sid: string } | null;
  vehicles: PingVehicle[];
  drivers: PingDriver[];
  currentlyInsured: boolean;
  currentInsurer: string | null;
  insuredFor: string | null;
  coverage: string | null;
  residence: string | null;
  consent: { disclosureVersion: number; disclosureSha256: string } | null;
}

/** Whole years from an ISO date of birth (YYYY-MM-DD) to `at`, in UTC. */
export function ageOn(dateOfBirth: string, at: Date): number {
  const [year, month, day] = dateOfBirth.split("-").map(Number) as [number, number, number];
  let age = at.getUTCFullYear() - year;
  const beforeBirthday = at.getUTCMonth() + 1 < month || (at.getUTCMonth() + 1 === month && at.getUTCDate() < day);
  if (beforeBirthday) age -= 1;
  return age;
}

export function pingPayload(lead: LeadRecord, pingId: string, options: { test: boolean; now: Date }): PingPayload {
  return {
    pingId,
    test: options.test,
    zip: lead.zip,
    city: lead.city,
    state: lead.state,
    source: lead.sid ? { sid: lead.sid } : null,
    vehicles: (lead.vehicles ?? []).map((vehicle) => ({
      year: vehicle.year,
      make: vehicle.make,
      model: vehicle.model,
      ownership: vehicle.ownership,
      primaryUse: vehicle.primaryUse,
      annualMileage: vehicle.annualMileage ?? null,
    })),
    drivers: (lead.drivers ?? []).map((driver) => ({
      age: ageOn(driver.dateOfBirth, options.now),
      relationship: driver.relationship,
      maritalStatus: driver.maritalStatus ?? null,
      licenseStatus: driver.licenseStatus ?? null,
      ageFirstLicensed: driver.ageFirstLicensed ?? null,
      accidents: driver.accidents ?? null,
      tickets: driver.tickets ?? null,
      claims: driver.claims ?? null,
      dui: driver.dui ?? null,
      sr22: driver.sr22 ?? null,
    })),
    currentlyInsured: lead.currentlyInsured,
    currentInsurer: lead.currentInsurer,
    insuredFor: lead.insuredFor ?? null,
    coverage: lead.coverage ?? null,
    residence: lead.residence ?? null,
    consent: lead.consent ? { disclosureVersion: lead.consent.disclosureVersion, disclosureSha256: lead.consent.disclosureSha256 } : null,
  };
}
