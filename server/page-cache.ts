/**
 * A short-lived cache of rendered pages, so the same address is not rendered by React again and
 * again (direct and organic visits to /zipcode, the legal pages, crawlers, reloads). Only
 * complete 200 renders without errors are kept, keyed by the full path and query, for a
 * bounded number of entries and a short time. Each response still gets its own nonce: the
 * cached HTML holds a per-process random placeholder where the nonce was, replaced on the way out.
 */
import { randomBytes } from "node:crypto";
import { LRUCache } from "lru-cache";

/** Addresses longer than this are rendered every time (and cannot crowd the cache). */
const MAX_KEY_LENGTH = 512;

export interface PageCacheOptions {
  maxEntries: number;
  ttlMs: number;
}

export class PageCache {
  readonly #entries: LRUCache<string, string> | undefined;
  /** Unguessable, and outside the characters any validated query value may contain. */
  readonly #placeholder = `@@nonce:${randomBytes(12).toString("hex")}@@`;

  constructor({ maxEntries, ttlMs }: PageCacheOptions) {
    this.#entries = maxEntries > 0 && ttlMs > 0 ? new LRUCache({ max: maxEntries, ttl: ttlMs }) : undefined;
  }

  /** The cache key for a request URL, or undefined when this URL is not cached. */
  keyFor(originalUrl: string): string | undefined {
    if (!this.#entries || originalUrl.length > MAX_KEY_LENGTH) return undefined;
    return originalUrl;
  }

  /** The cached page with this response's nonce in place. */
  get(key: string, nonce: string): string | undefined {
    return this.#entries?.get(key)?.replaceAll(this.#placeholder, nonce);
  }

  /** Stores a page rendered with `nonce`. */
  set(key: string, html: string, nonce: string): void {
    this.#entries?.set(key, html.replaceAll(nonce, this.#placeholder));
  }
}
