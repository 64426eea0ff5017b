/**
 * React Router in the browser bundle, as lean as its own code allows (issue 12: the landing
 * page's JavaScript). Two things in how the package is published cost every page ~1.5 KB gzip:
 *
 * 1. Its `exports` hand bundlers only `dist/development`, where `ENABLE_DEV_WARNINGS = true`.
 *    The package also ships `dist/production`, byte for byte the same apart from that constant
 *    being `false`, but exports no condition that selects it. The browser build resolves
 *    `react-router` and `react-router/dom` there, so the minifier drops the warning code.
 * 2. It creates its components and contexts with `React.forwardRef(…)`, `React.createContext(…)`
 *    and `React.memo(…)` without a `@__PURE__` annotation, and sets `X.displayName` on them at
 *    the top level; a bundler must assume both have effects and keeps every one, used or not
 *    (NavLink, the RSC contexts…). The calls are marked pure, and the displayName writes
 *    (names for React DevTools, which the production build does not need) are removed.
 *
 * Only `vite build` for the browser: the dev server and the server build keep the development
 * build and its warnings. A package whose layout no longer matches fails the build, so an
 * upgrade cannot silently ship the development build again.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import MagicString from "magic-string";
import type { Plugin } from "vite";

const PURE_CALL = /(?<==\s*)(React\d*\.(?:forwardRef|createContext|memo)\()/g;
const DISPLAY_NAME_WRITE = /^[\w$]+\.displayName = "[^"\n]*";\n?/gm;

/** The production twin of an entry the package exports (".../dist/development/x.mjs"). */
export function productionTwin(developmentFile: string): string {
  const twin = developmentFile.replace(/([\\/])dist\1development\1/, "$1dist$1production$1");
  if (twin === developmentFile) throw new Error(`react-router resolved to ${developmentFile}, not a dist/development file: its package layout changed`);
  if (!existsSync(twin)) throw new Error(`react-router's production build ${twin} is missing: its package layout changed`);
  return twin;
}

/** The transform of one module of React Router's production build (exported for its test). */
export function markRouterPure(code: string, id: string): { code: string; map: ReturnType<MagicString["generateMap"]> } | null {
  const text = new MagicString(code);
  for (const match of code.matchAll(DISPLAY_NAME_WRITE)) text.remove(match.index, match.index + match[0].length);
  for (const match of code.matchAll(PURE_CALL)) text.appendLeft(match.index, "/* @__PURE__ */ ");
  if (!text.hasChanged()) return null;
  return { code: text.toString(), map: text.generateMap({ hires: true, source: id }) };
}

export function reactRouterProduction(): Plugin {
  let productionDir: string | undefined;
  return {
    name: "react-router-production",
    apply: (_config, env) => env.command === "build" && !env.isSsrBuild,
    config() {
      const entry = productionTwin(fileURLToPath(import.meta.resolve("react-router")));
      const dom = productionTwin(fileURLToPath(import.meta.resolve("react-router/dom")));
      productionDir = path.dirname(entry) + path.sep;
      return {
        resolve: {
          alias: [
            { find: /^react-router$/, replacement: entry },
            { find: /^react-router\/dom$/, replacement: dom },
          ],
        },
      };
    },
    transform(code, id) {
      if (!productionDir || !id.startsWith(productionDir)) return null;
      return markRouterPure(code, id);
    },
  };
}
