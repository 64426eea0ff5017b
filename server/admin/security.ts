/**
 * The console's security headers, stricter than the site's: it is never framed (not even by
 * itself), never cached, never indexed, and sends no Referer (its URLs name leads and sources).
 * The pages ship no script: the nonce is there for the renderer's tags, nothing else runs.
 * Inline styles are allowed as on the site (charts' SVG carries style attributes; styles cannot
 * run code, docs/security.md).
 */
import type { ServerResponse } from "node:http";
import type { RequestHandler, Response } from "express";
import helmet from "helmet";
import { createNonce } from "../security";

function nonceOf(res: ServerResponse): string {
  return `'nonce-${(res as Response).locals.cspNonce}'`;
}

export function adminSecurityHeaders(): RequestHandler[] {
  return [
    (_req, res, next) => {
      res.locals.cspNonce = createNonce();
      res.setHeader("Cache-Control", "no-store");
      res.setHeader("X-Robots-Tag", "noindex, nofollow");
      next();
    },
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'none'"],
          // The console's pages ship no script at all (client/admin renders plain HTML and SVG),
          // and their one stylesheet is an inline <style> with this response's nonce.
          scriptSrc: ["'none'"],
          scriptSrcAttr: ["'none'"],
          styleSrc: [(_req, res) => nonceOf(res)],
          styleSrcAttr: ["'none'"],
          imgSrc: ["'self'", "data:"],
          fontSrc: ["'self'"],
          connectSrc: ["'self'"],
          formAction: ["'self'"],
          frameAncestors: ["'none'"],
          baseUri: ["'none'"],
          objectSrc: ["'none'"],
        },
      },
      frameguard: { action: "deny" },
      referrerPolicy: { policy: "no-referrer" },
      // The console is reached over an SSH tunnel or an internal network, often plain http: an
      // HSTS header there would pin the name to https for a year.
      strictTransportSecurity: false,
      crossOriginEmbedderPolicy: false,
    }),
  ];
}
