/**
 * VIN checks that need no data, shared by the form and the server (49 CFR 565): 17 characters
 * from the VIN alphabet (digits and letters except I, O and Q), the check digit in position 9,
 * and the model year coded in position 10.
 */

export const VIN_LENGTH = 17;
const VIN_ALPHABET = /^[A-HJ-NPR-Z0-9]{17}$/;

/** 49 CFR 565.15: each letter's value in the check-digit sum. */
const TRANSLITERATION: Readonly<Record<string, number>> = {
  A: 1, B: 2, C: 3, D: 4, E: 5, F: 6, G: 7, H: 8, J: 1, K: 2, L: 3, M: 4, N: 5, P: 7, R: 9,
  S: 2, T: 3, U: 4, V: 5, W: 6, X: 7, Y: 8, Z: 9,
};
/** The weight of each position; position 9 (the check digit itself) weighs 0. */
const WEIGHTS = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2];

/** Position-10 codes in order: one per model year of a 30-year cycle (no I, O, Q, U, Z or 0). */
const YEAR_CODES = "ABCDEFGHJKLMNPRSTVWXY123456789";

export type VinProblem = "malformed" | "check_digit" | "year";

export type VinCheck =
  | { ok: true; vin: string; year: number }
  | { ok: false; problem: VinProblem; message: string };

/** Upper case, without surrounding spaces: how people type a VIN is not part of it. */
export function normalizeVin(input: string): string {
  return input.trim().toUpperCase();
}

function valueOf(char: string): number {
  return TRANSLITERATION[char] ?? Number(char);
}

/** The check digit a VIN's other 16 characters call for: "0"–"9" or "X" (remainder 10). */
export function vinCheckDigit(vin: string): string {
  let sum = 0;
  for (let i = 0; i < VIN_LENGTH; i += 1) sum += valueOf(vin.charAt(i)) * (WEIGHTS[i] ?? 0);
  const remainder = sum % 11;
  return remainder === 10 ? "X" : String(remainder);
}

/**
 * The model year of position 10. The letters and digits repeat every 30 years; 49 CFR 565.15
 * tells the cycles apart for cars, MPVs and light trucks by position 7: a digit there means
 * 1980–2009, a letter 2010–2039.
 */
export function vinModelYear(vin: string): number | undefined {
  const index = YEAR_CODES.indexOf(vin.charAt(9));
  if (index < 0) return undefined;
  const firstCycle = /[0-9]/.test(vin.charAt(6));
  return (firstCycle ? 1980 : 2010) + index;
}

export function checkVin(input: string): VinCheck {
  const vin = normalizeVin(input);
  if (vin.length !== VIN_LENGTH) return { ok: false, problem: "malformed", message: `A VIN has exactly 17 characters; this one has ${vin.length}.` };
  if (!VIN_ALPHABET.test(vin)) return { ok: false, problem: "malformed", message: "A VIN has only digits and the letters A–Z except I, O and Q." };
  const expected = vinCheckDigit(vin);
  if (vin.charAt(8) !== expected) return { ok: false, problem: "check_digit", message: "This VIN's check digit (the 9th character) does not match: please check it for a typo." };
  const year = vinModelYear(vin);
  if (year === undefined) return { ok: false, problem: "year", message: "The 10th character of this VIN is not a model-year code." };
  return { ok: true, vin, year };
}
