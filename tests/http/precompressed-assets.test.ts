/**
 * Hashed files are sent in the form the build compressed them to (build/precompress.ts, served by
 * server/pages/static.ts): brotli to a browser that accepts it, Zopfli's gzip to one that accepts only
 * gzip, the file itself to one that accepts neither. The bytes on the wire are checked against
 * the files on disk, so on-the-fly compression could not pass for the build's.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { brotliDecompressSync, gunzipSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { servedTestApp } from "../support/app";
import { projectRoot } from "../../tools/production-server";
import { measureJsWeight, scanHtml } from "../../tools/js-weight";
import { PRECOMPRESS_MIN_BYTES } from "../../build/precompress";

const served = servedTestApp();

const assetsDir = path.join(projectRoot, "dist", "client", "assets");

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** The exact bytes the server sends (no client-side decoding). */
function raw(urlPath: string, headers: Record<string, string> = {}, method = "GET"): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${served.origin}${urlPath}`, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

async function landingEntry(): Promise<string> {
  const page = await raw("/zipcode");
  const [entry] = scanHtml(page.body.toString("utf8")).scripts;
  if (!entry) throw new Error("the landing page names no entry script");
  return entry;
}

const onDisk = (urlPath: string, suffix = "") => readFileSync(path.join(assetsDir, path.basename(urlPath) + suffix));

describe("precompressed hashed files", () => {
  it("the build wrote brotli and gzip forms of every compressible file of 1 KB or more, and no others", () => {
    const files = readdirSync(assetsDir);
    const originals = files.filter((name) => !/\.(br|gz)$/.test(name));
    for (const name of originals) {
      const size = readFileSync(path.join(assetsDir, name)).length;
      const compressible = /\.(js|css|svg|json)$/.test(name) && size >= PRECOMPRESS_MIN_BYTES;
      expect(existsSync(path.join(assetsDir, `${name}.br`)), name).toBe(compressible);
      expect(existsSync(path.join(assetsDir, `${name}.gz`)), name).toBe(compressible);
      if (compressible) {
        expect(brotliDecompressSync(readFileSync(path.join(assetsDir, `${name}.br`))).equals(readFileSync(path.join(assetsDir, name))), name).toBe(true);
        expect(gunzipSync(readFileSync(path.join(assetsDir, `${name}.gz`))).equals(readFileSync(path.join(assetsDir, name))), name).toBe(true);
      }
    }
    expect(originals.filter((name) => existsSync(path.join(assetsDir, `${name}.br`))).length).toBeGreaterThan(5);
  });

  it("sends a phone (gzip, deflate, br) the brotli file as it is, with the JavaScript type, a year's cache and Vary", async () => {
    const entry = await landingEntry();
    const response = await raw(entry, { "Accept-Encoding": "gzip, deflate, br" });
    expect(response.status).toBe(200);
    expect(response.headers["content-encoding"]).toBe("br");
    expect(response.headers.vary).toMatch(/Accept-Encoding/i);
    expect(response.headers["content-type"]).toMatch(/^text\/javascript; charset=utf-8$/i);
    expect(response.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(response.body.equals(onDisk(entry, ".br"))).toBe(true);
    expect(brotliDecompressSync(response.body).equals(onDisk(entry))).toBe(true);
  });

  it("sends a gzip-only browser the Zopfli gzip file, smaller than gzip -9 of the same bytes", async () => {
    const entry = await landingEntry();
    const response = await raw(entry, { "Accept-Encoding": "gzip" });
    expect(response.headers["content-encoding"]).toBe("gzip");
    expect(response.body.equals(onDisk(entry, ".gz"))).toBe(true);
    expect(gunzipSync(response.body).equals(onDisk(entry))).toBe(true);
    expect(response.body.length).toBeLessThan(gzipSync(onDisk(entry), { level: 9 }).length);
  });

  it("sends the file itself to a client that accepts no encoding, and HEAD the same headers without a body", async () => {
    const entry = await landingEntry();
    const plain = await raw(entry);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body.equals(onDisk(entry))).toBe(true);
    const head = await raw(entry, { "Accept-Encoding": "br" }, "HEAD");
    expect(head.status).toBe(200);
    expect(head.headers["content-encoding"]).toBe("br");
    expect(Number(head.headers["content-length"])).toBe(onDisk(entry, ".br").length);
    expect(head.body.length).toBe(0);
  });

  it("answers a browser revalidating its copy with 304, per encoding", async () => {
    const entry = await landingEntry();
    const first = await raw(entry, { "Accept-Encoding": "br" });
    const etag = String(first.headers.etag);
    const again = await raw(entry, { "Accept-Encoding": "br", "If-None-Match": etag });
    expect(again.status).toBe(304);
    const gzip = await raw(entry, { "Accept-Encoding": "gzip" });
    expect(gzip.headers.etag).not.toBe(etag);
  });

  it("sends a file under 1 KB as it is (compressing it would save less than the headers cost)", async () => {
    const small = readdirSync(assetsDir).find((name) => /\.js$/.test(name) && !existsSync(path.join(assetsDir, `${name}.br`)));
    expect(small, "a JavaScript file under 1 KB").toBeDefined();
    const response = await raw(`/assets/${small!}`, { "Accept-Encoding": "gzip, br" });
    expect(response.status).toBe(200);
    expect(response.headers["content-encoding"]).toBeUndefined();
    expect(response.body.equals(readFileSync(path.join(assetsDir, small!)))).toBe(true);
  });

  it("answers a missing file with 404 and an address it cannot decode with 400, never a 500", async () => {
    expect((await raw("/assets/index-missing.js", { "Accept-Encoding": "br" })).status).toBe(404);
    expect((await raw("/assets/%E0%A4%A.js", { "Accept-Encoding": "br" })).status).toBe(400);
  });
});

describe("the weight the benchmark reports (tools/js-weight.ts)", () => {
  it("counts the landing page's JavaScript as sent: the build's gzip files, and its brotli files for a phone", async () => {
    const page = await raw("/zipcode");
    const weight = await measureJsWeight(served.origin, "/zipcode", page.body.toString("utf8"));
    expect(weight.atLoad.files.length).toBeGreaterThan(0);
    const stored = (file: { path: string }, suffix: string) => existsSync(path.join(assetsDir, path.basename(file.path) + suffix));
    // A file the build did not compress (under 1 KB) is sent as it is; its gzip weight is then zlib's level 9.
    const gzipSent = weight.atLoad.files.reduce((total, file) => total + (stored(file, ".gz") ? onDisk(file.path, ".gz").length : file.gzip9Bytes), 0);
    const phoneSent = weight.atLoad.files.reduce((total, file) => total + onDisk(file.path, stored(file, ".br") ? ".br" : "").length, 0);
    expect(weight.atLoad.files.some((file) => stored(file, ".gz"))).toBe(true);
    expect(weight.atLoad.gzipBytes).toBe(gzipSent);
    expect(weight.atLoad.phoneBytes).toBe(phoneSent);
    expect(weight.atLoad.gzipBytes).toBeLessThan(weight.atLoad.gzip9Bytes);
    // Issue 12's budget for the landing page's JavaScript at load.
    expect(weight.atLoad.gzipBytes).toBeLessThanOrEqual(100 * 1024);
  });
});
