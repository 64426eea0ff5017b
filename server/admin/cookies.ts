/**
 * The console's cookies. Cookies are scoped by host, not port, so on a shared host the public
 * site's pages are sent these too: they are HttpOnly (no script reads them), SameSite=Strict (no
 * other site's page makes the browser send them) and named apart from the site's own.
 */
import type { Request, Response } from "express";
import { parse, serialize, type SerializeOptions } from "cookie";

export const SESSION_COOKIE = "qr_admin";
export const FLASH_COOKIE = "qr_admin_flash";

const base = (req: Request): SerializeOptions => ({ httpOnly: true, sameSite: "strict", path: "/", secure: req.secure });

export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  return header ? parse(header)[name] : undefined;
}

/** A session cookie (no Max-Age): the browser forgets it when it closes; the server's expiry is the real limit. */
export function setCookie(req: Request, res: Response, name: string, value: string, maxAgeSeconds?: number): void {
  res.append("Set-Cookie", serialize(name, value, { ...base(req), ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds }) }));
}

export function clearCookie(req: Request, res: Response, name: string): void {
  res.append("Set-Cookie", serialize(name, "", { ...base(req), maxAge: 0, expires: new Date(0) }));
}
