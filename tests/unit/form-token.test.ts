/**
 * The quote form's signed "opened at" token (server/leads/form-token.ts): a person needs at least
 * the minimum fill time, a day-old form is stale, and nothing but a token this server signed passes.
 */
import { createHmac } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createFormTokens } from "../../server/leads/form-token";

const SECRET = "form-token-test-secret-0123456789abcdef";
const MIN_FILL_MS = 4_000;
const DAY_MS = 24 * 60 * 60_000;
const T0 = Date.parse("2026-06-15T18:00:00.000Z");

const tokens = createFormTokens(SECRET, MIN_FILL_MS);

/** Replaces the character at `index` with another one of the same alphabet. */
function flip(token: string, index: number): string {
  const char = token[index]!;
  const replacement = char === "A" ? "B" : "A";
  return token.slice(0, index) + replacement + token.slice(index + 1);
}

describe("form tokens", () => {
  it("look like <base-36 time>.<43-character base64url signature>", () => {
    expect(tokens.issue(T0)).toMatch(/^[0-9a-z]{1,12}\.[A-Za-z0-9_-]{43}$/);
    expect(tokens.issue(T0).split(".")[0]).toBe(T0.toString(36));
  });

  it("pass from the minimum fill time on, and until a day has passed", () => {
    const token = tokens.issue(T0);
    expect(tokens.check(token, T0 + MIN_FILL_MS)).toBe("ok");
    expect(tokens.check(token, T0 + 60_000)).toBe("ok");
    expect(tokens.check(token, T0 + DAY_MS)).toBe("ok");
  });

  it("are too fast before the minimum fill time, including a token from the future", () => {
    const token = tokens.issue(T0);
    expect(tokens.check(token, T0)).toBe("too_fast");
    expect(tokens.check(token, T0 + MIN_FILL_MS - 1)).toBe("too_fast");
    expect(tokens.check(token, T0 - 60_000)).toBe("too_fast");
  });

  it("expire after 24 hours", () => {
    const token = tokens.issue(T0);
    expect(tokens.check(token, T0 + DAY_MS + 1)).toBe("expired");
    expect(tokens.check(token, T0 + 30 * DAY_MS)).toBe("expired");
  });

  it("default to the current time", () => {
    expect(tokens.check(tokens.issue())).toBe("too_fast");
    expect(tokens.check(tokens.issue(Date.now() - MIN_FILL_MS - 1_000))).toBe("ok");
    expect(tokens.check(tokens.issue(Date.now() - DAY_MS - 60_000))).toBe("expired");
  });

  it("honour the configured minimum (0 turns the check off)", () => {
    const instant = createFormTokens(SECRET, 0);
    expect(instant.check(instant.issue(T0), T0)).toBe("ok");
    const slow = createFormTokens(SECRET, 60_000);
    expect(slow.check(slow.issue(T0), T0 + 59_999)).toBe("too_fast");
  });

  it("are valid on every replica sharing the secret, string or Buffer", () => {
    const replica = createFormTokens(Buffer.from(SECRET), MIN_FILL_MS);
    expect(replica.check(tokens.issue(T0), T0 + MIN_FILL_MS)).toBe("ok");
  });

  it("are invalid when signed with another secret", () => {
    const other = createFormTokens("another-secret-0123456789abcdefghijkl", MIN_FILL_MS);
    expect(tokens.check(other.issue(T0), T0 + 60_000)).toBe("invalid");
  });

  it("are invalid when the signature is tampered with, at any position", () => {
    const token = tokens.issue(T0);
    const start = token.indexOf(".") + 1;
    for (let index = start; index < token.length; index += 1) {
      expect(tokens.check(flip(token, index), T0 + 60_000), `position ${index}`).toBe("invalid");
    }
  });

  it("are invalid when the time is moved back to fake a longer fill", () => {
    const token = tokens.issue(T0);
    const [, signature] = token.split(".");
    const earlier = `${(T0 - 60_000).toString(36)}.${signature}`;
    expect(tokens.check(earlier, T0 + 1_000)).toBe("invalid");
  });

  it("are invalid when they are an HMAC of the same time for another purpose (e.g. a CSRF token)", () => {
    const issuedAt = T0.toString(36);
    const bare = createHmac("sha256", SECRET).update(issuedAt).digest("base64url");
    expect(tokens.check(`${issuedAt}.${bare}`, T0 + 60_000)).toBe("invalid");
    const right = createHmac("sha256", SECRET).update(`lead-form:${issuedAt}`).digest("base64url");
    expect(tokens.check(`${issuedAt}.${right}`, T0 + 60_000)).toBe("ok");
  });

  it("are invalid when they are not a string, or are garbage", () => {
    const token = tokens.issue(T0);
    for (const garbage of [undefined, null, 42, true, {}, [token], Buffer.from(token), "", ".", "abc", `${token}x`, ` ${token}`, `${token}\n`, token.replace(".", ""), `${token}.${token}`, token.toUpperCase(), "zzzzzzzzzzzzz.".padEnd(57, "A")]) {
      expect(tokens.check(garbage, T0 + 60_000), String(garbage)).toBe("invalid");
    }
  });

  it("never throw, and accept no string they did not issue", () => {
    const genuine = new Set([tokens.issue(T0)]);
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.tuple(fc.string({ unit: fc.constantFrom(..."0123456789abcdefghijklmnopqrstuvwxyz"), minLength: 1, maxLength: 12 }), fc.string({ unit: fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"), minLength: 43, maxLength: 43 })).map(([time, sig]) => `${time}.${sig}`),
        ),
        (candidate) => {
          const result = tokens.check(candidate, T0 + 60_000);
          if (!genuine.has(candidate)) expect(result).toBe("invalid");
        },
      ),
      { numRuns: 500 },
    );
  });
});
