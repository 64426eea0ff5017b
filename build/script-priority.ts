/**
 * Marks an HTML page's own module script and its module preloads `fetchpriority="low"`. The page
 * is server-rendered and works before any script runs (the ZIP form posts to /go without
 * JavaScript), so the ~130 KB gzip bundle that hydrates it should not compete with the HTML for a
 * phone's bandwidth. It also keeps Lighthouse's simulation honest: it counts
 * a High-priority script as render-blocking even though module scripts are deferred, which put
 * the whole bundle in front of the first paint (FCP = LCP = 1.9 s on the throttled phone).
 */
import type { Plugin } from "vite";

const MODULE_SCRIPT = /<script\b(?=[^>]*\btype="module")(?=[^>]*\bsrc=")(?![^>]*\bfetchpriority=)/g;
const MODULE_PRELOAD = /<link\b(?=[^>]*\brel="modulepreload")(?![^>]*\bfetchpriority=)/g;

export function lowPriorityScripts(fileName: string): Plugin {
  return {
    name: "low-priority-scripts",
    apply: "build",
    enforce: "post",
    generateBundle(_options, bundle) {
      const page = bundle[fileName];
      if (!page || page.type !== "asset" || typeof page.source !== "string") return;
      const marked = page.source.replace(MODULE_SCRIPT, '<script fetchpriority="low"').replace(MODULE_PRELOAD, '<link fetchpriority="low"');
      if (marked === page.source) this.error(`${fileName} has no module script of this build to mark`);
      page.source = marked;
    },
  };
}
