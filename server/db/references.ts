/**
 * Human-friendly record references ("PR-7K3M-Q9XD", "LD-4F8T-2NWC"): 40 random bits in
 * Crockford's base32 (no I, L, O, U), so they read aloud over the phone and type cleanly.
 */
import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

export function newReference(prefix: "PR" | "LD"): string {
  const chars = [...randomBytes(8)].map((byte) => ALPHABET[byte % 32]).join("");
  return `${prefix}-${chars.slice(0, 4)}-${chars.slice(4, 8)}`;
}
