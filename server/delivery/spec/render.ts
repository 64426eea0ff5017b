/**
 * A parsed spec's field map compiled into a renderer (issue 43, items 2 and 5): once per spec,
 * every fact name is resolved to its reader, every transform list to one function and every path
 * to a tree, so a render only reads values and builds the body (the target is 50 µs per delivery
 * with 100 buyers: npm run bench:spec).
 *
 * A render gives the exact request (method, URL with a query credential, headers with the
 * credential, body and content type) and a masked copy of it (mask.ts), or, when the lead lacks a
 * required value, which value it lacks ({ ok: false, missing: "driver.2.dateOfBirth", field }).
 * The caller adds only its transport's own headers (User-Agent, Idempotency-Key).
 */
import { XMLBuilder } from "fast-xml-parser";
import { FACTS, ITEM_FACTS, isAbsent, type ItemKind, type MaskKind, type RenderInput, type Scalar } from "./facts";
import { compileTransforms, TransformFailure, type CompiledTransform } from "./transforms";
import { POSITION, targetSegments, type BodyFormat } from "./paths";
import { HIDDEN, maskValue } from "./mask";
import type { HttpSpec, ItemRule, SpecAuth } from "./schema";
import { MAX_DRIVERS, MAX_VEHICLES } from "../../../shared/lead/fields";

export interface RenderedRequest {
  method: "POST" | "PUT" | "GET";
  /** The buyer's address with the query credential (and, for GET, the fields) added. */
  url: string;
  /** Lower-case names: the content type, the spec's constant headers, the credential, the test mark. */
  headers: Record<string, string>;
  /** null for GET. */
  body: string | null;
  contentType: string | null;
}

export type RenderResult =
  | { ok: true; request: RenderedRequest; masked: RenderedRequest }
  /** Not sent: `missing` is the fact the lead lacks ("driver.2.dateOfBirth", "credentials.token"), `field` the buyer's field; `why` when the value is there but could not be transformed. */
  | { ok: false; missing: string; field: string; why?: string };

/** The buyer's credentials by name (the spec's auth names one): kept apart from the spec. */
export type Credentials = Readonly<Record<string, string | undefined>>;

/** Where the request goes and with what: the buyer's own settings, not the spec's. */
export interface RenderTarget {
  /** The buyer's post address, or its ping address for a ping spec. */
  url: string;
  credentials: Credentials;
}

type Fallback = { kind: "required" } | { kind: "optional" } | { kind: "default"; value: Scalar };

interface Leaf {
  kind: "leaf";
  /** The value before transforms; `item` and `position` inside an each rule. */
  read: (input: RenderInput, item: unknown, position: number) => Scalar | undefined;
  /** The fact, for "missing" ("vehicle.2.year"); inside an each rule, the item's fact name. */
  fact: string;
  transform: CompiledTransform | undefined;
  fallback: Fallback;
  mask: MaskKind | undefined;
  /** The test mark: only in a test lead's request. */
  onlyTest: boolean;
}

interface Each {
  kind: "each";
  item: ItemKind;
  max: number;
  /** json/xml: the item's own tree. */
  tree: Branch;
}

interface Branch {
  kind: "branch";
  children: [key: string, node: Leaf | Each | Branch][];
}

/** One form field, or one field of every item of an each rule ("V{n}_" + "Year"). */
type FormEntry = { name: string; leaf: Leaf } | { each: ItemKind; max: number; prefix: string; fields: { to: string; leaf: Leaf }[] };

/** Why a render stopped: the value it lacked, and where. */
interface Failure {
  missing: string;
  field: string;
  why?: string;
}

const OMIT: unique symbol = Symbol("omit");

function compileLeaf(rule: ItemRule, item: ItemKind | undefined, onlyTest = false): Leaf {
  const fallback: Fallback = rule.default !== undefined ? { kind: "default", value: rule.default } : rule.optional ? { kind: "optional" } : { kind: "required" };
  const base = { kind: "leaf" as const, transform: compileTransforms(rule.transforms ?? []), fallback, onlyTest };
  if (rule.from === undefined) {
    const constant = rule.value ?? null;
    return { ...base, read: () => constant, fact: "(constant)", transform: undefined, fallback: { kind: "required" }, mask: undefined };
  }
  if (item) {
    const fact = ITEM_FACTS[item][rule.from]!;
    const get = fact.get as (record: unknown, position: number, input: RenderInput) => Scalar | undefined;
    return { ...base, read: (input, record, position) => get(record, position, input), fact: rule.from, mask: fact.mask };
  }
  const fact = FACTS.get(rule.from)!;
  return { ...base, read: (input) => fact.get(input), fact: rule.from, mask: fact.mask };
}

