/**
 * Pages that are the same bytes for every visitor (decision 026): the legal pages, and any other
 * page whose rendered text holds no campaign id and no visit id. Their only per-response value
 * was the CSP nonce. Such a page is kept without it: its inline scripts are allowed by their
 * SHA-256 hashes in its own Content-Security-Policy, so one text serves every request. That text
 * is compressed once, in the background (brotli at quality 11 and gzip at level 9, on libuv's
 * thread pool, never on the event loop), and sent with a strong ETag per encoding: a browser or a
 * CDN in front of the balancer revalidates it with a 304 instead of downloading it again.
 *
 * Pages of one text share one entry (an ad campaign's sids make many addresses of the privacy
 * policy, all the same page), so each text is compressed once per process, not once per address.
 */
import { createHash } from "node:crypto";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import { LRUCache } from "lru-cache";

export type Coding = "br" | "gzip" | "identity";

export interface FixedPage {
  /** The Content-Security-Policy that allows exactly this page's inline scripts. */
  csp: string;
  body: Record<Coding, Buffer>;
  /** Strong validators, one per encoding (each encoding is its own representation). */
  etag: Record<Coding, string>;
}

/** A page's text without its nonce, and the hashes ('sha256-…' sources) of its inline scripts. */
export interface NonceFreeText {
  html: string;
  scriptSources: string[];
}

const INLINE_SCRIPT = /<script\b([^>]*)>([\s\S]*?)<\/script>/g;

/**
 * `html` without the nonce, and the CSP sources for its inline scripts; undefined when the nonce
 * is used anywhere but a tag's `nonce` attribute (the page would then change without it).
 */
export function withoutNonce(html: string, nonce: string): NonceFreeText | undefined {
  // (Vite's <meta property="csp-nonce"> is not in our pages: build/without-csp-nonce-meta.ts.)
  const text = html.replaceAll(` nonce="${nonce}"`, "");
  if (text.includes(nonce)) return undefined;
  const sources = new Set<string>();
  for (const [, attributes, body] of text.matchAll(INLINE_SCRIPT)) {
    // A script with a source is allowed by 'self'; only inline text needs its hash.
    if (/\ssrc\s*=/.test(attributes!)) continue;
    sources.add(`'sha256-${createHash("sha256").update(body!, "utf8").digest("base64")}'`);
  }
  return { html: text, scriptSources: [...sources] };
}

const brotli = promisify(brotliCompress);

/** The smallest brotli window (2^bits − 16 bytes) that holds `length` bytes, within brotli's 10–24. */
export function windowBits(length: number): number {
  let bits = constants.BROTLI_MIN_WINDOW_BITS;
  while (bits < constants.BROTLI_MAX_WINDOW_BITS && 2 ** bits - 16 < length) bits += 1;
  return bits;
}
const gzipAsync = promisify(gzip);

/** Distinct page texts kept compressed: the site has a handful of such pages. */
const MAX_TEXTS = 64;

export interface FixedPagesOptions {
  /** The CSP with these script sources in place of the nonce (server/security.ts). */
  policyFor: (scriptSources: readonly string[]) => string;
  /** A compression that failed: the page goes on being served with a nonce. */
  onError: (error: unknown) => void;
}

export class FixedPages {
  readonly #done = new LRUCache<string, FixedPage>({ max: MAX_TEXTS });
  readonly #pending = new Map<string, Promise<FixedPage>>();
  readonly #options: FixedPagesOptions;

  constructor(options: FixedPagesOptions) {
    this.#options = options;
  }

  /**
   * The fixed page for `text`: given to `ready` at once when this text was compressed before,
   * else once its compression (started now, or already running) finishes.
   */
  prepare(text: NonceFreeText, ready: (page: FixedPage) => void): void {
    const key = createHash("sha256").update(text.html, "utf8").digest("base64url");
    const done = this.#done.get(key);
    if (done) {
      ready(done);
      return;
    }
    let pending = this.#pending.get(key);
    if (!pending) {
      pending = this.#compress(key, text).finally(() => this.#pending.delete(key));
      this.#pending.set(key, pending);
    }
    pending.then(ready, this.#options.onError);
  }

  async #compress(key: string, text: NonceFreeText): Promise<FixedPage> {
    const identity = Buffer.from(text.html, "utf8");
    const [br, gz] = await Promise.all([
      brotli(identity, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_SIZE_HINT]: identity.length,
          // A window just large enough for the page: the encoder's tables at quality 11 grow with
          // the window, and the default (4 MB) made a replica's RSS jump by tens of MB for one page.
          [constants.BROTLI_PARAM_LGWIN]: windowBits(identity.length),
        },
      }),
      gzipAsync(identity, { level: constants.Z_BEST_COMPRESSION }),
    ]);
    const tag = key.slice(0, 27);
    const page: FixedPage = {
      csp: this.#options.policyFor(text.scriptSources),
      body: { br, gzip: gz, identity },
      etag: { br: `"${tag}-br"`, gzip: `"${tag}-gz"`, identity: `"${tag}"` },
    };
    this.#done.set(key, page);
    return page;
  }
}
