/** build/precompress.ts: which files get brotli and gzip forms, and that the forms are the file. */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { brotliDecompressSync, gunzipSync, gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { PRECOMPRESS_MIN_BYTES, compressVariants, precompressFiles } from "../../build/precompress";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function files(entries: Record<string, Buffer | string>): string {
  dir = mkdtempSync(path.join(tmpdir(), "precompress-"));
  for (const [name, body] of Object.entries(entries)) writeFileSync(path.join(dir, name), body);
  return dir;
}

const script = "export function greet(name) { return `Hello, ${name}!`; }\n".repeat(80);

describe("precompressFiles", () => {
  it("writes .br and .gz beside compressible files of 1 KB or more, each inflating to the file", async () => {
    const root = files({ "app.js": script, "style.css": script.replaceAll("greet", "rule") });
    const written = await precompressFiles(root, ["app.js", "style.css"]);
    expect(written.map((entry) => entry.file)).toEqual(["app.js", "style.css"]);
    for (const name of ["app.js", "style.css"]) {
      const original = readFileSync(path.join(root, name));
      expect(brotliDecompressSync(readFileSync(path.join(root, `${name}.br`))).equals(original)).toBe(true);
      expect(gunzipSync(readFileSync(path.join(root, `${name}.gz`))).equals(original)).toBe(true);
    }
  });

  it("leaves small files, non-text files and files that do not shrink alone", async () => {
    const root = files({ "tiny.js": "x".repeat(PRECOMPRESS_MIN_BYTES - 1), "photo.png": script, "noise.js": randomBytes(4096) });
    const written = await precompressFiles(root, ["tiny.js", "photo.png", "noise.js"]);
    expect(written.map((entry) => entry.file)).toEqual(["tiny.js", "noise.js"]);
    for (const name of ["tiny.js", "photo.png", "noise.js"]) {
      expect(existsSync(path.join(root, `${name}.br`)), name).toBe(false);
      expect(existsSync(path.join(root, `${name}.gz`)), name).toBe(false);
    }
  });
});

describe("compressVariants", () => {
  it("makes a gzip smaller than zlib's best for the same text", async () => {
    const body = Buffer.from(script + readFileSync(new URL(import.meta.url), "utf8"));
    const { br, gz } = await compressVariants(body);
    expect(gz.length).toBeLessThan(gzipSync(body, { level: 9 }).length);
    expect(br.length).toBeLessThan(gz.length);
  });
});