/** Puts a node at its path in the tree, creating the branches on the way (paths were checked when parsed). */
function place(tree: Branch, segments: readonly string[], node: Leaf | Each): void {
  let branch = tree;
  for (const segment of segments.slice(0, -1)) {
    let next = branch.children.find(([key]) => key === segment)?.[1];
    if (next === undefined) {
      next = { kind: "branch", children: [] };
      branch.children.push([segment, next]);
    }
    branch = next as Branch;
  }
  branch.children.push([segments[segments.length - 1]!, node]);
}

const MAX_ITEMS: Readonly<Record<ItemKind, number>> = { vehicle: MAX_VEHICLES, driver: MAX_DRIVERS };
const itemsOf = (input: RenderInput, kind: ItemKind): readonly unknown[] => (kind === "vehicle" ? input.lead.vehicles : input.lead.drivers);

/**
 * A leaf's value: the fact (or constant), transformed; its default when absent; OMIT when absent
 * and optional; OMIT with `state.failure` set when absent and required, or not transformable.
 */
function leafValue(leaf: Leaf, input: RenderInput, item: unknown, position: number, state: { failure?: Failure }, field: () => string, itemKind?: ItemKind): Scalar | typeof OMIT {
  const raw = leaf.read(input, item, position);
  const missing = () => (itemKind ? `${itemKind}.${position}.${leaf.fact}` : leaf.fact);
  if (isAbsent(raw)) {
    if (leaf.fallback.kind === "default") return leaf.fallback.value;
    if (leaf.fallback.kind === "optional") return OMIT;
    state.failure = { missing: missing(), field: field() };
    return OMIT;
  }
  if (!leaf.transform) return raw;
  const value = leaf.transform(raw);
  if (value instanceof TransformFailure) {
    state.failure = { missing: missing(), field: field(), why: value.why };
    return OMIT;
  }
  return value;
}

/** Fills `out` and `masked` from a json/xml tree; false when a required value is missing. */
function fillTree(format: BodyFormat, branch: Branch, path: string, input: RenderInput, item: unknown, position: number, itemKind: ItemKind | undefined, out: Record<string, unknown>, masked: Record<string, unknown>, state: { failure?: Failure }): boolean {
  const separator = format === "json" ? "." : "/";
  for (const [key, node] of branch.children) {
    const here = path === "" ? key : `${path}${separator}${key}`;
    if (node.kind === "leaf") {
      if (node.onlyTest && input.test !== true) continue;
      const value = leafValue(node, input, item, position, state, () => here, itemKind);
      if (state.failure) return false;
      if (value === OMIT) continue;
      const sent = format === "xml" ? xmlText(value) : value;
      out[key] = sent;
      masked[key] = node.mask ? maskValue(node.mask, sent) : sent;
    } else if (node.kind === "branch") {
      const child: Record<string, unknown> = {};
      const maskedChild: Record<string, unknown> = {};
      if (!fillTree(format, node, here, input, item, position, itemKind, child, maskedChild, state)) return false;
      out[key] = child;
      masked[key] = maskedChild;
    } else {
      const records = itemsOf(input, node.item);
      const count = Math.min(records.length, node.max);
      const list: Record<string, unknown>[] = [];
      const maskedList: Record<string, unknown>[] = [];
      for (let index = 0; index < count; index += 1) {
        const child: Record<string, unknown> = {};
        const maskedChild: Record<string, unknown> = {};
        const itemPath = format === "json" ? `${here}[${index}]` : `${here}[${index + 1}]`;
        if (!fillTree(format, node.tree, itemPath, input, records[index], index + 1, node.item, child, maskedChild, state)) return false;
        list.push(child);
        maskedList.push(maskedChild);
      }
      out[key] = list;
      masked[key] = maskedList;
    }
  }
  return true;
}

