/**
 * Server-side rendering of the React router (DESIGN practices 2, 3, 6): the data router decides
 * the status (404 for unknown paths) before the first byte; React streams the shell; bots get
 * the whole document at once; HEAD gets no body; a render that hangs is aborted.
 */
import { Transform } from "node:stream";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { isbot } from "isbot";
import type { Config } from "./config";
import type { RenderSource } from "./render-source";
import type { PreparedPage } from "../client/render-contract";
import { errorPageHtml } from "./error-pages";
import { fillTemplate, renderHead } from "./template";
import { logCampaignHit, logNotFound } from "./events";
import { isSafeRelativeLocation } from "./routes/redirects";

/** Whether the rendered page is the same for everybody: our pages hold no personal data. */
const HTML_CACHE_CONTROL = "no-cache";

export function createRenderHandler(source: RenderSource, config: Pick<Config, "PUBLIC_BASE_URL" | "RENDER_TIMEOUT_MS">): RequestHandler {
  return async function renderPage(req: Request, res: Response, next: NextFunction) {
    try {
      const url = new URL(req.originalUrl, "http://ssr.invalid");
      const controller = new AbortController();
      res.once("close", () => controller.abort());
      const entry = await source.entry();
      const page = await entry.prepare(new Request(url, { signal: controller.signal }));

      if (page.type === "redirect") {
        // A loader's redirect must stay on this site.
        if (!isSafeRelativeLocation(page.location)) throw new Error(`Refused off-site redirect to ${page.location}`);
        res.redirect(page.status, page.location);
        return;
      }

      if (page.status === 404) logNotFound(req);
      if (page.status < 400) logCampaignHit(req, url);

      res.status(page.status);
      res.setHeader("Content-Type", "text/html; charset=utf-8");
      res.setHeader("Cache-Control", HTML_CACHE_CONTROL);
      if (req.method === "HEAD") {
        res.end();
        return;
      }

      const nonce = res.locals.cspNonce;
      const canonicalPath = page.status === 200 ? url.pathname : undefined;
      const head = renderHead({ ...page.meta, canonicalPath, noindex: page.meta.noindex || page.status !== 200 }, config.PUBLIC_BASE_URL);
      const documentParts = fillTemplate(await source.template(url.pathname), head, nonce);
      streamDocument(req, res, page.render, nonce, documentParts, config.RENDER_TIMEOUT_MS);
    } catch (error) {
      if (error instanceof Error) source.fixStacktrace?.(error);
      next(error);
    }
  };
}

type RenderFn = Extract<PreparedPage, { type: "document" }>["render"];

function streamDocument(
  req: Request,
  res: Response,
  render: RenderFn,
  nonce: string,
  parts: { start: string; end: string },
  timeoutMs: number,
): void {
  const forBot = isbot(req.get("user-agent") ?? "");
  let started = false;
  const body = new Transform({
    transform(chunk, _encoding, callback) {
      callback(null, chunk);
    },
    flush(callback) {
      callback(null, parts.end);
    },
  });
  // React calls flush() after each batch so compression sends what it has instead of holding it.
  Object.assign(body, { flush: () => (res as Response & { flush?: () => void }).flush?.() });

  const start = () => {
    if (started || res.headersSent) return;
    started = true;
    res.write(parts.start);
    body.pipe(res);
    stream.pipe(body);
  };

  const stream = render(nonce, {
    onShellReady() {
      if (!forBot) start();
    },
    onAllReady() {
      if (forBot) start();
    },
    onShellError(error) {
      clearTimeout(timer);
      req.log.error({ err: error }, "render shell failed");
      if (res.headersSent) {
        res.destroy();
        return;
      }
      res.status(500).setHeader("Cache-Control", "no-store");
      res.send(errorPageHtml(500, String(req.id)));
    },
    onError(error) {
      // Errors inside Suspense boundaries after the shell: React retries them in the browser.
      req.log.error({ err: error }, "render error");
    },
  });

  const timer = setTimeout(() => {
    req.log.warn({ event: "render_timeout", timeoutMs }, "render aborted after timeout");
    stream.abort(new Error(`Render exceeded ${timeoutMs} ms`));
  }, timeoutMs);
  timer.unref();
  res.once("close", () => {
    clearTimeout(timer);
    if (!res.writableFinished) stream.abort(new Error("Client closed the connection"));
  });
}
