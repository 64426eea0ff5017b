/**
 * The console's buyer form (issue 33, item 2) as data: its urlencoded fields read into a buyer
 * checked by buyerSchema (server/delivery/buyers.ts, the schema delivery and the store use), each
 * problem keyed by the field it is shown beside, and a stored buyer written back into fields for
 * the edit form. Field names are the schema's paths, dotted ("caps.day", "filters.driverAge.min",
 * "priceRules.2.when.homeowner"), so an issue's path names its field with little translation.
 * The secret is not a field: the store makes it (createBuyer, rotateBuyerSecret). Nor are the
 * posting spec and its credentials (issue 43): they have their own forms on the buyer's page, and
 * an edit of the other settings keeps them (checkBuyerForm's `keep`). The requirements (issue 44:
 * the checks a lead must pass before it is pinged or posted) are fields under "requirements.".
 */
import { buyerAddressProblems, buyerSchema, type Buyer, type BuyerStatus } from "../delivery/buyers";
import type { BuyerSecretKey } from "../settings/store";
import type { OutboundPolicy } from "../delivery/outbound";
import type { BuyerFilters } from "../delivery/filter-schema";
import type { Requirements } from "../checks/requirements";
import type { FormValues } from "../../shared/admin-views";
import { amount, choice, compact, errorsByField, fieldForPath, list, sentence, text, words } from "./settings-form";

/** A buyer as the console saves it: everything but its secrets and credentials (the store keeps or makes those). */
export type BuyerInput = Omit<Buyer, BuyerSecretKey>;

/** The schema requires a secret the form never carries: this stands in for it while checking, and is dropped after. */
const STAND_IN_SECRET = "form-check-stand-in-secret-of-32-chars";

/** The most price rules a buyer may have (buyerSchema's priceRules.max). */
export const MAX_PRICE_RULES = 50;

/** A filter's fields under its prefix ("filters." or "priceRules.N.when."). */
export const FILTER_FIELDS = [
  "zips.include",
  "zips.exclude",
  "zipPrefixes.include",
  "zipPrefixes.exclude",
  "driverAge.min",
  "driverAge.max",
  "currentlyInsured",
  "insuredForAtLeast",
  "homeowner",
  "vehicles.min",
  "vehicles.max",
  "drivers.min",
  "drivers.max",
  "maxAccidents",
  "maxTickets",
  "maxClaims",
  "dui",
  "sr22",
  "coverage",
] as const;
/** The requirement fields under "requirements." (the schema's keys): two choices, two flags, a checkbox group and what to do without an answer. */
export const REQUIREMENT_FIELDS = ["trustedForm", "leadid", "litigatorClean", "noDnc", "lineTypes", "whenUnavailable"] as const;
/** Groups with a rule of their own ("give min, max or both", min ≤ max): their fieldset shows it. */
const FILTER_GROUPS = ["zips", "zipPrefixes", "driverAge", "vehicles", "drivers"] as const;

const BUYER_FIELDS = new Set<string>([
  "id",
  "name",
  "phone",
  "mode",
  "url",
  "pingUrl",
  "webhookUrl",
  "timeoutMs",
  "pingTimeoutMs",
  "saleTypes",
  "priority",
  "sandbox",
  "states",
  "timeZone",
  "schedule",
  "schedule.on",
  "schedule.timeZone",
  "schedule.days",
  "schedule.from",
  "schedule.to",
  "caps",
  "caps.hour",
  "caps.day",
  "caps.week",
  "caps.month",
  "budget",
  "budget.day",
  "budget.month",
  "price",
  "priceRules",
  "filters",
  ...FILTER_FIELDS.map((name) => `filters.${name}`),
  ...FILTER_GROUPS.map((name) => `filters.${name}`),
  "requirements",
  ...REQUIREMENT_FIELDS.map((name) => `requirements.${name}`),
]);
const RULE_FIELD = new RegExp(`^priceRules\\.\\d+(\\.(label|add|when|when\\.states|when\\.(${[...FILTER_FIELDS, ...FILTER_GROUPS].map((name) => name.replace(".", "\\.")).join("|")})))?$`);

/** Whether the buyer form has a field (or a fieldset) of this name. */
export function isBuyerField(name: string): boolean {
  return BUYER_FIELDS.has(name) || RULE_FIELD.test(name);
}

