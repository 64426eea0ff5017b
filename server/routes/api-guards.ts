/**
 * Checks shared by the JSON endpoints the site's own pages call (privacy requests, quote
 * requests, funnel events): content type, same-origin callers, no caching, and JSON answers for
 * body-parser errors.
 */
import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response } from "express";
import { rateLimit } from "express-rate-limit";
import { errorMessage, errorPageHtml } from "../error-pages";

const RATE_WINDOW_MS = 10 * 60_000;

export function noStore(res: Response): Response {
  return res.setHeader("Cache-Control", "no-store");
}

/** 415 unless the body is `type`; answered in JSON for APIs, as a page for forms. */
export function requireType(type: string, json: boolean, pagePath?: string): RequestHandler {
  return (req, res, next) => {
    if (req.is(type)) return next();
    noStore(res).status(415);
    if (json) res.json({ error: `Send the request as ${type}.` });
    else res.type("html").send(errorPageHtml(415, String(req.id), pagePath));
  };
}

/**
 * Only our own pages may call: browsers say where a request comes from (Sec-Fetch-Site, Origin),
 * and a cross-site page cannot hide it. Clients that send neither (curl, tests) still need the
 * CSRF token where one is required.
 */
export const sameOriginOnly: RequestHandler = (req, res, next) => {
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
  req.log.warn({ event: "cross_origin_refused", path: req.path, fetchSite }, "cross-origin API call refused");
  noStore(res).status(403).json({ error: errorMessage(403) });
};

/** Body-parser errors (too large, malformed JSON) on an API answer in JSON with their 4xx. */
export const jsonParseErrors: ErrorRequestHandler = (error: { status?: number }, req, res, next) => {
  const status = error.status;
  if (!req.path.startsWith("/api/") || typeof status !== "number" || status >= 500) return next(error);
  req.log.warn({ err: error, status }, "client error");
  noStore(res).status(status).json({ error: status === 413 ? errorMessage(413) : "The request body is not valid JSON." });
};

/**
 * At most `limit` requests per client (IP, see TRUST_PROXY) per 10 minutes, counted before any
 * parsing. Over it: a warn line with `event`, and 429, in JSON unless `refuse` answers otherwise.
 */
export function perClientLimit(limit: number, event: string, refuse?: (req: Request, res: Response) => void): RequestHandler {
  return rateLimit({
    windowMs: RATE_WINDOW_MS,
    limit,
    standardHeaders: "draft-8",
    legacyHeaders: false,
    handler(req, res) {
      req.log.warn({ event, path: req.path }, "rate limited");
      noStore(res).status(429);
      if (refuse) refuse(req, res);
      else res.json({ error: errorMessage(429) });
    },
  });
}

/** A JSON POST from our own pages: same origin, JSON only, at most `limit` of body, parsed. */
export function ownJsonBody(limit: string): RequestHandler[] {
  return [sameOriginOnly, requireType("application/json", true), express.json({ limit, strict: true })];
}

/** What express.json() parsed is an object of fields (not an array, a string or null). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
