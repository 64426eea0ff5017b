/**
 * Cross-Origin-Opener-Policy comes with a document's response. The open pages (OPEN_PAGE_PATHS in
 * shared/routes.ts: the landing page and the legal pages) are served without it (decision 025), so
 * a client-side navigation from one of them would show a page that takes personal data (the quote
 * page, the request form: their loaders are wrapped in `isolated`) in a document that never had the header.
 * Such a navigation loads that page in full instead: its response brings the header, and the
 * browser gives it a browsing context group of its own. Other pages (the legal pages, a 404) hold
 * nothing personal and stay client-side.
 */
import type { LoaderFunctionArgs } from "react-router-dom";
import { isOpenPage } from "../shared/routes";

/** Whether this document was loaded at an open page's address (the server, which has no window: no). */
const documentIsOpen = typeof window !== "undefined" && isOpenPage(window.location.pathname);

/** Starts a full load of `href` and never settles: the document is being replaced (also client/landing-knobs.ts). */
export function loadInFull(href: string): Promise<never> {
  window.location.assign(href);
  return new Promise<never>(() => {});
}

/**
 * A page's loader, wrapped for a page that must not be shown in an open page's document: on a
 * client-side navigation from such a document, it starts a full load of the same address and never
 * settles (the document is being replaced); otherwise it runs `loader`.
 */
export function isolated<T>(loader: (args: LoaderFunctionArgs) => Promise<T>): (args: LoaderFunctionArgs) => Promise<T> {
  return async (args) => {
    if (documentIsOpen) {
      const url = new URL(args.request.url);
      if (!isOpenPage(url.pathname)) return loadInFull(url.href);
    }
    return loader(args);
  };
}
