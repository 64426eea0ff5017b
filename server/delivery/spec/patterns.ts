/**
 * Regular expressions written by ops into answer rules, run on text a buyer's server sent: the
 * one place a spec is close to code. JavaScript's regex engine backtracks, so a pattern such as
 * (a+)+b can take exponential time on a crafted answer and stall every delivery of the process.
 * Three guards: the pattern is short (MAX_PATTERN_LENGTH), it passes safe-regex2's star-height
 * check (fastify's: no quantifier around a group that has one), and it only ever sees the first
 * MAX_MATCHED_TEXT characters of an answer. safe-regex2 also refuses some harmless patterns
 * ((\d+(\.\d+)?)); the message says how to write them.
 */
import safeRegex from "safe-regex2";

export const MAX_PATTERN_LENGTH = 200;
/** Answers are cut to 16 KB by the HTTP client; a pattern reads at most this much of one. */
export const MAX_MATCHED_TEXT = 4_096;

export type PatternCheck = { ok: true; regex: RegExp; groups: number } | { ok: false; message: string };

/** The pattern compiled, or why it is refused. Flags: only case-insensitivity; no global state. */
export function compilePattern(pattern: string, ignoreCase: boolean): PatternCheck {
  if (pattern.length > MAX_PATTERN_LENGTH) return { ok: false, message: `at most ${MAX_PATTERN_LENGTH} characters` };
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, ignoreCase ? "i" : "");
  } catch (error) {
    return { ok: false, message: `not a regular expression: ${(error as Error).message}` };
  }
  if (!safeRegex(regex)) {
    return {
      ok: false,
      message: "could take exponential time on some answers: avoid a quantifier around a group that has one, like (a+)+ or (\\d+(\\.\\d+)?); write [\\d.]+ instead",
    };
  }
  // An alternative that matches "" makes exec return every group: the count of capture groups.
  const groups = (new RegExp(`${pattern}|`).exec("")?.length ?? 1) - 1;
  return { ok: true, regex, groups };
}
