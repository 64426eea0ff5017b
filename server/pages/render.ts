/**
 * Server-side rendering of the React router (docs/architecture.md, conventions 2, 3, 6): the data router decides
 * the status (404 for unknown paths) before the first byte; React streams the shell; bots get
 * the whole document at once; HEAD gets no body; a render that hangs is aborted, and so is one
 * whose visitor has gone. Complete 200 pages are kept briefly in the page cache.
 *
 * Every page view has a visit id (`vid`, shared/campaign.ts): the address's, or a new one when
 * it carries none (the visitor's entry, e.g. an ad click). The routes get it through
 * ServerContext.visitId and pass it on; the events get it with whether it was minted here.
 */
import { Writable } from "node:stream";
import type { ServerResponse } from "node:http";
import type { Request, RequestHandler, Response } from "express";
import { isBotUserAgent } from "../http/bot-agent";
import { visitIdOf } from "../../shared/campaign";
import { API_PREFIX } from "../../shared/routes";
import { randomId } from "../../shared/random-id";
import type { Config } from "../config";
import type { RenderSource } from "./render-source";
import type { LandingKnobs, PreparedPage, ServerContext } from "../../shared/render-contract";
import { errorPageHtml } from "./error-page";
import { fillTemplate, renderHead, type DocumentParts } from "./template";
import { logNotFound, logPageEvents, type Visit } from "../events";
import { isSafeRelativeLocation } from "./redirects";
import { PageCache, type CachedPage, type Shape } from "./cache";
import type { SlotValues } from "./spliced";
import { createNonce } from "../security";
import { ASSETS_PATH } from "./static";
import { LRUCache } from "lru-cache";
import type { Logger } from "pino";
import { FixedPages, type Coding, type FixedPage } from "./fixed";

/** This page view's visit: the address's valid vid, else a new one (`entry`: the visit starts here). */
export function visitFor(url: URL): Visit {
  const carried = visitIdOf(url.searchParams);
  return carried === undefined ? { id: randomId(), entry: true } : { id: carried, entry: false };
}

/** Browsers revalidate HTML every time; the pages hold no personal data, so shared caches may too. */
const HTML_CACHE_CONTROL = "no-cache";

type RenderConfig = Pick<Config, "PUBLIC_BASE_URL" | "RENDER_TIMEOUT_MS" | "PAGE_CACHE_MAX_ENTRIES" | "PAGE_CACHE_TTL_MS">;
type RenderFn = Extract<PreparedPage, { type: "document" }>["render"];

export interface RenderOptions {
  cache: boolean;
  /**
   * The CSP for a page whose scripts are allowed by hashes (server/security.ts): given, cached
   * pages that are the same for everyone are served as one precompressed text (decision 026).
   */
  policyFor?: (scriptSources: readonly string[]) => string;
  /** Where a failed background compression is reported. */
  logger?: Logger;
  /** The services loaders and actions get on the server (see ServerContext); the visit id is added here. */
  contextFor: (req: Request, res: Response) => ServerContext;
  /**
   * The experiments' variant of this request's page (server/experiments/landing.ts): its cache key
   * and its knobs; it may set the visitor's cookie on `res`. Undefined (or absent): no experiment
   * changes the page, which takes today's path.
   */
  variantOf?: (req: Request, res: Response, url: URL) => PageVariant | undefined;
}

/** A page's experiment variant as the renderer needs it (server/experiments/landing.ts makes it). */
export interface PageVariant {
  key: string;
  knobs: LandingKnobs;
}

/**
 * A page that depends on the visitor's cookie: no shared cache may keep it (its variant is one
 * visitor's, and its response may set their cookie). Browsers revalidate it as any page.
 */
const PER_VISITOR_CACHE_CONTROL = "private, no-cache";

