/**
 * The hashed files under dist/client/assets are compressed once, at build time, at the strongest
 * settings: brotli at quality 11 (`x.js.br`) and gzip by Zopfli (`x.js.gz`, about 3% smaller than
 * `gzip -9`, still plain gzip to every browser). The server sends the variant the browser accepts
 * (express-static-gzip in server/pages/static.ts), so an asset costs no compression per request and
 * travels smaller than on-the-fly compression makes it (issue 12; docs/decisions/021).
 *
 * Files under 1 KB, and any whose compressed form is not smaller, are left as they are; each
 * gzip written is checked to inflate back to the original, so a faulty compressor fails the
 * build instead of shipping a broken asset.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants, gunzipSync } from "node:zlib";
import { gzipAsync } from "@gfx/zopfli";
import type { Plugin } from "vite";

const brotli = promisify(brotliCompress);

/** Text formats worth compressing (images and fonts are compressed formats already). */
export const PRECOMPRESSED_EXTENSIONS = /\.(?:js|mjs|css|svg|json|txt|map)$/;
export const PRECOMPRESS_MIN_BYTES = 1024;
/** Zopfli's passes: its authors' advice for files of this size; more gains bytes, not KBs. */
const ZOPFLI_ITERATIONS = 15;

export interface Precompressed {
  file: string;
  bytes: number;
  br?: number;
  gz?: number;
}

export async function compressVariants(body: Buffer): Promise<{ br: Buffer; gz: Buffer }> {
  const [br, gz] = await Promise.all([
    brotli(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    }),
    gzipAsync(body, { numiterations: ZOPFLI_ITERATIONS }).then((bytes) => Buffer.from(bytes)),
  ]);
  if (!gunzipSync(gz).equals(body)) throw new Error("Zopfli's gzip does not inflate to the original bytes");
  return { br, gz };
}

/** Writes `.br` and `.gz` beside every compressible file of at least the minimum size. */
export async function precompressFiles(dir: string, files: readonly string[]): Promise<Precompressed[]> {
  const eligible = files.filter((file) => PRECOMPRESSED_EXTENSIONS.test(file));
  return Promise.all(
    eligible.map(async (file): Promise<Precompressed> => {
      const fullPath = path.join(dir, file);
      const body = await readFile(fullPath);
      if (body.length < PRECOMPRESS_MIN_BYTES) return { file, bytes: body.length };
      const { br, gz } = await compressVariants(body);
      const result: Precompressed = { file, bytes: body.length };
      if (br.length < body.length) {
        await writeFile(`${fullPath}.br`, br);
        result.br = br.length;
      }
      if (gz.length < body.length) {
        await writeFile(`${fullPath}.gz`, gz);
        result.gz = gz.length;
      }
      return result;
    }),
  );
}

/** The browser build's hashed files (`assets/…`), once they are on disk. */
export function precompressAssets(): Plugin {
  return {
    name: "precompress-assets",
    apply: (_config, env) => env.command === "build" && !env.isSsrBuild,
    async writeBundle(options, bundle) {
      const dir = options.dir;
      if (!dir) this.error("precompress-assets needs an output directory");
      const files = Object.keys(bundle).filter((file) => file.startsWith("assets/"));
      const written = await precompressFiles(dir, files);
      const variants = written.filter((entry) => entry.br !== undefined || entry.gz !== undefined).length;
      this.info(`precompressed ${variants} of ${files.length} assets (brotli 11, Zopfli gzip)`);
    },
  };
}
