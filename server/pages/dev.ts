/**
 * Development rendering: Vite in middleware mode (HMR, on-the-fly TypeScript), the template
 * re-read and transformed per request, the server entry re-loaded through Vite so edits show
 * without a restart. Imported lazily by server/index.ts, so production never loads Vite.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { RequestHandler } from "express";
import { createServer } from "vite";
import type { EntryServer } from "../../shared/render-contract";
import type { RenderSource } from "./render-source";
import { CSP_NONCE_PLACEHOLDER } from "../../shared/csp-nonce";
import { paths } from "../../shared/routes";

export interface DevRendering {
  source: RenderSource;
  assets: RequestHandler[];
  close(): Promise<void>;
}

export async function createDevRendering(root: string): Promise<DevRendering> {
  const vite = await createServer({ root, server: { middlewareMode: true }, appType: "custom" });
  const templatePath = path.join(root, "index.html");
  // The quote form is a static page in production; here Vite transforms it per request (HMR
  // client, TypeScript), and its inline HMR preamble gets this response's nonce.
  const quoteForm: RequestHandler = async (req, res, next) => {
    if (req.path !== paths.quoteForm) return next();
    try {
      const html = await vite.transformIndexHtml(req.originalUrl, await readFile(path.join(root, "rapidfire.html"), "utf8"));
      res.type("html").setHeader("Cache-Control", "no-cache");
      res.send(html.replaceAll(CSP_NONCE_PLACEHOLDER, res.locals.cspNonce));
    } catch (error) {
      next(error);
    }
  };
  return {
    assets: [quoteForm, vite.middlewares],
    close: () => vite.close(),
    source: {
      template: async (url) => vite.transformIndexHtml(url, await readFile(templatePath, "utf8")),
      entry: async () => (await vite.ssrLoadModule("/client/entry-server.tsx")) as EntryServer,
      fixStacktrace: (error) => vite.ssrFixStacktrace(error),
    },
  };
}
