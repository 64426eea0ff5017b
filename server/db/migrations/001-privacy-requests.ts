/** Version 1: privacy requests (the Do Not Sell form, issue 3). */
import type { Migration } from "./migration";

export const privacyRequests: Migration = {
  version: 1,
  name: "privacy_requests",
  statements: [
    `CREATE TABLE privacy_requests (
       id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
       reference text NOT NULL UNIQUE,
       submission_id uuid NOT NULL UNIQUE,
       request_type text NOT NULL CHECK (request_type IN ('opt_out_sale_sharing', 'nevada_opt_out', 'access', 'deletion', 'correction')),
       email text,
       phone text,
       state text,
       details text,
       gpc boolean NOT NULL DEFAULT false,
       status text NOT NULL DEFAULT 'received' CHECK (status IN ('received', 'completed', 'denied')),
       received_at timestamptz NOT NULL DEFAULT now(),
       due_at timestamptz NOT NULL,
       closed_at timestamptz,
       resolution_note text,
       CHECK (email IS NOT NULL OR phone IS NOT NULL)
     )`,
    `CREATE INDEX privacy_requests_received_at ON privacy_requests (received_at)`,
    `CREATE INDEX privacy_requests_open_due ON privacy_requests (due_at) WHERE status = 'received'`,
  ],
};
