/**
 * CSRF protection for our forms: the signed double-submit cookie pattern (OWASP CSRF
 * Prevention Cheat Sheet). The visitor gets a random, HttpOnly, SameSite=Strict cookie; forms
 * carry HMAC(secret, cookie). A cross-site page can neither read the cookie nor compute the
 * token. Stateless, so any replica can check a token another issued (with a shared CSRF_SECRET).
 * csrf-csrf implements the same idea but requires a session id, which this site does not have.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Request, Response } from "express";
import { parse, serialize } from "cookie";

export const CSRF_COOKIE = "qr_csrf";
export { CSRF_FIELD, CSRF_HEADER } from "../shared/routes";
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
