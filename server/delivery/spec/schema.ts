/**
 * A buyer's request spec, validated (issue 43, items 1–4): how one buyer takes a post or a ping.
 * Data, never code: everything ops may write is in this schema, and everything it accepts can be
 * compiled and rendered (compile.ts). Every problem is a zod issue whose path is the bad rule's
 * place ("fields.3.from", "fields.5.transforms.0", "answer.rules.2.pattern"), so the console shows
 * it beside the field and an import names it.
 *
 *   { "format": "quoteridge" }                           today's signed JSON (server/delivery/payload.ts)
 *   { "format": "json" | "form" | "xml",
 *     "method": "POST" (default) | "PUT" | "GET" (form only: the fields go in the query),
 *     "headers": { "X-Source": "quoteridge" },           constant, exported with the spec: no secrets
 *     "auth": { "type": "none" } | { "type": "query", "name": "key", "credential": "key" }
 *           | { "type": "header", "name": "X-Api-Key", "credential": "apiKey" }
 *           | { "type": "bearer", "credential": "token" } | { "type": "basic", "username": "qr", "credential": "password" },
 *     "contentType": "text/xml; charset=utf-8",          optional; else the format's own
 *     "xml": { "root": "lead", "declaration": true },    xml only
 *     "fields": [ rule, … ],                              the field map, in the order sent
 *     "answer": { "body": "json" | "xml" | "text", "rules": [ … ] },   answer.ts
 *     "test": { "to": "test", "value": true } | { "header": "X-Test", "value": "1" } | { "query": "test", "value": "1" } }
 *
 * `credential` names an entry of the buyer's credentials, kept apart from the spec like its secret
 * (never exported without --with-secrets), so a spec can be shown and exported as it is.
 *
 * A field rule:
 *   { "to": "DOB", "from": "driver.1.dateOfBirth", "transforms": [{ "type": "date", "format": "MM/DD/YYYY" }] }
 *   { "to": "source", "value": "quoteridge" }                               a constant
 *   { "to": "SubID", "from": "source.sid", "default": "" }                  sent as it is when absent
 *   { "to": "vin", "from": "vehicle.1.vin", "optional": true }              left out when absent
 *   { "to": "vehicles", "each": "vehicle", "max": 4, "fields": [ { "to": "year", "from": "year" } ] }
 * `from` names a fact (facts.ts); `to` is a place in the body (paths.ts). A rule with neither a
 * default nor `optional` is required: a lead without the value is not sent (render says which).
 *
 * Ping specs (pingSpecSchema) may name no fact that reaches the person: no name, phone, email,
 * street, date of birth (send the age), VIN, IP, user agent, click id or form address, as the
 * signed ping of server/auction/ping.ts; and their answers are `bid` or `no_bid`.
 */
import { z } from "zod";
import { MAX_DRIVERS, MAX_VEHICLES } from "../../../shared/lead/fields";
import { FACTS, ITEM_FACTS, unknownFactProblem, type FactInfo, type ItemKind } from "./facts";
import { checkTransforms, scalarSchema, transformSchema } from "./transforms";
import { planConflicts, POSITION, targetProblem, targetSegments, type BodyFormat, type Placement } from "./paths";
import { answerSchema, checkAnswer, type SpecProblem, type Stage } from "./answer";

const credentialName = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "a credential's name: 1 to 64 letters, digits, _ . -");
/** RFC 9110's token. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
const headerName = z.string().regex(HEADER_NAME, "an HTTP header name, like X-Api-Key");
const headerValue = z.string().max(1_000).regex(/^[^\r\n\0]*$/, "a header value on one line");
const queryName = z.string().regex(/^[A-Za-z0-9_.~-]{1,100}$/, "a query parameter name: letters, digits, _ . ~ -");
const xmlName = z.string().regex(/^(?!xml)[A-Za-z_][A-Za-z0-9._-]{0,63}$/i, "an XML element name");

export const authSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("none") }),
  z.strictObject({ type: z.literal("query"), name: queryName, credential: credentialName }),
  z.strictObject({ type: z.literal("header"), name: headerName, credential: credentialName }),
  z.strictObject({ type: z.literal("bearer"), credential: credentialName }),
  z.strictObject({ type: z.literal("basic"), username: z.string().min(1).max(200).regex(/^[^:\r\n]*$/, "no colon or line break"), credential: credentialName }),
]);
export type SpecAuth = z.infer<typeof authSchema>;

const itemRuleSchema = z.strictObject({
  to: z.string().min(1).max(200),
  from: z.string().min(1).max(100).optional(),
  value: scalarSchema.optional(),
  transforms: z.array(transformSchema).max(10).optional(),
  default: scalarSchema.optional(),
  optional: z.boolean().optional(),
});
export type ItemRule = z.infer<typeof itemRuleSchema>;

const fieldRuleSchema = itemRuleSchema.extend({
  each: z.enum(["vehicle", "driver"]).optional(),
  /** Send at most this many (a buyer that takes 2 vehicles); every one when not given. */
  max: z.int().min(1).max(Math.max(MAX_VEHICLES, MAX_DRIVERS)).optional(),
  fields: z.array(itemRuleSchema).min(1).max(50).optional(),
});
export type FieldRule = z.infer<typeof fieldRuleSchema>;

