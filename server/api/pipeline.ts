/**
 * What an API endpoint is, and the one pipeline every POST goes through, in this order:
 * no-store → the endpoint's per-client budget (before any parsing) → same origin → JSON content
 * type → body parsed within the endpoint's size limit → the CSRF token (unless the endpoint
 * stores nothing) → the handler. Every refusal is an HttpError answered by server/api/errors.ts.
 */
import express, { type Request, type RequestHandler, type Response } from "express";
import { requireCsrf, tokenFromHeader, type Csrf } from "../csrf";
import { HttpError } from "../http/http-error";
import { isJsonObject, noStoreAnswers, parsedBody, requireType, sameOriginOnly } from "../http/guards";
import { errorMessage } from "../error-pages";

export const JSON_TYPE_MESSAGE = "Send the request as application/json.";
export const MALFORMED_JSON_MESSAGE = "The request body is not valid JSON.";
export const NOT_AN_OBJECT_MESSAGE = "Send the form's fields as a JSON object.";

export interface JsonBody {
  /** The largest body accepted, in body-parser's notation ("16kb"). */
  limit: string;
  /** The per-client budget the endpoint spends (server/http/rate-limit.ts). */
  budget: RequestHandler;
  /** Whether the X-CSRF-Token header must match the visitor's cookie. */
  csrf: boolean;
}

type Handle = (req: Request, res: Response) => void | Promise<void>;

export type Endpoint =
  | { method: "get"; /** The full path (shared/routes.ts). */ path: string; handle: Handle }
  | { method: "post"; path: string; body: JsonBody; handle: Handle };

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

/** The parsed body as an object of fields; 400 for an array, a string, a number or null. */
export function jsonFields(req: Request): Record<string, unknown> {
  const body: unknown = req.body;
  if (!isJsonObject(body)) throw new HttpError(400, NOT_AN_OBJECT_MESSAGE);
  return body;
}
