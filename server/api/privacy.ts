/**
 * The Do Not Sell page's API, for the page's script (the no-JavaScript form is
 * server/routes/do-not-sell.ts; both end in the same privacy service):
 * - GET  /api/privacy-requests/session  a CSRF token (and the GPC state) for a page reached by
 *                                       client-side navigation
 * - POST /api/privacy-requests          the form, JSON in and out: 201 `{ reference, dueAt }`;
 *                                       refusals in the API's envelope (409 adds `reference`)
 */
import type { Csrf } from "../csrf";
import type { PrivacyService } from "../privacy/service";
import type { ClientBudgets } from "../http/rate-limit";
import { HttpError } from "../http/http-error";
import { hasGpc } from "../http/gpc";
import { noStore } from "../http/guards";
import { errorMessage } from "../pages/error-page";
import { jsonFields, type Endpoint } from "./pipeline";
import { paths } from "../../shared/routes";

/** Far above any real form (a correction's details are at most 1,000 characters); the no-JavaScript form's too. */
export const PRIVACY_BODY_LIMIT = "8kb";

export function privacyEndpoints(service: PrivacyService, csrf: Csrf, budgets: ClientBudgets): Endpoint[] {
  return [
    {
      method: "get",
      path: paths.privacySession,
      handle(req, res) {
        noStore(res).json({ csrfToken: csrf.issue(req, res), gpc: hasGpc(req) });
      },
    },
    {
      method: "post",
      path: paths.privacyApi,
      // The budget is the no-JavaScript form's too: one per client across both.
      body: { limit: PRIVACY_BODY_LIMIT, budget: budgets.privacy, csrf: true },
      async handle(req, res) {
        const { submissionId, ...fields } = jsonFields(req);
        const outcome = await service.submit(req, fields, submissionId);
        switch (outcome.kind) {
          case "created":
            res.status(201).json({ reference: outcome.reference, dueAt: outcome.dueAt });
            return;
          case "duplicate":
            throw new HttpError(409, errorMessage(409), { reference: outcome.reference });
          case "invalid":
            throw HttpError.invalid(outcome.errors);
          case "expired":
            throw new HttpError(400, "This form has expired. Reload the page and try again.");
        }
      },
    },
  ];
}
