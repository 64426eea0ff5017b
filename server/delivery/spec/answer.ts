/**
 * How a buyer's answer is read (issue 43, item 3): ordered rules on the HTTP status and the body
 * (a JSON path, an XML path, or a regular expression on the text); the first rule that matches
 * decides. Many buyers answer HTTP 200 to a refusal, so the status alone rarely says it.
 *
 *   "answer": { "body": "xml", "rules": [
 *     { "status": 200, "path": "response/status", "equals": "success", "outcome": "accepted",
 *       "price": { "path": "response/price" }, "leadId": { "path": "response/lead_id" } },
 *     { "status": 200, "path": "response/status", "equals": ["duplicate", "rejected"],
 *       "outcome": "refused", "reason": { "path": "response/message" } },
 *     { "status": "5xx", "outcome": "retry" } ] }
 *
 * A rule's tests, all of which must hold: `status` (a code, a class "4xx", or a list); `path`
 * (the value there exists) with `equals` (one value or any of a list), `exists: false`, or
 * `pattern` (tested on the value); or `pattern` alone (tested on the body's text). `ignoreCase`
 * applies to `equals` and `pattern`. JSON values compare with their type (true is not "true",
 * 1 is not "1"); XML has only text, so a rule's true or 1 is compared as "true" or "1". Outcomes: a post's `accepted` (price, leadId), `refused`
 * (reason, leadId), `retry` (reason); a ping's `bid` (price required, bidId) and `no_bid`
 * (reason). A value is taken from `{ "path" }`, a capture group of the rule's pattern
 * `{ "group": 1 }`, or (reasons only) a constant `{ "value": "…" }`.
 *
 * An answer no rule matches is `error`, with an excerpt: the caller records it and tries again,
 * never counts it a sale. An accepted answer whose price cannot be read stays accepted (the
 * buyer has the lead; the caller charges the agreed price), with a note; a bid whose price or
 * bid id cannot be read is an error, since nothing half-read may win an auction.
 */
import { z } from "zod";
import { XMLParser } from "fast-xml-parser";
import { responseExcerpt } from "../excerpt";
import { scalarSchema } from "./transforms";
import type { Scalar } from "./facts";
import { answerPathProblem, answerPathSteps, type AnswerFormat } from "./paths";
import { compilePattern, MAX_MATCHED_TEXT, MAX_PATTERN_LENGTH } from "./patterns";

export const POST_OUTCOMES = ["accepted", "refused", "retry"] as const;
export const PING_OUTCOMES = ["bid", "no_bid"] as const;
export const ANSWER_OUTCOMES = [...POST_OUTCOMES, ...PING_OUTCOMES] as const;
export type Stage = "post" | "ping";

const STATUS_CLASSES = ["1xx", "2xx", "3xx", "4xx", "5xx"] as const;
const statusSelector = z.union([z.int().min(100).max(599), z.enum(STATUS_CLASSES)]);

/** Where a value of the answer is taken from: exactly one of the three (checkAnswer). */
const valueSource = z.strictObject({
  path: z.string().min(1).max(200).optional(),
  group: z.int().min(0).max(9).optional(),
  value: z.string().trim().min(1).max(200).optional(),
});
export type ValueSource = z.infer<typeof valueSource>;

export const answerRuleSchema = z.strictObject({
  status: z.union([statusSelector, z.array(statusSelector).min(1).max(20)]).optional(),
  path: z.string().min(1).max(200).optional(),
  equals: z.union([scalarSchema, z.array(scalarSchema).min(1).max(50)]).optional(),
  exists: z.boolean().optional(),
  pattern: z.string().min(1).max(MAX_PATTERN_LENGTH).optional(),
  ignoreCase: z.boolean().optional(),
  outcome: z.enum(ANSWER_OUTCOMES),
  price: valueSource.optional(),
  leadId: valueSource.optional(),
  bidId: valueSource.optional(),
  reason: valueSource.optional(),
});
export type AnswerRule = z.infer<typeof answerRuleSchema>;

export const answerSchema = z.strictObject({
  /** How to read the body: parsed as JSON or XML for paths, or only as text for patterns. */
  body: z.enum(["json", "xml", "text"]),
  rules: z.array(answerRuleSchema).min(1).max(50),
});
export type AnswerSpec = z.infer<typeof answerSchema>;

export interface SpecProblem {
  path: (string | number)[];
  message: string;
}