/**
 * XML has no null (an absent value with a null default is an empty element), and XML 1.0 has no
 * control characters but tab and line breaks: a stray one would make the whole document unreadable.
 */
function xmlText(value: Scalar): Scalar {
  if (value === null) return "";
  // eslint-disable-next-line no-control-regex -- removing control characters is the point
  return typeof value === "string" && /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(value) ? value.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "") : value;
}

const asFormValue = (value: Scalar): string => (value === null ? "" : String(value));

/** Fills the form's fields in order; false when a required value is missing. */
function fillForm(entries: readonly FormEntry[], input: RenderInput, out: [string, string][], masked: [string, string][], state: { failure?: Failure }): boolean {
  const add = (name: string, leaf: Leaf, value: Scalar) => {
    out.push([name, asFormValue(value)]);
    masked.push([name, asFormValue(leaf.mask ? maskValue(leaf.mask, value) : value)]);
  };
  for (const entry of entries) {
    if ("leaf" in entry) {
      if (entry.leaf.onlyTest && input.test !== true) continue;
      const value = leafValue(entry.leaf, input, undefined, 0, state, () => entry.name);
      if (state.failure) return false;
      if (value !== OMIT) add(entry.name, entry.leaf, value);
      continue;
    }
    const records = itemsOf(input, entry.each);
    const count = Math.min(records.length, entry.max);
    for (let index = 0; index < count; index += 1) {
      const prefix = entry.prefix.replaceAll(POSITION, String(index + 1));
      for (const field of entry.fields) {
        const name = `${prefix}${field.to}`;
        const value = leafValue(field.leaf, input, records[index], index + 1, state, () => name, entry.each);
        if (state.failure) return false;
        if (value !== OMIT) add(name, field.leaf, value);
      }
    }
  }
  return true;
}

/** "https://b.example/leads" + key=value, before any #fragment. */
function withQuery(url: string, query: string): string {
  if (query === "") return url;
  const hash = url.indexOf("#");
  const [base, fragment] = hash === -1 ? [url, ""] : [url.slice(0, hash), url.slice(hash)];
  const joiner = !base.includes("?") ? "?" : base.endsWith("?") || base.endsWith("&") ? "" : "&";
  return `${base}${joiner}${query}${fragment}`;
}

const DEFAULT_CONTENT_TYPES: Readonly<Record<BodyFormat, string>> = {
  json: "application/json",
  form: "application/x-www-form-urlencoded",
  xml: "application/xml",
};

/** The credential's header or query parameter, real and masked; a string when the credential is missing. */
function authParts(auth: SpecAuth, credentials: Credentials): { header?: [string, string, string]; query?: [string, string] } | string {
  if (auth.type === "none") return {};
  const secret = Object.hasOwn(credentials, auth.credential) ? credentials[auth.credential] : undefined;
  if (typeof secret !== "string" || secret === "") return auth.credential;
  switch (auth.type) {
    case "query":
      return { query: [`${encodeURIComponent(auth.name)}=${encodeURIComponent(secret)}`, `${encodeURIComponent(auth.name)}=${HIDDEN}`] };
    case "header":
      return { header: [auth.name.toLowerCase(), secret, HIDDEN] };
    case "bearer":
      return { header: ["authorization", `Bearer ${secret}`, `Bearer ${HIDDEN}`] };
    case "basic":
      return { header: ["authorization", `Basic ${Buffer.from(`${auth.username}:${secret}`).toString("base64")}`, `Basic ${HIDDEN}`] };
  }
}

export type Renderer = (input: RenderInput, target: RenderTarget) => RenderResult;

