/**
 * Version 15: a lead marked as a test by ops (issue 16; server/leads/test-link.ts). A quote request
 * sent from an ops test link is stored with `test` true, whatever its contact details: it goes to
 * sandbox buyers only, is never a duplicate, and its sales earn nothing. (The test phone number,
 * server/auction/sandbox.ts, needs no column: it is in the lead.)
 */
import type { Migration } from "./migration";

export const testLeads: Migration = {
  version: 15,
  name: "test-leads",
  statements: ["ALTER TABLE leads ADD COLUMN test boolean NOT NULL DEFAULT false"],
};
