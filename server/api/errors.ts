/**
 * The API's one error handler: every refusal of every /api endpoint, whoever raised it (a guard,
 * the CSRF check, the rate limit, body-parser, a handler, the router's 404), is answered here in
 * one envelope (shared/api-envelope.ts):
 * - `{ "status": "error", "error": "<for the visitor>", ...extra }` (a 409 adds `reference`),
 * - `{ "status": "invalid", "errors": { field: message } }` for a 422.
 * A database that cannot be reached just now (server/db/unavailable.ts: stopped, restarting,
 * failing over) is answered 503 with Retry-After: the request stored nothing, and the same request
 * again (the same idempotency key) will, once the database is back (issue 10). The outage is
 * logged once when it starts and once when it ends, with its count (server/db/outage.ts, issue 41);
 * without an outage log (a test's router), each such request is logged at warn as `database_unavailable`. Anything else that is not a client error is logged and answered as
 * a 500 in the same envelope, never with details.
 */
import type { ErrorRequestHandler, Request, RequestHandler } from "express";
import { HttpError, clientErrorStatus } from "../http/http-error";
import { noStore, requestPath } from "../http/guards";
import { errorMessage } from "../pages/error-page";
import { logNotFound } from "../events";
import { isDatabaseUnavailable } from "../db/unavailable";
import type { OutageLog } from "../db/outage";
import type { ApiError, ApiInvalid } from "../../shared/api-envelope";

export const NOT_FOUND_MESSAGE = "No such API endpoint.";
/**
 * Shown as it is by the Do Not Sell page's script; the quote form retries by itself and says
 * "Still sending your request…" meanwhile. True for both: nothing was stored yet.
 */
export const DATABASE_UNAVAILABLE_MESSAGE = "We could not save your request just yet: our system needs a few more seconds. Please send it again in a moment.";
/** Seconds a client should wait before sending the same request again (a PostgreSQL restart takes a few). */
export const RETRY_AFTER_SECONDS = 2;

/** The body for a refusal. Extra fields never replace `status` or `error`. */
export function envelopeOf(error: HttpError): ApiError | ApiInvalid {
  if (error.fieldErrors) return { status: "invalid", errors: error.fieldErrors };
  const { status: _status, error: _error, ...extra } = error.extra;
  return { status: "error", error: error.message, ...extra };
}

/** Turns what reached the handler into the answer to give, logging what our own code did not raise. */
function answerFor(error: unknown, req: Request, outage: OutageLog | undefined): HttpError {
  if (error instanceof HttpError) {
    if (error.status >= 500) req.log.error({ err: error }, "request failed");
    return error;
  }
  const status = clientErrorStatus(error);
  if (status !== undefined) {
    req.log.warn({ err: error, status }, "client error");
    return new HttpError(status, errorMessage(status));
  }
  if (isDatabaseUnavailable(error)) {
    if (outage) outage.met("api", error);
    else req.log.warn({ event: "database_unavailable", path: requestPath(req), err: error }, "database unavailable");
    return new HttpError(503, DATABASE_UNAVAILABLE_MESSAGE);
  }
  req.log.error({ err: error }, "request failed");
  return new HttpError(500, errorMessage(500));
}

/** The API's error handler; `outage` hears of every request that met an unreachable database. */
export const apiErrors = (outage?: OutageLog): ErrorRequestHandler => (error: unknown, req, res, next) => {
  const answer = answerFor(error, req, outage);
  if (res.headersSent) {
    next(error);
    return;
  }
  // An answer may be cacheable on purpose (an unknown ZIP code); every other refusal is not.
  if (!res.hasHeader("Cache-Control")) noStore(res);
  // Every 503 here is "not now": say when to come back (RFC 9110 §10.2.3), unless its thrower did.
  if (answer.status === 503 && !res.hasHeader("Retry-After")) res.setHeader("Retry-After", String(RETRY_AFTER_SECONDS));
  res.status(answer.status).json(envelopeOf(answer));
};

/** Any other address under /api: a JSON 404 (API callers parse JSON), never the not-found page. */
export const apiNotFound: RequestHandler = (req, _res, next) => {
  logNotFound(req);
  next(new HttpError(404, NOT_FOUND_MESSAGE));
};
