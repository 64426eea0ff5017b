/**
 * Test links: the flag only ops can set that makes a quote request a test lead (issue 16's
 * sandbox; docs/lead-auction.md, "Trying a new buyer"), whatever contact details it carries, so a
 * buyer's QA team can send leads with their own phone and email and see them arrive. Ops make a
 * link with `npm run leads -- test-link` (the site's secret signs its expiry); the quote page
 * keeps it in its address, which the form sends as the consent record's page URL, and the lead
 * service checks it there. A test lead goes to sandbox buyers only and never counts as revenue.
 */
import { signedTimes } from "./signed-time";

/** The quote page's query parameter that carries the token. */
export const TEST_LINK_PARAM = "qa";
/** The longest a link may be good for. */
export const TEST_LINK_MAX_HOURS = 24 * 14;

// A purpose of its own: no other token signed with the same secret can pass as this one.
const PURPOSE = "test-lead";

/** A token good until `expiresAt`: "<expiry, base 36 ms>.<signature>". */
export function testLinkToken(secret: string | Buffer, expiresAt: Date): string {
  return signedTimes(secret, PURPOSE).sign(expiresAt.getTime());
}

/** Whether `token` was signed with `secret` and has not expired. */
export function isTestLinkToken(secret: string | Buffer, token: unknown, now: Date): boolean {
  const expires = signedTimes(secret, PURPOSE).read(token);
  return expires !== undefined && expires > now.getTime();
}

/** Whether a page address (the consent record's page URL) carries a good test token. */
export function isTestPage(secret: string | Buffer, pageUrl: string, now: Date): boolean {
  let token: string | null;
  try {
    token = new URL(pageUrl).searchParams.get(TEST_LINK_PARAM);
  } catch {
    return false;
  }
  return token !== null && isTestLinkToken(secret, token, now);
}

/** The quote page's address for a test: `base`/?zip=…&sid=…&qa=<token>. */
export function testLink(secret: string | Buffer, options: { baseUrl: string; expiresAt: Date; zip?: string; sid?: string }): string {
  const url = new URL("/", options.baseUrl);
  if (options.zip) url.searchParams.set("zip", options.zip);
  if (options.sid) url.searchParams.set("sid", options.sid);
  url.searchParams.set(TEST_LINK_PARAM, testLinkToken(secret, options.expiresAt));
  return url.toString();
}
