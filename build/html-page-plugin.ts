/**
 * The shape our build steps on a built HTML page share: a post-build plugin that finds the page
 * among the emitted assets and replaces its text with `rewrite`'s (build/hydrate-after-paint.ts,
 * build/inline-stylesheet.ts, build/static-page.ts). A rewrite that cannot do its job fails the
 * build through `fail` rather than emit a page that silently lacks it.
 */
import type { Plugin, Rolldown } from "vite";

export interface PageRewriteContext {
  /** Everything the build emitted (to read another asset, e.g. the stylesheet to inline). */
  bundle: Rolldown.OutputBundle;
  /** Stops the build with this message. */
  fail(message: string): never;
}

export function htmlPagePlugin(name: string, fileName: string, rewrite: (html: string, context: PageRewriteContext) => string): Plugin {
  return {
    name,
    apply: "build",
    enforce: "post",
    generateBundle(_options, bundle) {
      const page = bundle[fileName];
      if (!page || page.type !== "asset" || typeof page.source !== "string") return;
      page.source = rewrite(page.source, { bundle, fail: (message) => this.error(message) });
    },
  };
}
