/**
 * Inlines an HTML page's own stylesheet: the `<link rel="stylesheet">` Vite writes into the built
 * page becomes a `<style>` holding the same CSS. A linked stylesheet blocks rendering until a
 * second request returns; on a throttled phone that round trip was most of the landing page's
 * LCP (Lighthouse mobile: FCP = LCP = 1.9 s, `npm run lighthouse`), while the landing CSS is ~2 KB gzip, less
 * than it costs to ask for it. The CSS file is still emitted (a `?url` import or an older cached
 * page may ask for it); only the page stops waiting for it.
 *
 * The CSP allows inline styles (style-src 'unsafe-inline', server/security.ts); the `<style>`
 * carries no nonce, because a nonce in style-src would make browsers ignore 'unsafe-inline'.
 */
import type { Plugin } from "vite";
import { htmlPagePlugin } from "./html-page-plugin.ts";

const STYLESHEET_LINK = /\s*<link\b[^>]*\brel="stylesheet"[^>]*>/g;
const HREF = /\bhref="\/?([^"]+\.css)"/;

export function inlineStylesheet(fileName: string): Plugin {
  return htmlPagePlugin("inline-stylesheet", fileName, (html, { bundle, fail }) => {
    let inlined = 0;
    const rewritten = html.replace(STYLESHEET_LINK, (link) => {
      const href = HREF.exec(link)?.[1];
      const sheet = href === undefined ? undefined : bundle[href];
      if (!sheet || sheet.type !== "asset") return link;
      const css = typeof sheet.source === "string" ? sheet.source : new TextDecoder().decode(sheet.source);
      // The CSS ends the <style> element where it says "</style"; Vite's minified CSS never does, but check.
      if (/<\/style/i.test(css)) fail(`${href} contains "</style", so it cannot be inlined into ${fileName}`);
      inlined += 1;
      return `\n    <style>${css.trim()}</style>`;
    });
    if (inlined === 0) fail(`${fileName} has no stylesheet of this build to inline`);
    return rewritten;
  });
}
