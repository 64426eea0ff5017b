/**
 * Pages that are one text for everyone (server/pages/fixed.ts, decision 026): the nonce comes out
 * only where it is an attribute, every inline script gets its hash, and each text is compressed
 * once, whatever number of addresses ask for it.
 */
import { createHash } from "node:crypto";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { FixedPages, windowBits, withoutNonce, type FixedPage } from "../../server/pages/fixed";

const NONCE = "n0nceN0nce+/==";
const sha = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

describe("withoutNonce", () => {
  it("takes the nonce out of the tags, and hashes each inline script's text", () => {
    const loader = "(()=>{import(\"/assets/index.js\")})()";
    const data = 'window.__data = JSON.parse("{\\"a\\":\\"é\\"}");';
    const html = `<head><script nonce="${NONCE}">${loader}</script></head><body><p>nonce</p><script nonce="${NONCE}">${data}</script><script type="module" src="/assets/x.js" nonce="${NONCE}"></script><script nonce="${NONCE}">${loader}</script></body>`;
    const text = withoutNonce(html, NONCE)!;
    expect(text.html).toBe(`<head><script>${loader}</script></head><body><p>nonce</p><script>${data}</script><script type="module" src="/assets/x.js"></script><script>${loader}</script></body>`);
    // The same script twice is one source; a script with src needs none ('self' allows it).
    expect(text.scriptSources).toEqual([sha(loader), sha(data)]);
  });

  it("gives nothing when the nonce is used anywhere else (the page would change without it)", () => {
    expect(withoutNonce(`<script nonce="${NONCE}">window.nonce = "${NONCE}"</script>`, NONCE)).toBeUndefined();
    expect(withoutNonce(`<style nonce="${NONCE}"></style><a href="/?n=${NONCE}">`, NONCE)).toBeUndefined();
  });

  it("gives a page without inline scripts no sources", () => {
    expect(withoutNonce("<p>plain</p>", NONCE)).toEqual({ html: "<p>plain</p>", scriptSources: [] });
  });
});

describe("FixedPages", () => {
  const policyFor = (sources: readonly string[]) => `script-src 'self'${sources.map((source) => ` ${source}`).join("")}`;

  it("compresses a text once, however many addresses ask for it at once or later, and serves every form of it", async () => {
    const compressions: string[] = [];
    const pages = new FixedPages({ policyFor: (sources) => (compressions.push(sources.join()), policyFor(sources)), onError: (error) => { throw error; } });
    const html = `<main>${"Privacy policy text. ".repeat(500)}</main><script>go()</script>`;
    const text = withoutNonce(html, NONCE)!;
    const ready = (count: number) =>
      Promise.all(Array.from({ length: count }, () => new Promise<FixedPage>((resolve) => pages.prepare(text, resolve))));
    const [first, ...others] = await ready(5);
    for (const other of others) expect(other).toBe(first);
    let later: FixedPage | undefined;
    pages.prepare(text, (page) => (later = page));
    // Known already: handed over at once, without compressing again.
    expect(later).toBe(first);
    expect(compressions).toHaveLength(1);
    expect(first!.csp).toBe(`script-src 'self' ${sha("go()")}`);
    expect(first!.body.identity.toString("utf8")).toBe(html);
    expect(brotliDecompressSync(first!.body.br).toString("utf8")).toBe(html);
    expect(gunzipSync(first!.body.gzip).toString("utf8")).toBe(html);
    expect(first!.body.br.length).toBeLessThan(first!.body.gzip.length);
    expect(new Set(Object.values(first!.etag)).size).toBe(3);
  });

  it("keeps different texts apart", async () => {
    const pages = new FixedPages({ policyFor, onError: (error) => { throw error; } });
    const prepared = (html: string) => new Promise<FixedPage>((resolve) => pages.prepare(withoutNonce(html, NONCE)!, resolve));
    const [a, b] = await Promise.all([prepared("<p>a</p>"), prepared("<p>b</p>")]);
    expect(a.body.identity.toString()).toBe("<p>a</p>");
    expect(b.body.identity.toString()).toBe("<p>b</p>");
    expect(a.etag.identity).not.toBe(b.etag.identity);
  });
});

describe("windowBits", () => {
  it("gives the smallest brotli window that holds the page (so quality 11 allocates for the page, not 4 MB)", () => {
    expect(windowBits(0)).toBe(10);
    expect(windowBits(1_000)).toBe(10);
    expect(windowBits(2 ** 17 - 16)).toBe(17);
    expect(windowBits(2 ** 17 - 15)).toBe(18);
    expect(windowBits(76_253)).toBe(17);
    expect(windowBits(100_000_000)).toBe(24);
  });
});
