/**
 * fast-check generators for US phone numbers as people type them, shared by the property tests of
 * the phone rule (shared/contact.ts) and of the forms that use it (privacy requests, quote requests).
 */
import fc from "fast-check";

export const digit = fc.integer({ min: 0, max: 9 }).map(String);
/** NANP: an area code and an exchange start with 2–9. */
export const leading = fc.integer({ min: 2, max: 9 }).map(String);
export const badLeading = fc.constantFrom("0", "1");
export const threeDigits = (first: fc.Arbitrary<string>) => fc.tuple(first, digit, digit).map((parts) => parts.join(""));
export const lineNumber = fc.tuple(digit, digit, digit, digit).map((parts) => parts.join(""));

/** The common ways of typing a US number, with or without the country code. */
export const PHONE_STYLES: ((area: string, exchange: string, line: string) => string)[] = [
  (a, e, l) => `${a}${e}${l}`,
  (a, e, l) => `${a}-${e}-${l}`,
  (a, e, l) => `${a}.${e}.${l}`,
  (a, e, l) => `${a} ${e} ${l}`,
  (a, e, l) => `(${a}) ${e}-${l}`,
  (a, e, l) => `(${a})${e}-${l}`,
  (a, e, l) => `(${a}) ${e} ${l}`,
  (a, e, l) => `1${a}${e}${l}`,
  (a, e, l) => `1-${a}-${e}-${l}`,
  (a, e, l) => `1 (${a}) ${e}-${l}`,
  (a, e, l) => `+1${a}${e}${l}`,
  (a, e, l) => `+1 ${a} ${e} ${l}`,
  (a, e, l) => `+1-${a}-${e}-${l}`,
  (a, e, l) => `+1 (${a}) ${e}-${l}`,
  (a, e, l) => `+1.${a}.${e}.${l}`,
];
export const phoneStyle = fc.constantFrom(...PHONE_STYLES);
