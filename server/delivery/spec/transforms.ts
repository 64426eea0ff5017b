/**
 * A field rule's transforms (issue 43, item 2): what turns a fact into the buyer's value, applied
 * in order. Declarative on purpose, never code: a value map, a date format, a phone format, a
 * boolean's spelling, number/string coercion, truncation and case.
 *
 *   { "type": "map", "values": { "own": "Owned", "finance": "Financed" }, "otherwise": "Other" }
 *   { "type": "date", "format": "MM/DD/YYYY" }          date and datetime facts
 *   { "type": "phone", "format": "10digits" }           10digits 4155550134, e164 +14155550134,
 *                                                       dashed 415-555-0134, parens (415) 555-0134
 *   { "type": "boolean", "as": "Y/N" }                  Y/N, yes/no (text), 1/0 (numbers), true/false
 *   { "type": "number" } { "type": "string" } { "type": "truncate", "max": 50 } { "type": "case", "to": "upper" }
 *
 * Each transform is checked against the type of the value it receives (checkTransforms), so a
 * date format on a name, or a value map that misses a value the fact can take, is refused when
 * the spec is saved; what can still fail at render (a malformed stored value) fails the render
 * with why, never sends a wrong value.
 */
import { z } from "zod";
import type { FactType, Scalar } from "./facts";

export const scalarSchema = z.union([z.string().max(2_000), z.number(), z.boolean(), z.null()]);

export const DATE_FORMATS = ["YYYY-MM-DD", "MM/DD/YYYY", "MM-DD-YYYY", "M/D/YYYY", "YYYYMMDD", "ISO", "unix", "YYYY-MM-DD HH:mm:ss"] as const;
/** Formats that need a time: only for datetime facts. */
const TIME_FORMATS: ReadonlySet<string> = new Set(["ISO", "unix", "YYYY-MM-DD HH:mm:ss"]);
export const PHONE_FORMATS = ["10digits", "e164", "dashed", "parens"] as const;
export const BOOLEAN_SPELLINGS = ["Y/N", "yes/no", "1/0", "true/false"] as const;

export const transformSchema = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("map"),
    /** The fact's value as text ("own", "true", "2") → the buyer's value. */
    values: z.record(z.string().max(200), scalarSchema),
    /** For any value not in `values`; without it every value the fact can take must be mapped. */
    otherwise: scalarSchema.optional(),
  }),
  z.strictObject({ type: z.literal("date"), format: z.enum(DATE_FORMATS) }),
  z.strictObject({ type: z.literal("phone"), format: z.enum(PHONE_FORMATS) }),
  z.strictObject({ type: z.literal("boolean"), as: z.enum(BOOLEAN_SPELLINGS) }),
  z.strictObject({ type: z.literal("number") }),
  z.strictObject({ type: z.literal("string") }),
  z.strictObject({ type: z.literal("truncate"), max: z.int().min(1).max(10_000) }),
  z.strictObject({ type: z.literal("case"), to: z.enum(["upper", "lower"]) }),
]);
export type Transform = z.infer<typeof transformSchema>;

/** What a step knows of the value it receives: its type and, when known, every value it can take. */
export interface ValueShape {
  type: FactType | "any";
  values?: readonly string[] | undefined;
}

export interface TransformProblem {
  /** The transform's index in the list. */
  index: number;
  message: string;
}

const BOOLEAN_OUTPUT: Readonly<Record<(typeof BOOLEAN_SPELLINGS)[number], readonly [Scalar, Scalar]>> = {
  "Y/N": ["Y", "N"],
  "yes/no": ["yes", "no"],
  "1/0": [1, 0],
  "true/false": [true, false],
};

/** The problems of a list of transforms on a value of this shape (none: it can be compiled). */
export function checkTransforms(transforms: readonly Transform[], start: ValueShape): TransformProblem[] {
  const problems: TransformProblem[] = [];
  let shape = start;
  transforms.forEach((transform, index) => {
    const wrong = (message: string) => problems.push({ index, message });
    switch (transform.type) {
      case "map": {
        if (!("otherwise" in transform)) {
          if (shape.values === undefined) wrong(`this value can be anything: give "otherwise" for the values not listed`);
          else {
            const unmapped = shape.values.filter((value) => !Object.hasOwn(transform.values, value));
            if (unmapped.length > 0) wrong(`no mapping for ${unmapped.map((value) => `"${value}"`).join(", ")}: map ${unmapped.length === 1 ? "it" : "them"} or give "otherwise"`);
          }
        }
        if (shape.values !== undefined) {
          const known = new Set(shape.values);
          const stray = Object.keys(transform.values).filter((key) => !known.has(key));
          if (stray.length > 0) wrong(`${stray.map((key) => `"${key}"`).join(", ")} ${stray.length === 1 ? "is" : "are"} not a value this can take (${shape.values.join(", ")})`);
        }
        const outputs = [...Object.values(transform.values), ...("otherwise" in transform ? [transform.otherwise ?? null] : [])];
        shape = { type: "any", values: [...new Set(outputs.map((value) => String(value)))] };
        return;
      }
      case "date":
        if (shape.type !== "date" && shape.type !== "datetime") wrong(`a date format needs a date or a time, not ${describe(shape)}`);
        else if (shape.type === "date" && TIME_FORMATS.has(transform.format)) wrong(`"${transform.format}" needs a time: this is a date`);
        shape = { type: transform.format === "unix" ? "number" : "string" };
        return;
      case "phone":
        if (shape.type !== "phone") wrong(`a phone format needs a phone number, not ${describe(shape)}`);
        shape = { type: "string" };
        return;
      case "boolean": {
        if (shape.type !== "boolean") wrong(`a boolean spelling needs a yes/no fact, not ${describe(shape)}`);
        shape = { type: "any", values: BOOLEAN_OUTPUT[transform.as].map((value) => String(value)) };
        return;
      }
      case "number":
        shape = { type: "number", values: shape.values };
        return;
      case "string":
        shape = { type: "string", values: shape.values };
        return;
      case "truncate":
        shape = { type: "string" };
        return;
      case "case":
        shape = { type: "string", values: shape.values?.map((value) => (transform.to === "upper" ? value.toUpperCase() : value.toLowerCase())) };
        return;
    }
  });
  return problems;
}

