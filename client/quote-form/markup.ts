/**
 * HTML as strings, for the quote form's markup: written into rapidfire.html at build time (so
 * the first step shows before any script runs) and, only when a page lacks it, by the script.
 * Pure: no DOM, so the build (Node) and the browser run the same code.
 */
export type Attributes = Readonly<Record<string, string | boolean | undefined>>;

const ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text or an attribute value, escaped for HTML. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (character) => ESCAPES[character]!);

/** Elements that have no end tag (HTML §13.1.2). */
const VOID = new Set(["input", "br", "img", "meta", "link"]);

/**
 * One element: attributes escaped (true writes the bare name, false or undefined leaves it out),
 * children already HTML (pass text through escapeHtml).
 */
export function element(tag: string, attributes: Attributes = {}, ...children: string[]): string {
  let open = `<${tag}`;
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    open += value === true ? ` ${name}` : ` ${name}="${escapeHtml(value)}"`;
  }
  return VOID.has(tag) ? `${open}>` : `${open}>${children.join("")}</${tag}>`;
}
