/**
 * Rendered pages kept in memory, so React does not render the same page again and again — above
 * all for ad traffic, where every visitor's address differs only by its click id (issue 12).
 *
 * Pages are kept by their **shape**: the address with each valid campaign id (sid, tid, a carried
 * vid) replaced by a per-process random token. `/zipcode?sid=a1&tid=CLK1` and
 * `/zipcode?sid=a1&tid=CLK2` share one entry, rendered once from the shape's address, so the page
 * holds the tokens wherever the ids appear (hidden inputs, links, the frame's address, the router's
 * data). A response fills the tokens with its own values, its own CSP nonce and, when the address
 * had no visit id, a newly minted one: the bytes a render of its own address would give. That
 * holds because slot values are restricted to letters, digits and `- _ .`, which no HTML, URL or
 * JSON encoder changes; an id with `~` (valid, but percent-encoded in URLs) keeps its address as
 * its own key.
 *
 * Each entry is a SplicedPage: the fixed text is compressed once, so a response is a copy and a
 * CRC, not a render and a compression. Complete 200 and 404 renders without errors are kept,
 * for a bounded number of entries (LRU) and a short time.
 */
import { randomBytes } from "node:crypto";
import { LRUCache } from "lru-cache";
import { SplicedPage, type SlotName, type SlotValues } from "./spliced";
import { withoutNonce, type FixedPage, type FixedPages } from "./fixed";

/** Addresses longer than this are rendered every time (and cannot crowd the cache). */
const MAX_KEY_LENGTH = 512;
/** Campaign values that can stand in a slot: unchanged by every encoder a page applies. */
const SLOT_SAFE = /^[A-Za-z0-9_.-]{1,64}$/;
const CAMPAIGN_SLOTS = ["sid", "tid", "vid"] as const;

export interface PageCacheOptions {
  maxEntries: number;
  ttlMs: number;
  /** Where pages without campaign or visit ids get their nonce-free, precompressed form (decision 026). */
  fixed?: FixedPages | undefined;
}

/** An address reduced to its shape: the key, the address to render for it, and the ids it held. */
export interface Shape {
  /** The cache's key: the shape's address, and the variant it shows when an experiment changes the page. */
  key: string;
  /** The shape's own address, path and query (tokens in place of the ids): what a render for the cache uses. */
  address: string;
  /** The request's campaign ids that the tokens stand for. */
  values: Pick<SlotValues, "sid" | "tid" | "vid">;
  /** Whether the shape differs from the address (it held ids): then the page is rendered from `url`. */
  templated: boolean;
}

/** What differs between two responses of the same shape besides the campaign ids. */
export interface ResponseValues {
  nonce: string;
  /** The visit id minted for this response; absent when the address carried its own `vid`. */
  mintedVisitId?: string | undefined;
}

export interface CachedPage {
  status: 200 | 404;
  page: SplicedPage;
  /** The same page as one text for everyone, once compressed (a 200 page with no id in its text). */
  fixed?: FixedPage;
}

export class PageCache {
  readonly #entries: LRUCache<string, CachedPage> | undefined;
  /** One token per slot: letters and digits only (valid as a campaign id), unguessable. */
  readonly #tokens: Record<SlotName, string>;
  readonly #slotOf: Map<string, SlotName>;
  readonly #fixed: FixedPages | undefined;

  constructor({ maxEntries, ttlMs, fixed }: PageCacheOptions) {
    this.#entries = maxEntries > 0 && ttlMs > 0 ? new LRUCache({ max: maxEntries, ttl: ttlMs }) : undefined;
    this.#fixed = fixed;
    const secret = randomBytes(12).toString("hex");
    this.#tokens = { nonce: `zQ${secret}nonce`, visit: `zQ${secret}visit`, sid: `zQ${secret}sid`, tid: `zQ${secret}tid`, vid: `zQ${secret}vid` };
    this.#slotOf = new Map(Object.entries(this.#tokens).map(([slot, token]) => [token, slot as SlotName]));
  }

  /**
   * The shape of a request's address, or undefined when such an address is not cached. `variant`
   * (server/experiments/landing.ts) names the experiments' values the page shows: each
   * combination is an entry of its own, so a page kept for one variant never reaches a visitor
   * of another; "" or absent is the control, the page everyone gets without an experiment.
   */
  shapeOf(url: URL, variant?: string): Shape | undefined {
    if (!this.#entries) return undefined;
    const params = new URLSearchParams(url.search);
    const values: Shape["values"] = {};
    for (const slot of CAMPAIGN_SLOTS) {
      const all = params.getAll(slot);
      // Repeated or unsafe values stay as they are: the address itself is then the key.
      if (all.length !== 1 || !SLOT_SAFE.test(all[0]!)) continue;
      values[slot] = all[0]!;
      params.set(slot, this.#tokens[slot]);
    }
    const templated = Object.keys(values).length > 0;
    const search = templated ? `?${params.toString()}` : url.search;
    const address = `${url.pathname}${search}`;
    if (address.length > MAX_KEY_LENGTH) return undefined;
    // A line break never occurs in an address's path or query (the URL parser encodes it).
    return { key: variant ? `${address}\n${variant}` : address, address, values, templated };
  }

  get(key: string): CachedPage | undefined {
    return this.#entries?.get(key);
  }

  /** Whether a response with these values can fill the cached page (a visit slot needs a minted id). */
  static fills(entry: CachedPage, values: ResponseValues): boolean {
    return !entry.page.has("visit") || values.mintedVisitId !== undefined;
  }

  /** The slot values of one response: its campaign ids, nonce and minted visit id. */
  static slotValues(shape: Shape, values: ResponseValues): SlotValues {
    return { ...shape.values, nonce: values.nonce, ...(values.mintedVisitId ? { visit: values.mintedVisitId } : {}) };
  }

  /** Keeps `html`, rendered for `shape.url` with these values (their nonce and minted visit id become slots). */
  set(shape: Shape, html: string, status: 200 | 404, { nonce, mintedVisitId }: ResponseValues): void {
    if (!this.#entries) return;
    let kept = html.replaceAll(nonce, this.#tokens.nonce);
    if (mintedVisitId !== undefined) kept = kept.replaceAll(mintedVisitId, this.#tokens.visit);
    const entry: CachedPage = { status, page: new SplicedPage(kept, this.#slotOf) };
    this.#entries.set(shape.key, entry);
    // A page whose text holds no id is the same for everyone but for its nonce: it is served as
    // one text once compressed, and with the nonce until then. Not-found pages stay spliced:
    // each unknown address is a page of its own, and a scanner's would each cost a compression.
    if (!this.#fixed || status !== 200 || (["visit", "sid", "tid", "vid"] as const).some((slot) => entry.page.has(slot))) return;
    const text = withoutNonce(html, nonce);
    if (text) this.#fixed.prepare(text, (fixed) => (entry.fixed = fixed));
  }
}