/** How a test lead is marked: a field of the body, a header, or a query parameter, with its value. */
const testMarkSchema = z.strictObject({
  to: z.string().min(1).max(200).optional(),
  header: headerName.optional(),
  query: queryName.optional(),
  value: scalarSchema,
});
export type TestMark = z.infer<typeof testMarkSchema>;

const httpSpec = {
  method: z.enum(["POST", "PUT", "GET"]).default("POST"),
  // Names are checked with the others in checkHeaders: zod's own message for a record's key says only "Invalid key".
  headers: z.record(z.string(), headerValue).default({}),
  auth: authSchema.default({ type: "none" }),
  contentType: z.string().min(1).max(200).regex(/^[^\r\n\0]*$/, "a content type on one line").optional(),
  fields: z.array(fieldRuleSchema).min(1).max(300),
  answer: answerSchema,
  test: testMarkSchema.optional(),
};

const variants = z.discriminatedUnion(
  "format",
  [
    z.strictObject({ format: z.literal("quoteridge") }),
    z.strictObject({ format: z.literal("json"), ...httpSpec }),
    z.strictObject({ format: z.literal("form"), ...httpSpec }),
    z.strictObject({
      format: z.literal("xml"),
      ...httpSpec,
      xml: z.strictObject({ root: xmlName.default("lead"), declaration: z.boolean().default(true) }).default({ root: "lead", declaration: true }),
    }),
  ],
  { error: 'format: one of "quoteridge", "json", "form", "xml"' },
);

type Variant = z.infer<typeof variants>;
export type QuoteridgeSpec = Extract<Variant, { format: "quoteridge" }>;
/** A spec that describes its own request (json, form or xml). */
export type HttpSpec = Exclude<Variant, QuoteridgeSpec>;

/** Headers the transport or another part of the spec owns. */
const RESERVED_HEADERS: Readonly<Record<string, string>> = {
  host: "the URL gives the host",
  "content-length": "the body gives its length",
  "transfer-encoding": "the HTTP client sets it",
  connection: "the HTTP client sets it",
  "content-type": 'give it as "contentType"',
  authorization: 'credentials go in "auth", kept apart from the spec',
};

type Problems = SpecProblem[];
type IssuePath = (string | number)[];

/** Why a fact may not be sent at this stage; undefined when it may. */
function stageProblem(name: string, fact: Omit<FactInfo, "name">, stage: Stage): string | undefined {
  if (stage === "ping" && fact.notInPing) return `${name}: ${fact.notInPing}`;
  if (fact.only === "post" && stage === "ping") return `${name} is known only when posting`;
  if (fact.only === "ping" && stage === "post") return `${name} is known only in a ping`;
  return undefined;
}

