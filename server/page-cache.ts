/**
 * A short-lived cache of rendered pages, so the same address is not rendered by React again and
 * again (direct and organic visits to /zipcode, the legal pages, crawlers, reloads). Only
 * complete 200 renders without errors are kept, keyed by the full path and query, for a
 * bounded number of entries and a short time. Each response still gets its own values: the
 * cached HTML holds per-process random placeholders where the nonce and a minted visit id were,
 * replaced on the way out, so no visitor ever gets another's nonce or visit id.
 */
import { randomBytes } from "node:crypto";
import { LRUCache } from "lru-cache";

/** Addresses longer than this are rendered every time (and cannot crowd the cache). */
const MAX_KEY_LENGTH = 512;

export interface PageCacheOptions {
  maxEntries: number;
  ttlMs: number;
}

/** What differs between two responses for the same address. */
export interface ResponseValues {
  nonce: string;
  /**
   * The visit id minted for this response (a random UUID). Absent when the address carried its
   * own `vid`: that value is then part of the key, the same for everyone who asks for it.
   */
  mintedVisitId?: string | undefined;
}

interface Entry {
  html: string;
  /** Whether the HTML holds the visit placeholder (only a response given a minted visit id can fill it). */
  hasVisit: boolean;
}

export class PageCache {
  readonly #entries: LRUCache<string, Entry> | undefined;
  /** Unguessable, and outside the characters any validated query value may contain. */
  readonly #noncePlaceholder: string;
  readonly #visitPlaceholder: string;
  /** Both placeholders, so a hit is filled in one pass over the page. */
  readonly #placeholders: RegExp;

  constructor({ maxEntries, ttlMs }: PageCacheOptions) {
    this.#entries = maxEntries > 0 && ttlMs > 0 ? new LRUCache({ max: maxEntries, ttl: ttlMs }) : undefined;
    const secret = randomBytes(12).toString("hex");
    this.#noncePlaceholder = `@@nonce:${secret}@@`;
    this.#visitPlaceholder = `@@visit:${secret}@@`;
    this.#placeholders = new RegExp(`${this.#noncePlaceholder}|${this.#visitPlaceholder}`, "g");
  }

  /** The cache key for a request URL, or undefined when this URL is not cached. */
  keyFor(originalUrl: string): string | undefined {
    if (!this.#entries || originalUrl.length > MAX_KEY_LENGTH) return undefined;
    return originalUrl;
  }

  /** The cached page with this response's values in place; undefined on a miss. */
  get(key: string, { nonce, mintedVisitId }: ResponseValues): string | undefined {
    const entry = this.#entries?.get(key);
    if (!entry) return undefined;
    // Never reached for one address (its vid decides whether one is minted); a miss rather than a broken page.
    if (entry.hasVisit && mintedVisitId === undefined) return undefined;
    return entry.html.replace(this.#placeholders, (placeholder) => (placeholder === this.#noncePlaceholder ? nonce : mintedVisitId!));
  }

  /** Stores a page rendered with these values. */
  set(key: string, html: string, { nonce, mintedVisitId }: ResponseValues): void {
    if (!this.#entries) return;
    let kept = html.replaceAll(nonce, this.#noncePlaceholder);
    const hasVisit = mintedVisitId !== undefined && kept.includes(mintedVisitId);
    if (hasVisit) kept = kept.replaceAll(mintedVisitId, this.#visitPlaceholder);
    this.#entries.set(key, { html: kept, hasVisit });
  }
}
