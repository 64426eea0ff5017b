/**
 * The privacy policy's tables as a reader sees them, for the tests that pin its statements to the
 * code that makes them true (tests/http/legal-statements.test.ts, the console's cookie test).
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { parse, type HTMLElement } from "node-html-parser";
import { compileLegalMarkdown } from "../../build/legal-markdown";
import { projectRoot } from "../../tools/production-server";

export const cellText = (element: HTMLElement | null | undefined) => (element?.text ?? "").replace(/\s+/g, " ").trim();

/** One table of the policy: its body rows as { first column's text → the row's cells by column name }. */
export function policyTable(doc: HTMLElement, captionStart: string): Map<string, Record<string, string>> {
  const table = doc.querySelectorAll("table").find((candidate) => cellText(candidate.querySelector("caption")).startsWith(captionStart));
  if (!table) throw new Error(`the privacy policy has no table captioned "${captionStart}…"`);
  const columns = table.querySelectorAll("thead th").map(cellText);
  return new Map(
    table.querySelectorAll("tbody tr").map((row) => {
      const cells = row.querySelectorAll("th, td").map(cellText);
      return [cells[0]!, Object.fromEntries(columns.map((column, index) => [column, cells[index] ?? ""]))] as const;
    }),
  );
}

/** The policy compiled from content/legal/ as the build does, parsed (for tests without the app). */
export async function compiledPolicy(): Promise<HTMLElement> {
  const source = await readFile(path.join(projectRoot, "content", "legal", "privacy-policy.md"), "utf8");
  return parse(compileLegalMarkdown(source, { file: "privacy-policy.md", selfPath: "/privacy-policy" }).html);
}

/** "Until you close your browser" is a session cookie: no Max-Age, no Expires. */
export const SESSION_LIFETIME = "Until you close your browser";

/** The cookie's name and attributes from one Set-Cookie line. */
export function cookieOf(line: string): { name: string; maxAge?: number; expires: boolean; httpOnly: boolean; sameSite?: string } {
  const [pair = "", ...attributes] = line.split(";").map((part) => part.trim());
  const attribute = (name: string) => attributes.find((part) => part.toLowerCase().startsWith(`${name.toLowerCase()}`));
  const maxAge = attribute("max-age=");
  return {
    name: pair.slice(0, pair.indexOf("=")),
    ...(maxAge ? { maxAge: Number(maxAge.slice("max-age=".length)) } : {}),
    expires: attribute("expires=") !== undefined,
    httpOnly: attribute("httponly") !== undefined,
    sameSite: attribute("samesite=")?.slice("samesite=".length).toLowerCase(),
  };
}
