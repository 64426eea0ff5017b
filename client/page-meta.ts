/**
 * Per-page title and description, attached to routes as `handle.meta`. The server writes them
 * into the document head; <DocumentMeta> keeps them right on client-side navigation.
 */
import type { PageMeta } from "../shared/render-contract";
import { site } from "../shared/site";

export interface RouteHandle {
  /** Or, for a page whose address chooses its words, made from the route's loader data (decision 028). */
  meta: PageMeta | ((data: unknown) => PageMeta);
  /** The page is made for one visitor (e.g. a form with a CSRF token): never cache it. */
  noStore?: boolean;
}

export function pageTitle(title: string): string {
  return `${title} | ${site.productName}`;
}

export const notFoundMeta: PageMeta = {
  title: pageTitle("Page not found"),
  description: "The page you were looking for does not exist.",
  noindex: true,
};

export const errorMeta: PageMeta = {
  title: pageTitle("Something went wrong"),
  description: "An unexpected error occurred.",
  noindex: true,
};

/** Whether any matched route is personal to the visitor. */
export function isNoStore(matches: readonly { handle?: unknown }[]): boolean {
  return matches.some((match) => (match.handle as RouteHandle | undefined)?.noStore === true);
}

/** The deepest matched route's meta wins. */
export function metaFromMatches(matches: readonly { handle?: unknown; data?: unknown }[]): PageMeta | undefined {
  for (let index = matches.length - 1; index >= 0; index -= 1) {
    const match = matches[index]!;
    const meta = (match.handle as RouteHandle | undefined)?.meta;
    if (meta) return typeof meta === "function" ? meta(match.data) : meta;
  }
  return undefined;
}
