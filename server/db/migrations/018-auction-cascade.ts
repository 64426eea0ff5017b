/**
 * Version 18: the auction and the delivery worker talk through their tables (issue 35). When an
 * auction's post ends, the statement that records it also moves the auction: an accepted post
 * marks it sold; a refused or failed one marks it `cascading`, which the auctioneer claims like a
 * new auction and settles again with the next best bids (server/auction/auctions.ts). Before, the
 * delivery worker called the auctioneer back in the same process.
 */
import type { Migration } from "./migration";

export const auctionCascade: Migration = {
  version: 18,
  name: "auction-cascade",
  statements: [
    `ALTER TABLE auctions DROP CONSTRAINT auctions_status_check`,
    `ALTER TABLE auctions ADD CONSTRAINT auctions_status_check CHECK (status IN ('pending', 'pinging', 'decided', 'cascading', 'sold', 'unsold'))`,
    `DROP INDEX auctions_due`,
    `CREATE INDEX auctions_due ON auctions (created_at) WHERE status IN ('pending', 'pinging', 'cascading')`,
  ],
};
