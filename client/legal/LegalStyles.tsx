/**
 * The legal pages' stylesheet, inlined into their lazy chunk (`?inline`) so the landing page never
 * downloads it. React 19 hoists a `<style href precedence>` into the document head and writes it
 * ahead of the page in the server's HTML, so the table of contents and the phone layout of the
 * tables are styled from the first paint, before any JavaScript runs (a Vite CSS chunk would be
 * linked only after the page's script loads it). The CSP allows inline styles (docs/security.md).
 */
import css from "./legal.css?inline";

export function LegalStyles() {
  return (
    <style href="legal-pages" precedence="legal">
      {css}
    </style>
  );
}
