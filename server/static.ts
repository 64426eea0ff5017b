/**
 * Static files in production (DESIGN practice 11): Vite's hashed files under /assets never
 * change, so browsers keep them a year; everything else from public/ is cached briefly; HTML
 * files are revalidated every time. The built template (index.html) is never served raw.
 */
import path from "node:path";
import express, { type RequestHandler } from "express";

const ONE_YEAR_SECONDS = 31_536_000;
const SHORT_CACHE_SECONDS = 300;

export function staticAssets(clientDir: string): RequestHandler[] {
  const hashed = express.static(path.join(clientDir, "assets"), {
    index: false,
    redirect: false,
    fallthrough: false,
    setHeaders(res) {
      res.setHeader("Cache-Control", `public, max-age=${ONE_YEAR_SECONDS}, immutable`);
    },
  });
  const publicFiles = express.static(clientDir, {
    index: false,
    redirect: false,
    dotfiles: "ignore",
    setHeaders(res, filePath) {
      res.setHeader(
        "Cache-Control",
        filePath.endsWith(".html") ? "no-cache" : `public, max-age=${SHORT_CACHE_SECONDS}`,
      );
    },
  });
  const router = express.Router();
  router.use("/assets", hashed);
  router.use((req, res, next) => {
    if (req.path === "/index.html") return next();
    return publicFiles(req, res, next);
  });
  return [router];
}
