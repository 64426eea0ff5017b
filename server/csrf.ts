/**
 * CSRF protection for our forms: the signed double-submit cookie pattern (OWASP CSRF
 * Prevention Cheat Sheet). The visitor gets a random, HttpOnly, SameSite=Strict cookie; forms
 * carry HMAC(secret, cookie). A cross-site page can neither read the cookie nor compute the
 * token. Stateless, so any replica can check a token another issued (with a shared CSRF_SECRET).
 * csrf-csrf implements the same idea but requires a session id, which this site does not have.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Request, RequestHandler, Response } from "express";
import { parse, serialize } from "cookie";
import { HttpError } from "./http/http-error";
import { requestPath } from "./http/guards";
import { CSRF_FIELD, CSRF_HEADER } from "../shared/routes";

export const CSRF_COOKIE = "qr_csrf";
const SEED_PATTERN = /^[A-Za-z0-9_-]{24}$/;

export interface Csrf {
  /** The token for this visitor's forms; sets the cookie on `res` when the visitor has none. */
  issue(req: Request, res: Response): string;
  /** Whether `token` matches this visitor's cookie. */
  verify(req: Request, token: unknown): boolean;
}

export function createCsrf(secret: string | Buffer): Csrf {
  const sign = (seed: string) => createHmac("sha256", secret).update(seed).digest("base64url");
  const seedOf = (req: Request): string | undefined => {
    const header = req.headers.cookie;
    if (!header) return undefined;
    const seed = parse(header)[CSRF_COOKIE];
    return seed && SEED_PATTERN.test(seed) ? seed : undefined;
  };
  return {
    issue(req, res) {
      let seed = seedOf(req);
      if (!seed) {
        seed = randomBytes(18).toString("base64url");
        res.append("Set-Cookie", serialize(CSRF_COOKIE, seed, { httpOnly: true, sameSite: "strict", path: "/", secure: req.secure }));
      }
      return sign(seed);
    },
    verify(req, token) {
      const seed = seedOf(req);
      if (!seed || typeof token !== "string") return false;
      const expected = Buffer.from(sign(seed));
      const given = Buffer.from(token);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}

/** What a visitor whose page is too old (or a forged post) is told. */
export const CSRF_REFUSED_MESSAGE = "Your session has expired. Reload the page and send the form again.";

/** The token a fetch sends in its header (the JSON API). */
export const tokenFromHeader = (req: Request): unknown => req.get(CSRF_HEADER);
/** The token a plain form sends as a hidden field (after the body was parsed). */
export const tokenFromField = (req: Request): unknown => (req.body as Record<string, unknown> | undefined)?.[CSRF_FIELD];

/**
 * The middleware in front of every state-changing route of the API and the forms: passes when
 * the request's token matches the visitor's cookie; otherwise logs `csrf_rejected` and refuses
 * with a 403 HttpError, answered by the route's pipeline (JSON envelope or error page).
 */
export function requireCsrf(csrf: Csrf, tokenOf: (req: Request) => unknown): RequestHandler {
  return (req, _res, next) => {
    if (csrf.verify(req, tokenOf(req))) return next();
    req.log.warn({ event: "csrf_rejected", path: requestPath(req) }, "request without a valid CSRF token");
    next(new HttpError(403, CSRF_REFUSED_MESSAGE));
  };
}