/** The fetch Request React Router sees: same path and query; for a form POST, its fields. */
function routerRequest(req: Request, url: URL, signal: AbortSignal): globalThis.Request {
  if (req.method !== "POST") return new Request(url, { signal });
  const body = new URLSearchParams();
  const fields = (req.body ?? {}) as Record<string, unknown>;
  for (const [key, value] of Object.entries(fields)) {
    for (const item of Array.isArray(value) ? value : [value]) if (typeof item === "string") body.append(key, item);
  }
  return new Request(url, { method: "POST", body, signal });
}

/**
 * Aborts when the visitor goes away before the response is complete; at once if they already
 * have: the connection can close while earlier middleware runs, and its "close" event is then
 * long gone (the render would otherwise run on to RENDER_TIMEOUT_MS for nobody).
 */
export function visitorSignal(res: ServerResponse): AbortSignal {
  const gone = new AbortController();
  if (res.destroyed) gone.abort();
  else
    res.once("close", () => {
      if (!res.writableFinished) gone.abort();
    });
  return gone.signal;
}

/** The statuses whose pages are kept: a page, and the not-found page (ad links to old paths are traffic too). */
function cacheableStatus(status: number): 200 | 404 | undefined {
  return status === 200 || status === 404 ? status : undefined;
}

/** A render with no visitor behind it (filling the cache): pages that need the visitor's services fail, and are not kept. */
const DETACHED_CONTEXT: ServerContext = {
  privacy: {
    csrfToken: () => {
      throw new Error("a page rendered for the cache has no visitor to give a CSRF token");
    },
    gpc: false,
    submit: () => Promise.reject(new Error("a page rendered for the cache takes no submissions")),
  },
};

/** The render's knobs for a variant: none for the control (its page is the one everyone gets without an experiment). */
function knobsOf(variant: PageVariant | undefined): Pick<ServerContext, "knobs"> {
  return variant && variant.key !== "" ? { knobs: variant.knobs } : {};
}

/** The page handlers: every page, and the early answer of pages already in the cache. */
export interface PageHandlers {
  /** Renders any page (GET, HEAD, the no-JavaScript form's POST), from the cache when it can. */
  renderPage: RequestHandler;
  /**
   * Answers a GET or HEAD whose page is in the cache, before the rest of the pipeline runs
   * (compression, the API's and files' routers); anything else goes on with next(). Only
   * addresses that renderPage answered are ever in the cache, so nothing before it is shadowed.
   */
  cachedPage: RequestHandler;
}

