/**
 * Security headers. One nonce per response (128 bits from the CSPRNG) authorises exactly the
 * scripts this response emits; nothing inline runs without it. Frames: the site frames only
 * itself (the quote form), and only the site may frame it.
 */
import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import type { RequestHandler, Response } from "express";
import helmet from "helmet";
import type { Config } from "./config";

declare module "express-serve-static-core" {
  interface Locals {
    cspNonce: string;
  }
}

export function createNonce(): string {
  return randomBytes(16).toString("base64");
}

const assignNonce: RequestHandler = (_req, res, next) => {
  res.locals.cspNonce = createNonce();
  next();
};

/** helmet hands directive functions the plain Node response; ours is always an Express one. */
function nonceOf(res: ServerResponse): string {
  return `'nonce-${(res as Response).locals.cspNonce}'`;
}

export function securityHeaders(config: Pick<Config, "NODE_ENV">): RequestHandler[] {
  const dev = config.NODE_ENV === "development";
  return [
    assignNonce,
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'", (_req, res) => nonceOf(res)],
          scriptSrcAttr: ["'none'"],
          // Radix positions tooltips with style attributes and sonner injects its stylesheet at
          // run time; styles cannot run code, so inline styles are allowed (see docs/security.md).
          styleSrc: ["'self'", "'unsafe-inline'"],
          imgSrc: ["'self'", "data:"],
          fontSrc: ["'self'"],
          // Only Vite's HMR websocket needs more, and only in development.
          connectSrc: dev ? ["'self'", "ws:", "wss:"] : ["'self'"],
          frameSrc: ["'self'"],
          frameAncestors: ["'self'"],
          formAction: ["'self'"],
          baseUri: ["'self'"],
          objectSrc: ["'none'"],
          manifestSrc: ["'self'"],
          workerSrc: ["'self'"],
        },
      },
      frameguard: { action: "sameorigin" },
      referrerPolicy: { policy: "strict-origin-when-cross-origin" },
      strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: true },
      // The quote form frame is same-origin, and nothing we serve needs cross-origin isolation.
      crossOriginEmbedderPolicy: false,
    }),
  ];
}