/** A value rule (top level or inside an each rule): its own problems. */
function checkValueRule(rule: ItemRule, at: IssuePath, format: BodyFormat, stage: Stage, item: ItemKind | undefined, problems: Problems, toChecked = false): void {
  const problem = (message: string, ...rest: IssuePath) => problems.push({ path: [...at, ...rest], message });
  const hasValue = rule.value !== undefined;
  if (!toChecked) {
    const toProblem = targetProblem(format, rule.to);
    if (toProblem) problem(toProblem, "to");
  }
  if (rule.from !== undefined && hasValue) problem('give "from" (a fact) or "value" (a constant), not both', "value");
  if (rule.from === undefined && !hasValue) problem('give "from" (a fact) or "value" (a constant)');
  if (rule.default !== undefined && rule.optional) problem('give "default" or "optional", not both', "optional");
  if (hasValue) {
    if (rule.transforms?.length) problem("a constant is sent as it is: no transforms", "transforms");
    if (rule.default !== undefined || rule.optional) problem("a constant is always there: no default or optional", rule.default !== undefined ? "default" : "optional");
    return;
  }
  if (rule.from === undefined) return;
  const unknown = unknownFactProblem(rule.from, item);
  if (unknown) {
    problem(unknown, "from");
    return;
  }
  const fact = item ? ITEM_FACTS[item][rule.from]! : FACTS.get(rule.from)!;
  const refused = stageProblem(item ? `${item} ${rule.from}` : rule.from, fact, stage);
  if (refused) problem(refused, "from");
  for (const { index, message } of checkTransforms(rule.transforms ?? [], { type: fact.type, values: fact.values })) problem(message, "transforms", index);
}

/** The names an each rule's item field gets in a form: the prefix with {n} as 1, 2, … */
export function formItemNames(prefix: string, to: string, count: number): string[] {
  return Array.from({ length: count }, (_, index) => `${prefix.replaceAll(POSITION, String(index + 1))}${to}`);
}

function checkEachRule(rule: FieldRule & { each: ItemKind }, at: IssuePath, format: BodyFormat, stage: Stage, problems: Problems, placements: Placement[]): void {
  const problem = (message: string, ...rest: IssuePath) => problems.push({ path: [...at, ...rest], message });
  for (const key of ["from", "value", "transforms", "default", "optional"] as const) {
    if (rule[key] !== undefined) problem(`an each rule lists its fields: no "${key}" of its own`, key);
  }
  const toProblem = targetProblem(format, rule.to, true);
  if (toProblem) problem(toProblem, "to");
  const limit = rule.each === "vehicle" ? MAX_VEHICLES : MAX_DRIVERS;
  if (rule.max !== undefined && rule.max > limit) problem(`a lead has at most ${limit} ${rule.each}s`, "max");
  const fields = rule.fields;
  if (!fields) {
    problem(`list the fields of each ${rule.each}: "fields": [{ "to": …, "from": … }]`, "fields");
    return;
  }
  const itemPlacements: Placement[] = [];
  fields.forEach((field, index) => {
    const fieldAt = [...at, "fields", index];
    const itemTo = format === "form" ? `${rule.to.replaceAll(POSITION, "1")}${field.to}` : field.to;
    const fieldToProblem = targetProblem(format, itemTo);
    if (fieldToProblem) problems.push({ path: [...fieldAt, "to"], message: fieldToProblem });
    checkValueRule(field, fieldAt, format, stage, rule.each, problems, true);
    if (format === "form") {
      for (const name of formItemNames(rule.to, field.to, rule.max ?? limit)) placements.push({ segments: [name], rule: fieldAt });
    } else if (!fieldToProblem) itemPlacements.push({ segments: targetSegments(format, field.to), rule: fieldAt });
  });
  for (const { rule: place, message } of planConflicts(itemPlacements)) problems.push({ path: [...place, "to"], message });
  if (format !== "form" && !toProblem) placements.push({ segments: targetSegments(format, rule.to), rule: at });
}

function checkHeaders(spec: HttpSpec, problems: Problems): void {
  const authHeader = spec.auth.type === "header" ? spec.auth.name.toLowerCase() : spec.auth.type === "bearer" || spec.auth.type === "basic" ? "authorization" : undefined;
  const testHeader = spec.test?.header?.toLowerCase();
  const seen = new Set<string>();
  for (const name of Object.keys(spec.headers)) {
    const lower = name.toLowerCase();
    const reserved = RESERVED_HEADERS[lower];
    if (!HEADER_NAME.test(name)) problems.push({ path: ["headers", name], message: `"${name}" is not an HTTP header name (letters, digits and - , no spaces)` });
    else if (reserved) problems.push({ path: ["headers", name], message: `${name}: ${reserved}` });
    else if (lower === authHeader) problems.push({ path: ["headers", name], message: `${name} carries the credential ("auth")` });
    else if (lower === testHeader) problems.push({ path: ["headers", name], message: `${name} marks test leads ("test")` });
    if (seen.has(lower)) problems.push({ path: ["headers", name], message: `${name} is given twice` });
    seen.add(lower);
  }
  if (spec.auth.type === "header" && RESERVED_HEADERS[spec.auth.name.toLowerCase()] && spec.auth.name.toLowerCase() !== "authorization") {
    problems.push({ path: ["auth", "name"], message: `${spec.auth.name} cannot carry a credential` });
  }
}

