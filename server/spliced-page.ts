/**
 * A page kept as fixed text with a few slots (the nonce, the visit id, the campaign ids), ready to
 * be sent as it is or gzip-compressed without compressing it again for each response.
 *
 * How the gzip form stays valid (RFC 1951 §3.2.4, RFC 1952): each fixed segment is compressed once,
 * alone, ending with a sync flush, so it is a run of non-final deflate blocks that ends on a byte
 * boundary and refers to nothing before it. A slot's value goes in as a stored (uncompressed)
 * block, which needs only a 5-byte header at a byte boundary. Joined in order, with an empty final
 * block, they are one deflate stream; the gzip header, the CRC-32 of the whole text (zlib.crc32,
 * over the parts in order) and its length frame it. A response costs a CRC over the text and a
 * copy, not a compression.
 */
import { constants, crc32, deflateRawSync } from "node:zlib";

/** The slots a page may hold. */
export type SlotName = "nonce" | "visit" | "sid" | "tid" | "vid";
export type SlotValues = Partial<Record<SlotName, string>>;

/** gzip's fixed header: deflate, no name or time, "unknown" OS (RFC 1952 §2.3). */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff]);
/** An empty, final stored block: ends the deflate stream. */
const FINAL_BLOCK = Buffer.from([0x01, 0x00, 0x00, 0xff, 0xff]);
/** A stored block holds at most 65,535 bytes; slot values are at most 64 characters. */
const MAX_STORED = 0xffff;

/** A stored (uncompressed) deflate block holding `data`, not final. */
function storedBlock(data: Buffer): Buffer {
  if (data.length > MAX_STORED) throw new RangeError("a slot value longer than a stored block");
  const header = Buffer.alloc(5);
  header[0] = 0x00; // BFINAL 0, BTYPE 00, padded to the byte
  header.writeUInt16LE(data.length, 1);
  header.writeUInt16LE(~data.length & 0xffff, 3);
  return Buffer.concat([header, data]);
}

export class SplicedPage {
  /** The fixed text between slots, as bytes: one more than the slots. */
  readonly #segments: Buffer[];
  /** Each segment compressed alone, sync-flushed. */
  readonly #deflated: Buffer[];
  readonly #slots: SlotName[];

  /**
   * `html` with each of `tokens`' strings marking where that slot's value goes. Tokens must be
   * unguessable strings no page could contain by chance.
   */
  constructor(html: string, tokens: ReadonlyMap<string, SlotName>) {
    const pattern = new RegExp([...tokens.keys()].map((token) => token.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "g");
    this.#segments = [];
    this.#slots = [];
    let last = 0;
    for (const match of tokens.size > 0 ? html.matchAll(pattern) : []) {
      this.#segments.push(Buffer.from(html.slice(last, match.index), "utf8"));
      this.#slots.push(tokens.get(match[0])!);
      last = match.index + match[0].length;
    }
    this.#segments.push(Buffer.from(html.slice(last), "utf8"));
    this.#deflated = this.#segments.map((segment) => deflateRawSync(segment, { level: constants.Z_BEST_COMPRESSION, finishFlush: constants.Z_SYNC_FLUSH }));
  }

  /** Which slots the page has (a page without a visit slot needs no visit id). */
  has(slot: SlotName): boolean {
    return this.#slots.includes(slot);
  }

  #values(values: SlotValues): Buffer[] {
    return this.#slots.map((slot) => {
      const value = values[slot];
      if (value === undefined) throw new Error(`no value for the page's ${slot} slot`);
      return Buffer.from(value, "utf8");
    });
  }

  /** The page with `values` in its slots. */
  text(values: SlotValues): Buffer {
    const filled = this.#values(values);
    const parts: Buffer[] = [];
    this.#segments.forEach((segment, index) => {
      parts.push(segment);
      const value = filled[index];
      if (value) parts.push(value);
    });
    return Buffer.concat(parts);
  }

  /** The same page, gzip-compressed. */
  gzip(values: SlotValues): Buffer {
    const filled = this.#values(values);
    const parts: Buffer[] = [GZIP_HEADER];
    let crc = 0;
    let size = 0;
    this.#segments.forEach((segment, index) => {
      parts.push(this.#deflated[index]!);
      // Node 20's zlib.crc32 can answer 0 for an empty buffer after a non-zero start (seen here):
      // an empty segment adds nothing to the checksum, so it is skipped.
      if (segment.length > 0) crc = crc32(segment, crc);
      size += segment.length;
      const value = filled[index];
      if (value) {
        parts.push(storedBlock(value));
        crc = crc32(value, crc);
        size += value.length;
      }
    });
    const trailer = Buffer.alloc(8);
    trailer.writeUInt32LE(crc >>> 0, 0);
    trailer.writeUInt32LE(size % 2 ** 32, 4);
    parts.push(FINAL_BLOCK, trailer);
    return Buffer.concat(parts);
  }
}