/** The filters object from the fields under `prefix`; undefined when none is set (every lead). */
export function filtersFromForm(values: FormValues, prefix: string): Record<string, unknown> | undefined {
  const at = (name: string) => `${prefix}.${name}`;
  const lists = (group: string) => compact({ include: words(values, at(`${group}.include`)), exclude: words(values, at(`${group}.exclude`)) });
  const range = (group: string) => compact({ min: amount(values, at(`${group}.min`)), max: amount(values, at(`${group}.max`)) });
  return compact({
    zips: lists("zips"),
    zipPrefixes: lists("zipPrefixes"),
    driverAge: range("driverAge"),
    currentlyInsured: choice(values, at("currentlyInsured")),
    insuredForAtLeast: text(values, at("insuredForAtLeast")) || undefined,
    homeowner: choice(values, at("homeowner")),
    vehicles: range("vehicles"),
    drivers: range("drivers"),
    maxAccidents: amount(values, at("maxAccidents")),
    maxTickets: amount(values, at("maxTickets")),
    maxClaims: amount(values, at("maxClaims")),
    dui: choice(values, at("dui"), "only", "no"),
    sr22: choice(values, at("sr22"), "only", "no"),
    coverage: list(values, at("coverage")),
  });
}

/**
 * The requirements from the fields under "requirements."; undefined when none is set. "skip" is
 * what a buyer does without an answer when nothing says otherwise, so it is not written: a
 * buyer saved with no requirement stays without a `requirements` entry, and its history shows
 * no change it did not make. Anything else is handed on as sent, for the schema to refuse.
 */
export function requirementsFromForm(values: FormValues): Record<string, unknown> | undefined {
  const at = (name: (typeof REQUIREMENT_FIELDS)[number]) => `requirements.${name}`;
  const whenUnavailable = text(values, at("whenUnavailable"));
  const flag = (name: "litigatorClean" | "noDnc") => {
    const raw = text(values, at(name));
    return raw === "" ? undefined : raw === "yes" ? true : raw;
  };
  return compact({
    trustedForm: text(values, at("trustedForm")) || undefined,
    leadid: text(values, at("leadid")) || undefined,
    litigatorClean: flag("litigatorClean"),
    noDnc: flag("noDnc"),
    lineTypes: list(values, at("lineTypes")),
    whenUnavailable: whenUnavailable === "" || whenUnavailable === "skip" ? undefined : whenUnavailable,
  });
}

/** The form indexes of the price rule rows that hold anything, in order (an untouched row is no rule). */
function usedRuleRows(values: FormValues): number[] {
  const used = new Set<number>();
  for (const [key, value] of Object.entries(values)) {
    const match = /^priceRules\.(\d+)\./.exec(key);
    if (!match) continue;
    const index = Number(match[1]);
    const entries = Array.isArray(value) ? value : [value];
    if (index < MAX_PRICE_RULES * 2 && entries.some((entry) => entry.trim() !== "" && entry !== "any")) used.add(index);
  }
  return [...used].sort((a, b) => a - b);
}

/** How many rule rows the form shows: every one used or sent, and `blank` empty ones to fill (at most MAX_PRICE_RULES). */
export function ruleRowsFor(values: FormValues, blank: number): number {
  const used = usedRuleRows(values);
  return Math.min(MAX_PRICE_RULES, (used.length === 0 ? 0 : (used.at(-1) ?? 0) + 1) + blank);
}

/**
 * The form's fields as the object buyerSchema checks, and which form row each price rule came
 * from (rules are packed, so the third rule may be row 5). `id` is the edited buyer's (from the
 * address); `status` its stored one (the form does not change it).
 */
export function buyerFromForm(values: FormValues, options: { id?: string; status: BuyerStatus }): { input: Record<string, unknown>; ruleRows: number[] } {
  const ruleRows = usedRuleRows(values);
  const priceRules = ruleRows.map((row) => {
    const prefix = `priceRules.${row}`;
    const when = { ...filtersFromForm(values, `${prefix}.when`), ...compact({ states: words(values, `${prefix}.when.states`).map((state) => state.toUpperCase()) }) };
    return { label: text(values, `${prefix}.label`), when, add: amount(values, `${prefix}.add`) };
  });
  const schedule =
    text(values, "schedule.on") === "yes"
      ? {
          timeZone: text(values, "schedule.timeZone") || text(values, "timeZone") || undefined,
          ...compact({ days: list(values, "schedule.days"), from: text(values, "schedule.from") || undefined, to: text(values, "schedule.to") || undefined }),
        }
      : undefined;
  const input = compact({
    id: options.id ?? text(values, "id"),
    name: text(values, "name"),
    phone: text(values, "phone") || undefined,
    mode: text(values, "mode") || undefined,
    url: text(values, "url"),
    pingUrl: text(values, "pingUrl") || undefined,
    webhookUrl: text(values, "webhookUrl") || undefined,
    timeoutMs: amount(values, "timeoutMs"),
    pingTimeoutMs: amount(values, "pingTimeoutMs"),
    saleTypes: list(values, "saleTypes"),
    priority: amount(values, "priority"),
    sandbox: text(values, "sandbox") === "yes",
    states: list(values, "states"),
    timeZone: text(values, "timeZone") || undefined,
    schedule,
    caps: compact({ hour: amount(values, "caps.hour"), day: amount(values, "caps.day"), week: amount(values, "caps.week"), month: amount(values, "caps.month") }),
    budget: compact({ day: amount(values, "budget.day"), month: amount(values, "budget.month") }),
    price: amount(values, "price"),
    priceRules,
    filters: filtersFromForm(values, "filters"),
    requirements: requirementsFromForm(values),
    status: options.status,
  });
  return { input: input ?? {}, ruleRows };
}

