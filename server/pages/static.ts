/**
 * Static files in production (docs/architecture.md, convention 11): Vite's hashed files under /assets never
 * change, so browsers keep them a year; everything else from public/ is cached briefly; HTML
 * files are revalidated every time. Hashed files are sent in the brotli or gzip form the build
 * made of them. The public files are listed once at boot, so a page request
 * costs no file-system lookup, and the built template (index.html) is never served raw.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import express, { type RequestHandler } from "express";
import expressStaticGzip from "express-static-gzip";

/** Where Vite's hashed files are served (never a page). */
export const ASSETS_PATH = "/assets";

const ONE_YEAR_SECONDS = 31_536_000;
const SHORT_CACHE_SECONDS = 300;

/** URL paths of the files in clientDir, outside assets/, except the SSR template. */
function listPublicFiles(clientDir: string): Set<string> {
  const files = new Set<string>();
  for (const entry of readdirSync(clientDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const relative = path.relative(clientDir, path.join(entry.parentPath, entry.name)).split(path.sep).join("/");
    if (relative === "index.html" || relative.startsWith("assets/")) continue;
    files.add(`/${relative}`);
  }
  return files;
}

export function staticAssets(clientDir: string): RequestHandler[] {
  // The build wrote each hashed file's brotli and gzip forms beside it (build/precompress.ts):
  // the browser gets the one it accepts (brotli first), sent as it is; `Vary: Accept-Encoding`
  // keeps shared caches apart. A file without them (under 1 KB) is sent as it is: the compression
  // middleware's threshold is the same 1 KB.
  const hashed: RequestHandler = expressStaticGzip(path.join(clientDir, "assets"), {
    enableBrotli: true,
    orderPreference: ["br", "gzip"],
    index: false,
    serveStatic: {
      index: false,
      redirect: false,
      fallthrough: false,
      setHeaders(res) {
        res.setHeader("Cache-Control", `public, max-age=${ONE_YEAR_SECONDS}, immutable`);
      },
    },
  });
  const serveFile = express.static(clientDir, {
    index: false,
    redirect: false,
    setHeaders(res, filePath) {
      res.setHeader("Cache-Control", filePath.endsWith(".html") ? "no-cache" : `public, max-age=${SHORT_CACHE_SECONDS}`);
    },
  });
  const publicFiles = listPublicFiles(clientDir);
  const router = express.Router();
  router.use(ASSETS_PATH, hashed);
  router.use((req, res, next) => (publicFiles.has(req.path) ? serveFile(req, res, next) : next()));
  return [router];
}
