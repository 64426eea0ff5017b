/**
 * SplicedPage (server/pages/spliced.ts): a page with slots, sent as text or as gzip built from
 * segments compressed once. Whatever the page and the values, gunzip gives exactly the text.
 */
import { crc32, gunzipSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { crc32Combine, crc32Shift, SplicedPage, type SlotName } from "../../server/pages/spliced";

const TOKENS = new Map<string, SlotName>([
  ["TOKnonceTOK", "nonce"],
  ["TOKtidTOK", "tid"],
  ["TOKvisitTOK", "visit"],
]);

describe("SplicedPage", () => {
  it("fills every slot, wherever it stands, and gzips to the same text", () => {
    const html = `<script nonce="TOKnonceTOK">{"tid":"TOKtidTOK"}</script>TOKtidTOKTOKtidTOK<p>é ✓ 漢字</p><a href="/?tid=TOKtidTOK&amp;vid=TOKvisitTOK">`;
    const page = new SplicedPage(html, TOKENS);
    const values = { nonce: "bm9uY2U=", tid: "CLK-1.x_y", visit: "0b7f6a52-5c1e-4d8e-9f3a-2b1c0d9e8f7a" };
    const expected = `<script nonce="bm9uY2U=">{"tid":"CLK-1.x_y"}</script>CLK-1.x_yCLK-1.x_y<p>é ✓ 漢字</p><a href="/?tid=CLK-1.x_y&amp;vid=0b7f6a52-5c1e-4d8e-9f3a-2b1c0d9e8f7a">`;
    expect(page.text(values).toString("utf8")).toBe(expected);
    expect(gunzipSync(page.gzip(values)).toString("utf8")).toBe(expected);
    expect(page.has("visit")).toBe(true);
    expect(page.has("sid")).toBe(false);
  });

  it("refuses to send a page whose slot has no value, rather than a page with a hole", () => {
    const page = new SplicedPage("<p>TOKtidTOK</p>", TOKENS);
    expect(() => page.text({ nonce: "n" })).toThrow(/tid slot/);
    expect(() => page.gzip({ nonce: "n" })).toThrow(/tid slot/);
  });

  it("compresses a large page once: a response is far smaller than the text", () => {
    const html = `<main>${"<p>The same paragraph, again and again.</p>".repeat(2_000)}TOKnonceTOK</main>`;
    const page = new SplicedPage(html, TOKENS);
    const gzipped = page.gzip({ nonce: "abc" });
    expect(gzipped.length).toBeLessThan(html.length / 50);
    expect(gunzipSync(gzipped).toString()).toBe(html.replace("TOKnonceTOK", "abc"));
  });

  it("gives valid gzip for any page and any values", () => {
    const piece = fc.oneof(fc.string({ unit: "grapheme", maxLength: 300 }), fc.constantFrom(...TOKENS.keys()));
    const value = fc.stringMatching(/^[A-Za-z0-9_.-]{1,64}$/);
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 20 }), value, value, value, (pieces, nonce, tid, visit) => {
        const html = pieces.join("");
        const page = new SplicedPage(html, TOKENS);
        const values = { nonce, tid, visit };
        const text = page.text(values).toString("utf8");
        expect(gunzipSync(page.gzip(values)).toString("utf8")).toBe(text);
        expect(text).toBe(html.replaceAll("TOKnonceTOK", nonce).replaceAll("TOKtidTOK", tid).replaceAll("TOKvisitTOK", visit));
      }),
      { numRuns: 200 },
    );
  });

  it("sends the same bytes as parts, without copying the page's text", () => {
    const html = `<main>${"<p>kept</p>".repeat(500)}TOKnonceTOK<p>TOKtidTOK</p></main>`;
    const page = new SplicedPage(html, TOKENS);
    const values = { nonce: "abc", tid: "CLK-9" };
    const gzip = page.gzipParts(values);
    expect(gzip.length).toBe(gzip.parts.reduce((sum, part) => sum + part.length, 0));
    expect(Buffer.concat(gzip.parts)).toEqual(page.gzip(values));
    const text = page.textParts(values);
    expect(text.length).toBe(Buffer.concat(text.parts).length);
    // The fixed text is the kept buffer itself, not a copy made for this response.
    expect(page.textParts({ nonce: "x", tid: "y" }).parts[0]).toBe(text.parts[0]);
  });
});

describe("crc32Combine", () => {
  it("gives zlib's CRC-32 of two pieces joined, for any pieces", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3_000 }), fc.uint8Array({ maxLength: 3_000 }), (a, b) => {
        const joined = crc32(Buffer.concat([a, b]));
        expect(crc32Combine(crc32(a), crc32(b), crc32Shift(b.length))).toBe(joined);
      }),
      { numRuns: 300 },
    );
  });

  it("shifts past long pieces too (a page is tens of kilobytes)", () => {
    const a = Buffer.from("head");
    const b = Buffer.alloc(200_003, 0x61);
    expect(crc32Combine(crc32(a), crc32(b), crc32Shift(b.length))).toBe(crc32(Buffer.concat([a, b])));
    expect(crc32Combine(crc32(a), 0, crc32Shift(0))).toBe(crc32(a));
  });
});
