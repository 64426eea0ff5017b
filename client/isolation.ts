/**
 * Cross-Origin-Opener-Policy comes with a document's response. The open pages (OPEN_PAGE_PATHS in
 * shared/routes.ts: the landing page and the legal pages) are served without it (decision 025), so
 * a client-side navigation from one of them would show a page that takes personal data (the quote
 * page, the request form: their loaders call this first) in a document that never had the header.
 * Such a navigation loads that page in full instead: its response brings the header, and the
 * browser gives it a browsing context group of its own. Other pages (the legal pages, a 404) hold
 * nothing personal and stay client-side.
 */
import { isOpenPage } from "../shared/routes";

/** Whether this document was loaded at an open page's address (the server, which has no window: no). */
const documentIsOpen = typeof window !== "undefined" && isOpenPage(window.location.pathname);

/**
 * For the loaders of pages that must not be shown in an open page's document: on a client-side
 * navigation from such a document, starts a full load of the same address and never settles
 * (the document is being replaced); otherwise resolves at once.
 */
export async function loadInFullFromOpenDocument(request: Request): Promise<void> {
  if (!documentIsOpen) return;
  const url = new URL(request.url);
  if (isOpenPage(url.pathname)) return;
  window.location.assign(url.href);
  await new Promise<never>(() => {});
}
