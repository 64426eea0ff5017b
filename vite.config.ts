/**
 * One config, two builds: `vite build` makes the browser bundle (dist/client, with hashed
 * assets and index.html as the SSR template); `vite build --ssr` bundles the React server
 * entry, the Express server and the ops command (dist/server). Dependencies stay external in the
 * server build.
 */
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";
import { CSP_NONCE_PLACEHOLDER } from "./server/template.ts";
import { legalMarkdown } from "./build/legal-markdown.ts";

export default defineConfig(({ isSsrBuild }) => ({
  // legalMarkdown: `content/legal/*.md?legal` imports are compiled to HTML at build time.
  plugins: [legalMarkdown(), react()],
  // Vite writes this placeholder into every tag it emits; the server swaps in the response's nonce.
  html: { cspNonce: CSP_NONCE_PLACEHOLDER },
  build: isSsrBuild
    ? {
        outDir: "dist/server",
        emptyOutDir: true,
        copyPublicDir: false,
        target: "node20",
        rolldownOptions: {
          // The ops command is built too, so it runs where only production dependencies are installed.
          input: { "entry-server": "client/entry-server.tsx", index: "server/index.ts", "privacy-requests": "server/cli/privacy-requests.ts" },
          output: { entryFileNames: "[name].js", chunkFileNames: "chunks/[name]-[hash].js" },
        },
      }
    : {
        outDir: "dist/client",
        emptyOutDir: true,
        target: "es2022",
      },
}));
