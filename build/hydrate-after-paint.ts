/**
 * The hydration bundle is requested after the page's first paint, not while the page loads
 * (issue 12, decision 020). The page is server-rendered and works before any script runs (the ZIP
 * form posts to /go without JavaScript), so on a phone's network the HTML and its picture get the
 * bandwidth first, and the ~100 KB gzip that hydrates the page follows once the visitor sees it.
 *
 * Vite emits `<script type="module" src="/assets/index-….js">` and `<link rel="modulepreload">`
 * for its imports; both start downloading while the HTML is parsed. This plugin replaces them with
 * one small inline script (carrying the CSP nonce placeholder, like every tag Vite emits) that
 * imports the same entry when the page has loaded and painted (see loaderScript). The entry fetches
 * its own imports, so nothing of the bundle is lost.
 */
import type { Plugin } from "vite";
import { htmlPagePlugin } from "./html-page-plugin.ts";

const MODULE_SCRIPT = /<script\b(?=[^>]*\btype="module")[^>]*\bsrc="([^"]+)"[^>]*><\/script>\s*/g;
const MODULE_PRELOAD = /<link\b(?=[^>]*\brel="modulepreload")[^>]*>\s*/g;
const NONCE = /\bnonce="([^"]+)"/;
/** A background tab does not paint; the bundle still comes this long after load. */
const FALLBACK_MS = 1_000;

/**
 * The inline loader for `entry` (an /assets/ URL, JSON-quoted so any URL stays one string). It
 * starts once the page has loaded and the browser has reported its first contentful paint (a
 * `paint` PerformanceObserver entry, delivered after the frame was shown); a browser without paint
 * timing starts at load. A tab that never paints (opened in the background) starts a second after
 * load.
 */
export function loaderScript(entry: string, nonce: string): string {
  const code =
    `(()=>{let started=false,loaded=false,painted=false;` +
    `const start=()=>{if(started)return;started=true;import(${JSON.stringify(entry)})};` +
    `const ready=()=>{if(loaded&&painted)setTimeout(start)};` +
    `try{new PerformanceObserver((list,observer)=>{if(list.getEntriesByName("first-contentful-paint").length>0){observer.disconnect();painted=true;ready()}}).observe({type:"paint",buffered:true})}catch{painted=true}` +
    `addEventListener("load",()=>{loaded=true;ready();setTimeout(start,${FALLBACK_MS})},{once:true})})()`;
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
