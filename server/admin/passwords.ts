/**
 * Console passwords: kept only as scrypt hashes (RFC 7914) in the self-describing form
 * `scrypt$N$r$p$salt$hash` (salt and hash base64), so the cost can be raised later without
 * breaking the hashes already stored. The work runs on libuv's thread pool (async scrypt), so a
 * sign-in never blocks the event loop that serves other requests.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";

/** OWASP Password Storage Cheat Sheet: N=2^15 (or more), r=8, p=1. About 32 MiB and ~100 ms per hash. */
export const SCRYPT_COST = { N: 2 ** 15, r: 8, p: 1 } as const;
const SALT_BYTES = 16;
const KEY_BYTES = 64;
/** Shorter passwords are refused when a user is created or a password is set. */
export const PASSWORD_MIN_LENGTH = 12;
/** Longer ones are refused too: hashing a megabyte per attempt is a cheap way to load the server. */
export const PASSWORD_MAX_LENGTH = 256;

type Cost = { N: number; r: number; p: number };

function derive(password: string, salt: Buffer, cost: Cost): Promise<Buffer> {
  // Node's default maxmem (32 MiB) is exactly 128·N·r for N=2^15, r=8, which it refuses: allow twice that.
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize("NFC"), salt, KEY_BYTES, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export async function hashPassword(password: string, cost: Cost = SCRYPT_COST): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, cost);
  return `scrypt$${cost.N}$${cost.r}$${cost.p}$${salt.toString("base64")}$${key.toString("base64")}`;
}

interface ParsedHash extends Cost {
  salt: Buffer;
  key: Buffer;
}

function parseHash(stored: string): ParsedHash | undefined {
  const match = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/.exec(stored);
  if (!match) return undefined;
  const [N, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  // Bounds keep a corrupted row from asking for gigabytes of memory.
  if (N < 2 ** 10 || N > 2 ** 20 || (N & (N - 1)) !== 0 || r < 1 || r > 32 || p < 1 || p > 16) return undefined;
  return { N, r, p, salt: Buffer.from(match[4]!, "base64"), key: Buffer.from(match[5]!, "base64") };
}

/** A hash of a random password, for unknown names: the same work as a real check (no timing oracle). */
let decoy: Promise<string> | undefined;

/**
 * Whether `password` matches `stored`. Without a stored hash (an unknown user) the same scrypt
 * work is still done against a decoy, and the answer is false: the time taken says nothing about
 * whether the name exists.
 */
export async function verifyPassword(password: string, stored: string | undefined): Promise<boolean> {
  const parsed = stored === undefined ? undefined : parseHash(stored);
  if (!parsed) {
    decoy ??= hashPassword(randomBytes(18).toString("base64"));
    const fake = parseHash(await decoy)!;
    await derive(password, fake.salt, fake);
    return false;
  }
  const key = await derive(password, parsed.salt, parsed);
  return key.length === parsed.key.length && timingSafeEqual(key, parsed.key);
}

/** Why a new password is refused, or undefined when it is acceptable. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < PASSWORD_MIN_LENGTH) return `The password must be at least ${PASSWORD_MIN_LENGTH} characters.`;
  if (password.length > PASSWORD_MAX_LENGTH) return `The password must be at most ${PASSWORD_MAX_LENGTH} characters.`;
  return undefined;
}
