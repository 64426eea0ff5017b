/**
 * A buyer's posting spec (server/delivery/spec/, issue 43) in the console's words: its auth, its
 * field map as rows "to ← from (transforms)", its answer rules as sentences, and what changed
 * between two versions of it for the history ("Posting spec (post) changed by ana: 3 field rules
 * added (Zip, DOB, Email), 1 answer rule changed."), never raw JSON. Read from the stored spec,
 * which buyerSchema has checked; a history entry's spec is read defensively (an older release may
 * have written it), so anything unexpected is said plainly rather than thrown.
 */
import type { AnswerRule, FieldRule, RequestSpec, SpecAuth, Transform } from "../delivery/spec";
import type { SpecFieldRowView } from "../../shared/admin-views";

type Entry = Record<string, unknown>;
const isEntry = (value: unknown): value is Entry => value !== null && typeof value === "object" && !Array.isArray(value);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const quoted = (value: unknown) => (typeof value === "string" ? `"${value}"` : value === null ? "null" : String(value));
const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

export const FORMAT_WORDS: Readonly<Record<string, string>> = {
  quoteridge: "our signed JSON (quoteridge)",
  json: "JSON",
  form: "a form (application/x-www-form-urlencoded)",
  xml: "XML",
};

/** How the spec authenticates, naming the credential (never its value). */
export function authWords(auth: SpecAuth | undefined): string {
  if (!auth) return "none";
  switch (auth.type) {
    case "none":
      return "none";
    case "query":
      return `the credential ${auth.credential} in the query parameter ${auth.name}`;
    case "header":
      return `the credential ${auth.credential} in the header ${auth.name}`;
    case "bearer":
      return `a bearer token: the credential ${auth.credential}`;
    case "basic":
      return `basic auth as ${auth.username} with the credential ${auth.credential}`;
  }
}

const PHONE_WORDS: Readonly<Record<string, string>> = { "10digits": "10 digits", e164: "E.164", dashed: "415-555-0134", parens: "(415) 555-0134" };

/** One transform in words: "own → Owned, finance → Financed, otherwise Other", "date as MM/DD/YYYY". */
export function transformWords(transform: Transform): string {
  switch (transform.type) {
    case "map": {
      const pairs = Object.entries(transform.values).map(([from, to]) => `${from} → ${quoted(to)}`);
      if (transform.otherwise !== undefined) pairs.push(`otherwise ${quoted(transform.otherwise)}`);
      return pairs.join(", ");
    }
    case "date":
      return `date as ${transform.format}`;
    case "phone":
      return `phone as ${PHONE_WORDS[transform.format] ?? transform.format}`;
    case "boolean":
      return `as ${transform.as}`;
    case "number":
      return "as a number";
    case "string":
      return "as text";
    case "truncate":
      return `at most ${transform.max} characters`;
    case "case":
      return `${transform.to} case`;
  }
}

/** What a rule does when the lead lacks the value, and its transforms, in words. */
function ruleNotes(rule: Pick<FieldRule, "transforms" | "default" | "optional">): string {
  const notes = (rule.transforms ?? []).map(transformWords);
  if (rule.default !== undefined) notes.push(`default ${quoted(rule.default)}`);
  if (rule.optional) notes.push("left out when absent");
  return notes.join("; ");
}

const source = (rule: Pick<FieldRule, "from" | "value">, item?: string) => (rule.from !== undefined ? (item ? `${item} ${rule.from}` : rule.from) : `the constant ${quoted(rule.value ?? null)}`);

/** The field map as rows, in the order sent; an "each" rule is a row, then one per item field. */
export function fieldRows(spec: RequestSpec): SpecFieldRowView[] {
  if (spec.format === "quoteridge") return [];
  const rows: SpecFieldRowView[] = [];
  for (const rule of spec.fields) {
    if (rule.each !== undefined) {
      rows.push({ to: rule.to, from: `every ${rule.each}${rule.max !== undefined ? ` (at most ${rule.max})` : ""}`, transforms: "" });
      for (const field of rule.fields ?? []) {
        const to = spec.format === "form" ? `${rule.to}${field.to}` : `${rule.to} › ${field.to}`;
        rows.push({ to, from: source(field, `each ${rule.each}'s`), transforms: ruleNotes(field) });
      }
      continue;
    }
    rows.push({ to: rule.to, from: source(rule), transforms: ruleNotes(rule) });
  }
  if (spec.test) {
    const where = spec.test.header !== undefined ? `header ${spec.test.header}` : spec.test.query !== undefined ? `query parameter ${spec.test.query}` : (spec.test.to ?? "");
    rows.push({ to: where, from: `${quoted(spec.test.value)} on test leads only`, transforms: "" });
  }
  return rows;
}