type Source = "price" | "leadId" | "bidId" | "reason";
/** Which values each outcome may take; `required` ones it must. */
const SOURCES: Readonly<Record<(typeof ANSWER_OUTCOMES)[number], { allowed: readonly Source[]; required?: Source }>> = {
  accepted: { allowed: ["price", "leadId"] },
  refused: { allowed: ["reason", "leadId"] },
  retry: { allowed: ["reason"] },
  bid: { allowed: ["price", "bidId"], required: "price" },
  no_bid: { allowed: ["reason"] },
};

/** The answer rules' problems for a post's or a ping's spec, each at its place under `at`. */
export function checkAnswer(answer: AnswerSpec, stage: Stage, at: readonly (string | number)[]): SpecProblem[] {
  const problems: SpecProblem[] = [];
  const allowedOutcomes: readonly string[] = stage === "ping" ? PING_OUTCOMES : POST_OUTCOMES;
  answer.rules.forEach((rule, index) => {
    const here = (...rest: (string | number)[]) => [...at, "rules", index, ...rest];
    const problem = (message: string, ...rest: (string | number)[]) => problems.push({ path: here(...rest), message });
    if (!allowedOutcomes.includes(rule.outcome)) problem(`a ${stage}'s answer is ${allowedOutcomes.join(", ")}, not ${rule.outcome}`, "outcome");
    if (rule.status === undefined && rule.path === undefined && rule.pattern === undefined) problem("a rule needs a test: status, path or pattern");
    if (rule.path !== undefined) {
      const pathProblem = answerPathProblem(answer.body, rule.path);
      if (pathProblem) problem(pathProblem, "path");
    }
    const tests = (["equals", "exists", "pattern"] as const).filter((key) => rule[key] !== undefined);
    if (tests.length > 1) problem(`one test of the value per rule: ${tests.join(" and ")} together`, tests[1]!);
    for (const key of ["equals", "exists"] as const) if (rule[key] !== undefined && rule.path === undefined) problem(`${key} tests the value at a path: give "path"`, key);
    let groups = 0;
    if (rule.pattern !== undefined) {
      const checked = compilePattern(rule.pattern, rule.ignoreCase === true);
      if (checked.ok) groups = checked.groups;
      else problem(checked.message, "pattern");
    }
    const { allowed, required } = SOURCES[rule.outcome];
    for (const key of ["price", "leadId", "bidId", "reason"] as const) {
      const source = rule[key];
      if (source === undefined) {
        if (required === key) problem(`a ${rule.outcome} needs its ${key}: { "path": … } or { "group": … }`, key);
        continue;
      }
      if (!allowed.includes(key)) {
        problem(`a ${rule.outcome} answer has no ${key}`, key);
        continue;
      }
      const given = (["path", "group", "value"] as const).filter((kind) => source[kind] !== undefined);
      if (given.length !== 1) {
        problem(`give one of path, group${key === "reason" ? " or value" : ""}`, key);
        continue;
      }
      if (source.value !== undefined && key !== "reason") problem(`a constant is for a reason only: read the ${key} from the answer`, key, "value");
      if (source.path !== undefined) {
        const pathProblem = answerPathProblem(answer.body, source.path);
        if (pathProblem) problem(pathProblem, key, "path");
      }
      if (source.group !== undefined) {
        if (rule.pattern === undefined) problem(`a group is of the rule's pattern: give "pattern"`, key, "group");
        else if (source.group > groups) problem(`the pattern has ${groups} capture group${groups === 1 ? "" : "s"}`, key, "group");
      }
    }
  });
  return problems;
}

/**
 * A buyer's answer as the HTTP client got it (server/delivery/http-send.ts cuts it at 16 KB). Only
 * answers that arrived: a timeout or a network error is the caller's to retry (or no bid).
 */
export interface BuyerAnswer {
  status: number;
  body: string;
}

/** How the rules read an answer; `rule` is the index of the rule that decided, for the console. */
export type AnswerReading =
  | { outcome: "accepted"; rule: number; price: number | null; leadId: string | null; note?: string }
  | { outcome: "refused"; rule: number; reason: string; leadId: string | null }
  | { outcome: "retry"; rule: number; reason: string | null }
  | { outcome: "bid"; rule: number; price: number; bidId: string | null }
  | { outcome: "no_bid"; rule: number; reason: string | null }
  | { outcome: "error"; rule: number | null; why: string; excerpt: string };

