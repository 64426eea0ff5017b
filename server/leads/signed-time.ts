/**
 * A moment signed with the site's secret, as "<ms since epoch, base 36>.<HMAC-SHA256, base64url>":
 * the quote form's opening time (./form-token.ts) and an ops test link's expiry (./test-link.ts).
 * Each use signs under a purpose of its own, so a token made for one never passes as another.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

const TOKEN = /^([0-9a-z]{1,12})\.([A-Za-z0-9_-]{43})$/;

export interface SignedTimes {
  sign(at: number): string;
  /** The signed moment (ms) of a token signed with this secret and purpose; undefined for anything else. */
  read(token: unknown): number | undefined;
}

export function signedTimes(secret: string | Buffer, purpose: string): SignedTimes {
  const signature = (at: string) => createHmac("sha256", secret).update(`${purpose}:${at}`).digest("base64url");
  return {
    sign(at) {
      const text = at.toString(36);
      return `${text}.${signature(text)}`;
    },
    read(token) {
      if (typeof token !== "string") return undefined;
      const match = TOKEN.exec(token);
      if (!match) return undefined;
      const [, at = "", given = ""] = match;
      return timingSafeEqual(Buffer.from(given), Buffer.from(signature(at))) ? parseInt(at, 36) : undefined;
    },
  };
}
