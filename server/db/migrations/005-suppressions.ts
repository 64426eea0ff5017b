/**
 * Version 5: the opt-out suppression list (issue 10). One row per contact that must never be
 * sold: `kind` says whether `hash` is of an email address (lower-cased) or a phone number
 * (E.164), `hash` is the hex SHA-256 of that normalised value, so the list holds no contact
 * details in the clear. Kept at least 5 years (docs/decisions/011-privacy-choices-in-delivery.md):
 * nothing purges it, and purging a closed privacy request leaves its row here. `request_reference`
 * is the privacy request (PR-…) or, for a quote request sent with GPC, the lead (LD-…) that added it.
 */
import type { Migration } from "./migration";

export const suppressions: Migration = {
  version: 5,
  name: "suppressions",
  statements: [
    `CREATE TABLE suppressions (
       kind text NOT NULL CHECK (kind IN ('email', 'phone')),
       hash text NOT NULL CHECK (hash ~ '^[0-9a-f]{64}$'),
       source text NOT NULL CHECK (source IN ('web_form', 'phone', 'email', 'gpc')),
       request_reference text,
       added_at timestamptz NOT NULL DEFAULT now(),
       PRIMARY KEY (kind, hash)
     )`,
    // Opt-outs received before the list existed: privacy requests (phones are stored in E.164,
    // emails lower-cased), and quote requests sent from a browser with Global Privacy Control.
    ...(["email", "phone"] as const).flatMap((kind) => [
      `INSERT INTO suppressions (kind, hash, source, request_reference, added_at)
       SELECT '${kind}', encode(sha256(convert_to(lower(btrim(${kind})), 'UTF8')), 'hex'),
              CASE WHEN request_type IN ('opt_out_sale_sharing', 'nevada_opt_out') THEN 'web_form' ELSE 'gpc' END,
              reference, received_at
         FROM privacy_requests
        WHERE ${kind} IS NOT NULL AND (request_type IN ('opt_out_sale_sharing', 'nevada_opt_out') OR gpc)
        ORDER BY received_at
       ON CONFLICT DO NOTHING`,
      `INSERT INTO suppressions (kind, hash, source, request_reference, added_at)
       SELECT '${kind}', encode(sha256(convert_to(lower(btrim(${kind})), 'UTF8')), 'hex'), 'gpc', reference, received_at
         FROM leads
        WHERE gpc
        ORDER BY received_at
       ON CONFLICT DO NOTHING`,
    ]),
  ],
};
