/**
 * A buyer's or source's history in sentences (issue 42, item 8): "Price rule Homeowners +$4.00
 * added by ana (when homeowner: yes).", "Paused by ana.", instead of dotted keys and JSON. The
 * store keeps each change as the whole entry before and after (server/settings/store.ts, secrets
 * already fingerprints); this compares the two field by field, in the form's order, and says what
 * each difference means with the form's own words.
 */
import type { SettingsChange } from "../settings/store";
import { credentialSentences, specSentences } from "./spec-words";
import { REQUIREMENT_KEYS, REQUIREMENT_WORDS, requirementValueWords } from "./check-words";

type Entry = Record<string, unknown>;

/** "console:ana" → "ana"; the other actors the store writes, in words. */
export function actorWords(actor: string): string {
  if (actor.startsWith("console:")) return actor.slice("console:".length);
  if (actor === "cli") return "the command line (npm run buyers)";
  if (actor === "startup") return "the start-up import of BUYERS_FILE";
  return actor;
}

const money = (value: unknown) => {
  const dollars = typeof value === "number" ? value : Number(value);
  return `${dollars < 0 ? "-" : ""}$${Math.abs(dollars).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
};
const signedMoney = (value: unknown) => {
  const dollars = typeof value === "number" ? value : Number(value);
  return `${dollars < 0 ? "-" : "+"}${money(Math.abs(dollars))}`;
};
const count = (value: unknown) => (typeof value === "number" ? value.toLocaleString("en-US") : String(value));
const milliseconds = (value: unknown) => `${count(value)} ms`;
const yesNo = (value: unknown) => (value ? "yes" : "no");
const isEntry = (value: unknown): value is Entry => value !== null && typeof value === "object" && !Array.isArray(value);
const listOf = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : value === undefined || value === null ? [] : [String(value)]);

const WEEKDAY_NAMES: Record<string, string> = { mon: "Mon", tue: "Tue", wed: "Wed", thu: "Thu", fri: "Fri", sat: "Sat", sun: "Sun" };

function scheduleWords(value: unknown): string {
  if (!isEntry(value)) return "always";
  const days = listOf(value.days).map((day) => WEEKDAY_NAMES[day] ?? day);
  return `${days.length === 7 ? "every day" : days.join(", ")} ${String(value.from ?? "00:00")}–${String(value.to ?? "24:00")} (${String(value.timeZone ?? "")})`;
}

/** A filter's name in the form's words. */
const FILTER_NAMES: Record<string, string> = {
  zips: "ZIP codes",
  zipPrefixes: "ZIP prefixes",
  driverAge: "drivers' ages",
  currentlyInsured: "currently insured",
  insuredForAtLeast: "insured for at least",
  homeowner: "homeowner",
  vehicles: "vehicles",
  drivers: "drivers",
  maxAccidents: "accidents at most",
  maxTickets: "tickets at most",
  maxClaims: "claims at most",
  dui: "DUI",
  sr22: "SR-22",
  coverage: "coverage wanted",
  states: "states",
};

/** A filter's value in words: "at least 21", "include 90210, 90211; exclude 10001", "yes". */
function filterValue(key: string, value: unknown): string {
  if (typeof value === "boolean") return key === "dui" || key === "sr22" ? (value ? "only with it" : "none with it") : yesNo(value);
  if (Array.isArray(value)) return value.map(String).join(", ");
  if (isEntry(value)) {
    if ("min" in value || "max" in value) {
      const { min, max } = value;
      if (min !== undefined && max !== undefined) return `${count(min)} to ${count(max)}`;
      return min !== undefined ? `at least ${count(min)}` : `at most ${count(max)}`;
    }
    return [listOf(value.include).length > 0 ? `include ${listOf(value.include).join(", ")}` : "", listOf(value.exclude).length > 0 ? `exclude ${listOf(value.exclude).join(", ")}` : ""].filter(Boolean).join("; ");
  }
  return String(value);
}

/** A price rule's condition: "homeowner: yes; states: CA, TX" ("always" when it has none). */
function conditionWords(when: unknown): string {
  if (!isEntry(when)) return "always";
  const words = Object.entries(when)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${FILTER_NAMES[key] ?? key}: ${filterValue(key, value)}`);
  return words.length > 0 ? words.join("; ") : "always";
}

const ruleWords = (rule: Entry) => `${signedMoney(rule.add)} when ${conditionWords(rule.when)}`;

/** One scalar setting: its label and how its value reads. */
interface Scalar {
  label: string;
  format: (value: unknown) => string;
}
const text = (value: unknown) => String(value);