const STATUS_WORDS = (status: AnswerRule["status"]) => {
  if (status === undefined) return undefined;
  const list = Array.isArray(status) ? status : [status];
  return `the status is ${list.map(String).join(" or ")}`;
};

const valueWords = (what: string, value: AnswerRule["price"]) => {
  if (!value) return undefined;
  if (value.path !== undefined) return `${what} from ${value.path}`;
  if (value.group !== undefined) return `${what} from the pattern's group ${value.group}`;
  return `${what} "${value.value ?? ""}"`;
};

const OUTCOME_WORDS: Readonly<Record<AnswerRule["outcome"], string>> = { accepted: "accepted", refused: "refused", retry: "tried again", bid: "a bid", no_bid: "no bid" };

/** One answer rule as a sentence: "When the status is 200 and response/status is "success": accepted, price from response/price." */
export function answerRuleSentence(rule: AnswerRule): string {
  const tests: string[] = [];
  const status = STATUS_WORDS(rule.status);
  if (status) tests.push(status);
  const nocase = rule.ignoreCase ? " (any case)" : "";
  if (rule.path !== undefined) {
    if (rule.equals !== undefined) tests.push(`${rule.path} is ${Array.isArray(rule.equals) ? `one of ${rule.equals.map(quoted).join(", ")}` : quoted(rule.equals)}${nocase}`);
    else if (rule.exists === false) tests.push(`there is no ${rule.path}`);
    else if (rule.pattern !== undefined) tests.push(`${rule.path} matches /${rule.pattern}/${nocase}`);
    else tests.push(`there is a ${rule.path}`);
  } else if (rule.pattern !== undefined) tests.push(`the body matches /${rule.pattern}/${nocase}`);
  const values = [valueWords("price", rule.price), valueWords("their lead id", rule.leadId), valueWords("bid id", rule.bidId), valueWords("reason", rule.reason)].filter((part): part is string => part !== undefined);
  return `When ${tests.join(" and ") || "anything"}: ${OUTCOME_WORDS[rule.outcome]}${values.length > 0 ? `, ${values.join(", ")}` : ""}.`;
}

/** The spec's answer rules as sentences, in order (the first that matches decides), and what happens otherwise. */
export function answerSentences(spec: RequestSpec): string[] {
  if (spec.format === "quoteridge") return [];
  const body = spec.answer.body === "text" ? "as text" : `as ${spec.answer.body.toUpperCase()}`;
  return [`The answer's body is read ${body}; the first rule that matches decides.`, ...spec.answer.rules.map(answerRuleSentence), "Any other answer is an error: recorded with an excerpt and tried again, never a sale."];
}

/** A short summary of a spec: "form, POST, 23 field rules, 4 answer rules, auth: …". */
export function specSummary(spec: unknown): string {
  if (!isEntry(spec)) return "none";
  if (spec.format === "quoteridge") return FORMAT_WORDS.quoteridge!;
  const fields = Array.isArray(spec.fields) ? spec.fields.length : 0;
  const rules = isEntry(spec.answer) && Array.isArray(spec.answer.rules) ? spec.answer.rules.length : 0;
  const auth = isEntry(spec.auth) ? authWords(spec.auth as SpecAuth) : "none";
  return `${String(spec.format)}, ${typeof spec.method === "string" ? spec.method : "POST"}, ${plural(fields, "field rule")}, ${plural(rules, "answer rule")}, authentication: ${auth}`;
}

/** What changed in a list of rules matched by `key`: "2 added (Zip, DOB), 1 removed (Fax), 1 changed (Phone)". */
function listChanges(label: string, before: unknown, after: unknown, key: (rule: Entry, index: number) => string): string | undefined {
  const was = (Array.isArray(before) ? before : []).filter(isEntry);
  const now = (Array.isArray(after) ? after : []).filter(isEntry);
  const wasByKey = new Map(was.map((rule, index) => [key(rule, index), rule]));
  const nowByKey = new Map(now.map((rule, index) => [key(rule, index), rule]));
  const added = [...nowByKey.keys()].filter((name) => !wasByKey.has(name));
  const removed = [...wasByKey.keys()].filter((name) => !nowByKey.has(name));
  const changed = [...nowByKey.keys()].filter((name) => wasByKey.has(name) && !same(wasByKey.get(name), nowByKey.get(name)));
  const names = (list: string[]) => (list.length <= 5 ? ` (${list.join(", ")})` : ` (${list.slice(0, 5).join(", ")}, …)`);
  const parts = [
    added.length > 0 ? `${plural(added.length, label)} added${names(added)}` : "",
    removed.length > 0 ? `${plural(removed.length, label)} removed${names(removed)}` : "",
    changed.length > 0 ? `${plural(changed.length, label)} changed${names(changed)}` : "",
  ].filter(Boolean);
  if (parts.length === 0 && !same(was.map((rule, index) => key(rule, index)), now.map((rule, index) => key(rule, index)))) parts.push(`${label}s reordered`);
  return parts.length > 0 ? parts.join(", ") : undefined;
}

