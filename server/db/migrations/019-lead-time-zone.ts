/**
 * Version 19: each lead keeps its ZIP's time zone, worked out when it is received (the server has
 * the ZIP table loaded for the quote form). The background worker, which applies buyers' calling
 * rules in the lead's time zone, then needs no ZIP table of its own: about 60 MB less resident
 * (decision 034). Leads stored before have none; the worker looks theirs up as before.
 */
import type { Migration } from "./migration";

export const leadTimeZone: Migration = {
  version: 19,
  name: "lead-time-zone",
  statements: [`ALTER TABLE leads ADD COLUMN time_zone text`],
};