/** What a document lookup found: a scalar, a list or an object, or nothing. */
type Found = Scalar | readonly unknown[] | Readonly<Record<string, unknown>> | undefined;

// Answers are small and come from a buyer we chose, but an XML body can still declare entities:
// expansion is bounded well under the defaults, and values stay text (the rules decide types).
const xmlParser = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  processEntities: { enabled: true, maxEntityCount: 20, maxEntitySize: 1_000, maxTotalExpansions: 200, maxExpandedLength: 20_000 },
});

function parseBody(format: AnswerFormat, body: string): unknown {
  try {
    if (format === "json") return JSON.parse(body) as unknown;
    if (format === "xml") return xmlParser.parse(body) as unknown;
  } catch {
    // Unreadable: every path test fails, and unless a status or pattern rule matches, the answer is an error.
  }
  return undefined;
}

function lookup(format: AnswerFormat, document: unknown, steps: readonly (string | number)[]): Found {
  let node: unknown = document;
  for (const step of steps) {
    if (node === null || typeof node !== "object") return undefined;
    if (typeof step === "number") {
      // A single XML element is a list of one.
      node = Array.isArray(node) ? node[step] : format === "xml" && step === 0 ? node : undefined;
      continue;
    }
    if (Array.isArray(node)) {
      if (format !== "xml") return undefined;
      node = node[0];
      if (node === null || typeof node !== "object") return undefined;
    }
    node = Object.hasOwn(node, step) ? (node as Record<string, unknown>)[step] : undefined;
  }
  if (format === "xml") {
    if (Array.isArray(node)) node = node[0];
    // An element with text and children: its own text.
    if (node !== null && typeof node === "object" && Object.hasOwn(node, "#text")) node = (node as Record<string, unknown>)["#text"];
  }
  return node as Found;
}

const asText = (value: Found): string => (typeof value === "string" ? value : value === undefined ? "" : JSON.stringify(value));

/** "11.00", "$14.25", 9.75 → the number; undefined when it is not a price (negative, over 10,000, text). */
function readPrice(value: unknown): number | undefined {
  const number = typeof value === "number" ? value : typeof value === "string" && /^\s*\$?\s*[\d,]*\d(\.\d+)?\s*$/.test(value) ? Number(value.replace(/[\s$,]/g, "")) : Number.NaN;
  return Number.isFinite(number) && number >= 0 && number <= 10_000 ? number : undefined;
}

/** A buyer's id for its lead or bid: printable text of 1 to 100 characters. */
function readId(value: unknown): string | undefined {
  const text = typeof value === "string" ? value.trim() : typeof value === "number" && Number.isFinite(value) ? String(value) : undefined;
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  return text !== undefined && text.length >= 1 && text.length <= 100 && !/[\u0000-\u001f\u007f]/.test(text) ? text : undefined;
}

function readReason(value: unknown): string | undefined {
  const text = typeof value === "string" ? value.trim() : typeof value === "number" ? String(value) : undefined;
  return text ? responseExcerpt(text) : undefined;
}

interface CompiledRule {
  index: number;
  outcome: AnswerRule["outcome"];
  status?: (code: number) => boolean;
  path?: (string | number)[];
  test?: (value: Found) => boolean;
  exists: boolean;
  pattern?: RegExp;
  sources: Partial<Record<Source, { path?: (string | number)[]; group?: number; value?: string }>>;
}

function statusTest(selector: NonNullable<AnswerRule["status"]>): (code: number) => boolean {
  const selectors = Array.isArray(selector) ? selector : [selector];
  const codes = new Set(selectors.filter((entry): entry is number => typeof entry === "number"));
  const classes = new Set(selectors.filter((entry): entry is (typeof STATUS_CLASSES)[number] => typeof entry === "string").map((entry) => Number(entry[0])));
  return (code) => codes.has(code) || classes.has(Math.floor(code / 100));
}

function equalsTest(format: AnswerFormat, expected: Exclude<AnswerRule["equals"], undefined>, ignoreCase: boolean): (value: Found) => boolean {
  const wanted = Array.isArray(expected) ? expected : [expected];
  const fold = (value: unknown) => (ignoreCase && typeof value === "string" ? value.toLowerCase() : value);
  // XML has only text: a rule's true or 2 is compared as "true" or "2".
  const normalized = new Set(wanted.map((value) => fold(format === "xml" ? String(value ?? "") : value)));
  return (value) => (value === undefined || (typeof value === "object" && value !== null) ? false : normalized.has(fold(value)));
}

