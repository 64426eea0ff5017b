/**
 * One message shown after an action (post/redirect/get): the action sets a short-lived, signed
 * cookie, the page it redirects to shows the message and clears the cookie. Signed, so nothing
 * but the console can make it say something.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Request, Response } from "express";
import type { Flash } from "../../shared/admin-views";
import { FLASH_COOKIE, clearCookie, readCookie, setCookie } from "./cookies";

const FLASH_SECONDS = 60;
const MAX_TEXT = 300;

export interface FlashStore {
  set(req: Request, res: Response, flash: Flash): void;
  /** The message waiting for this request, cleared as it is read. */
  take(req: Request, res: Response): Flash | undefined;
}

export function createFlashStore(secret: Buffer): FlashStore {
  const sign = (payload: string) => createHmac("sha256", secret).update(payload).digest("base64url");
  return {
    set(req, res, flash) {
      const payload = Buffer.from(JSON.stringify({ k: flash.kind, t: flash.text.slice(0, MAX_TEXT), e: Date.now() + FLASH_SECONDS * 1000 })).toString("base64url");
      setCookie(req, res, FLASH_COOKIE, `${payload}.${sign(payload)}`, FLASH_SECONDS);
    },
    take(req, res) {
      const value = readCookie(req, FLASH_COOKIE);
      if (value === undefined) return undefined;
      clearCookie(req, res, FLASH_COOKIE);
      const [payload = "", signature = ""] = value.split(".");
      const expected = Buffer.from(sign(payload));
      const given = Buffer.from(signature);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
      try {
        const parsed = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { k?: unknown; t?: unknown; e?: unknown };
        if ((parsed.k !== "success" && parsed.k !== "error") || typeof parsed.t !== "string" || typeof parsed.e !== "number" || parsed.e < Date.now()) return undefined;
        return { kind: parsed.k, text: parsed.t };
      } catch {
        return undefined;
      }
    },
  };
}
