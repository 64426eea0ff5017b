/**
 * Where sign-in sends the user afterwards (`next`): only one of the console's own pages, so a
 * crafted link cannot turn the sign-in form into an open redirect (OWASP Unvalidated Redirects).
 */
import { adminPaths } from "../../shared/admin-views";

/** The pages a user may be sent back to (GET pages, not actions or the sign-in form itself). */
const PAGES = new Set<string>([adminPaths.report, adminPaths.journey, adminPaths.leads, adminPaths.buyers, adminPaths.privacy]);
const MAX_LENGTH = 512;

/** `value` when it is a console page (with an optional query), else the report. */
export function safeNextPath(value: unknown): string {
  if (typeof value !== "string" || value.length > MAX_LENGTH) return adminPaths.report;
  // A single leading slash and nothing that a browser would read as a scheme or another host.
  if (!/^\/(?![/\\])[^\s\\]*$/.test(value)) return adminPaths.report;
  let url: URL;
  try {
    url = new URL(value, "http://console.invalid");
  } catch {
    return adminPaths.report;
  }
  if (url.host !== "console.invalid" || !PAGES.has(url.pathname)) return adminPaths.report;
  return `${url.pathname}${url.search}`;
}