function compileRule(format: AnswerFormat, rule: AnswerRule, index: number): CompiledRule {
  const compiled: CompiledRule = { index, outcome: rule.outcome, exists: rule.exists !== false, sources: {} };
  if (rule.status !== undefined) compiled.status = statusTest(rule.status);
  if (rule.path !== undefined) compiled.path = answerPathSteps(format, rule.path);
  if (rule.pattern !== undefined) {
    const checked = compilePattern(rule.pattern, rule.ignoreCase === true);
    if (!checked.ok) throw new Error(`answer rule ${index}: ${checked.message} (compile only parsed specs)`);
    compiled.pattern = checked.regex;
  }
  if (rule.equals !== undefined) compiled.test = equalsTest(format, rule.equals, rule.ignoreCase === true);
  for (const key of ["price", "leadId", "bidId", "reason"] as const) {
    const source = rule[key];
    if (source === undefined) continue;
    compiled.sources[key] = {
      ...(source.path !== undefined ? { path: answerPathSteps(format, source.path) } : {}),
      ...(source.group !== undefined ? { group: source.group } : {}),
      ...(source.value !== undefined ? { value: source.value } : {}),
    };
  }
  return compiled;
}

/** The answer rules as one function, built once per spec. */
export function compileAnswer(answer: AnswerSpec): (answer: BuyerAnswer) => AnswerReading {
  const format = answer.body;
  const rules = answer.rules.map((rule, index) => compileRule(format, rule, index));
  return ({ status, body }) => {
    const text = body.length > MAX_MATCHED_TEXT ? body.slice(0, MAX_MATCHED_TEXT) : body;
    let document: unknown;
    let parsed = false;
    const doc = () => {
      if (!parsed) {
        document = format === "text" ? undefined : parseBody(format, body);
        parsed = true;
      }
      return document;
    };
    for (const rule of rules) {
      if (rule.status && !rule.status(status)) continue;
      let match: RegExpExecArray | null = null;
      if (rule.path) {
        const value = lookup(format, doc(), rule.path);
        if (!rule.exists) {
          if (value !== undefined) continue;
        } else {
          if (value === undefined) continue;
          if (rule.test && !rule.test(value)) continue;
          if (rule.pattern) {
            match = rule.pattern.exec(asText(value).slice(0, MAX_MATCHED_TEXT));
            if (!match) continue;
          }
        }
      } else if (rule.pattern) {
        match = rule.pattern.exec(text);
        if (!match) continue;
      }
      return decide(rule, status, body, (source) => {
        const from = rule.sources[source];
        if (from === undefined) return undefined;
        if (from.value !== undefined) return from.value;
        if (from.group !== undefined) return match?.[from.group];
        return from.path ? lookup(format, doc(), from.path) : undefined;
      });
    }
    return { outcome: "error", rule: null, why: `no answer rule matches this HTTP ${status} answer`, excerpt: responseExcerpt(body) };
  };
}

function decide(rule: CompiledRule, status: number, body: string, read: (source: Source) => Found): AnswerReading {
  const given = (source: Source) => rule.sources[source] !== undefined;
  const error = (why: string): AnswerReading => ({ outcome: "error", rule: rule.index, why, excerpt: responseExcerpt(body) });
  switch (rule.outcome) {
    case "accepted": {
      const price = readPrice(read("price"));
      const leadId = readId(read("leadId")) ?? null;
      const unread = given("price") && price === undefined;
      return { outcome: "accepted", rule: rule.index, price: price ?? null, leadId, ...(unread ? { note: "the answer's price could not be read: charge the agreed price" } : {}) };
    }
    case "refused":
      return { outcome: "refused", rule: rule.index, reason: readReason(read("reason")) ?? `HTTP ${status}`, leadId: readId(read("leadId")) ?? null };
    case "retry":
      return { outcome: "retry", rule: rule.index, reason: readReason(read("reason")) ?? null };
    case "bid": {
      const price = readPrice(read("price"));
      if (price === undefined || price <= 0) return error("a bid without a readable price above 0");
      const bidId = readId(read("bidId"));
      if (given("bidId") && bidId === undefined) return error("a bid without a readable bid id");
      return { outcome: "bid", rule: rule.index, price, bidId: bidId ?? null };
    }
    case "no_bid":
      return { outcome: "no_bid", rule: rule.index, reason: readReason(read("reason")) ?? null };
  }
}