const SCALARS: Record<string, Scalar> = {
  name: { label: "Name", format: text },
  phone: { label: "Phone", format: text },
  mode: { label: "Mode", format: (value) => (value === "pingpost" ? "ping/post" : String(value)) },
  url: { label: "Post URL", format: text },
  pingUrl: { label: "Ping URL", format: text },
  webhookUrl: { label: "Webhook URL", format: text },
  timeoutMs: { label: "Post timeout", format: milliseconds },
  pingTimeoutMs: { label: "Ping timeout", format: milliseconds },
  priority: { label: "Priority", format: count },
  sandbox: { label: "Sandbox (test leads only)", format: yesNo },
  timeZone: { label: "Time zone", format: text },
  "caps.hour": { label: "Cap per hour", format: count },
  "caps.day": { label: "Cap per day", format: count },
  "caps.week": { label: "Cap per week", format: count },
  "caps.month": { label: "Cap per month", format: count },
  "budget.day": { label: "Budget per day", format: money },
  "budget.month": { label: "Budget per month", format: money },
  price: { label: "Base price", format: money },
  // Sources.
  payout: { label: "Payout per sold lead", format: money },
  floor: { label: "Auction floor", format: money },
  postbackUrl: { label: "Postback URL", format: text },
};

/** The settings in the form's order; anything else (a field a later release adds) follows, by name. */
const ORDER = [
  "name",
  "phone",
  "mode",
  "url",
  "pingUrl",
  "webhookUrl",
  "timeoutMs",
  "pingTimeoutMs",
  "priority",
  "saleTypes",
  "sandbox",
  "timeZone",
  "schedule",
  "states",
  "caps",
  "budget",
  "price",
  "priceRules",
  "filters",
  "requirements",
  "payout",
  "floor",
  "postbackUrl",
  "spec",
  "credentials",
];
/** Not told field by field: the key is fixed, the status is the action, secrets have sentences of their own. */
const SKIPPED = new Set(["id", "sid", "status", "secret", "previousSecret", "previousSecretUntil"]);

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** "X set to Y", "X changed from Y to Z", "X removed (it was Y)", each "by who". */
function scalarSentence(label: string, before: string | undefined, after: string | undefined, by: string): string {
  if (before === undefined) return `${label} set to ${after ?? ""} by ${by}.`;
  if (after === undefined) return `${label} removed by ${by} (it was ${before}).`;
  return `${label} changed from ${before} to ${after} by ${by}.`;
}

function listSentence(label: string, before: unknown, after: unknown, by: string, none: string): string {
  const was = listOf(before);
  const now = listOf(after);
  const added = now.filter((entry) => !was.includes(entry));
  const removed = was.filter((entry) => !now.includes(entry));
  if (was.length === 0) return `${label} set to ${now.join(", ")} by ${by} (it was ${none}).`;
  if (now.length === 0) return `${label} set to ${none} by ${by} (it was ${was.join(", ")}).`;
  const parts = [added.length > 0 ? `${added.join(", ")} added` : "", removed.length > 0 ? `${removed.join(", ")} removed` : ""].filter(Boolean);
  return parts.length > 0 ? `${label}: ${parts.join(", ")} by ${by}.` : `${label} reordered by ${by}: ${now.join(", ")}.`;
}

function priceRuleSentences(before: unknown, after: unknown, by: string): string[] {
  const was = (Array.isArray(before) ? before : []).filter(isEntry);
  const now = (Array.isArray(after) ? after : []).filter(isEntry);
  const byLabel = (rules: Entry[], label: unknown) => rules.find((rule) => rule.label === label);
  const sentences: string[] = [];
  for (const rule of now) {
    const old = byLabel(was, rule.label);
    if (!old) sentences.push(`Price rule ${String(rule.label)} ${signedMoney(rule.add)} added by ${by} (when ${conditionWords(rule.when)}).`);
    else if (!same(old, rule)) sentences.push(`Price rule ${String(rule.label)} changed from ${ruleWords(old)} to ${ruleWords(rule)} by ${by}.`);
  }
  for (const rule of was) if (!byLabel(now, rule.label)) sentences.push(`Price rule ${String(rule.label)} ${signedMoney(rule.add)} removed by ${by} (it was when ${conditionWords(rule.when)}).`);
  const order = (rules: Entry[]) => rules.map((rule) => String(rule.label)).filter((label) => byLabel(was, label) && byLabel(now, label));
  if (sentences.length === 0 && !same(order(was), order(now))) sentences.push(`Price rules reordered by ${by}: ${now.map((rule) => String(rule.label)).join(", ")}.`);
  return sentences;
}

