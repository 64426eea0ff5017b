/**
 * The legal pages' compiler: Markdown in content/legal/ becomes HTML at build time, so lawyers
 * edit text files and never a component, and browsers download no Markdown parser.
 *
 * The Vite plugin below answers `import doc from "content/legal/<name>.md?legal"` with a module
 * exporting `title`, `lastRevised`, `lastRevisedIso`, `headings` and `html` (see
 * client/legal/legal-document.ts). The conventions (docs/decisions/004-legal-content.md):
 *
 * - `# Title` first, then a `Last revised: …` line; both leave the body (the page lays them out).
 * - `{{name}}` placeholders are filled from shared/site.ts (`sitePlaceholders`).
 * - Every other heading ends with `{#id}`, its stable anchor. Sections are `## N. Title`,
 *   numbered 1, 2, 3, … in order; subsections are `###`; no level is skipped.
 * - A table is preceded by a `Table: caption` line. Its first row holds the column headers
 *   (`<th scope="col">`), its first column names each row (`<th scope="row">`), and every body
 *   cell carries its column's name in `data-label` for the stacked layout on phones.
 * - Links are relative (`/terms-of-use`, `#cookies`), `https:`, `mailto:` or `tel:`. E-mail
 *   addresses become mailto links. Links to `#id` (or `/<this page>#id`) must name a heading.
 * - No raw HTML and no images: the page's structure is only what the rules above produce.
 *
 * Anything else fails the build with every problem listed, file and line where known.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { Lexer, Marked, Parser, type Token, type Tokens } from "marked";
import type { Plugin } from "vite";
import { formatLegalDate, formatPostalAddress, site } from "../shared/site.ts";
import { telUri } from "../shared/contact.ts";
import type { LegalDocument, LegalHeading, LegalHeadingLevel } from "../client/legal/legal-document.ts";

export type { LegalDocument, LegalHeading } from "../client/legal/legal-document.ts";

/** Thrown with every problem found in one file, so a build shows them all at once. */
export class LegalMarkdownError extends Error {
  constructor(
    readonly file: string,
    readonly problems: readonly string[],
  ) {
    super(`${file}: ${problems.length === 1 ? problems[0] : `${problems.length} problems:\n  - ${problems.join("\n  - ")}`}`);
    this.name = "LegalMarkdownError";
  }
}

export interface CompileOptions {
  /** Named in error messages: "content/legal/privacy-policy.md". */
  file: string;
  /** Markdown to put in place of each `{{name}}`; defaults to `sitePlaceholders()`. */
  placeholders?: Readonly<Record<string, string>>;
  /** The page's own path ("/privacy-policy"), so links to `/privacy-policy#id` are checked too. */
  selfPath?: string;
}

// ---------------------------------------------------------------------------------------------
// Placeholders

