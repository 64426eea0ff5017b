/**
 * Vite's `html.cspNonce` writes this placeholder into every tag it emits (vite.config.ts); the
 * server swaps in each response's nonce (server/pages/template.ts, server/pages/dev.ts) and the static quote
 * form loses it at build time (build/static-page.ts). Shared so the three never disagree.
 */
export const CSP_NONCE_PLACEHOLDER = "__CSP_NONCE__";