export function createRenderHandler(source: RenderSource, config: RenderConfig, options: RenderOptions): PageHandlers {
  const { policyFor, logger } = options;
  const fixed = policyFor
    ? new FixedPages({ policyFor, onError: (error) => logger?.warn({ err: error, event: "page_compression_failed" }, "could not compress a page; it is served with a nonce") })
    : undefined;
  const cache = new PageCache(
    options.cache ? { maxEntries: config.PAGE_CACHE_MAX_ENTRIES, ttlMs: config.PAGE_CACHE_TTL_MS, fixed } : { maxEntries: 0, ttlMs: 0 },
  );
  /** Shapes being rendered for the cache right now (one render each, however many visitors ask). */
  const priming = new Set<string>();

  /** Renders a shape's own address into the cache, after a visitor with that shape was answered. */
  async function prime(shape: Shape, req: Request, variant: PageVariant | undefined): Promise<void> {
    if (priming.has(shape.key) || cache.get(shape.key)) return;
    priming.add(shape.key);
    try {
      const url = new URL(shape.address, "http://ssr.invalid");
      const visit = visitFor(url);
      const nonce = createNonce();
      const entry = await source.entry();
      const page = await entry.prepare(new Request(url), { ...DETACHED_CONTEXT, visitId: visit.id, ...knobsOf(variant) });
      const status = page.type === "document" && page.cacheable ? cacheableStatus(page.status) : undefined;
      if (page.type !== "document" || status === undefined) return;
      const parts = fillTemplate(await source.template(url.pathname), headFor(page, url), nonce);
      const html = await renderComplete(page.render, nonce, parts, config.RENDER_TIMEOUT_MS);
      if (html !== undefined) cache.set(shape, html, status, { nonce, mintedVisitId: visit.entry ? visit.id : undefined });
    } catch (error) {
      req.log.warn({ err: error, event: "page_cache_prime_failed", shape: shape.key.split("?")[0] }, "could not render a page for the cache");
    } finally {
      priming.delete(shape.key);
    }
  }

  function headFor(page: Extract<PreparedPage, { type: "document" }>, url: URL): string {
    const canonicalPath = page.status === 200 ? url.pathname : undefined;
    return renderHead({ ...page.meta, canonicalPath, noindex: page.meta.noindex || page.status !== 200 }, config.PUBLIC_BASE_URL);
  }

  /** Answers from the cache when this request's page is there (true), else does nothing (false). */
  function answerFromCache(req: Request, res: Response, url: URL, shape: Shape | undefined, variant: PageVariant | undefined, known?: Visit): boolean {
    const cached = shape === undefined ? undefined : cache.get(shape.key);
    if (shape === undefined || cached === undefined) return false;
    const visit = known ?? visitFor(url);
    // A minted visit id fills the page's visit slot; a carried one is a campaign slot like tid.
    const values = { nonce: res.locals.cspNonce, mintedVisitId: visit.entry ? visit.id : undefined };
    if (!PageCache.fills(cached, values)) return false;
    if (cached.status === 404) logNotFound(req);
    else logPageEvents(req, url, visit);
    sendCached(req, res, cached, PageCache.slotValues(shape, values), variant !== undefined);
    return true;
  }

  /** Requests cachedPage already looked up and missed: renderPage does not look again. */
  const missed = new WeakSet<Request>();

  const cachedPage: RequestHandler = (req, res, next) => {
    // The API and the hashed assets are never pages: no lookup for them.
    if ((req.method !== "GET" && req.method !== "HEAD") || req.path.startsWith(`${API_PREFIX}/`) || req.path.startsWith(`${ASSETS_PATH}/`)) {
      next();
      return;
    }
    const url = new URL(req.originalUrl, "http://ssr.invalid");
    const variant = options.variantOf?.(req, res, url);
    if (answerFromCache(req, res, url, cache.shapeOf(url, variant?.key), variant)) return;
    missed.add(req);
    next();
  };

  const renderPage: RequestHandler = async (req, res, next) => {
    // First, so a visitor who leaves while the router works still aborts the render.
    const gone = visitorSignal(res);
    try {
      const url = new URL(req.originalUrl, "http://ssr.invalid");
      const nonce = res.locals.cspNonce;
      const visit = visitFor(url);
      const values = { nonce, mintedVisitId: visit.entry ? visit.id : undefined };
      const variant = req.method === "POST" ? undefined : options.variantOf?.(req, res, url);
      const shape = req.method === "POST" ? undefined : cache.shapeOf(url, variant?.key);
      if (!missed.has(req) && answerFromCache(req, res, url, shape, variant, visit)) return;

      const entry = await source.entry();
      const page = await entry.prepare(routerRequest(req, url, gone), { ...options.contextFor(req, res), visitId: visit.id, ...knobsOf(variant) });
      if (gone.aborted) return;

      if (page.type === "redirect") {
        // A loader's redirect must stay on this site.
        if (!isSafeRelativeLocation(page.location)) throw new Error(`Refused off-site redirect to ${page.location}`);
        res.redirect(page.status, page.location);
        return;
      }

      if (page.status === 404) logNotFound(req);
      if (page.status < 400) logPageEvents(req, url, visit);
      startHtmlResponse(res, page.status);
      if (!page.cacheable) res.setHeader("Cache-Control", "no-store");
      else if (variant) res.setHeader("Cache-Control", PER_VISITOR_CACHE_CONTROL);
      if (req.method === "HEAD") {
        res.end();
        return;
      }

      const parts = fillTemplate(await source.template(url.pathname), headFor(page, url), nonce);
      const status = cacheableStatus(page.status);
      const keep = shape !== undefined && page.cacheable && status !== undefined ? { shape, status } : undefined;
      // An address without campaign ids is its own shape: this render is kept as it is. One with
      // ids is answered now and its shape rendered for the cache afterwards.
      const store = keep && !keep.shape.templated ? (html: string) => cache.set(keep.shape, html, keep.status, values) : undefined;
      if (keep?.shape.templated) res.once("finish", () => void prime(keep.shape, req, variant));
      streamDocument({ req, res, render: page.render, nonce, parts, timeoutMs: config.RENDER_TIMEOUT_MS, signal: gone, store });
    } catch (error) {
      if (error instanceof Error) source.fixStacktrace?.(error);
      next(error);
    }
  };
  return { renderPage, cachedPage };
}

