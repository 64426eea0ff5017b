/**
 * Ops test links (server/leads/test-link.ts): a signed expiry in the quote page's address that
 * makes its quote requests test leads, and `npm run leads -- test-link`, which makes one.
 */
import { describe, expect, it } from "vitest";
import { isTestLinkToken, isTestPage, testLink, testLinkToken, TEST_LINK_PARAM } from "../../server/leads/test-link";
import { createFormTokens } from "../../server/leads/form-token";
import { run } from "../../server/cli/leads";
import { UsageError } from "../../server/cli/common";

const SECRET = "ops-test-link-secret-0123456789abcdef";
const NOW = new Date("2026-11-26T12:00:00Z");
const HOUR = 3_600_000;

describe("test link tokens", () => {
  it("are good until they expire, with the secret that signed them only", () => {
    const token = testLinkToken(SECRET, new Date(NOW.getTime() + HOUR));
    expect(isTestLinkToken(SECRET, token, NOW)).toBe(true);
    expect(isTestLinkToken(SECRET, token, new Date(NOW.getTime() + HOUR))).toBe(false);
    expect(isTestLinkToken("another-secret-another-secret-another!", token, NOW)).toBe(false);
  });

  it("refuse a changed expiry, a form token signed with the same secret, and anything malformed", () => {
    const token = testLinkToken(SECRET, new Date(NOW.getTime() + HOUR));
    const [, signature] = token.split(".");
    expect(isTestLinkToken(SECRET, `${(NOW.getTime() + 100 * HOUR).toString(36)}.${signature}`, NOW)).toBe(false);
    const formToken = createFormTokens(SECRET, 0).issue(NOW.getTime() + HOUR);
    expect(isTestLinkToken(SECRET, formToken, NOW)).toBe(false);
    for (const junk of [undefined, 42, "", "abc", `${token}x`, token.replace(".", ""), "💥.💥"]) expect(isTestLinkToken(SECRET, junk, NOW), String(junk)).toBe(false);
  });

  it("are found in the page address the form sends, and nowhere else", () => {
    const link = testLink(SECRET, { baseUrl: "https://www.quoteridge.test", expiresAt: new Date(NOW.getTime() + HOUR), zip: "90210", sid: "qa-summit" });
    expect(link).toMatch(new RegExp(`^https://www\\.quoteridge\\.test/\\?zip=90210&sid=qa-summit&${TEST_LINK_PARAM}=[0-9a-z]+\\.[A-Za-z0-9_-]{43}$`));
    expect(isTestPage(SECRET, link, NOW)).toBe(true);
    expect(isTestPage(SECRET, "https://www.quoteridge.test/?zip=90210", NOW)).toBe(false);
    expect(isTestPage(SECRET, "not a url", NOW)).toBe(false);
  });
});

describe("npm run leads -- test-link", () => {
  const env = { CSRF_SECRET: SECRET, PUBLIC_BASE_URL: "https://www.quoteridge.test", DATA_DIR: "/nonexistent/never-created" };

  it("prints a link good for the hours asked, signed with CSRF_SECRET, without opening the store", async () => {
    let text = "";
    expect(await run(["test-link", "--hours", "2", "--zip", "33101", "--sid", "qa"], (chunk) => (text += chunk), env)).toBe(0);
    const [link = "", note = ""] = text.trim().split("\n");
    expect(link).toMatch(/^https:\/\/www\.quoteridge\.test\/\?zip=33101&sid=qa&qa=/);
    expect(isTestPage(SECRET, link, new Date(Date.now() + HOUR))).toBe(true);
    expect(isTestPage(SECRET, link, new Date(Date.now() + 2 * HOUR + 1_000))).toBe(false);
    expect(note).toMatch(/^Good until .*sandbox buyers only, never billed\.$/);
  });

  it("refuses bad options, and works only with the servers' CSRF_SECRET", async () => {
    for (const [argv, message] of [
      [["test-link", "--hours", "0"], /--hours must be a whole number from 1 to 336/],
      [["test-link", "--hours", "1.5"], /--hours must be a whole number/],
      [["test-link", "--zip", "9021"], /--zip must be 5 digits/],
      [["test-link", "--sid", "a b"], /--sid must be/],
      [["test-link", "--buyer", "x"], /--buyer does not apply to test-link/],
    ] as const) {
      await expect(run([...argv], () => {}, env), argv.join(" ")).rejects.toThrow(message);
      await expect(run([...argv], () => {}, env)).rejects.toBeInstanceOf(UsageError);
    }
    await expect(run(["test-link"], () => {}, { DATA_DIR: "/nonexistent/never-created" })).rejects.toThrow(/test-link needs CSRF_SECRET/);
  });
});