/** The spec's renderer. The spec must come from requestSpecSchema or pingSpecSchema. */
export function compileRenderer(spec: HttpSpec): Renderer {
  const format = spec.format;
  const tree: Branch = { kind: "branch", children: [] };
  const form: FormEntry[] = [];
  for (const rule of spec.fields) {
    if (rule.each !== undefined) {
      const max = rule.max ?? MAX_ITEMS[rule.each];
      const fields = (rule.fields ?? []).map((field) => ({ to: field.to, leaf: compileLeaf(field, rule.each) }));
      if (format === "form") {
        form.push({ each: rule.each, max, prefix: rule.to, fields });
      } else {
        const item: Branch = { kind: "branch", children: [] };
        for (const field of fields) place(item, targetSegments(format, field.to), field.leaf);
        place(tree, targetSegments(format, rule.to), { kind: "each", item: rule.each, max, tree: item });
      }
      continue;
    }
    const leaf = compileLeaf(rule, undefined);
    if (format === "form") form.push({ name: rule.to, leaf });
    else place(tree, targetSegments(format, rule.to), leaf);
  }
  const mark = spec.test;
  if (mark?.to !== undefined) {
    const leaf = compileLeaf({ to: mark.to, value: mark.value }, undefined, true);
    if (format === "form") form.push({ name: mark.to, leaf });
    else place(tree, targetSegments(format, mark.to), leaf);
  }
  const markHeader = mark?.header !== undefined ? ([mark.header.toLowerCase(), asFormValue(mark.value)] as const) : undefined;
  const markQuery = mark?.query !== undefined ? `${encodeURIComponent(mark.query)}=${encodeURIComponent(asFormValue(mark.value))}` : undefined;

  const method = spec.method;
  const inQuery = method === "GET";
  const contentType = inQuery ? null : (spec.contentType ?? DEFAULT_CONTENT_TYPES[format]);
  const constantHeaders: Record<string, string> = {};
  if (contentType !== null) constantHeaders["content-type"] = contentType;
  for (const [name, value] of Object.entries(spec.headers)) constantHeaders[name.toLowerCase()] = value;
  const xml = format === "xml" ? { builder: new XMLBuilder({ ignoreAttributes: true, suppressEmptyNode: false, format: false }), root: spec.xml.root, declaration: spec.xml.declaration } : undefined;
  const serialize = (body: Record<string, unknown>): string => {
    if (!xml) return JSON.stringify(body);
    const text = xml.builder.build({ [xml.root]: body }) as string;
    return xml.declaration ? `<?xml version="1.0" encoding="UTF-8"?>${text}` : text;
  };

  return (input, target) => {
    const state: { failure?: Failure } = {};
    const auth = authParts(spec.auth, target.credentials);
    if (typeof auth === "string") return { ok: false, missing: `credentials.${auth}`, field: "auth", why: `the buyer has no credential "${auth}"` };
    let body: string | null;
    let maskedBody: string | null;
    let fieldsQuery = "";
    let maskedFieldsQuery = "";
    if (format === "form") {
      const pairs: [string, string][] = [];
      const maskedPairs: [string, string][] = [];
      if (!fillForm(form, input, pairs, maskedPairs, state)) return { ok: false, ...state.failure! };
      const encoded = new URLSearchParams(pairs).toString();
      const maskedEncoded = new URLSearchParams(maskedPairs).toString();
      if (inQuery) {
        [body, maskedBody, fieldsQuery, maskedFieldsQuery] = [null, null, encoded, maskedEncoded];
      } else {
        [body, maskedBody] = [encoded, maskedEncoded];
      }
    } else {
      const out: Record<string, unknown> = {};
      const masked: Record<string, unknown> = {};
      if (!fillTree(format, tree, "", input, undefined, 0, undefined, out, masked, state)) return { ok: false, ...state.failure! };
      body = serialize(out);
      maskedBody = serialize(masked);
    }
    const test = input.test === true;
    const query = [fieldsQuery, auth.query?.[0] ?? "", test && markQuery ? markQuery : ""].filter(Boolean).join("&");
    const maskedQuery = [maskedFieldsQuery, auth.query?.[1] ?? "", test && markQuery ? markQuery : ""].filter(Boolean).join("&");
    const headers = { ...constantHeaders };
    const maskedHeaders = { ...constantHeaders };
    if (auth.header) {
      headers[auth.header[0]] = auth.header[1];
      maskedHeaders[auth.header[0]] = auth.header[2];
    }
    if (test && markHeader) {
      headers[markHeader[0]] = markHeader[1];
      maskedHeaders[markHeader[0]] = markHeader[1];
    }
    return {
      ok: true,
      request: { method, url: withQuery(target.url, query), headers, body, contentType },
      masked: { method, url: withQuery(target.url, maskedQuery), headers: maskedHeaders, body: maskedBody, contentType },
    };
  };
}
