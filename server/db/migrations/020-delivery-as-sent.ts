/**
 * Version 20 (issue 43): a delivery to a buyer with its own posting spec keeps what the buyer
 * calls the lead (its lead id, from its answer, shown to ops beside ours) and the request as it
 * was sent, masked (credentials and contact details), for the lead's page.
 */
import type { Migration } from "./migration";

export const deliveryAsSent: Migration = {
  version: 20,
  name: "delivery-as-sent",
  statements: [`ALTER TABLE deliveries ADD COLUMN buyer_lead_id text`, `ALTER TABLE deliveries ADD COLUMN request_sent jsonb`],
};
