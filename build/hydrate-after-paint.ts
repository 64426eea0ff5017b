/**
 * The hydration bundle is requested after the page's first paint, not while the page loads
 * (issue 12, decision 020). The page is server-rendered and works before any script runs (the ZIP
 * form posts to /go without JavaScript), so on a phone's network the HTML and its picture get the
 * bandwidth first, and the ~100 KB gzip that hydrates the page follows once the visitor sees it.
 *
 * Vite emits `<script type="module" src="/assets/index-….js">` and `<link rel="modulepreload">`
 * for its imports; both start downloading while the HTML is parsed. This plugin replaces them with
 * one small inline script (carrying the CSP nonce placeholder, like every tag Vite emits) that
 * imports the same entry when the page has loaded and painted: after the next animation frame, or
 * after a second if frames do not run (a tab opened in the background). The entry fetches its own
 * imports, so nothing of the bundle is lost.
 */
import type { Plugin } from "vite";
import { htmlPagePlugin } from "./html-page-plugin.ts";

const MODULE_SCRIPT = /<script\b(?=[^>]*\btype="module")[^>]*\bsrc="([^"]+)"[^>]*><\/script>\s*/g;
const MODULE_PRELOAD = /<link\b(?=[^>]*\brel="modulepreload")[^>]*>\s*/g;
const NONCE = /\bnonce="([^"]+)"/;
/** A frame runs only in a visible tab; without one, the bundle still comes after this long. */
const FALLBACK_MS = 1_000;

/** The inline loader for `entry` (an /assets/ URL): JSON-quoted, so any URL stays one string. */
export function loaderScript(entry: string, nonce: string): string {
  const code =
    `(()=>{let started=false;const start=()=>{if(started)return;started=true;import(${JSON.stringify(entry)})};` +
    `addEventListener("load",()=>{requestAnimationFrame(()=>setTimeout(start));setTimeout(start,${FALLBACK_MS})},{once:true})})()`;
  return `<script nonce="${nonce}">${code}</script>`;
}

export function hydrateAfterPaint(fileName: string): Plugin {
  return htmlPagePlugin("hydrate-after-paint", fileName, (html, { fail }) => {
    const entries = [...html.matchAll(MODULE_SCRIPT)];
    if (entries.length !== 1) fail(`${fileName} should have exactly one module script of this build, found ${entries.length}`);
    const [tag, entry] = entries[0]!;
    const nonce = NONCE.exec(tag)?.[1] ?? fail(`${fileName}'s module script carries no nonce placeholder`);
    return html.replace(MODULE_PRELOAD, "").replace(tag, loaderScript(entry!, nonce));
  });
}
