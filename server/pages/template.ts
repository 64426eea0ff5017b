/**
 * The HTML document around the React app. Vite writes `index.html` (with hashed asset tags in
 * production); we fill its markers per request, and swap the nonce placeholder Vite wrote
 * (shared/csp-nonce.ts, which vite.config.ts uses too) for the response's nonce.
 */
import { CSP_NONCE_PLACEHOLDER } from "../../shared/csp-nonce";

export const HEAD_MARKER = "<!--app-head-->";
export const APP_MARKER = "<!--app-html-->";

export interface PageHead {
  title: string;
  description: string;
  /** Path of the canonical page (no query); absent for pages that must not be indexed. */
  canonicalPath?: string;
  noindex?: boolean;
}

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char]!);
}

export function renderHead(head: PageHead, baseUrl: string | undefined): string {
  const parts = [
    `<title>${escapeHtml(head.title)}</title>`,
    `<meta name="description" content="${escapeHtml(head.description)}" />`,
  ];
  if (head.noindex) parts.push(`<meta name="robots" content="noindex" />`);
  else if (head.canonicalPath) {
    parts.push(`<link rel="canonical" href="${escapeHtml(`${baseUrl ?? ""}${head.canonicalPath}`)}" />`);
  }
  return parts.join("\n    ");
}

export interface DocumentParts {
  /** Everything before the app's HTML. */
  start: string;
  /** Everything after it. */
  end: string;
}

/**
 * Splits the template around the app marker after filling the head and the nonce. Replacer
 * functions keep `$&`-style sequences in content from being expanded by String.replace.
 */
export function fillTemplate(template: string, headHtml: string, nonce: string): DocumentParts {
  const filled = template
    .replaceAll(CSP_NONCE_PLACEHOLDER, () => nonce)
    .replace(HEAD_MARKER, () => headHtml);
  const at = filled.indexOf(APP_MARKER);
  if (at === -1) throw new Error(`The HTML template has no ${APP_MARKER} marker`);
  return { start: filled.slice(0, at), end: filled.slice(at + APP_MARKER.length) };
}
