/**
 * Vite writes `html.cspNonce`'s placeholder into every HTML entry it builds. The SSR template
 * (index.html) gets each response's nonce from the server; a page served as a plain file
 * (rapidfire.html) never would, so its placeholder attributes are removed. Its scripts are
 * external files from our origin, which the CSP's script-src 'self' allows without a nonce.
 */
import type { Plugin } from "vite";
import { htmlPagePlugin } from "./html-page-plugin.ts";
import { CSP_NONCE_PLACEHOLDER } from "../shared/csp-nonce.ts";

export function staticPageWithoutNonce(fileName: string): Plugin {
  const attribute = new RegExp(`\\s+nonce="${CSP_NONCE_PLACEHOLDER}"`, "g");
  const metaTag = new RegExp(`\\s*<meta[^>]*property="csp-nonce"[^>]*>`, "g");
  return htmlPagePlugin("static-page-without-nonce", fileName, (html, { fail }) => {
    const rewritten = html.replace(metaTag, "").replace(attribute, "");
    if (rewritten.includes(CSP_NONCE_PLACEHOLDER)) fail(`${fileName} still holds the CSP nonce placeholder`);
    return rewritten;
  });
}
