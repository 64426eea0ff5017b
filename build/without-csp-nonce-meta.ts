/**
 * Vite's `html.cspNonce` also adds `<meta property="csp-nonce" nonce="…">` to every page, for its
 * preload helper to copy the nonce onto the `<link>`s it adds when a lazy chunk loads. We need no
 * nonce there: the CSP allows our own origin's scripts and styles without one (script-src 'self',
 * style-src 'self', server/security.ts), as the legal pages and the quote form, served without the
 * tag, show. And the tag is invalid HTML (a `<meta>` needs `content`; the Nu HTML checker says so
 * on every page, tests/http/html-validity.test.ts), so it goes, in development and in the build.
 * The nonce attributes Vite writes on the page's own tags stay (server/pages/template.ts).
 */
import type { Plugin } from "vite";

const CSP_NONCE_META = /\s*<meta\b[^>]*\bproperty="csp-nonce"[^>]*>/g;

export function withoutCspNonceMeta(): Plugin {
  return {
    name: "without-csp-nonce-meta",
    // After Vite's own hooks, which add the tag.
    transformIndexHtml: { order: "post", handler: (html) => html.replace(CSP_NONCE_META, "") },
  };
}
