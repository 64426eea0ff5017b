/**
 * Development rendering: Vite in middleware mode (HMR, on-the-fly TypeScript), the template
 * re-read and transformed per request, the server entry re-loaded through Vite so edits show
 * without a restart. Imported lazily by server/index.ts, so production never loads Vite.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { RequestHandler } from "express";
import { createServer } from "vite";
import type { EntryServer } from "../client/render-contract";
import type { RenderSource } from "./render-source";

export interface DevRendering {
  source: RenderSource;
  assets: RequestHandler[];
  close(): Promise<void>;
}

export async function createDevRendering(root: string): Promise<DevRendering> {
  const vite = await createServer({ root, server: { middlewareMode: true }, appType: "custom" });
  const templatePath = path.join(root, "index.html");
  return {
    assets: [vite.middlewares],
    close: () => vite.close(),
    source: {
      template: async (url) => vite.transformIndexHtml(url, await readFile(templatePath, "utf8")),
      entry: async () => (await vite.ssrLoadModule("/client/entry-server.tsx")) as EntryServer,
      fixStacktrace: (error) => vite.ssrFixStacktrace(error),
    },
  };
}
