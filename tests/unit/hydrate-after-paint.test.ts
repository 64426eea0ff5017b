/**
 * build/hydrate-after-paint.ts: the page's module script and preloads become one inline loader that
 * imports the same entry after the page has painted; tools/js-weight.ts still counts that entry as
 * JavaScript of the page's load (the bench's landing-weight budget must not be fooled by it).
 */
import { describe, expect, it } from "vitest";
import { hydrateAfterPaint, loaderScript } from "../../build/hydrate-after-paint";
import { scanHtml } from "../../tools/js-weight";

const VITE_PAGE = `<html><head>
<script type="module" crossorigin src="/assets/index-AbC_12.js" nonce="__CSP_NONCE__"></script>
<link rel="modulepreload" crossorigin href="/assets/rolldown-runtime-X1.js" nonce="__CSP_NONCE__">
<link rel="modulepreload" crossorigin href="/assets/shared-Y2.js" nonce="__CSP_NONCE__">
</head><body><div id="root"></div></body></html>`;

type Bundle = Record<string, { type: "asset"; source: string }>;

function runPlugin(source: string): { page: string; errors: string[] } {
  const bundle: Bundle = { "index.html": { type: "asset", source } };
  const errors: string[] = [];
  const plugin = hydrateAfterPaint("index.html");
  const hook = plugin.generateBundle as unknown as (this: { error(message: string): never }, options: unknown, bundle: Bundle) => void;
  try {
    hook.call(
      {
        error(message: string): never {
          errors.push(message);
          throw new Error(message);
        },
      },
      {},
      bundle,
    );
  } catch {
    // The error is recorded above.
  }
  return { page: bundle["index.html"]!.source, errors };
}

describe("hydrateAfterPaint", () => {
  it("replaces the module script and its preloads with one inline loader of the same entry, keeping the nonce placeholder", () => {
    const { page, errors } = runPlugin(VITE_PAGE);
    expect(errors).toEqual([]);
    expect(page).not.toContain("modulepreload");
    expect(page).not.toMatch(/<script[^>]*\ssrc=/);
    expect(page).toContain(loaderScript("/assets/index-AbC_12.js", "__CSP_NONCE__"));
    expect(scanHtml(page).scripts).toEqual(["/assets/index-AbC_12.js"]);
  });

  it("refuses a page without exactly one module script rather than shipping one that never hydrates", () => {
    expect(runPlugin("<html><head></head></html>").errors[0]).toMatch(/exactly one module script/);
    expect(runPlugin(VITE_PAGE.replace(' nonce="__CSP_NONCE__"></script>', "></script>")).errors[0]).toMatch(/no nonce placeholder/);
  });

  it("writes a loader that waits for the load event and the first contentful paint, with a fallback for hidden tabs", () => {
    const script = loaderScript("/assets/index-AbC_12.js", "n0nce");
    expect(script.startsWith('<script nonce="n0nce">')).toBe(true);
    expect(script).toContain('addEventListener("load"');
    expect(script).toContain('getEntriesByName("first-contentful-paint")');
    expect(script).toMatch(/setTimeout\(start,\d+\)/);
    // The entry is a JSON string: a quote in it cannot end the string.
    expect(loaderScript('/assets/a"b.js', "n")).toContain('import("/assets/a\\"b.js")');
  });
});