/** Backslash-escapes Markdown punctuation, so a value is always read as plain text. */
export function markdownText(value: string): string {
  return value.replace(/[\\`*_{}[\]()<>#+!|~]/g, "\\$&");
}

/** Every placeholder the legal text may use, as Markdown, from the one place that names the business. */
export function sitePlaceholders(): Record<string, string> {
  return {
    productName: markdownText(site.productName),
    legalEntity: markdownText(site.legalEntity),
    siteDomain: markdownText(site.domain),
    // An autolink: rendered as <a href="mailto:…">.
    contactEmail: `<${site.contactEmail}>`,
    phone: `[${markdownText(site.phone)}](${telUri(site.phone)})`,
    postalAddress: markdownText(formatPostalAddress()),
    lastRevised: markdownText(formatLegalDate()),
    lastReviewed: markdownText(formatLegalDate(site.legalReviewed)),
  };
}

const PLACEHOLDER = /\{\{[ \t]*([A-Za-z][A-Za-z0-9]*)[ \t]*\}\}/g;

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let index = text.indexOf("\n"); index !== -1 && index < offset; index = text.indexOf("\n", index + 1)) line += 1;
  return line;
}

function substitute(source: string, values: Readonly<Record<string, string>>, problems: string[]): string {
  const result = source.replace(PLACEHOLDER, (match, name: string, offset: number) => {
    if (Object.hasOwn(values, name)) return values[name]!;
    problems.push(`line ${lineAt(source, offset)}: unknown placeholder ${match} (known: ${Object.keys(values).map((key) => `{{${key}}}`).join(", ")})`);
    return match;
  });
  // Braces left over once every well-formed placeholder is gone are a typo such as "{{ phone }".
  const rest = source.replace(PLACEHOLDER, (match) => "x".repeat(match.length));
  for (const stray of rest.matchAll(/\{\{|\}\}/g)) {
    problems.push(`line ${lineAt(rest, stray.index)}: malformed placeholder near "${rest.slice(stray.index, stray.index + 24).split("\n")[0]}"`);
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Token helpers (marked's Token type includes a generic shape, so narrowing needs guards)

const isHeading = (token: Token): token is Tokens.Heading => token.type === "heading";
const isParagraph = (token: Token): token is Tokens.Paragraph => token.type === "paragraph";
const isTable = (token: Token): token is Tokens.Table => token.type === "table";
const isLink = (token: Token): token is Tokens.Link => token.type === "link";

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (match, name: string) => {
    if (name.startsWith("#x") || name.startsWith("#X")) return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
    if (name.startsWith("#")) return String.fromCodePoint(Number.parseInt(name.slice(1), 10));
    return ENTITIES[name.toLowerCase()] ?? match;
  });
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

const textParser = new Parser({ gfm: true });

/** The reader-visible text of inline tokens: no markup, entities decoded, spaces collapsed. */
function plainText(tokens: Token[]): string {
  return decodeEntities(textParser.parseInline(tokens, textParser.textRenderer)).replace(/\s+/g, " ").trim();
}

// ---------------------------------------------------------------------------------------------
// The compiler

const ID_SUFFIX = /[ \t]*\{#([^{}]*)\}[ \t]*$/;
const ID_FORMAT = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
const SECTION_NUMBER = /^(\d+(?:\.\d+)*)\.\s+(\S.*)$/;
const CAPTION_LINE = /^Table:[ \t]+(\S[\s\S]*)$/;
const REVISED_LINE = /^Last revised:[ \t]*(.+)$/;
const SAFE_ABSOLUTE_LINK = /^(?:https?:\/\/[^\s/]|mailto:[^\s@]+@[^\s@]+$|tel:\+?[0-9-]+$)/i;
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** "May 24, 2023" → "2023-05-24"; undefined for anything that is not such a date. */
export function isoDateOf(text: string): string | undefined {
  const match = /^([A-Z][a-z]+) (\d{1,2}), (\d{4})$/.exec(text);
  if (!match) return undefined;
  const month = MONTHS.indexOf(match[1]!) + 1;
  const day = Number(match[2]);
  const year = Number(match[3]);
  const date = new Date(Date.UTC(year, month - 1, day));
  if (month === 0 || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  return `${year}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

function describeHeading(token: Tokens.Heading): string {
  return `heading "${token.raw.trim()}"`;
}

/** Compiles one legal page. Throws a LegalMarkdownError listing every problem. */
export function compileLegalMarkdown(source: string, options: CompileOptions): LegalDocument {
  const problems: string[] = [];
  const markdown = substitute(source.replace(/\r\n?/g, "\n"), options.placeholders ?? sitePlaceholders(), problems);
  const markedOptions = { gfm: true, breaks: false } as const;
  const tokens = new Lexer(markedOptions).lex(markdown);

  // Title and revision date: the first two blocks, laid out by the page rather than the body.
  const blocks = tokens.filter((token) => token.type !== "space");
  const [first, second] = blocks;
  let title = "";
  if (first && isHeading(first) && first.depth === 1) {
    title = plainText(first.tokens);
  } else {
    problems.push('the file must start with the title, a "# …" heading');
  }
  let lastRevised = "";
  let lastRevisedIso = "";
  const revised = second && isParagraph(second) ? REVISED_LINE.exec(plainText(second.tokens)) : null;
  if (revised) {
    lastRevised = revised[1]!.trim();
    lastRevisedIso = isoDateOf(lastRevised) ?? "";
    if (!lastRevisedIso) problems.push(`"Last revised: ${lastRevised}" is not a date written like "May 24, 2023"`);
  } else {
    problems.push('the title must be followed by a "Last revised: {{lastRevised}}" line');
  }
  const removed = new Set<Token>([first, revised ? second : undefined].filter((token): token is Token => token !== undefined));

  // Tables: the caption comes from the "Table: …" paragraph right before each one.
  const captions = new WeakMap<Tokens.Table, Token[]>();
  tokens.forEach((token, index) => {
    if (isParagraph(token) && CAPTION_LINE.test(token.text)) {
      const next = tokens.slice(index + 1).find((candidate) => candidate.type !== "space");
      if (!next || !isTable(next)) problems.push(`"${token.text.split("\n")[0]}" is not followed by a table`);
      return;
    }
    if (!isTable(token)) return;
    const previous = tokens.slice(0, index).reverse().find((candidate) => candidate.type !== "space");
    const caption = previous && isParagraph(previous) ? CAPTION_LINE.exec(previous.text) : null;
    if (!caption || !previous) {
      const columns = token.header.map((cell) => cell.text).join(" | ");
      problems.push(`the table with the columns "${columns}" has no caption: put a line "Table: …" right before it`);
      return;
    }
    captions.set(token, Lexer.lexInline(caption[1]!.trim(), markedOptions));
    removed.add(previous);
  });

  // Headings, links and what the body may not contain.
  const headings: LegalHeading[] = [];
  const headingIds = new WeakMap<Tokens.Heading, string>();
  const seenIds = new Set<string>();
  const fragmentLinks: string[] = [];
  let previousLevel = 1;
  const body = tokens.filter((token) => !removed.has(token));

  const checkLinks = (inline: Token[], insideLink: boolean): void => {
    for (const token of inline) {
      if (token.type === "html") problems.push(`raw HTML is not allowed: ${token.raw.trim()}`);
      if (token.type === "image") problems.push(`images are not allowed: ${token.raw.trim()}`);
      if (isLink(token)) {
        if (insideLink) problems.push(`a link inside a link: ${token.raw}`);
        const href = token.href;
        if (href.startsWith("#")) fragmentLinks.push(href.slice(1));
        else if (options.selfPath && href.startsWith(`${options.selfPath}#`)) fragmentLinks.push(href.slice(options.selfPath.length + 1));
        else if (!(href.startsWith("/") && !href.startsWith("//")) && !SAFE_ABSOLUTE_LINK.test(href)) {
          problems.push(`link "${token.raw}": use a relative path (/page, #section), https:, mailto: or tel:`);
        }
      }
      const children = "tokens" in token && Array.isArray(token.tokens) ? (token.tokens as Token[]) : [];
      if (children.length > 0) checkLinks(children, insideLink || isLink(token));
    }
  };

  const visit = (token: Token, topLevel: boolean): void => {
    if (token.type === "html") {
      problems.push(`raw HTML is not allowed: ${token.raw.trim().slice(0, 60)}`);
      return;
    }
    if (isTable(token)) {
      if (!topLevel) problems.push("tables must not be nested in lists or quotes");
      for (const cell of [...token.header, ...token.rows.flat()]) checkLinks(cell.tokens, false);
      return;
    }
    if (isHeading(token)) {
      visitHeading(token, topLevel);
      return;
    }
    if (token.type === "paragraph" || token.type === "text" || token.type === "list_item" || token.type === "blockquote" || token.type === "list") {
      if (token.type === "list") {
        for (const item of (token as Tokens.List).items) visit(item, false);
        return;
      }
      const children = "tokens" in token && Array.isArray(token.tokens) ? (token.tokens as Token[]) : [];
      const blockChildren = token.type === "list_item" || token.type === "blockquote";
      if (blockChildren) for (const child of children) visit(child, false);
      else checkLinks(children, false);
    }
  };

  const visitHeading = (token: Tokens.Heading, topLevel: boolean): void => {
    if (token.depth === 1) {
      problems.push(`${describeHeading(token)}: only the title may be a "#" heading; sections are "##"`);
      return;
    }
    if (!topLevel) problems.push(`${describeHeading(token)}: headings must not be nested in lists or quotes`);
    const suffix = ID_SUFFIX.exec(token.text);
    if (!suffix) {
      problems.push(`${describeHeading(token)} has no id: end it with {#some-id}`);
      return;
    }
    const id = suffix[1]!;
    if (!ID_FORMAT.test(id)) problems.push(`${describeHeading(token)}: the id "${id}" must be lower-case letters, digits and single hyphens`);
    if (seenIds.has(id)) problems.push(`${describeHeading(token)}: the id "${id}" is used twice`);
    seenIds.add(id);
    if (token.depth > previousLevel + 1) {
      problems.push(`${describeHeading(token)}: an h${token.depth} may not follow an h${previousLevel} (no level may be skipped)`);
    }
    previousLevel = token.depth;

    // Drop the suffix from the rendered heading, then read it again as inline Markdown.
    token.text = token.text.slice(0, suffix.index).trimEnd();
    token.tokens = Lexer.lexInline(token.text, markedOptions);
    checkLinks(token.tokens, false);
    headingIds.set(token, id);
    const text = plainText(token.tokens);
    const numbered = SECTION_NUMBER.exec(text);
    headings.push({
      level: token.depth as LegalHeadingLevel,
      number: numbered ? numbered[1]! : null,
      text: numbered ? numbered[2]! : text,
      id,
    });
  };

  for (const token of body) visit(token, true);

  // Sections: either none is numbered, or all are, 1, 2, 3, … in order.
  const sections = headings.filter((heading) => heading.level === 2);
  if (sections.some((heading) => heading.number !== null)) {
    sections.forEach((heading, index) => {
      const expected = String(index + 1);
      if (heading.number !== expected) {
        problems.push(`section "${heading.number ?? "(no number)"}. ${heading.text}" {#${heading.id}} should be numbered ${expected}`);
      }
    });
  }
  for (const fragment of new Set(fragmentLinks)) {
    if (!seenIds.has(fragment)) problems.push(`a link points at #${fragment}, but no heading has that id`);
  }

  if (problems.length > 0) throw new LegalMarkdownError(options.file, problems);

  const marked = new Marked(markedOptions, {
    renderer: {
      heading(token) {
        const id = headingIds.get(token);
        return `<h${token.depth} id="${escapeHtml(id ?? "")}">${this.parser.parseInline(token.tokens)}</h${token.depth}>\n`;
      },
      table(token) {
        const labels = token.header.map((cell) => plainText(cell.tokens));
        const align = (cell: Tokens.TableCell) => (cell.align ? ` class="legal-align-${cell.align}"` : "");
        const caption = this.parser.parseInline(captions.get(token) ?? []);
        const head = token.header
          .map((cell) => `<th scope="col"${align(cell)}>${this.parser.parseInline(cell.tokens)}</th>`)
          .join("");
        const rows = token.rows
          .map((row) => {
            const cells = row.map((cell, column) => {
              const label = ` data-label="${escapeHtml(labels[column] ?? "")}"`;
              const content = this.parser.parseInline(cell.tokens);
              return column === 0
                ? `<th scope="row"${label}${align(cell)}>${content}</th>`
                : `<td${label}${align(cell)}>${content}</td>`;
            });
            return `<tr>${cells.join("")}</tr>\n`;
          })
          .join("");
        // No ARIA roles: HTML forbids a role on a native table's rows and cells (ARIA in HTML), and
        // browsers keep a table's semantics when the phone layout makes its cells blocks (Chromium's
        // accessibility tree is checked in tests/e2e/legal.test.ts).
        return (
          `<table class="legal-table">\n<caption>${caption}</caption>\n` +
          `<thead><tr>${head}</tr></thead>\n<tbody>\n${rows}</tbody>\n</table>\n`
        );
      },
    },
  });

  return { title, lastRevised, lastRevisedIso, headings, html: marked.parser(body) };
}

// ---------------------------------------------------------------------------------------------
// The Vite plugin

/** The JavaScript module Vite receives for `<file>.md?legal`. */
export function legalModuleCode(document: LegalDocument): string {
  const json = (value: unknown) => JSON.stringify(value);
  return [
    `export const title = ${json(document.title)};`,
    `export const lastRevised = ${json(document.lastRevised)};`,
    `export const lastRevisedIso = ${json(document.lastRevisedIso)};`,
    `export const headings = ${json(document.headings)};`,
    `export const html = ${json(document.html)};`,
    "export default { title, lastRevised, lastRevisedIso, headings, html };",
    "",
  ].join("\n");
}

/** Compiles `*.md?legal` imports at build time (and on each request in development). */
export function legalMarkdown(): Plugin {
  let root = "";
  return {
    name: "legal-markdown",
    enforce: "pre",
    configResolved(config) {
      root = config.root;
    },
    async load(id) {
      const queryStart = id.indexOf("?");
      if (queryStart === -1 || !new URLSearchParams(id.slice(queryStart + 1)).has("legal")) return null;
      const file = id.slice(0, queryStart);
      if (!file.endsWith(".md")) this.error(`?legal applies to Markdown files only, not ${file}`);
      this.addWatchFile(file);
      const source = await readFile(file, "utf8");
      const name = root ? path.relative(root, file) : file;
      try {
        const document = compileLegalMarkdown(source, { file: name, selfPath: `/${path.basename(file, ".md")}` });
        return { code: legalModuleCode(document), map: null };
      } catch (error) {
        if (error instanceof LegalMarkdownError) this.error(`Legal text cannot be built. ${error.message}`);
        throw error;
      }
    },
  };
}
