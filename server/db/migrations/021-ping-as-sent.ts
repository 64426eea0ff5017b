/**
 * Version 21 (issue 43): each ping keeps an excerpt of the buyer's answer and, for a buyer with
 * its own ping spec, the request as sent (masked), for the lead's page, as each delivery does.
 */
import type { Migration } from "./migration";

export const pingAsSent: Migration = {
  version: 21,
  name: "ping-as-sent",
  statements: [`ALTER TABLE auction_pings ADD COLUMN request_sent jsonb`, `ALTER TABLE auction_pings ADD COLUMN answer_excerpt text`],
};
