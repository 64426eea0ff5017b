/**
 * Where a value goes in the buyer's request (a rule's `to`) and where the buyer's answer keeps a
 * value (an answer rule's `path`), by format:
 *   json  "contact.first"       nested objects, created as needed
 *   xml   "contact/first"       nested elements under the root; "vehicles/vehicle" in an each
 *                               rule: one <vehicle> per item, inside <vehicles>
 *   form  "FirstName"           one field; in an each rule a prefix with {n} (the item's position
 *                               from 1): "V{n}_" + "Year" → V1_Year, V2_Year
 * Answer paths: json "result.id" or "items.0.id" (a number picks from a list); xml
 * "response/lead_id" (a number picks among repeated elements).
 * A path is refused when malformed, and two rules are refused when they write the same place or
 * one writes inside the other's value (planConflicts).
 */
export type BodyFormat = "json" | "form" | "xml";
export type AnswerFormat = "json" | "xml" | "text";

const JSON_KEY = /^[A-Za-z0-9_$@-]{1,64}$/;
/** An XML element name (ASCII), not one of the reserved names starting with "xml". */
const XML_NAME = /^(?!xml)[A-Za-z_][A-Za-z0-9._-]{0,63}$/i;
const FORM_NAME = /^[A-Za-z0-9_.[\]-]{1,100}$/;
const MAX_DEPTH = 8;
/** The position placeholder of a form each rule. */
export const POSITION = "{n}";

/** The segments of a body path; undefined when malformed (see targetProblem). */
export function targetSegments(format: BodyFormat, to: string): string[] {
  if (format === "form") return [to];
  return to.split(format === "json" ? "." : "/");
}

/** What is wrong with a rule's `to` for this format; undefined when it is fine. */
export function targetProblem(format: BodyFormat, to: string, each = false): string | undefined {
  if (format === "form") {
    if (each) {
      if (!to.includes(POSITION)) return `an each rule's field prefix needs ${POSITION} (the item's position from 1), like "V${POSITION}_"`;
      const sample = to.replaceAll(POSITION, "1");
      return sample === "" || FORM_NAME.test(sample) ? undefined : `"${to}" is not a form field prefix: letters, digits, _ . - [ ] and ${POSITION}`;
    }
    return FORM_NAME.test(to) ? undefined : `"${to}" is not a form field name: 1 to 100 letters, digits, _ . - [ ]`;
  }
  const separator = format === "json" ? "." : "/";
  const segments = to.split(separator);
  if (segments.length > MAX_DEPTH) return `"${to}" is nested too deep (at most ${MAX_DEPTH})`;
  if (each && format === "xml" && segments.length < 2) return `an each rule's XML path ends with the repeated element inside its list, like "vehicles/vehicle"`;
  for (const segment of segments) {
    if (segment === "") return `"${to}" has an empty step: write names separated by single "${separator}"`;
    // Assigning it to an object would set the object's prototype instead of a key.
    if (segment === "__proto__") return `"__proto__" cannot be written`;
    if (format === "json" && !JSON_KEY.test(segment)) return `"${segment}" in "${to}" is not a JSON key we write: 1 to 64 letters, digits, _ $ @ -`;
    if (format === "xml" && !XML_NAME.test(segment)) return `"${segment}" in "${to}" is not an XML element name (a letter or _ first, then letters, digits, . _ -; not "xml…")`;
  }
  return undefined;
}

/** What is wrong with an answer rule's path for this answer format; undefined when it is fine. */
export function answerPathProblem(format: AnswerFormat, path: string): string | undefined {
  if (format === "text") return `a text answer has no paths: use "pattern"`;
  const separator = format === "json" ? "." : "/";
  const segments = path.split(separator);
  if (segments.length > MAX_DEPTH + 2) return `"${path}" is nested too deep`;
  for (const segment of segments) {
    if (segment === "") return `"${path}" has an empty step: write names separated by single "${separator}"`;
    if (/^\d+$/.test(segment)) continue;
    if (format === "xml" && !XML_NAME.test(segment)) return `"${segment}" in "${path}" is not an XML element name`;
    if (format === "json" && segment.length > 128) return `"${segment}" in "${path}" is too long`;
  }
  return undefined;
}

/** The compiled form of an answer path: its steps, numbers as indexes. */
export function answerPathSteps(format: AnswerFormat, path: string): (string | number)[] {
  return path.split(format === "json" ? "." : "/").map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
}

/** One written place: its segments, and the issue path of the rule that writes it. */
export interface Placement {
  segments: readonly string[];
  rule: readonly (string | number)[];
}

/**
 * The placements that clash with an earlier one: the same place written twice, or a place
 * written inside another rule's value (contact = "x" and contact.first = "y").
 */
export function planConflicts(placements: readonly Placement[]): { rule: readonly (string | number)[]; message: string }[] {
  const problems: { rule: readonly (string | number)[]; message: string }[] = [];
  const leaves = new Map<string, Placement>();
  const parents = new Map<string, Placement>();
  for (const placement of placements) {
    const key = placement.segments.join("\u0000");
    const shown = placement.segments.join(" → ");
    if (leaves.has(key)) {
      problems.push({ rule: placement.rule, message: `${shown} is written by another rule too` });
      continue;
    }
    if (parents.has(key)) {
      problems.push({ rule: placement.rule, message: `${shown} holds other rules' values: it cannot have a value of its own` });
      continue;
    }
    const insideAnother = placement.segments.slice(0, -1).some((_, index) => leaves.has(placement.segments.slice(0, index + 1).join("\u0000")));
    if (insideAnother) {
      problems.push({ rule: placement.rule, message: `${shown} is inside a value another rule writes` });
      continue;
    }
    leaves.set(key, placement);
    for (let index = 1; index < placement.segments.length; index += 1) parents.set(placement.segments.slice(0, index).join("\u0000"), placement);
  }
  return problems;
}
