/**
 * POST /do-not-sell: the privacy request form without JavaScript. The same checks as the API's
 * privacy endpoint, in the same order and with the same budget and size limit (content type,
 * size, rate, CSRF from the hidden field), then the page's route action does the work: 303 to
 * the confirmation on success, the form again with field messages (422) otherwise. Refusals are
 * error pages that lead back to the form.
 */
import express, { type ErrorRequestHandler, type RequestHandler } from "express";
import { requireCsrf, tokenFromField, type Csrf } from "../csrf";
import { HttpError } from "../http/http-error";
import { noStore, parsedBody, requireType } from "../http/guards";
import { errorMessage, errorPageHtml } from "../pages/error-page";
import { PRIVACY_BODY_LIMIT } from "../api/privacy";
import { paths } from "../../shared/routes";

export interface DoNotSellFormOptions {
  csrf: Csrf;
  /** The privacy budget, shared with POST /api/privacy-requests (server/http/rate-limit.ts). */
  budget: RequestHandler;
  /** Renders the /do-not-sell page for the POST (its route action handles the form). */
  renderPage: RequestHandler;
}

/** The pipeline's refusals as pages; anything else goes on to the app's error handler. */
const formErrors: ErrorRequestHandler = (error: unknown, req, res, next) => {
  if (!(error instanceof HttpError) || error.status >= 500 || res.headersSent) {
    next(error);
    return;
  }
  noStore(res).status(error.status).type("html").send(errorPageHtml(error.status, String(req.id), paths.doNotSell));
};

export function doNotSellForm({ csrf, budget, renderPage }: DoNotSellFormOptions): express.Router {
  const router = express.Router();
  router.post(
    paths.doNotSell,
    budget,
    requireType("application/x-www-form-urlencoded", errorMessage(415)),
    parsedBody(express.urlencoded({ limit: PRIVACY_BODY_LIMIT, extended: false, parameterLimit: 20 }), errorMessage),
    requireCsrf(csrf, tokenFromField),
    renderPage,
  );
  router.use(formErrors);
  return router;
}
