/**
 * A page kept as fixed text with a few slots (the nonce, the visit id, the campaign ids), ready to
 * be sent as it is or gzip-compressed without compressing it again for each response.
 *
 * How the gzip form stays valid (RFC 1951 §3.2.4, RFC 1952): each fixed segment is compressed once,
 * alone, ending with a sync flush, so it is a run of non-final deflate blocks that ends on a byte
 * boundary and refers to nothing before it. A slot's value goes in as a stored (uncompressed)
 * block, which needs only a 5-byte header at a byte boundary. Joined in order, with an empty final
 * block, they are one deflate stream; the gzip header, the CRC-32 of the whole text and its
 * length frame it. The CRC-32 of each fixed segment is computed once too: a response's CRC is the
 * slot values' CRCs joined to the segments' with zlib's crc32_combine arithmetic (a multiplication
 * in GF(2) per segment), so a response reads none of the page's bytes. It is sent as the list of
 * its parts (the kept buffers and a few small new ones), written with one writev: nothing the size
 * of the page is allocated per response, which kept the garbage collector busy (issue 12).
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

/** CRC-32's polynomial, reflected (as zlib and gzip use it). */
const CRC_POLY = 0xedb88320;

/** a(x)·b(x) modulo the CRC polynomial, reflected bit order (zlib's multmodp). */
function multModP(a: number, b: number): number {
  let m = 0x80000000;
  let product = 0;
  for (;;) {
    if (a & m) {
      product ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = b & 1 ? (b >>> 1) ^ CRC_POLY : b >>> 1;
  }
  return product >>> 0;
}

/** x^(2^k) modulo the polynomial, k = 0…31 (zlib's x2n_table). */
const X2N: number[] = (() => {
  const table: number[] = [];
  let p = 0x40000000; // x^1
  for (let k = 0; k < 32; k += 1) {
    table.push(p);
    p = multModP(p, p);
  }
  return table;
})();

/** The operator that appends `bytes` zero bytes to a CRC: x^(8·bytes) modulo the polynomial. */
export function crc32Shift(bytes: number): number {
  let p = 0x80000000; // x^0
  let k = 3; // 8 = 2^3 bits per byte
  for (let n = bytes; n > 0; n = Math.floor(n / 2), k += 1) if (n % 2 === 1) p = multModP(X2N[k % 32]!, p);
  return p;
}

/** CRC-32 of A followed by B, from crc(A), crc(B) and crc32Shift(B's length) (zlib's crc32_combine_op). */
export function crc32Combine(crcA: number, crcB: number, shiftB: number): number {
  return (multModP(shiftB, crcA) ^ crcB) >>> 0;
}

/** A page's bytes for one response, as the buffers to write in order, and their total length. */
export interface PageParts {
  parts: Buffer[];
  length: number;
}

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
  /** Each segment's CRC-32, and the operator that shifts a CRC past it. */
  readonly #crcs: number[];
  readonly #shifts: number[];
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
    // Node 20's zlib.crc32 can answer 0 for an empty buffer after a non-zero start (seen here), so
    // each segment's CRC starts from 0 and an empty one is 0 (its shift is the identity).
    this.#crcs = this.#segments.map((segment) => (segment.length > 0 ? crc32(segment) : 0));
    this.#shifts = this.#segments.map((segment) => crc32Shift(segment.length));
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

  /** The page with `values` in its slots, as parts. */
  textParts(values: SlotValues): PageParts {
    const filled = this.#values(values);
    const parts: Buffer[] = [];
    let length = 0;
    this.#segments.forEach((segment, index) => {
      parts.push(segment);
      length += segment.length;
      const value = filled[index];
      if (value) {
        parts.push(value);
        length += value.length;
      }
    });
    return { parts, length };
  }

  /** The same page, gzip-compressed, as parts. */
  gzipParts(values: SlotValues): PageParts {
    const filled = this.#values(values);
    const parts: Buffer[] = [GZIP_HEADER];
    let length = GZIP_HEADER.length;
    let crc = 0;
    let size = 0;
    this.#segments.forEach((segment, index) => {
      const deflated = this.#deflated[index]!;
      parts.push(deflated);
      length += deflated.length;
      crc = crc32Combine(crc, this.#crcs[index]!, this.#shifts[index]!);
      size += segment.length;
      const value = filled[index];
      if (value) {
        const block = storedBlock(value);
        parts.push(block);
        length += block.length;
        crc = crc32(value, crc);
        size += value.length;
      }
    });
    const trailer = Buffer.alloc(8);
    trailer.writeUInt32LE(crc >>> 0, 0);
    trailer.writeUInt32LE(size % 2 ** 32, 4);
    parts.push(FINAL_BLOCK, trailer);
    return { parts, length: length + FINAL_BLOCK.length + trailer.length };
  }

  /** The page with `values` in its slots, in one buffer. */
  text(values: SlotValues): Buffer {
    const { parts, length } = this.textParts(values);
    return Buffer.concat(parts, length);
  }

  /** The same page, gzip-compressed, in one buffer. */
  gzip(values: SlotValues): Buffer {
    const { parts, length } = this.gzipParts(values);
    return Buffer.concat(parts, length);
  }
}