function describe(shape: ValueShape): string {
  return shape.type === "any" ? "a mapped value" : `a ${shape.type}`;
}

/** A transform that could not apply to a stored value: the render fails with this reason. */
export class TransformFailure {
  constructor(readonly why: string) {}
}

export type CompiledTransform = (value: Scalar) => Scalar | TransformFailure;

const pad = (value: number, width = 2) => String(value).padStart(width, "0");

function formatDate(value: Scalar, format: (typeof DATE_FORMATS)[number]): Scalar | TransformFailure {
  const text = String(value);
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2}))?/.exec(text);
  if (!match) return new TransformFailure(`"${text}" is not a date`);
  const [, year, month, day, hour = "00", minute = "00", second = "00"] = match as unknown as [string, string, string, string, string?, string?, string?];
  switch (format) {
    case "YYYY-MM-DD":
      return `${year}-${month}-${day}`;
    case "MM/DD/YYYY":
      return `${month}/${day}/${year}`;
    case "MM-DD-YYYY":
      return `${month}-${day}-${year}`;
    case "M/D/YYYY":
      return `${Number(month)}/${Number(day)}/${year}`;
    case "YYYYMMDD":
      return `${year}${month}${day}`;
    case "ISO": {
      const at = new Date(text);
      return Number.isNaN(at.getTime()) ? new TransformFailure(`"${text}" is not a time`) : at.toISOString();
    }
    case "unix": {
      const at = Date.parse(text);
      return Number.isNaN(at) ? new TransformFailure(`"${text}" is not a time`) : Math.floor(at / 1000);
    }
    case "YYYY-MM-DD HH:mm:ss":
      return `${year}-${month}-${day} ${pad(Number(hour))}:${pad(Number(minute))}:${pad(Number(second))}`;
  }
}

function formatPhone(value: Scalar, format: (typeof PHONE_FORMATS)[number]): Scalar | TransformFailure {
  const digits = String(value).replace(/\D/g, "");
  const national = digits.length === 11 && digits.startsWith("1") ? digits.slice(1) : digits;
  if (national.length !== 10) return new TransformFailure("not a 10-digit US phone number");
  switch (format) {
    case "10digits":
      return national;
    case "e164":
      return `+1${national}`;
    case "dashed":
      return `${national.slice(0, 3)}-${national.slice(3, 6)}-${national.slice(6)}`;
    case "parens":
      return `(${national.slice(0, 3)}) ${national.slice(3, 6)}-${national.slice(6)}`;
  }
}

function compileOne(transform: Transform): CompiledTransform {
  switch (transform.type) {
    case "map": {
      // A Map, not the object: a stored value such as "constructor" must not find a prototype's key.
      const values = new Map(Object.entries(transform.values));
      const hasOtherwise = "otherwise" in transform;
      const otherwise = transform.otherwise ?? null;
      return (value) => {
        const mapped = values.get(String(value));
        if (mapped !== undefined) return mapped;
        return hasOtherwise ? otherwise : new TransformFailure(`no mapping for "${String(value)}"`);
      };
    }
    case "date":
      return (value) => formatDate(value, transform.format);
    case "phone":
      return (value) => formatPhone(value, transform.format);
    case "boolean": {
      const [yes, no] = BOOLEAN_OUTPUT[transform.as];
      return (value) => (value === true ? yes : value === false ? no : new TransformFailure(`"${String(value)}" is not yes or no`));
    }
    case "number":
      return (value) => {
        const number = typeof value === "number" ? value : typeof value === "boolean" ? Number(value) : typeof value === "string" && value.trim() !== "" ? Number(value) : Number.NaN;
        return Number.isFinite(number) ? number : new TransformFailure(`"${String(value)}" is not a number`);
      };
    case "string":
      return (value) => String(value);
    case "truncate":
      return (value) => Array.from(String(value)).slice(0, transform.max).join("");
    case "case":
      return transform.to === "upper" ? (value) => String(value).toUpperCase() : (value) => String(value).toLowerCase();
  }
}

/** The list as one function, built once per spec (compileSpec), not per lead. */
export function compileTransforms(transforms: readonly Transform[]): CompiledTransform | undefined {
  if (transforms.length === 0) return undefined;
  const steps = transforms.map(compileOne);
  if (steps.length === 1) return steps[0];
  return (value) => {
    let current: Scalar | TransformFailure = value;
    for (const step of steps) {
      current = step(current as Scalar);
      if (current instanceof TransformFailure) return current;
    }
    return current;
  };
}