/**
 * A cached page with this response's values: gzip-compressed when the browser takes gzip (the
 * compression was done once, when the page was kept), else as text. Either way with its length,
 * written as its parts in one corked write (no copy of the page per response). A page that is
 * one text for everyone goes as that text instead.
 */
function sendCached(req: Request, res: Response, cached: CachedPage, values: SlotValues, perVisitor: boolean): void {
  // A page that depends on the cookie is never one text for a CDN to keep (a landing page holds a visit id anyway).
  if (cached.fixed && !perVisitor) {
    sendFixed(req, res, cached.fixed);
    return;
  }
  startHtmlResponse(res, cached.status);
  if (perVisitor) res.setHeader("Cache-Control", PER_VISITOR_CACHE_CONTROL);
  res.setHeader("Vary", "Accept-Encoding");
  const gzip = codingsFor(req).spliced === "gzip";
  const { parts, length } = gzip ? cached.page.gzipParts(values) : cached.page.textParts(values);
  // Set before the compression middleware looks: it leaves an encoded body alone.
  if (gzip) res.setHeader("Content-Encoding", "gzip");
  res.setHeader("Content-Length", length);
  if (req.method === "HEAD") {
    res.end();
    return;
  }
  res.cork();
  for (const part of parts) res.write(part);
  res.end();
  res.uncork();
}

/**
 * A page that is the same bytes for everyone (decision 026): brotli when the browser takes it,
 * else gzip, else the text; with its own CSP (its scripts' hashes) and a strong ETag per encoding,
 * and a 304 without a body when the browser or a CDN already has those bytes.
 */
function sendFixed(req: Request, res: Response, page: FixedPage): void {
  startHtmlResponse(res, 200);
  res.setHeader("Vary", "Accept-Encoding");
  res.setHeader("Content-Security-Policy", page.csp);
  const coding = codingsFor(req).fixed;
  res.setHeader("ETag", page.etag[coding]);
  if (req.fresh) {
    res.removeHeader("Content-Type");
    res.status(304).end();
    return;
  }
  if (coding !== "identity") res.setHeader("Content-Encoding", coding);
  res.setHeader("Content-Length", page.body[coding].length);
  if (req.method === "HEAD") res.end();
  else res.end(page.body[coding]);
}

/**
 * What the browser takes, by its Accept-Encoding header (q-values included, through `accepts`):
 * for a fixed page brotli, gzip or the text, in that order of ours (a phone lists gzip first but
 * takes both); for a spliced page gzip or the text. Browsers of one kind send the same few
 * headers, so the answers are remembered.
 */
interface Codings {
  fixed: Coding;
  spliced: "gzip" | "identity";
}
const codingAnswers = new LRUCache<string, Codings>({ max: 256 });
function codingsFor(req: Request): Codings {
  const header = req.headers["accept-encoding"] ?? "";
  let answer = codingAnswers.get(header);
  if (answer === undefined) {
    const gzip = req.acceptsEncodings("gzip", "identity") === "gzip";
    answer = { fixed: req.acceptsEncodings("br") === "br" ? "br" : gzip ? "gzip" : "identity", spliced: gzip ? "gzip" : "identity" };
    if (header.length <= 256) codingAnswers.set(header, answer);
  }
  return answer;
}