/** The field an issue's path points at; a price rule's index is its form row's. */
export function buyerFieldFor(path: readonly PropertyKey[], ruleRows: readonly number[] = []): string {
  const [first, second, ...rest] = path;
  const inForm = first === "priceRules" && typeof second === "number" ? ["priceRules", ruleRows[second] ?? second, ...rest] : path;
  return fieldForPath(inForm, isBuyerField, new Set(["priceRules"]));
}

export type BuyerFormResult = { ok: true; buyer: BuyerInput } | { ok: false; errors: Record<string, string> };

/**
 * A new buyer's id that another buyer has, or a name another buyer has in any case (the consent
 * names buyers by name, so a name is one buyer's), against the buyers stored now (archived ones
 * too: they can be restored). `editing`: the id of the buyer being edited (its id is fixed, its
 * own name is no clash). The store checks the same again when it saves, in its transaction.
 */
export function buyerKeyProblems(candidate: { id: string; name: string }, others: ReadonlyArray<Pick<Buyer, "id" | "name">>, editing?: string): Record<string, string> {
  const problems: Record<string, string> = {};
  if (editing === undefined && others.some((buyer) => buyer.id === candidate.id)) problems.id = `A buyer with id ${candidate.id} exists already.`;
  const name = candidate.name.toLowerCase();
  const clash = name === "" ? undefined : others.find((buyer) => buyer.id !== editing && buyer.name.toLowerCase() === name);
  if (clash) problems.name = `Another buyer (${clash.id}) is called ${clash.name}: the consent names buyers, so each name is one buyer's.`;
  return problems;
}

/**
 * The form checked: the buyer to save, or every problem by field at once (issue 42, item 7: one
 * submit lists them all). Each address must be one the outbound policy lets the server call (in
 * production, https:// to a public host: a lead carries a person's contact details); with
 * `others` (the buyers stored now), a taken id or name is one of the problems too.
 */
export function checkBuyerForm(
  values: FormValues,
  options: { id?: string; status: BuyerStatus; outbound: OutboundPolicy; others?: ReadonlyArray<Pick<Buyer, "id" | "name">>; keep?: Pick<Buyer, "spec" | "credentials"> },
): BuyerFormResult {
  const { input, ruleRows } = buyerFromForm(values, options);
  const kept = { ...(options.keep?.spec ? { spec: options.keep.spec } : {}), ...(options.keep?.credentials ? { credentials: options.keep.credentials } : {}) };
  const parsed = buyerSchema.safeParse({ ...input, ...kept, secret: STAND_IN_SECRET });
  // The kept spec was valid when saved; what the form can make wrong about it is the mode (a ping spec is a ping/post buyer's).
  const fieldOf = (path: readonly PropertyKey[]) => (path[0] === "spec" || path[0] === "credentials" ? "mode" : buyerFieldFor(path, ruleRows));
  const errors = parsed.success ? {} : errorsByField(parsed.error.issues, fieldOf);
  if (!parsed.success && parsed.error.issues.some((issue) => issue.path[0] === "spec")) {
    errors.mode = "This buyer has a ping spec, which only a ping/post buyer has: remove it under Posting spec on the buyer's page first.";
  }
  const addresses = { url: text(values, "url") || undefined, pingUrl: text(values, "pingUrl") || undefined, webhookUrl: text(values, "webhookUrl") || undefined };
  let refused = false;
  const more = {
    ...buyerAddressProblems(addresses, options.outbound),
    ...(options.others ? buyerKeyProblems({ id: options.id ?? text(values, "id"), name: text(values, "name") }, options.others, options.id) : {}),
  };
  for (const [key, problem] of Object.entries(more)) {
    if (errors[key] !== undefined) continue;
    errors[key] = sentence(problem);
    refused = true;
  }
  if (!parsed.success || refused) return { ok: false, errors };
  const { secret: _secret, previousSecret: _previous, previousSecretUntil: _until, credentials: _credentials, ...buyer } = parsed.data;
  return { ok: true, buyer };
}