/** What changed between two versions of one stage's spec, in parts of a sentence. */
function specChanges(before: Entry, after: Entry): string[] {
  const parts: string[] = [];
  if (before.format !== after.format) parts.push(`format from ${FORMAT_WORDS[String(before.format)] ?? String(before.format)} to ${FORMAT_WORDS[String(after.format)] ?? String(after.format)}`);
  if (after.format === "quoteridge" || before.format === "quoteridge") return parts;
  if ((before.method ?? "POST") !== (after.method ?? "POST")) parts.push(`method from ${String(before.method ?? "POST")} to ${String(after.method ?? "POST")}`);
  if (!same(before.auth, after.auth)) parts.push(`authentication from ${authWords(before.auth as SpecAuth | undefined)} to ${authWords(after.auth as SpecAuth | undefined)}`);
  if (!same(before.headers ?? {}, after.headers ?? {})) parts.push("constant headers changed");
  if (before.contentType !== after.contentType) parts.push(`content type ${after.contentType === undefined ? "back to the format's own" : `set to ${String(after.contentType)}`}`);
  if (!same(before.xml, after.xml)) parts.push("XML root changed");
  const fields = listChanges("field rule", before.fields, after.fields, (rule, index) => (typeof rule.to === "string" ? rule.to : `#${index + 1}`));
  if (fields) parts.push(fields);
  const answerBefore = isEntry(before.answer) ? before.answer : {};
  const answerAfter = isEntry(after.answer) ? after.answer : {};
  if (answerBefore.body !== answerAfter.body) parts.push(`answer read as ${String(answerAfter.body)} (was ${String(answerBefore.body)})`);
  const rules = listChanges("answer rule", answerBefore.rules, answerAfter.rules, (_rule, index) => `#${index + 1}`);
  if (rules) parts.push(rules);
  if (!same(before.test, after.test)) parts.push("test mark changed");
  return parts;
}

/** A spec change for the history, one sentence per stage that changed. */
export function specSentences(before: unknown, after: unknown, by: string): string[] {
  const was = isEntry(before) ? before : {};
  const now = isEntry(after) ? after : {};
  const sentences: string[] = [];
  for (const stage of ["post", "ping"]) {
    const old = was[stage];
    const fresh = now[stage];
    if (same(old, fresh)) continue;
    if (!isEntry(old)) sentences.push(`Posting spec (${stage}) set by ${by}: ${specSummary(fresh)}.`);
    else if (!isEntry(fresh)) sentences.push(`Posting spec (${stage}) removed by ${by}: ${stage === "post" ? "leads go as our signed JSON (quoteridge) again" : "pings go as our signed JSON again"}.`);
    else {
      const parts = specChanges(old, fresh);
      sentences.push(`Posting spec (${stage}) changed by ${by}: ${parts.length > 0 ? parts.join("; ") : "reworded"}.`);
    }
  }
  return sentences;
}

/** Credentials as they change (history holds only their fingerprints): set, replaced, removed. */
export function credentialSentences(before: unknown, after: unknown, by: string): string[] {
  const was = isEntry(before) ? before : {};
  const now = isEntry(after) ? after : {};
  const sentences: string[] = [];
  for (const name of [...new Set([...Object.keys(now), ...Object.keys(was)])]) {
    const old = was[name];
    const fresh = now[name];
    if (old === fresh) continue;
    if (old === undefined) sentences.push(`Credential ${name} set by ${by} (${String(fresh)}).`);
    else if (fresh === undefined) sentences.push(`Credential ${name} removed by ${by} (it was ${String(old)}).`);
    else sentences.push(`Credential ${name} replaced by ${by} (now ${String(fresh)}, was ${String(old)}).`);
  }
  return sentences;
}
