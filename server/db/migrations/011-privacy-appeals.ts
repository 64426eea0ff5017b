/**
 * Version 11: a privacy request may be an appeal of our decision on an earlier one (issue 14;
 * privacy policy section 17, "Appeals"). The states with consumer privacy laws require an appeals
 * process with a deadline; an appeal is stored, deadlined and answered like any other request,
 * with the earlier request's reference and the reasons in `details`.
 */
import type { Migration } from "./migration";

export const privacyAppeals: Migration = {
  version: 11,
  name: "privacy-appeals",
  statements: [
    `ALTER TABLE privacy_requests
       DROP CONSTRAINT privacy_requests_request_type_check,
       ADD CONSTRAINT privacy_requests_request_type_check
         CHECK (request_type IN ('opt_out_sale_sharing', 'nevada_opt_out', 'access', 'deletion', 'correction', 'appeal'))`,
  ],
};
