/**
 * What an API endpoint is, and the two pipelines a POST goes through. Each refusal is an
 * HttpError answered by server/api/errors.ts.
 * - From our own pages (the forms' scripts): no-store → the endpoint's per-client budget (before
 *   any parsing) → same origin → JSON content type → body parsed within the endpoint's size limit
 *   → the CSRF token (unless the endpoint stores nothing) → the handler.
 * - From a partner's server (a buyer reporting a return): no browser is involved, so neither
 *   same-origin nor CSRF means anything; the caller names itself in a header and signs the raw
 *   body with its secret (X-Signature, server/delivery/signature.ts). no-store → budget → JSON
 *   content type, UTF-8 → raw body within the size limit → the signature (401 otherwise) → JSON
 *   parsed → the handler, which reads the verified caller with `signedCaller(res)`.
 */
import express, { type Request, type RequestHandler, type Response } from "express";
import { requireCsrf, tokenFromHeader, type Csrf } from "../csrf";
import { HttpError } from "../http/http-error";
import { isJsonObject, noStoreAnswers, parsedBody, requestPath, requireType, sameOriginOnly } from "../http/guards";
import { errorMessage } from "../pages/error-page";
import { truncate } from "../logger";
import { SIGNATURE_HEADER, verifySignature } from "../delivery/signature";

export const JSON_TYPE_MESSAGE = "Send the request as application/json.";
export const MALFORMED_JSON_MESSAGE = "The request body is not valid JSON.";
export const NOT_AN_OBJECT_MESSAGE = "Send the form's fields as a JSON object.";
/** One answer for an unknown caller and a missing, malformed, expired or wrong signature: no hint which. */
export const SIGNATURE_MESSAGE = "The request's signature could not be verified.";

export interface JsonBody {
  /** The largest body accepted, in body-parser's notation ("16kb"). */
  limit: string;
  /** The per-client budget the endpoint spends (server/http/rate-limit.ts). */
  budget: RequestHandler;
  /** Whether the X-CSRF-Token header must match the visitor's cookie. */
  csrf: boolean;
}

/** A POST from a partner's server, signed instead of same-origin and CSRF. */
export interface SignedJsonBody {
  limit: string;
  budget: RequestHandler;
  /** The request header in which callers name themselves (X-Buyer-Id). */
  callerHeader: string;
  /** The secret the caller signs with; undefined for an unknown caller. */
  secretOf(caller: string): string | readonly string[] | undefined;
}

type Handle = (req: Request, res: Response) => void | Promise<void>;

export type Endpoint =
  | { method: "get"; /** The full path (shared/routes.ts). */ path: string; handle: Handle }
  | { method: "post"; path: string; body: JsonBody; handle: Handle }
  | { method: "post"; path: string; signedBody: SignedJsonBody; handle: Handle };

function jsonParseMessage(status: number): string {
  if (status === 413) return errorMessage(413);
  if (status === 415) return JSON_TYPE_MESSAGE; // a charset or encoding body-parser cannot read
  return MALFORMED_JSON_MESSAGE;
}

/** The checks in front of a POST endpoint's handler. */
export function jsonBodyPipeline(body: JsonBody, csrf: Csrf): RequestHandler[] {
  return [
    noStoreAnswers,
    body.budget,
    sameOriginOnly,
    requireType("application/json", JSON_TYPE_MESSAGE),
    parsedBody(express.json({ limit: body.limit, strict: true }), jsonParseMessage),
    ...(body.csrf ? [requireCsrf(csrf, tokenFromHeader)] : []),
  ];
}

/** Where the signature check leaves the verified caller for the handler. */
const SIGNED_CALLER = "signedCaller";

/** Verifies X-Signature over the raw body with the named caller's secret. */
function requireSignature(body: SignedJsonBody): RequestHandler {
  return (req, res, next) => {
    const caller = req.get(body.callerHeader);
    const secret = caller ? body.secretOf(caller) : undefined;
    const raw = Buffer.isBuffer(req.body) ? req.body.toString("utf8") : "";
    const verdict = secret === undefined ? "unknown_caller" : verifySignature(secret, req.get(SIGNATURE_HEADER), raw);
    if (verdict === "ok") {
      res.locals[SIGNED_CALLER] = caller;
      req.body = raw;
      return next();
    }
    req.log.warn({ event: "signature_refused", path: requestPath(req), caller: caller === undefined ? undefined : truncate(caller, 64), verdict }, "signed request refused");
    // RFC 9110 §15.5.2: a 401 names the scheme that would be accepted.
    res.setHeader("WWW-Authenticate", `${SIGNATURE_HEADER} realm="api"`);
    next(new HttpError(401, SIGNATURE_MESSAGE));
  };
}

/** The signed body, known to be the caller's, parsed as JSON (express.json's strict mode: an object or an array). */
const parseSignedJson: RequestHandler = (req, _res, next) => {
  const text = String(req.body);
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== "object" || value === null) throw new SyntaxError("not an object or an array");
    req.body = value;
    next();
  } catch {
    req.log.warn({ status: 400, bytes: text.length }, "client error: malformed JSON");
    next(new HttpError(400, MALFORMED_JSON_MESSAGE));
  }
};

/** JSON in another charset cannot be what was signed as UTF-8 (express.json answers it 415 too). */
const utf8Only: RequestHandler = (req, _res, next) => {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.get("content-type") ?? "")?.[1];
  next(charset === undefined || /^utf-?8$/i.test(charset) ? undefined : new HttpError(415, JSON_TYPE_MESSAGE));
};

/** The checks in front of a signed POST endpoint's handler (a partner's server calling). */
export function signedJsonPipeline(body: SignedJsonBody): RequestHandler[] {
  return [
    noStoreAnswers,
    body.budget,
    requireType("application/json", JSON_TYPE_MESSAGE),
    utf8Only,
    parsedBody(express.raw({ type: () => true, limit: body.limit }), jsonParseMessage),
    requireSignature(body),
    parseSignedJson,
  ];
}

/** The caller whose signature the pipeline verified (signedJsonPipeline). */
export function signedCaller(res: Response): string {
  const caller: unknown = res.locals[SIGNED_CALLER];
  if (typeof caller !== "string") throw new Error("signedCaller: no verified caller (is the endpoint signed?)");
  return caller;
}

/** The parsed body as an object of fields; 400 for an array, a string, a number or null. */
export function jsonFields(req: Request): Record<string, unknown> {
  const body: unknown = req.body;
  if (!isJsonObject(body)) throw new HttpError(400, NOT_AN_OBJECT_MESSAGE);
  return body;
}
