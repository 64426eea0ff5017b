/**
 * What the console's buyer and source forms share (issue 33, item 2): reading urlencoded fields
 * into typed values without trusting their shape (a repeated field, a word where a number goes),
 * and turning a zod issue into the field it belongs beside and a sentence ops can act on. The
 * forms are checked by the very schemas of server/delivery/buyers.ts, so a value the form lets
 * through is one delivery accepts; these helpers only translate between the two.
 */
import type { z } from "zod";
import type { FormValues } from "../../shared/admin-views";

/** The parsed urlencoded body as a form's values: strings, and lists for repeated fields; anything else is dropped. */
export function formValuesOf(body: unknown): FormValues {
  const values: FormValues = {};
  if (body === null || typeof body !== "object") return values;
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    if (key === "_csrf") continue;
    if (typeof value === "string") values[key] = value;
    else if (Array.isArray(value)) values[key] = value.filter((entry): entry is string => typeof entry === "string");
  }
  return values;
}

/** One field as text, trimmed ("" when absent; the first of a repeated one). */
export function text(values: FormValues, name: string): string {
  const value = values[name];
  return (Array.isArray(value) ? (value[0] ?? "") : (value ?? "")).trim();
}

/** A checkbox group or repeated field as a list (a single value is a list of one). */
export function list(values: FormValues, name: string): string[] {
  const value = values[name];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map((entry) => entry.trim()).filter(Boolean);
}

/** A typed list ("90210, 90211\n10001"): entries split on commas, semicolons and white space. */
export function words(values: FormValues, name: string): string[] {
  return text(values, name)
    .split(/[\s,;]+/)
    .filter(Boolean);
}

/**
 * A number as typed ("12.50", "$1,200", "-4"), undefined when empty. Anything else is handed on
 * as typed, so the schema refuses it beside its field instead of it being silently dropped.
 */
export function amount(values: FormValues, name: string): number | string | undefined {
  const raw = text(values, name);
  if (raw === "") return undefined;
  const cleaned = raw.replace(/^(-?)\$/, "$1").replace(/,/g, "");
  return /^-?\d+(\.\d+)?$/.test(cleaned) ? Number(cleaned) : raw;
}

/** A three-way choice ("any", "yes", "no") as undefined, true or false; `yes` names the true word ("only" for DUI). */
export function choice(values: FormValues, name: string, yes = "yes", no = "no"): boolean | string | undefined {
  const raw = text(values, name);
  if (raw === "" || raw === "any") return undefined;
  if (raw === yes) return true;
  if (raw === no) return false;
  return raw;
}

/** The object without its undefined entries, or undefined when none is left (an empty group is "not set"). */
export function compact<T extends Record<string, unknown>>(entries: T): Partial<T> | undefined {
  const kept = Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== undefined && !(Array.isArray(value) && value.length === 0)));
  return Object.keys(kept).length === 0 ? undefined : (kept as Partial<T>);
}

const capitalized = (message: string) => message.charAt(0).toUpperCase() + message.slice(1);

/**
 * An issue in words for the field it is shown beside. The schemas' own messages are written for
 * people ("a 5-digit ZIP code, like 90210"); zod's generic ones ("Too small: expected number to
 * be >=0") are said plainly.
 */
export function issueMessage(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "invalid_type":
      // zod leaves the input out of its issues unless asked; its message says what it received.
      if (/received undefined$/.test(issue.message)) return "This is required.";
      return issue.expected === "number" ? "Enter a number." : `Enter a ${issue.expected}.`;
    case "too_small":
      if (issue.origin === "array" || issue.origin === "set") return "Choose at least one.";
      if (issue.origin === "string") return `At least ${String(issue.minimum)} characters.`;
      return `At least ${String(issue.minimum)}.`;
    case "too_big":
      if (issue.origin === "array" || issue.origin === "set") return `At most ${String(issue.maximum)}.`;
      if (issue.origin === "string") return `At most ${String(issue.maximum)} characters.`;
      return `At most ${String(issue.maximum)}.`;
    case "invalid_value":
      return `Choose one of: ${issue.values.map(String).join(", ")}.`;
    case "not_multiple_of":
      return "Enter a whole number.";
    case "unrecognized_keys":
      return `Unknown: ${issue.keys.join(", ")}.`;
    default:
      return sentence(issue.message);
  }
}

/** A message as a sentence beside its field: a capital first, a full stop last. */
export function sentence(message: string): string {
  return `${capitalized(message)}${/[.!?]$/.test(message) ? "" : "."}`;
}

/**
 * The form field an issue's path points at. List entries ("states.3", "filters.zips.include.0")
 * belong to their list's field; a path the form has no field for (a group's own rule, "give min,
 * max or both") goes up to the nearest one it has (the group's fieldset), and "" (the whole form)
 * when there is none.
 */
export function fieldForPath(path: readonly PropertyKey[], isField: (name: string) => boolean, keepIndexAfter: ReadonlySet<string> = new Set()): string {
  const segments: string[] = [];
  path.forEach((segment, index) => {
    const previous = path[index - 1];
    if (typeof segment === "number" && !(typeof previous === "string" && keepIndexAfter.has(previous))) return;
    segments.push(String(segment));
  });
  for (let length = segments.length; length > 0; length -= 1) {
    const name = segments.slice(0, length).join(".");
    if (isField(name)) return name;
  }
  return "";
}

/** Every issue beside its field, the first one per field (the next shows once that is fixed). */
export function errorsByField(issues: readonly z.core.$ZodIssue[], fieldOf: (path: readonly PropertyKey[]) => string): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const issue of issues) {
    const name = fieldOf(issue.path);
    errors[name] ??= issueMessage(issue);
  }
  return errors;
}
