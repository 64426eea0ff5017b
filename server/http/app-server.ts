/**
 * The HTTP server for an Express app, with its requests and responses created as that app's
 * request and response objects from the start (issue 12, decision 023).
 *
 * For every request, Express re-parents Node's `IncomingMessage` and `ServerResponse` onto its own
 * prototypes (`Object.setPrototypeOf(req, app.request)`, the same for `res`). Changing an object's
 * prototype after it was built gives it a new hidden class, and Node's HTTP code, which handles
 * every request and response, then meets objects of shapes it has not optimised for. Measured
 * here with the same handler and the same cached page: plain Node 11,700–18,000 req/s, after the
 * two setPrototypeOf calls alone 6,600–7,500 (docs/decisions/023-…).
 *
 * Node lets a server say which classes it builds requests and responses from (the documented
 * `IncomingMessage` and `ServerResponse` options of http.createServer). Given constructors whose
 * prototype *is* the app's `request` and `response`, each object is born with Express's prototype,
 * and Express's setPrototypeOf finds nothing to change (V8 returns at once when the prototype is
 * already the one asked for). Nothing else differs: the same app, the same pipeline.
 */
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Express } from "express";

type RequestClass = typeof IncomingMessage;
type ResponseClass = typeof ServerResponse<IncomingMessage>;

/**
 * A constructor that builds Node's request on `prototype` (which inherits from
 * IncomingMessage.prototype). A function, not a class: a class's `prototype` cannot be replaced.
 */
function requestClassOn(prototype: object): RequestClass {
  function AppRequest(this: IncomingMessage, socket: Socket): void {
    Reflect.apply(http.IncomingMessage, this, [socket]);
  }
  AppRequest.prototype = prototype;
  return AppRequest as unknown as RequestClass;
}

function responseClassOn(prototype: object): ResponseClass {
  function AppResponse(this: ServerResponse, req: IncomingMessage, options?: unknown): void {
    Reflect.apply(http.ServerResponse, this, [req, options]);
  }
  AppResponse.prototype = prototype;
  return AppResponse as unknown as ResponseClass;
}

/** Checks that `prototype` is an Express request/response prototype over Node's, as this relies on. */
function inherits(prototype: object, base: object, what: string): object {
  if (!Object.prototype.isPrototypeOf.call(base, prototype)) throw new TypeError(`the app's ${what} does not inherit from Node's`);
  return prototype;
}

/** The server options that make `app`'s requests and responses its own from birth. */
export function appServerOptions(app: Express): http.ServerOptions<RequestClass, ResponseClass> {
  return {
    IncomingMessage: requestClassOn(inherits(app.request, http.IncomingMessage.prototype, "request")),
    ServerResponse: responseClassOn(inherits(app.response, http.ServerResponse.prototype, "response")),
  };
}

/** An HTTP server for `app` (unstarted), as http.createServer(app) but without the per-request re-parenting. */
/**
 * How often Node checks every open connection against headersTimeout and requestTimeout. Its
 * default, 30 s, lets a stalled request live up to 30 s past its limit (a slowloris holds a
 * socket about twice as long as configured); at 250 ms a stalled request gets its 408 within
 * a quarter of a second of its limit, for a walk over the open connections four times a second.
 */
export const CONNECTIONS_CHECKING_INTERVAL_MS = 250;

export function createAppServer(app: Express): http.Server {
  return http.createServer({ ...appServerOptions(app), connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS }, app);
}
