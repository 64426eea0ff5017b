/**
 * What a legal page's Markdown compiles to (build/legal-markdown.ts). Importing
 * `content/legal/<name>.md?legal` gives a module with these fields as named exports and the
 * whole object as its default export. Types only; the text itself arrives in the page's lazy chunk.
 */
export type LegalHeadingLevel = 2 | 3 | 4 | 5 | 6;

export interface LegalHeading {
  /** 2 for a numbered section, 3 for a subsection, … (the page's single h1 is the title). */
  level: LegalHeadingLevel;
  /** "16" for "## 16. California Privacy Rights"; null for an unnumbered heading. */
  number: string | null;
  /** The heading's text without its number and without the `{#id}` suffix: "California Privacy Rights". */
  text: string;
  /** The element id, taken from the `{#id}` suffix: "california-rights". */
  id: string;
}

export interface LegalDocument {
  /** The `# Title` line. */
  title: string;
  /** The "Last revised:" date as readers see it: "May 24, 2023". */
  lastRevised: string;
  /** The same date for machines (`<time dateTime>`): "2023-05-24". */
  lastRevisedIso: string;
  /** Every heading of the body in document order, for the table of contents. */
  headings: readonly LegalHeading[];
  /** The body (everything after the title and the date) as HTML. */
  html: string;
}