const yesNo = (value: boolean | undefined, yes = "yes", no = "no") => (value === undefined ? "any" : value ? yes : no);

/** A stored filters object as the form's fields under `prefix`. */
export function filtersToForm(filters: Partial<BuyerFilters> | undefined, prefix: string): FormValues {
  if (!filters) return {};
  const values: FormValues = {};
  const set = (name: string, value: string | string[] | undefined) => {
    if (value !== undefined && value !== "" && !(Array.isArray(value) && value.length === 0)) values[`${prefix}.${name}`] = value;
  };
  set("zips.include", filters.zips?.include?.join(", "));
  set("zips.exclude", filters.zips?.exclude?.join(", "));
  set("zipPrefixes.include", filters.zipPrefixes?.include?.join(", "));
  set("zipPrefixes.exclude", filters.zipPrefixes?.exclude?.join(", "));
  for (const group of ["driverAge", "vehicles", "drivers"] as const) {
    set(`${group}.min`, filters[group]?.min?.toString());
    set(`${group}.max`, filters[group]?.max?.toString());
  }
  set("currentlyInsured", yesNo(filters.currentlyInsured));
  set("insuredForAtLeast", filters.insuredForAtLeast);
  set("homeowner", yesNo(filters.homeowner));
  set("maxAccidents", filters.maxAccidents?.toString());
  set("maxTickets", filters.maxTickets?.toString());
  set("maxClaims", filters.maxClaims?.toString());
  set("dui", yesNo(filters.dui, "only"));
  set("sr22", yesNo(filters.sr22, "only"));
  set("coverage", filters.coverage);
  return values;
}

/** A stored buyer as the edit form's fields (its secrets are not among them). */
export function buyerToForm(buyer: BuyerInput): FormValues {
  const values: FormValues = {};
  const set = (name: string, value: string | string[] | undefined) => {
    if (value !== undefined && value !== "" && !(Array.isArray(value) && value.length === 0)) values[name] = value;
  };
  set("id", buyer.id);
  set("name", buyer.name);
  set("phone", buyer.phone);
  set("mode", buyer.mode);
  set("url", buyer.url);
  set("pingUrl", buyer.pingUrl);
  set("webhookUrl", buyer.webhookUrl);
  set("timeoutMs", String(buyer.timeoutMs));
  set("pingTimeoutMs", String(buyer.pingTimeoutMs));
  set("saleTypes", buyer.saleTypes);
  set("priority", String(buyer.priority));
  if (buyer.sandbox) set("sandbox", "yes");
  set("states", buyer.states);
  set("timeZone", buyer.timeZone);
  if (buyer.schedule) {
    set("schedule.on", "yes");
    set("schedule.timeZone", buyer.schedule.timeZone);
    set("schedule.days", buyer.schedule.days);
    set("schedule.from", buyer.schedule.from);
    set("schedule.to", buyer.schedule.to);
  }
  for (const period of ["hour", "day", "week", "month"] as const) set(`caps.${period}`, buyer.caps?.[period]?.toString());
  for (const period of ["day", "month"] as const) set(`budget.${period}`, buyer.budget?.[period]?.toString());
  set("price", String(buyer.price));
  (buyer.priceRules ?? []).forEach((rule, index) => {
    const { states, ...when } = rule.when;
    set(`priceRules.${index}.label`, rule.label);
    set(`priceRules.${index}.add`, String(rule.add));
    set(`priceRules.${index}.when.states`, states?.join(", "));
    Object.assign(values, filtersToForm(when, `priceRules.${index}.when`));
  });
  Object.assign(values, filtersToForm(buyer.filters, "filters"));
  Object.assign(values, requirementsToForm(buyer.requirements));
  return values;
}

/** Stored requirements as the form's fields; "skip" shows as chosen when nothing is stored (it is the default). */
export function requirementsToForm(requirements: Requirements | undefined): FormValues {
  const values: FormValues = {};
  if (requirements?.trustedForm) values["requirements.trustedForm"] = requirements.trustedForm;
  if (requirements?.leadid) values["requirements.leadid"] = requirements.leadid;
  if (requirements?.litigatorClean) values["requirements.litigatorClean"] = "yes";
  if (requirements?.noDnc) values["requirements.noDnc"] = "yes";
  if (requirements?.lineTypes && requirements.lineTypes.length > 0) values["requirements.lineTypes"] = [...requirements.lineTypes];
  values["requirements.whenUnavailable"] = requirements?.whenUnavailable ?? "skip";
  return values;
}
