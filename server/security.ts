/**
 * Security headers. One nonce per response (128 bits from the CSPRNG) authorises exactly the
 * scripts this response emits; nothing inline runs without it. A page that is the same bytes for
 * everyone is served with its scripts' hashes in place of the nonce (decision 026). Frames: the
 * site frames only itself (the quote form), and only the site may frame it. The quote form's
 * response alone adds the consent-proof providers switched on (server/consent/proof-scripts.ts).
 */
import { randomFillSync } from "node:crypto";
import type { ServerResponse } from "node:http";
import type { Request, RequestHandler, Response } from "express";
import helmet from "helmet";
import { isOpenPage, paths } from "../shared/routes";
import { pathOfUrl } from "./http/url-path";
import type { Config } from "./config";
import { proofSources, type ProofConfig, type ProofSources } from "./consent/proof-scripts";

declare module "express-serve-static-core" {
  interface Locals {
    cspNonce: string;
  }
}

/** Nonces are cut from a pool of CSPRNG bytes, refilled when used up: one call per 256 responses. */
const NONCE_BYTES = 16;
const pool = Buffer.alloc(NONCE_BYTES * 256);
let poolOffset = pool.length;

export function createNonce(): string {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const nonce = pool.toString("base64", poolOffset, poolOffset + NONCE_BYTES);
  poolOffset += NONCE_BYTES;
  return nonce;
}

/** Stands in for the nonce while helmet writes the header set once (base64 never contains it). */
const NONCE_MARK = "{{csp-nonce}}";

/** helmet hands directive functions the plain Node response; ours is always an Express one. */
function nonceOf(res: ServerResponse): string {
  return `'nonce-${(res as Response).locals.cspNonce}'`;
}

type HeaderValue = string | number | readonly string[];

/** A header whose value holds the nonce (the CSP): the text around it. */
class NonceTemplate {
  constructor(
    readonly before: string,
    readonly after: string,
  ) {}
}

/**
 * The headers helmet sets, captured once at start-up: helmet decides them, and a response only
 * copies them (with its own nonce in the CSP) instead of running a dozen middleware (issue 12).
 */
function helmetHeaderSet(handler: RequestHandler): Array<[string, HeaderValue]> {
  const headers = new Map<string, HeaderValue>();
  const res = {
    locals: { cspNonce: NONCE_MARK },
    setHeader: (name: string, value: HeaderValue) => headers.set(name, value),
    removeHeader: (name: string) => headers.delete(name),
  };
  let finished = false;
  // helmet's middleware reads nothing from the request and calls next() synchronously.
  handler({} as Request, res as unknown as Response, (error?: unknown) => {
    if (error) throw error instanceof Error ? error : new Error(String(error));
    finished = true;
  });
  if (!finished) throw new Error("helmet did not finish synchronously; the security headers cannot be precomputed");
  return [...headers];
}

const COOP = "cross-origin-opener-policy";
const CSP = "content-security-policy";

export interface SecurityHeaders {
  /** Sets the header set, with this response's nonce in the CSP. */
  handler: RequestHandler;
  /**
   * The same CSP with these sources (`'sha256-…'`) in place of the nonce: the policy of a page
   * whose bytes are the same for everyone (decision 026, server/pages/fixed.ts).
   */
  policyFor(scriptSources: readonly string[]): string;
}

/** helmet's options: our policy, with the consent-proof providers' sources added when given (the quote form's). */
function helmetOptions(dev: boolean, proof?: ProofSources): Parameters<typeof helmet>[0] {
  const plus = (sources: string[], extra: readonly string[] | undefined) => [...sources, ...(extra ?? [])];
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", (_req, res) => nonceOf(res), ...(proof?.script ?? [])],
        scriptSrcAttr: ["'none'"],
        // Radix positions tooltips with style attributes and sonner injects its stylesheet at
        // run time; styles cannot run code, so inline styles are allowed (see docs/security.md).
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: plus(["'self'", "data:"], proof?.img),
        fontSrc: ["'self'"],
        // Only Vite's HMR websocket needs more, and only in development.
        connectSrc: plus(dev ? ["'self'", "ws:", "wss:"] : ["'self'"], proof?.connect),
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
  };
}

/** helmet's header set, each header holding the nonce kept as the text around it. */
function headerSet(dev: boolean, proof?: ProofSources): Array<[string, HeaderValue | NonceTemplate]> {
  return helmetHeaderSet(helmet(helmetOptions(dev, proof))).map(([name, value]): [string, HeaderValue | NonceTemplate] => {
    const at = typeof value === "string" ? value.indexOf(NONCE_MARK) : -1;
    return at >= 0 ? [name, new NonceTemplate(String(value).slice(0, at), String(value).slice(at + NONCE_MARK.length))] : [name, value];
  });
}

export function securityHeaders(config: Pick<Config, "NODE_ENV"> & ProofConfig): SecurityHeaders {
  const dev = config.NODE_ENV === "development";
  const headers = headerSet(dev);
  // The quote form alone may load the consent-proof providers' scripts (issue 44): its own set,
  // with their origins, only for the providers switched on; every other response keeps the policy above.
  const proof = proofSources(config);
  const formHeaders = proof.script.length > 0 ? headerSet(dev, proof) : headers;
  // The pages that hold no personal data go without COOP (decision 025): the same set less that header.
  const openPageHeaders = headers.filter(([name]) => name.toLowerCase() !== COOP);
  if (openPageHeaders.length !== headers.length - 1) throw new Error("helmet set no Cross-Origin-Opener-Policy to leave out of the open pages' headers");
  // The nonce stands in script-src as the source 'nonce-…'; a fixed page puts its hashes there.
  const csp = headers.find(([name]) => name.toLowerCase() === CSP)?.[1];
  if (!(csp instanceof NonceTemplate) || !csp.before.endsWith(" 'nonce-") || !csp.after.startsWith("'")) throw new Error("the CSP helmet wrote has no 'nonce-…' source to swap");
  const beforeSource = csp.before.slice(0, -" 'nonce-".length);
  const afterSource = csp.after.slice(1);
  return {
    handler: (req, res, next) => {
      const nonce = createNonce();
      res.locals.cspNonce = nonce;
      const path = pathOfUrl(req.url);
      for (const [name, value] of isOpenPage(path) ? openPageHeaders : path === paths.quoteForm ? formHeaders : headers) {
        res.setHeader(name, value instanceof NonceTemplate ? `${value.before}${nonce}${value.after}` : value);
      }
      next();
    },
    policyFor: (scriptSources) => `${beforeSource}${scriptSources.map((source) => ` ${source}`).join("")}${afterSource}`,
  };
}
