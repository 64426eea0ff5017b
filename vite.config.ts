/**
 * One config, two builds: `vite build` makes the browser bundle (dist/client, with hashed
 * assets, index.html as the SSR template and rapidfire.html, the static quote form); `vite build
 * --ssr` bundles the React server entry, the Express server and the ops commands (dist/server).
 * Dependencies stay external in the server build.
 */
import { defineConfig, type BuildEnvironmentOptions } from "vite";
import react from "@vitejs/plugin-react";
import { CSP_NONCE_PLACEHOLDER } from "./shared/csp-nonce.ts";
import { legalMarkdown } from "./build/legal-markdown.ts";
import { staticPageWithoutNonce } from "./build/static-page.ts";
import { quoteFormMarkupPlugin } from "./build/quote-form-markup.ts";
import { inlineStylesheet } from "./build/inline-stylesheet.ts";
import { withoutCspNonceMeta } from "./build/without-csp-nonce-meta.ts";
import { hydrateAfterPaint } from "./build/hydrate-after-paint.ts";
import { reactRouterProduction } from "./build/react-router-production.ts";
import { precompressAssets } from "./build/precompress.ts";

const serverBuild: BuildEnvironmentOptions = {
  outDir: "dist/server",
  emptyOutDir: true,
  copyPublicDir: false,
  target: "node20",
  rolldownOptions: {
    // The ops commands are built too, so they run where only production dependencies are installed.
    input: {
      "entry-server": "client/entry-server.tsx",
      index: "server/index.ts",
      "privacy-requests": "server/cli/privacy-requests.ts",
      leads: "server/cli/leads.ts",
      report: "server/cli/report.ts",
      admin: "server/cli/admin.ts",
      buyers: "server/cli/buyers.ts",
      // The embedded store's database process (decision 033), started by the server.
      "embedded-database": "server/db/embedded-main.ts",
      // The background worker process (decision 034): the delivery worker and the auction.
      background: "server/workers/main.ts",
    },
    output: { entryFileNames: "[name].js", chunkFileNames: "chunks/[name]-[hash].js" },
  },
};

const clientBuild: BuildEnvironmentOptions = {
  outDir: "dist/client",
  emptyOutDir: true,
  target: "es2022",
  // Two pages: the React app's template, and the static quote form shown in the quote page's frame.
  rolldownOptions: { input: { index: "index.html", rapidfire: "rapidfire.html" } },
  // Every browser we serve supports <link rel="modulepreload"> (Safari 17+, Chrome 66+, Firefox
  // 115+); the polyfill was 0.3 KB gzip of the landing page's first JavaScript (issue 12).
  modulePreload: { polyfill: false },
};

export default defineConfig(({ isSsrBuild }) => ({
  // legalMarkdown: `content/legal/*.md?legal` imports are compiled to HTML at build time.
  // staticPageWithoutNonce: rapidfire.html is served as a file, so it keeps no nonce placeholder.
  // quoteFormMarkupPlugin: rapidfire.html carries the quote form's markup; its script adopts it.
  // withoutCspNonceMeta: Vite's <meta property="csp-nonce"> goes (invalid HTML, and no script needs it).
  // inlineStylesheet: the landing CSS arrives in the page's own bytes, so it does not block rendering.
  // reactRouterProduction: the browser bundle gets React Router's production build, its unused parts tree-shaken.
  // hydrateAfterPaint: the server-rendered page works before its hydration bundle, which is requested once the page has painted.
  // precompressAssets: every hashed file is written beside its brotli and Zopfli-gzip forms, which the server sends as they are.
  plugins: [
    legalMarkdown(),
    reactRouterProduction(),
    react(),
    withoutCspNonceMeta(),
    staticPageWithoutNonce("rapidfire.html"),
    quoteFormMarkupPlugin("rapidfire.html"),
    inlineStylesheet("index.html"),
    hydrateAfterPaint("index.html"),
    precompressAssets(),
  ],
  // Vite writes this placeholder into every tag it emits; the server swaps in the response's nonce.
  html: { cspNonce: CSP_NONCE_PLACEHOLDER },
  build: isSsrBuild ? serverBuild : clientBuild,
}));
