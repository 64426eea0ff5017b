/**
 * vPIC's pattern Keys, matched against a VIN. A key is read against positions 4–8, then "|",
 * then positions 10–17 (position 9, the check digit, never takes part), from the start and only
 * as far as the key goes: "*" is any character, "[AB]" and "[A-C]" a set, anything else itself.
 */

const KEY_SHAPE = /^(?:[A-Z0-9*|]|\[[A-Z0-9-]+\])+$/;
const compiled = new Map<string, RegExp | null>();

/** The text keys are read against. */
export function patternTarget(vin: string): string {
  return `${vin.slice(3, 8)}|${vin.slice(9)}`;
}

function compile(keys: string): RegExp | null {
  let regex = compiled.get(keys);
  if (regex !== undefined) return regex;
  // A key of any other shape is skipped rather than trusted as a regular expression.
  regex = KEY_SHAPE.test(keys) ? new RegExp(`^${keys.replace(/\*/g, ".").replace(/\|/g, "\\|")}`) : null;
  compiled.set(keys, regex);
  return regex;
}

export function keysMatch(keys: string, target: string): boolean {
  return compile(keys)?.test(target) ?? false;
}

/** How much of the VIN a key pins down: the most specific matching key wins. */
export function keySpecificity(keys: string): number {
  return keys.replace(/\[[^\]]*\]/g, "#").replace(/[*|]/g, "").length;
}
