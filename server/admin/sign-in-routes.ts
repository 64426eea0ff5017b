/**
 * GET/POST /sign-in and POST /sign-out. The sign-in form has its own CSRF token before any
 * session exists (server/csrf.ts's signed double-submit cookie); a per-client rate limit and the
 * per-user lockout (authenticate.ts) slow guessing. Every sign-in, refusal and sign-out is logged
 * with the user's name, never the password or a token.
 */
import { Router, type Request, type RequestHandler, type Response } from "express";
import type { Csrf } from "../csrf";
import { adminPaths, type SignInView } from "../../shared/admin-views";
import { authenticate } from "./authenticate";
import { SESSION_COOKIE, clearCookie, readCookie, setCookie } from "./cookies";
import { safeNextPath } from "./next-path";
import { CSRF_FIELD, field, requireSession, requireSessionCsrf, sessionOf } from "./session-guard";
import type { AdminSessionRepository } from "./sessions";
import type { AdminUserRepository } from "./users";
import type { RenderView } from "./render";
import type { FlashStore } from "./flash";

/** One message for every refusal: it never tells whether the name exists or is locked. */
export const SIGN_IN_REFUSED = "That name and password did not work. After 5 failed tries in a row an account is locked for 15 minutes.";
export const SIGN_IN_EXPIRED = "The sign-in form expired. Please try again.";
export const SIGN_IN_RATE_LIMITED = "Too many sign-in attempts from here. Wait a few minutes and try again.";
const NAME_MAX = 64;

export interface SignInDependencies {
  users: AdminUserRepository;
  sessions: AdminSessionRepository;
  csrf: Csrf;
  flash: FlashStore;
  render: RenderView;
  /** Per-client budget on POST /sign-in (server/http/rate-limit.ts). */
  limit: RequestHandler;
  body: RequestHandler;
  now: () => Date;
}

export function signInRoutes({ users, sessions, csrf, flash, render, limit, body, now }: SignInDependencies): Router {
  const router = Router();

  const signInPage = (req: Request, res: Response, status: number, extra: { error?: string; name?: string; next?: string } = {}) => {
    const view: SignInView = {
      page: "sign-in",
      csrfToken: csrf.issue(req, res),
      next: extra.next ?? safeNextPath(req.query.next),
      ...(extra.error ? { error: extra.error } : {}),
      ...(extra.name ? { name: extra.name } : {}),
    };
    return render(req, res, status, view);
  };

  router.get(adminPaths.signIn, async (req, res) => {
    const token = readCookie(req, SESSION_COOKIE);
    // Already signed in: straight on.
    if (token !== undefined && (await sessions.find(token, now()))) return res.redirect(303, safeNextPath(req.query.next));
    await signInPage(req, res, 200);
  });

  router.post(adminPaths.signIn, limit, body, async (req, res) => {
    const rawName = field(req, "name") ?? "";
    const name = rawName.trim().toLowerCase().slice(0, NAME_MAX);
    const next = safeNextPath(field(req, "next"));
    if (!csrf.verify(req, field(req, CSRF_FIELD))) {
      req.log.warn({ event: "admin_sign_in", user: name, outcome: "csrf_rejected" }, "console sign-in without a valid CSRF token");
      return signInPage(req, res, 403, { error: SIGN_IN_EXPIRED, next, name });
    }
    const outcome = await authenticate(users, name, field(req, "password") ?? "", now());
    if (!outcome.ok) {
      req.log.warn({ event: "admin_sign_in", user: name, outcome: outcome.reason }, "console sign-in refused");
      return signInPage(req, res, 401, { error: SIGN_IN_REFUSED, next, name });
    }
    await sessions.deleteExpired(now());
    const session = await sessions.create(outcome.user.id, now());
    setCookie(req, res, SESSION_COOKIE, session.token);
    req.log.info({ event: "admin_sign_in", user: outcome.user.name, role: outcome.user.role, outcome: "signed_in" }, "console sign-in");
    res.redirect(303, next);
  });

  router.post(adminPaths.signOut, requireSession(sessions, now), body, requireSessionCsrf, async (req, res) => {
    const session = sessionOf(res);
    await sessions.delete(session.tokenSha256);
    clearCookie(req, res, SESSION_COOKIE);
    req.log.info({ event: "admin_sign_out", user: session.name }, "console sign-out");
    flash.set(req, res, { kind: "success", text: "You are signed out." });
    res.redirect(303, adminPaths.signIn);
  });

  return router;
}
