/**
 * The checks in front of the site's own POST endpoints (the JSON API and the no-JavaScript
 * form). Each one refuses by passing an HttpError on; the pipeline's error handler answers it.
 */
import type { Request, RequestHandler, Response } from "express";
import { HttpError, clientErrorStatus } from "./http-error";
import { errorMessage } from "../pages/error-page";

export function noStore(res: Response): Response {
  return res.setHeader("Cache-Control", "no-store");
}

/** Every answer of this pipeline, refusals included, is for one visitor and one moment. */
export const noStoreAnswers: RequestHandler = (_req, res, next) => {
  noStore(res);
  next();
};

/** The full path, also inside a router mounted under a prefix (for log lines). */
export function requestPath(req: Request): string {
  return req.baseUrl + req.path;
}

/** 415 unless the body is `type`. */
export function requireType(type: string, message: string): RequestHandler {
  return (req, _res, next) => {
    next(req.is(type) ? undefined : new HttpError(415, message));
  };
}

/**
 * Only our own pages may call: browsers say where a request comes from (Sec-Fetch-Site, Origin),
 * and a cross-site page cannot hide it. Clients that send neither (curl, tests) still need the
 * CSRF token where one is required.
 */
export const sameOriginOnly: RequestHandler = (req, _res, next) => {
  const fetchSite = req.get("sec-fetch-site");
  const origin = req.get("origin");
  let crossSite = fetchSite !== undefined && fetchSite !== "same-origin";
  if (!crossSite && origin !== undefined) {
    try {
      crossSite = new URL(origin).host !== req.get("host");
    } catch {
      crossSite = true; // "null" (sandboxed or privacy-sensitive contexts) and garbage
    }
  }
  if (!crossSite) return next();
  req.log.warn({ event: "cross_origin_refused", path: requestPath(req), fetchSite }, "cross-origin API call refused");
  next(new HttpError(403, errorMessage(403)));
};

/**
 * Runs a body parser (express.json, express.urlencoded); its client errors (too large, malformed,
 * unsupported charset) are logged and become HttpErrors with `messageFor(status)`. The logger's
 * err serializer keeps the raw body that body-parser attaches out of the log.
 */
export function parsedBody(parser: RequestHandler, messageFor: (status: number) => string): RequestHandler {
  return (req, res, next) => {
    void parser(req, res, (error?: unknown) => {
      if (error === undefined || error === null) return next();
      const status = clientErrorStatus(error);
      if (status === undefined) return next(error);
      req.log.warn({ err: error, status }, "client error");
      next(new HttpError(status, messageFor(status)));
    });
  };
}

/** What express.json() parsed is an object of fields (not an array, a string or null). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