/** A whole document rendered to a string (for the cache): undefined if anything in it failed or it took too long. */
function renderComplete(render: RenderFn, nonce: string, parts: DocumentParts, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [Buffer.from(parts.start)];
    let clean = true;
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        chunks.push(chunk);
        callback();
      },
      final(callback) {
        chunks.push(Buffer.from(parts.end));
        clearTimeout(timer);
        resolve(clean ? Buffer.concat(chunks).toString("utf8") : undefined);
        callback();
      },
    });
    const stream = render(nonce, {
      onAllReady: () => stream.pipe(sink),
      onShellError: () => {
        clearTimeout(timer);
        resolve(undefined);
      },
      onError: () => {
        clean = false;
      },
    });
    const timer = setTimeout(() => {
      clean = false;
      stream.abort(new Error(`Render for the cache exceeded ${timeoutMs} ms`));
      resolve(undefined);
    }, timeoutMs);
    timer.unref();
  });
}

function startHtmlResponse(res: Response, status: number): void {
  res.status(status);
  res.setHeader("Content-Type", "text/html; charset=utf-8");
  res.setHeader("Cache-Control", HTML_CACHE_CONTROL);
}

interface StreamOptions {
  req: Request;
  res: Response;
  render: RenderFn;
  nonce: string;
  parts: DocumentParts;
  timeoutMs: number;
  /** Aborted when the visitor goes away. */
  signal: AbortSignal;
  /** Receives the whole document when it rendered without any error. */
  store: ((html: string) => void) | undefined;
}

function streamDocument({ req, res, render, nonce, parts, timeoutMs, signal, store }: StreamOptions): void {
  const forBot = isBotUserAgent(req.get("user-agent") ?? "");
  const copy: Buffer[] | undefined = store ? [Buffer.from(parts.start)] : undefined;
  let clean = true;
  // React writes straight through this to the response (no extra buffering stage) and ends it
  // with the template's tail.
  const body = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      copy?.push(chunk);
      if (res.write(chunk)) callback();
      else res.once("drain", () => callback());
    },
    final(callback) {
      if (copy && clean) {
        copy.push(Buffer.from(parts.end));
        store!(Buffer.concat(copy).toString("utf8"));
      }
      res.end(parts.end);
      callback();
    },
  });
  // React calls flush() after each batch so compression sends what it has instead of holding it.
  Object.assign(body, { flush: () => (res as Response & { flush?: () => void }).flush?.() });

  let started = false;
  const start = () => {
    if (started || res.headersSent) return;
    started = true;
    // Everything React has ready is written in this tick: send it as one packet, not dozens.
    res.cork();
    res.write(parts.start);
    stream.pipe(body);
    process.nextTick(() => res.uncork());
  };

  const stream = render(nonce, {
    onShellReady() {
      if (!forBot) start();
    },
    onAllReady() {
      if (forBot) start();
    },
    onShellError(error) {
      clean = false;
      clearTimeout(timer);
      if (signal.aborted) return;
      req.log.error({ err: error }, "render shell failed");
      if (res.headersSent) {
        res.destroy();
        return;
      }
      res.status(500).setHeader("Cache-Control", "no-store");
      res.send(errorPageHtml(500, String(req.id)));
    },
    onError(error) {
      // After the shell: React retries the failed part in the browser. Never cache such a page.
      clean = false;
      if (!signal.aborted) req.log.error({ err: error }, "render error");
    },
  });

  const timer = setTimeout(() => {
    req.log.warn({ event: "render_timeout", timeoutMs }, "render aborted after timeout");
    stream.abort(new Error(`Render exceeded ${timeoutMs} ms`));
  }, timeoutMs);
  timer.unref();
  res.once("finish", () => clearTimeout(timer));
  const visitorGone = () => {
    clean = false;
    clearTimeout(timer);
    stream.abort(new Error("The visitor closed the connection"));
  };
  // The visitor may have left during the await before this call: an abort event already sent
  // would never reach a listener added now, and the render would run on to its timeout.
  if (signal.aborted) visitorGone();
  else signal.addEventListener("abort", visitorGone, { once: true });
}