function checkTestMark(spec: HttpSpec, problems: Problems, placements: Placement[]): void {
  const mark = spec.test;
  if (!mark) return;
  const given = (["to", "header", "query"] as const).filter((key) => mark[key] !== undefined);
  if (given.length !== 1) {
    problems.push({ path: ["test"], message: 'mark a test lead with one of "to" (a field), "header" or "query"' });
    return;
  }
  if (mark.to !== undefined) {
    const toProblem = targetProblem(spec.format, mark.to);
    if (toProblem) problems.push({ path: ["test", "to"], message: toProblem });
    else placements.push({ segments: targetSegments(spec.format, mark.to), rule: ["test"] });
  }
  if (mark.query !== undefined && spec.auth.type === "query" && spec.auth.name === mark.query) problems.push({ path: ["test", "query"], message: `${mark.query} carries the credential` });
  if (mark.header !== undefined && spec.auth.type === "header" && spec.auth.name.toLowerCase() === mark.header.toLowerCase()) {
    problems.push({ path: ["test", "header"], message: `${mark.header} carries the credential` });
  }
}

/** Every problem of a parsed spec for a post or a ping, each at its place. */
function specProblems(spec: Variant, stage: Stage): SpecProblem[] {
  if (spec.format === "quoteridge") return [];
  const problems: Problems = [];
  const placements: Placement[] = [];
  if (spec.method === "GET" && spec.format !== "form") problems.push({ path: ["method"], message: "GET sends the fields in the address: only for format form" });
  spec.fields.forEach((rule, index) => {
    const at = ["fields", index];
    if (rule.each !== undefined) {
      checkEachRule(rule as FieldRule & { each: ItemKind }, at, spec.format, stage, problems, placements);
      return;
    }
    if (rule.fields !== undefined) problems.push({ path: [...at, "fields"], message: 'fields are for an each rule: add "each": "vehicle" or "driver"' });
    if (rule.max !== undefined) problems.push({ path: [...at, "max"], message: 'max is for an each rule: add "each"' });
    checkValueRule(rule, at, spec.format, stage, undefined, problems);
    if (!targetProblem(spec.format, rule.to)) placements.push({ segments: targetSegments(spec.format, rule.to), rule: at });
  });
  checkHeaders(spec, problems);
  checkTestMark(spec, problems, placements);
  for (const { rule, message } of planConflicts(placements)) problems.push({ path: [...rule, "to"], message });
  problems.push(...checkAnswer(spec.answer, stage, ["answer"]));
  return problems;
}

function specSchema(stage: Stage) {
  return variants.superRefine((spec, ctx) => {
    for (const { path, message } of specProblems(spec, stage)) ctx.addIssue({ code: "custom", path, message });
  });
}

/** A buyer's post: how a lead is sent to it. */
export const requestSpecSchema = specSchema("post");
/** A ping/post buyer's ping: no contact details, answered with a bid or none. */
export const pingSpecSchema = specSchema("ping");

/** A parsed spec (post or ping: the same shape). */
export type RequestSpec = z.output<typeof requestSpecSchema>;
/** A spec as written (defaults not yet filled in): the buyer files and the console's form. */
export type RequestSpecInput = z.input<typeof requestSpecSchema>;

/** The credentials a spec names, for the buyer's schema to require in its credentials map. */
export function specCredentialNames(spec: RequestSpec): string[] {
  return spec.format === "quoteridge" || spec.auth.type === "none" ? [] : [spec.auth.credential];
}

export type ParsedSpec = { ok: true; spec: RequestSpec } | { ok: false; problems: { path: string; message: string }[] };

/** Parses a spec for a post or a ping; on failure every problem with its place ("fields.3.from"). */
export function parseSpec(raw: unknown, stage: Stage): ParsedSpec {
  const parsed = (stage === "ping" ? pingSpecSchema : requestSpecSchema).safeParse(raw);
  if (parsed.success) return { ok: true, spec: parsed.data };
  return { ok: false, problems: parsed.error.issues.map((issue) => ({ path: issue.path.map(String).join("."), message: issue.message })) };
}