/** Each setting that differs between two entries, as a sentence naming who changed it. */
export function fieldSentences(before: Entry, after: Entry, by: string): string[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((key) => !SKIPPED.has(key));
  const rank = (key: string) => (ORDER.includes(key) ? ORDER.indexOf(key) : ORDER.length);
  keys.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const sentences: string[] = [];
  for (const key of keys) {
    const was = before[key];
    const now = after[key];
    if (same(was, now)) continue;
    if (key === "priceRules") sentences.push(...priceRuleSentences(was, now, by));
    else if (key === "spec") sentences.push(...specSentences(was, now, by));
    else if (key === "credentials") sentences.push(...credentialSentences(was, now, by));
    else if (key === "schedule") sentences.push(`Schedule changed from ${scheduleWords(was)} to ${scheduleWords(now)} by ${by}.`);
    else if (key === "states") sentences.push(listSentence("States", was, now, by, "every state"));
    else if (key === "saleTypes") sentences.push(listSentence("Sale types", was, now, by, "none"));
    else if (key === "caps" || key === "budget") {
      const wasGroup = isEntry(was) ? was : {};
      const nowGroup = isEntry(now) ? now : {};
      for (const period of ["hour", "day", "week", "month"]) {
        const scalar = SCALARS[`${key}.${period}`];
        if (!scalar || same(wasGroup[period], nowGroup[period])) continue;
        sentences.push(scalarSentence(scalar.label, wasGroup[period] === undefined ? undefined : scalar.format(wasGroup[period]), nowGroup[period] === undefined ? undefined : scalar.format(nowGroup[period]), by));
      }
    } else if (key === "filters") {
      const wasFilters = isEntry(was) ? was : {};
      const nowFilters = isEntry(now) ? now : {};
      const filterOrder = Object.keys(FILTER_NAMES);
      const filterRank = (filter: string) => (filterOrder.includes(filter) ? filterOrder.indexOf(filter) : filterOrder.length);
      for (const filter of [...new Set([...Object.keys(wasFilters), ...Object.keys(nowFilters)])].sort((a, b) => filterRank(a) - filterRank(b))) {
        if (same(wasFilters[filter], nowFilters[filter])) continue;
        const format = (value: unknown) => (value === undefined ? undefined : filterValue(filter, value));
        sentences.push(scalarSentence(`Lead filter ${FILTER_NAMES[filter] ?? filter}`, format(wasFilters[filter]), format(nowFilters[filter]), by));
      }
    } else if (key === "requirements") {
      // One sentence per requirement changed, in the form's order and words ("Requirement LeadiD set to authentic by ana.").
      const wasRequirements = isEntry(was) ? was : {};
      const nowRequirements = isEntry(now) ? now : {};
      const known: string[] = REQUIREMENT_KEYS;
      const names = [...known, ...[...new Set([...Object.keys(wasRequirements), ...Object.keys(nowRequirements)])].filter((name) => !known.includes(name)).sort()];
      for (const name of names) {
        if (same(wasRequirements[name], nowRequirements[name])) continue;
        const label = known.includes(name) ? REQUIREMENT_WORDS[name as keyof typeof REQUIREMENT_WORDS].label : name;
        sentences.push(scalarSentence(`Requirement ${label}`, requirementValueWords(name, wasRequirements[name]), requirementValueWords(name, nowRequirements[name]), by));
      }
    } else {
      const scalar = SCALARS[key] ?? { label: key, format: (value: unknown) => (isEntry(value) ? conditionWords(value) : Array.isArray(value) ? value.map(String).join(", ") : String(value)) };
      sentences.push(scalarSentence(scalar.label, was === undefined ? undefined : scalar.format(was), now === undefined ? undefined : scalar.format(now), by));
    }
  }
  return sentences;
}

const STATUS_WORDS: Record<string, string> = { pause: "Paused", archive: "Archived" };

/** One change of the history as sentences, each naming who made it. */
export function changeSentences(change: Pick<SettingsChange, "action" | "actor" | "before" | "after">): string[] {
  const by = actorWords(change.actor);
  const before = change.before ?? {};
  const after = change.after ?? {};
  switch (change.action) {
    case "create":
      return [typeof after.secret === "string" ? `Created by ${by}, with the secret ${after.secret}.` : `Created by ${by}.`];
    case "pause":
    case "archive":
      return [`${STATUS_WORDS[change.action]} by ${by}.`, ...fieldSentences(before, after, by)];
    case "resume":
      return [`${before.status === "archived" ? "Restored" : "Resumed"} by ${by}.`, ...fieldSentences(before, after, by)];
    case "rotate_secret": {
      const until = typeof after.previousSecretUntil === "string" ? after.previousSecretUntil : undefined;
      return [
        `Secret rotated by ${by}: ${String(after.secret)} replaced ${String(before.secret)}${until ? `, which stays valid until ${until.replace("T", " ").replace(/(\.\d+)?Z$/, " UTC")}` : ", which stopped at once"}.`,
      ];
    }
    case "rotate_credential": {
      const sentences = credentialSentences(before.credentials, after.credentials, by);
      return sentences.length > 0 ? sentences : [`Credentials saved by ${by}, with nothing changed.`];
    }
    case "import": {
      if (change.before === null) return [`Imported by ${by}${typeof after.secret === "string" ? `, with the secret ${after.secret}` : ""}.`];
      const status = before.status !== after.status ? [`Status changed from ${String(before.status)} to ${String(after.status)} by ${by}.`] : [];
      const secret = before.secret !== after.secret ? [`Secret replaced by ${by}: now ${String(after.secret)}.`] : [];
      const fields = fieldSentences(before, after, by);
      return [`Imported again by ${by}.`, ...status, ...secret, ...fields];
    }
    default: {
      const fields = fieldSentences(before, after, by);
      return fields.length > 0 ? fields : [`Saved by ${by}, with nothing changed.`];
    }
  }
}
