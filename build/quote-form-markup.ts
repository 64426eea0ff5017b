/**
 * Writes the quote form (client/quote-form/form-markup.ts, from the shared field rules) and the
 * legal links into rapidfire.html in place of their slots, at build time and in development alike: the visitor
 * reads and answers the first step before any script runs, and the script adopts that markup
 * (client/quote-form/view.ts) instead of building its own. The markup is the same for every
 * visit, so the page stays a plain file.
 */
import { basename } from "node:path";
import type { Plugin } from "vite";
import { LEGAL_FOOTER_SLOT, legalFooterMarkup, quoteFormMarkup } from "../client/quote-form/form-markup.ts";

/** Where the form goes: the only content of rapidfire.html's #rf-app. */
export const QUOTE_FORM_SLOT = "<!--quote-form-->";

/** Replaces the slots in one page with the form and the legal footer; a page without either fails the build. */
export function insertQuoteForm(html: string, fileName: string): string {
  if (!html.includes(QUOTE_FORM_SLOT)) throw new Error(`${fileName} has no ${QUOTE_FORM_SLOT} slot for the quote form`);
  if (!html.includes(LEGAL_FOOTER_SLOT)) throw new Error(`${fileName} has no ${LEGAL_FOOTER_SLOT} slot for the legal links`);
  // A replacer function: `$&` and friends in the markup stay as they are.
  return html.replace(QUOTE_FORM_SLOT, () => quoteFormMarkup()).replace(LEGAL_FOOTER_SLOT, () => legalFooterMarkup());
}

export function quoteFormMarkupPlugin(fileName: string): Plugin {
  return {
    name: "quote-form-markup",
    transformIndexHtml: {
      order: "pre",
      // In development the server passes the request's address, so the name may carry its query.
      handler: (html, context) => (basename(context.filename).split("?")[0] === fileName || html.includes(QUOTE_FORM_SLOT) ? insertQuoteForm(html, fileName) : html),
    },
  };
}
