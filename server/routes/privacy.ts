/**
 * Privacy requests ("Do Not Sell or Share My Personal Information", /do-not-sell).
 * - POST /do-not-sell: the form without JavaScript. Checked here (content type, size, rate,
 *   CSRF), then rendered by the page's route action: 303 to the confirmation on success, the
 *   form again with field messages (422) otherwise.
 * - POST /api/privacy-requests: the same form sent by the page's script, JSON in and out.
 * - GET /api/privacy-requests/session: a CSRF token (and the GPC state) for a page reached by
 *   client-side navigation.
 */
import express, { type RequestHandler } from "express";
import type { Csrf } from "../csrf";
import { CSRF_FIELD, CSRF_HEADER } from "../csrf";
import { hasGpc, type PrivacyService } from "../privacy/service";
import { errorMessage, errorPageHtml } from "../error-pages";
import { isJsonObject, jsonParseErrors, noStore, ownJsonBody, perClientLimit, requireType } from "./api-guards";
import type { PrivacySubmitOutcome } from "../../client/render-contract";
import { paths } from "../../shared/routes";

/** Far above any real form (a correction's details are at most 1,000 characters). */
const BODY_LIMIT = "8kb";

export interface PrivacyRouteOptions {
  service: PrivacyService;
  csrf: Csrf;
  /** Submissions per client per 10 minutes. */
  rateLimit: number;
  /** Renders the /do-not-sell page for a form POST (the route action does the work). */
  renderPage: RequestHandler;
}

const API_STATUS: Record<PrivacySubmitOutcome["kind"], number> = { created: 201, duplicate: 409, invalid: 422, expired: 400 };

export function privacyRoutes({ service, csrf, rateLimit: limit, renderPage }: PrivacyRouteOptions): express.Router {
  const router = express.Router();
  // One budget per client across the form and the API; counted before any parsing.
  const limiter = perClientLimit(limit, "privacy_request_rate_limited", (req, res) => {
    if (req.path.startsWith("/api/")) res.json({ error: errorMessage(429) });
    else res.type("html").send(errorPageHtml(429, String(req.id), paths.doNotSell));
  });

  router.get(paths.privacySession, (req, res) => {
    noStore(res).json({ csrfToken: csrf.issue(req, res), gpc: hasGpc(req) });
  });

  router.post(
    paths.privacyApi,
    limiter,
    ...ownJsonBody(BODY_LIMIT),
    async (req, res, next) => {
      try {
        noStore(res);
        if (!csrf.verify(req, req.get(CSRF_HEADER))) {
          res.status(403).json({ error: errorMessage(403) });
          return;
        }
        const body: unknown = req.body;
        if (!isJsonObject(body)) {
          res.status(400).json({ error: "Send the form's fields as a JSON object." });
          return;
        }
        const { submissionId, ...fields } = body;
        const outcome = await service.submit(req, fields, submissionId);
        const status = API_STATUS[outcome.kind];
        if (outcome.kind === "created") res.status(status).json({ reference: outcome.reference, dueAt: outcome.dueAt });
        else if (outcome.kind === "duplicate") res.status(status).json({ reference: outcome.reference, error: errorMessage(409) });
        else if (outcome.kind === "invalid") res.status(status).json({ errors: outcome.errors });
        else res.status(status).json({ error: "This form has expired. Reload the page and try again." });
      } catch (error) {
        next(error);
      }
    },
  );

  router.post(
    paths.doNotSell,
    limiter,
    requireType("application/x-www-form-urlencoded", false, paths.doNotSell),
    express.urlencoded({ limit: BODY_LIMIT, extended: false, parameterLimit: 20 }),
    (req, res, next) => {
      const token = (req.body as Record<string, unknown> | undefined)?.[CSRF_FIELD];
      if (csrf.verify(req, token)) return next();
      req.log.warn({ event: "csrf_rejected", path: req.path }, "form without a valid CSRF token");
      noStore(res).status(403).type("html").send(errorPageHtml(403, String(req.id), paths.doNotSell));
    },
    renderPage,
  );

  // Parser errors (too large, malformed JSON) on the API answer in JSON; the form's, as pages.
  router.use(jsonParseErrors);
  return router;
}
