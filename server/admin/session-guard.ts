/**
 * The checks in front of the console's pages and actions: a live session (else 303 to the
 * sign-in page, which sends the user back afterwards), the session's CSRF token on every POST,
 * and the ops role for what only ops may see or do.
 */
import { timingSafeEqual } from "node:crypto";
import type { Request, RequestHandler } from "express";
import { adminPaths, type AdminRole } from "../../shared/admin-views";
import { HttpError } from "../http/http-error";
import { requestPath } from "../http/guards";
import { SESSION_COOKIE, readCookie } from "./cookies";
import type { AdminSessionRepository, SignedInSession } from "./sessions";

declare module "express-serve-static-core" {
  interface Locals {
    /** Set by requireSession for every page and action behind it. */
    adminSession?: SignedInSession;
  }
}

export const CSRF_FIELD = "_csrf";
export const FORBIDDEN_MESSAGE = "Your role cannot see or do this. Ask an ops user.";
export const CSRF_MESSAGE = "This form has expired. Reload the page and try again.";

/** The session of this request (after requireSession). */
export function sessionOf(res: { locals: { adminSession?: SignedInSession } }): SignedInSession {
  const session = res.locals.adminSession;
  if (!session) throw new Error("sessionOf() called on a route without requireSession");
  return session;
}

/** A form field as one string (a repeated field is not one). */
export function field(req: Request, name: string): string | undefined {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === "string" ? value : undefined;
}

export function sameToken(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function requireSession(sessions: AdminSessionRepository, now: () => Date): RequestHandler {
  return async (req, res, next) => {
    const token = readCookie(req, SESSION_COOKIE);
    const session = token === undefined ? undefined : await sessions.find(token, now());
    if (session) {
      res.locals.adminSession = session;
      return next();
    }
    // Back to this page after signing in; an action's form is gone, so its page instead.
    const back = req.method === "GET" || req.method === "HEAD" ? req.originalUrl : adminPaths.report;
    res.redirect(303, `${adminPaths.signIn}?${new URLSearchParams({ next: back }).toString()}`);
  };
}

/** The session's own token in the form's `_csrf` field (after the body is parsed). */
export const requireSessionCsrf: RequestHandler = (req, res, next) => {
  const session = sessionOf(res);
  if (sameToken(field(req, CSRF_FIELD), session.csrfToken)) return next();
  req.log.warn({ event: "csrf_rejected", path: requestPath(req), user: session.name }, "console form without a valid CSRF token");
  next(new HttpError(403, CSRF_MESSAGE));
};

export function requireRole(role: AdminRole): RequestHandler {
  return (req, res, next) => {
    const session = sessionOf(res);
    if (session.role === role) return next();
    req.log.warn({ event: "admin_forbidden", user: session.name, role: session.role, path: requestPath(req), method: req.method }, "console role refused");
    next(new HttpError(403, FORBIDDEN_MESSAGE));
  };
}
