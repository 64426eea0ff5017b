/**
 * Version 10: a lead holds up to 4 vehicles and 4 drivers and the household's insurance facts
 * (issue 13, docs/decisions/015-vehicles-and-drivers.md).
 * - `vehicles` and `drivers`: jsonb arrays of the checked records, exactly as the schema
 *   (shared/lead/fields.ts) outputs them.
 * - `insured_for`, `coverage`, `residence`: new answers, NULL for leads stored before.
 * - The old one-vehicle, one-driver columns stay, filled from the first vehicle and the first
 *   driver (the visitor): reports, suppression, consent records and older readers keep working.
 *   `incidents` summarises the first driver's accidents and tickets.
 * Existing leads keep every answer: their one vehicle and one driver are copied into the arrays
 * (the driver's old `incidents` answer kept as it was; the facts nobody was asked stay absent).
 */
import type { Migration } from "./migration";

export const vehiclesAndDrivers: Migration = {
  version: 10,
  name: "vehicles-and-drivers",
  statements: [
    `ALTER TABLE leads
       ADD COLUMN vehicles jsonb,
       ADD COLUMN drivers jsonb,
       ADD COLUMN insured_for text CHECK (insured_for IN ('under_6m', '6_12m', '1_3y', '3_5y', 'over_5y')),
       ADD COLUMN coverage text CHECK (coverage IN ('state_minimum', 'standard', 'premium')),
       ADD COLUMN residence text CHECK (residence IN ('own', 'rent', 'other'))`,
    `UPDATE leads SET
       vehicles = jsonb_build_array(jsonb_build_object(
         'year', vehicle_year, 'make', vehicle_make, 'model', vehicle_model, 'ownership', ownership, 'primaryUse', primary_use)),
       drivers = jsonb_build_array(jsonb_build_object(
         'firstName', first_name, 'lastName', last_name, 'dateOfBirth', to_char(date_of_birth, 'YYYY-MM-DD'),
         'relationship', 'self', 'licenseStatus', license_status, 'incidents', incidents))`,
    `ALTER TABLE leads
       ALTER COLUMN vehicles SET NOT NULL,
       ALTER COLUMN drivers SET NOT NULL,
       ADD CHECK (jsonb_typeof(vehicles) = 'array' AND jsonb_array_length(vehicles) BETWEEN 1 AND 4),
       ADD CHECK (jsonb_typeof(drivers) = 'array' AND jsonb_array_length(drivers) BETWEEN 1 AND 4)`,
  ],
};
