/**
 * Pages that are the same bytes for every visitor (decision 026, server/pages/fixed.ts): once kept
 * and compressed, the legal pages go without a nonce, their inline scripts allowed by hash, as one
 * precompressed text with a strong ETag per encoding. Pages whose text holds an id keep the nonce.
 */
import { createHash } from "node:crypto";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import request from "supertest";
import { parse } from "node-html-parser";
import { servedTestApp } from "../support/app";
import { httpGet } from "../../tools/http-get";

/** The app on a real socket: the bytes on the wire, undecoded (supertest would decode them). */
const served = servedTestApp();

const scriptSources = (csp: unknown) => (/script-src ([^;]*)/.exec(String(csp))?.[1] ?? "").split(" ");

/** Asks for `path` until the page cache answers it as one text for everyone (compression runs in the background). */
async function fixed(path: string): Promise<void> {
  await expect.poll(async () => scriptSources((await request(served.t.app).get(path)).headers["content-security-policy"]).some((source) => source.startsWith("'sha256-")), { timeout: 10_000 }).toBe(true);
}

describe("pages that are the same for everyone", () => {
  it("go without a nonce: the CSP allows exactly the page's inline scripts, by their SHA-256", async () => {
    await fixed("/privacy-policy");
    const response = await request(served.t.app).get("/privacy-policy").set("Accept-Encoding", "identity");
    expect(response.status).toBe(200);
    expect(response.text).not.toMatch(/\snonce="/);
    expect(response.text).not.toContain('property="csp-nonce"');
    const inline = parse(response.text).querySelectorAll("script").filter((script) => !script.getAttribute("src"));
    expect(inline.length).toBeGreaterThanOrEqual(2);
    const hashes = inline.map((script) => `'sha256-${createHash("sha256").update(script.innerHTML, "utf8").digest("base64")}'`);
    expect(scriptSources(response.headers["content-security-policy"]).sort()).toEqual(["'self'", ...new Set(hashes)].sort());
    // Nothing else in the policy moved: no unsafe-inline for scripts, the same other directives.
    expect(String(response.headers["content-security-policy"])).not.toMatch(/script-src[^;]*unsafe/);
    expect(String(response.headers["content-security-policy"])).toContain("script-src-attr 'none'");
  });

  it("send the same bytes for every click id and source: brotli to a phone, gzip, or the text, each with its own ETag", async () => {
    await fixed("/terms-of-use?sid=s1&tid=first");
    const phone = "gzip, deflate, br";
    const one = await httpGet(`${served.origin}/terms-of-use?sid=s1&tid=click-1`, 10_000, { "accept-encoding": phone });
    const two = await httpGet(`${served.origin}/terms-of-use?sid=s1&tid=click-2`, 10_000, { "accept-encoding": phone });
    expect(one.headers["content-encoding"]).toBe("br");
    expect(one.headers.vary).toMatch(/Accept-Encoding/i);
    expect(Buffer.compare(one.body, two.body)).toBe(0);
    expect(one.headers["content-security-policy"]).toBe(two.headers["content-security-policy"]);
    expect(Number(one.headers["content-length"])).toBe(one.body.length);
    const gzip = await httpGet(`${served.origin}/terms-of-use?sid=s1&tid=click-3`, 10_000, { "accept-encoding": "gzip" });
    const text = await httpGet(`${served.origin}/terms-of-use?sid=s1&tid=click-4`, 10_000, { "accept-encoding": "identity" });
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(text.headers["content-encoding"]).toBeUndefined();
    const html = text.body.toString("utf8");
    expect(html).toContain("Terms of Use");
    expect(brotliDecompressSync(one.body).toString("utf8")).toBe(html);
    expect(gunzipSync(gzip.body).toString("utf8")).toBe(html);
    expect(one.body.length).toBeLessThan(gzip.body.length);
    expect(new Set([one.headers.etag, gzip.headers.etag, text.headers.etag]).size).toBe(3);
    for (const etag of [one.headers.etag, gzip.headers.etag, text.headers.etag]) expect(etag).toMatch(/^"[\w-]+"$/);
    // Each click is still an ad click: logged (and stored) as the page's campaign hit.
    const tids = served.t.events("campaign_hit").map((line) => (line.campaign as { tid?: string }).tid);
    expect(tids).toEqual(expect.arrayContaining(["click-1", "click-2", "click-3", "click-4"]));
  });

  it("answer a revalidation with a 304 and no body, and a changed or other encoding's ETag with the page", async () => {
    // Each address shape is kept on its own: this one (any tid) first.
    await fixed("/privacy-policy?tid=r0");
    const first = await request(served.t.app).get("/privacy-policy?tid=r1").set("Accept-Encoding", "br");
    const etag = String(first.headers.etag);
    const again = await request(served.t.app).get("/privacy-policy?tid=revalidate").set("Accept-Encoding", "br").set("If-None-Match", `"other", ${etag}`);
    expect(again.status).toBe(304);
    expect(again.text ?? "").toBe("");
    expect(again.headers.etag).toBe(etag);
    expect(again.headers.vary).toMatch(/Accept-Encoding/i);
    expect(again.headers["cache-control"]).toBe("no-cache");
    expect(again.headers["content-security-policy"]).toBe(first.headers["content-security-policy"]);
    expect(served.t.events("campaign_hit").some((line) => (line.campaign as { tid?: string }).tid === "revalidate")).toBe(true);
    // The brotli form's ETag does not stand for the gzip form, nor a stale one for the page.
    expect((await request(served.t.app).get("/privacy-policy").set("Accept-Encoding", "gzip").set("If-None-Match", etag)).status).toBe(200);
    expect((await request(served.t.app).get("/privacy-policy").set("Accept-Encoding", "br").set("If-None-Match", '"stale"')).status).toBe(200);
    // A browser asking for a fresh copy gets one.
    expect((await request(served.t.app).get("/privacy-policy").set("Accept-Encoding", "br").set("If-None-Match", etag).set("Cache-Control", "no-cache")).status).toBe(200);
  });

  it("answer HEAD with the headers of GET and no body", async () => {
    await fixed("/privacy-policy");
    const get = await httpGet(`${served.origin}/privacy-policy`, 10_000, { "accept-encoding": "br" });
    const head = await request(served.t.app).head("/privacy-policy").set("Accept-Encoding", "br");
    expect(head.status).toBe(200);
    expect(head.text ?? "").toBe("");
    for (const name of ["content-length", "content-encoding", "etag", "content-security-policy"]) expect(head.headers[name], name).toBe(get.headers[name]);
  });

  it("are only the pages whose text holds no id: the landing page, the quote page and a 404 keep a nonce per response", async () => {
    for (const path of ["/zipcode", "/zipcode?sid=s2&tid=t2", "/?zip=90210", "/no-such-page"]) {
      // Twice over: the second answer comes from the cache.
      for (let round = 0; round < 2; round += 1) {
        const response = await request(served.t.app).get(path);
        const nonce = /'nonce-([^']+)'/.exec(String(response.headers["content-security-policy"]))?.[1];
        expect(nonce, path).toBeDefined();
        expect(response.text, path).toContain(`nonce="${nonce}"`);
        expect(response.headers.etag, path).toBeUndefined();
      }
    }
  });
});
