/**
 * The buyers who pay for leads, the traffic sources who are paid for them and the auction's rules:
 * the live settings ops run from the console (server/settings/: stored in the database with their
 * history, applied by every replica within SETTINGS_POLL_MS), validated by the same schemas
 * whether they come from the console, `npm run buyers -- import` or BUYERS_FILE's one-time import
 * at the first start (docs/lead-delivery.md has the file format; deploy/buyers.example.json is a
 * working one). A bad file stops the import with a message naming each problem.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { normalizeUsPhone } from "../../shared/contact";
import { campaignIdSchema } from "../../shared/campaign";
import { US_STATES } from "../../shared/privacy-request";
import { dateTimeFormat } from "../../shared/formatters";
import { filtersSchema } from "./filter-schema";
import type { CapPeriods } from "../db/buyer-counters";
import { outboundUrlProblem, type OutboundPolicy } from "./outbound";
import { pingSpecSchema, requestSpecSchema, specCredentialNames } from "./spec";
import { requirementsSchema } from "../checks/requirements";
import { clashes, experimentSchema } from "../experiments/schema";

/** `active` buyers are offered leads; `paused` ones are not, for now; `archived` ones no more (kept for their history). */
export const BUYER_STATUSES = ["active", "paused", "archived"] as const;
export type BuyerStatus = (typeof BUYER_STATUSES)[number];
/** A traffic source is `active`, or `archived`: then its leads are paid nothing, get no floor and no postbacks. */
export const SOURCE_STATUSES = ["active", "archived"] as const;
export type SourceStatus = (typeof SOURCE_STATUSES)[number];

const WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;
export type Weekday = (typeof WEEKDAYS)[number];

const clock = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'a time of day as "HH:MM" (24-hour)');
const timeZone = z.string().refine((zone) => {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}, "an IANA time zone such as America/New_York");
const httpUrl = z.url({ protocol: /^https?$/, error: "an http(s) URL" });

/** When a buyer takes leads: on these days, between these times, in its own time zone. */
const scheduleSchema = z
  .object({
    timeZone,
    days: z.array(z.enum(WEEKDAYS)).min(1).default([...WEEKDAYS]),
    from: clock.default("00:00"),
    /** Exclusive; "24:00" is the end of the day. */
    to: z.union([clock, z.literal("24:00")]).default("24:00"),
  })
  .refine((schedule) => schedule.from < schedule.to, { message: "from must be before to", path: ["to"] });
export type Schedule = z.infer<typeof scheduleSchema>;

const count = z.number().int().min(0).max(10_000_000);
export const capsSchema = z.object({ hour: count.optional(), day: count.optional(), week: count.optional(), month: count.optional() }).strict();
export type Caps = z.infer<typeof capsSchema>;
const dollars = z.number().min(0).max(100_000_000);
export const budgetSchema = z.object({ day: dollars.optional(), month: dollars.optional() }).strict();
export type Budget = z.infer<typeof budgetSchema>;
const stateCode = z.string().refine((code) => Object.hasOwn(US_STATES, code), "a two-letter US state code, like CA");
/** A price rule: `add` dollars (negative: less) when the lead is from one of `when.states` and passes `when`'s filters. */
export const priceRuleSchema = z
  .object({
    label: z.string().trim().min(1).max(60),
    when: filtersSchema.extend({ states: z.array(stateCode).min(1).optional() }).strict(),
    add: z.number().min(-10_000).max(10_000),
  })
  .strict();
export type PriceRule = z.infer<typeof priceRuleSchema>;

/** How a buyer buys: `post`, every matching lead at its fixed price; `pingpost`, by bidding in the auction (server/auction/). */
export const BUYER_MODES = ["post", "pingpost"] as const;
/** An exclusive lead goes to its buyer alone; a shared one to at most the file's `auction.maxShared` buyers. */
export const SALE_TYPES = ["exclusive", "shared"] as const;
export type SaleType = (typeof SALE_TYPES)[number];

const buyerFields = z.object({
  /** Stable id: in logs, the delivery table, the Idempotency-Key and the returns API. */
  id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, "lower-case letters, digits, - and _, at most 32"),
  /** As the consent disclosure names it to the visitor. */
  name: z.string().trim().min(2).max(80),
  /** A US number the visitor may call, shown on the quote form's matches step once the buyer accepts; stored as E.164. */
  phone: z
    .string()
    .transform((value, ctx) => {
      const phone = normalizeUsPhone(value);
      if (phone === undefined) ctx.addIssue({ code: "custom", message: "a 10-digit US phone number, like (415) 555-0134" });
      return phone ?? "";
    })
    .optional(),
  /** Where the lead is posted: a `post` buyer's only address; a `pingpost` buyer may name it `postUrl`. */
  url: httpUrl,
  mode: z.enum(BUYER_MODES).default("post"),
  /** Where `consent.revoked` webhooks go (its lead address when not given). */
  webhookUrl: httpUrl.optional(),
  /** A `pingpost` buyer's ping address: it answers a ping (no contact details) with a bid or none. */
  pingUrl: httpUrl.optional(),
  /** How long a `pingpost` buyer's bid may take, within the auction's own deadline (AUCTION_DEADLINE_MS). */
  pingTimeoutMs: z.number().int().min(50).max(5_000).default(500),
  /** Which sales it bids for; a bid of another type counts as no bid. A `post` buyer buys shared. */
  saleTypes: z.array(z.enum(SALE_TYPES)).min(1).default(["shared"]),
  /** Breaks a tie between equal bids: the higher wins (then the earlier answer). */
  priority: z.number().int().min(0).max(1_000).default(0),
  /** A buyer trying its integration: it is offered only test leads, and a test lead only to such buyers. */
  sandbox: z.boolean().default(false),
  /** Signs each delivery (X-Signature) and verifies the buyer's return reports. */
  secret: z.string().min(32, "at least 32 characters"),
  /** The secret before the last rotation: still signs (a second v1) and verifies until previousSecretUntil, so the buyer can switch without losing leads. */
  previousSecret: z.string().min(32, "at least 32 characters").optional(),
  previousSecretUntil: z.iso.datetime({ offset: true }).optional(),
  /** Two-letter state codes the buyer takes leads from; omitted = every state. */
  states: z.array(stateCode).min(1).optional(),
  /** Which leads it takes by their answers (ZIP, ages, insurance, incidents, coverage): server/delivery/filter-schema.ts; omitted = every lead. */
  filters: filtersSchema.optional(),
  /** Whether it is offered leads: `paused` and `archived` are not (their deliveries in flight finish); set from the console. */
  status: z.enum(BUYER_STATUSES).default("active"),
  /** The time zone its caps, budgets and (unless the schedule names another) schedule count in; default its schedule's, else US Eastern. */
  timeZone: timeZone.optional(),
  /** Leads at most per hour, day, week (Monday to Sunday) and month of the buyer's time zone, counted across replicas; 0 takes none. */
  caps: capsSchema.optional(),
  /** US dollars at most per day and per month (the prices of its leads), reserved like the caps. */
  budget: budgetSchema.optional(),
  /** What the buyer pays per accepted lead, in US dollars, before its price rules (a price in the buyer's reply wins). */
  price: z.number().min(0).max(10_000),
  /** Added to (or taken from) the price when the lead matches, in order, e.g. +$4 for homeowners; the price never goes below 0. */
  priceRules: z.array(priceRuleSchema).max(50).optional(),
  timeoutMs: z.number().int().min(100).max(60_000).default(5_000),
  schedule: scheduleSchema.optional(),
  /**
   * The buyer's own posting spec (issue 43; docs/buyer-specs.md): how its post and, for a
   * ping/post buyer, its ping are written and its answers read. Absent, or format "quoteridge":
   * our signed JSON and answers, as before.
   */
  spec: z.object({ post: requestSpecSchema.optional(), ping: pingSpecSchema.optional() }).strict().optional(),
  /**
   * What a lead must have passed before it is pinged or posted to this buyer (issue 44,
   * docs/lead-checks.md): a TrustedForm certificate (retained by us, or for the buyer to claim), a
   * LeadiD (authentic, or a token), a clean litigator check, no DNC match, its line types.
   */
  requirements: requirementsSchema.optional(),
  /** The secret values the spec's authentication names (an API key, a token, a password): kept like `secret`, never exported without --with-secrets. */
  credentials: z.record(z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "letters, digits, . _ and -, at most 64 (as a spec names them)"), z.string().min(1).max(500)).optional(),
});

/**
 * A `pingpost` buyer may write its post address as `postUrl`; it is read into `url`. A file's
 * `dailyCap` (before caps per period) is read as `caps.day`.
 */
export const buyerSchema = z.preprocess((raw) => {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return raw;
  let buyer = raw as Record<string, unknown>;
  if (buyer.postUrl !== undefined && buyer.url === undefined) buyer = { ...buyer, url: buyer.postUrl };
  if (buyer.dailyCap !== undefined) {
    const { dailyCap, ...rest } = buyer;
    const caps = rest.caps;
    if (caps !== undefined && (caps === null || typeof caps !== "object" || "day" in caps)) return buyer;
    buyer = { ...rest, caps: { ...(caps as object | undefined), day: dailyCap } };
  }
  return buyer;
}, buyerFields.extend({ postUrl: httpUrl.optional(), dailyCap: z.never({ error: "give the daily cap once, as dailyCap or caps.day" }).optional() }).superRefine((buyer, ctx) => {
  if (buyer.mode === "pingpost" && buyer.pingUrl === undefined) ctx.addIssue({ code: "custom", message: "a pingpost buyer needs its pingUrl", path: ["pingUrl"] });
  if (buyer.mode === "post" && buyer.pingUrl !== undefined) ctx.addIssue({ code: "custom", message: 'a pingUrl is for "mode": "pingpost" only', path: ["pingUrl"] });
  if (buyer.mode === "post" && buyer.saleTypes.includes("exclusive")) {
    ctx.addIssue({ code: "custom", message: 'a "post" buyer buys every matching lead at its price, so only shared; bid for exclusives with "mode": "pingpost"', path: ["saleTypes"] });
  }
  if (buyer.postUrl !== undefined && buyer.postUrl !== buyer.url) ctx.addIssue({ code: "custom", message: "give the post address once, as url or postUrl", path: ["postUrl"] });
  if (buyer.spec?.ping !== undefined && buyer.mode !== "pingpost") ctx.addIssue({ code: "custom", message: 'a ping spec is for "mode": "pingpost" only', path: ["spec", "ping"] });
  for (const stage of ["post", "ping"] as const) {
    const spec = buyer.spec?.[stage];
    if (!spec) continue;
    for (const name of specCredentialNames(spec)) {
      if (buyer.credentials?.[name] === undefined) ctx.addIssue({ code: "custom", message: `the spec's authentication names the credential "${name}": give its value under credentials`, path: ["credentials", name] });
    }
  }
  if ((buyer.previousSecret === undefined) !== (buyer.previousSecretUntil === undefined)) {
    ctx.addIssue({ code: "custom", message: "previousSecret and previousSecretUntil go together", path: ["previousSecretUntil"] });
  }
}).transform(({ postUrl: _postUrl, dailyCap: _dailyCap, ...buyer }) => buyer));
export type Buyer = z.infer<typeof buyerSchema>;

export const sourceSchema = z.object({
  sid: campaignIdSchema,
  /** What ops call it in the console. */
  name: z.string().trim().min(1).max(80).optional(),
  status: z.enum(SOURCE_STATUSES).default("active"),
  /** What we pay the source per lead a buyer accepts, in US dollars. */
  payout: z.number().min(0).max(10_000),
  /** No bid below this price wins this source's leads in the auction, in US dollars. */
  floor: z.number().min(0).max(10_000).default(0),
  /** Called when a buyer accepts (status=sold) or returns (status=returned) a lead with a tid: {tid}, {payout}, {status}, {event_id} (the same on every attempt of one postback, docs/lead-delivery.md). */
  postbackUrl: httpUrl
    .refine((url) => url.includes("{tid}"), "must contain {tid}")
    .optional(),
});
export type Source = z.infer<typeof sourceSchema>;

export const buyersFileSchema = z
  .object({
    buyers: z.array(buyerSchema),
    sources: z.array(sourceSchema).default([]),
    /** The auction's rules (server/auction/): how many buyers may share a lead, how long a bid holds. */
    auction: z
      .object({
        maxShared: z.number().int().min(1).max(10).default(4),
        bidLifetimeMs: z.number().int().min(1_000).max(600_000).default(60_000),
      })
      .default({ maxShared: 4, bidLifetimeMs: 60_000 }),
    /** A/B experiments on the landing page and the quote form (issue 45, server/experiments/, docs/experiments.md). */
    experiments: z.array(experimentSchema).default([]),
  })
  .superRefine((file, ctx) => {
    const seen = (values: string[], what: string, path: string) => {
      const duplicates = values.filter((value, index) => values.indexOf(value) !== index);
      for (const value of new Set(duplicates)) ctx.addIssue({ code: "custom", message: `${what} ${value} is listed twice`, path: [path] });
    };
    seen(file.buyers.map((buyer) => buyer.id), "buyer id", "buyers");
    seen(file.buyers.map((buyer) => buyer.name), "buyer name", "buyers");
    seen(file.sources.map((source) => source.sid), "source sid", "sources");
    seen(file.experiments.map((experiment) => experiment.id), "experiment id", "experiments");
    file.experiments.forEach((experiment, index) => {
      for (const clash of clashes(experiment, file.experiments.slice(0, index))) ctx.addIssue({ code: "custom", message: clash, path: ["experiments", index, "variants"] });
    });
  });
/** The settings in force: buyers, sources, the auction's rules and the experiments (the buyers file's format is the same). */
export type LiveSettings = z.infer<typeof buyersFileSchema>;

export class BuyersFileError extends Error {
  constructor(file: string, problems: string[]) {
    super(`Invalid BUYERS_FILE ${file}:\n${problems.map((line) => `  - ${line}`).join("\n")}`);
    this.name = "BuyersFileError";
  }
}

/**
 * Reads and checks the file; throws BuyersFileError naming every problem. With a policy, every
 * address must also be one the server may connect to (the start-up import in production).
 */
export function loadBuyersFile(file: string, policy?: OutboundPolicy): LiveSettings {
  return checkedFile(file, readJson(file), policy);
}

/** The file's JSON, or a BuyersFileError saying why it is not. */
function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new BuyersFileError(file, [(error as Error).message]);
  }
}

/** The file's settings, checked by the schema and, with a policy, its addresses; BuyersFileError naming every problem. */
function checkedFile(file: string, raw: unknown, policy?: OutboundPolicy): LiveSettings {
  const parsed = buyersFileSchema.safeParse(raw);
  if (!parsed.success) throw new BuyersFileError(file, parsed.error.issues.map((issue) => `${issue.path.join(".") || "(file)"}: ${issue.message}`));
  const refused = policy ? fileAddressProblems(parsed.data, policy) : [];
  if (refused.length > 0) throw new BuyersFileError(file, refused);
  return parsed.data;
}

/**
 * Checks a file as its start-up import will take it (BUYERS_FILE): a buyer may leave out its
 * `secret` (the import makes one, as `npm run buyers -- import` does, so deploy/buyer-specs' files
 * work as BUYERS_FILE too), everything else as loadBuyersFile. Throws BuyersFileError.
 */
export function checkBuyersFile(file: string, policy: OutboundPolicy): void {
  const raw = readJson(file);
  const withSecrets =
    raw !== null && typeof raw === "object" && Array.isArray((raw as { buyers?: unknown }).buyers)
      ? { ...raw, buyers: (raw as { buyers: unknown[] }).buyers.map((buyer) => (buyer !== null && typeof buyer === "object" && !("secret" in buyer) ? { ...buyer, secret: "stand-in-for-a-secret-the-import-makes" } : buyer)) }
      : raw;
  checkedFile(file, withSecrets, policy);
}

const WEEKDAY_OF: Record<string, Weekday> = { Mon: "mon", Tue: "tue", Wed: "wed", Thu: "thu", Fri: "fri", Sat: "sat", Sun: "sun" };

/** The fields of buyers and sources that name an address the server connects to. */
const BUYER_ADDRESSES = ["url", "pingUrl", "webhookUrl"] as const;
export type BuyerAddressField = (typeof BUYER_ADDRESSES)[number];

/**
 * Each of the buyer's addresses the outbound policy refuses, with why (server/delivery/outbound.ts:
 * in production, https:// to a public host unless OUTBOUND_ALLOW names it). Checked when a buyer
 * is saved or imported; the connection is checked again when made.
 */
export function buyerAddressProblems(buyer: Partial<Pick<Buyer, BuyerAddressField>>, policy: OutboundPolicy): Partial<Record<BuyerAddressField, string>> {
  const problems: Partial<Record<BuyerAddressField, string>> = {};
  for (const key of BUYER_ADDRESSES) {
    const address = buyer[key];
    const problem = address === undefined ? undefined : outboundUrlProblem(address, policy);
    if (problem !== undefined) problems[key] = problem;
  }
  return problems;
}

/** The source's postback address, if the outbound policy refuses it, with why. */
export function sourceAddressProblem(source: Pick<Source, "postbackUrl">, policy: OutboundPolicy): string | undefined {
  return source.postbackUrl === undefined ? undefined : outboundUrlProblem(source.postbackUrl, policy);
}

/** Every address of a file (its buyers' and sources') the policy refuses, as "buyers.0.url: why". */
export function fileAddressProblems(file: Pick<LiveSettings, "buyers" | "sources">, policy: OutboundPolicy): string[] {
  return [
    ...file.buyers.flatMap((buyer, index) => Object.entries(buyerAddressProblems(buyer, policy)).map(([key, problem]) => `buyers.${index}.${key}: ${problem}`)),
    ...file.sources.flatMap((source, index) => {
      const problem = sourceAddressProblem(source, policy);
      return problem === undefined ? [] : [`sources.${index}.postbackUrl: ${problem}`];
    }),
  ];
}

/** The time zone a buyer's caps and budgets count in: its own, else its schedule's, else US Eastern. */
export function buyerTimeZone(buyer: Pick<Buyer, "timeZone" | "schedule">): string {
  return buyer.timeZone ?? buyer.schedule?.timeZone ?? "America/New_York";
}

/** The buyer's own calendar day (YYYY-MM-DD) at `now`, for its daily cap. */
export function buyerDay(buyer: Pick<Buyer, "timeZone" | "schedule">, now: Date): string {
  return dateTimeFormat("en-CA", { timeZone: buyerTimeZone(buyer), year: "numeric", month: "2-digit", day: "2-digit" }).format(now);
}

/**
 * The periods a lead sold at `now` counts in, in the buyer's time zone: its hour
 * ("2026-11-27T13"), day ("2026-11-27"), week (the Monday it starts on, "2026-11-23") and month
 * ("2026-11"). Caps and budgets are kept per period (server/db/buyer-counters.ts).
 */
export type { CapPeriods };
export function capPeriods(buyer: Pick<Buyer, "timeZone" | "schedule">, now: Date): CapPeriods {
  const parts = dateTimeFormat("en-CA", { timeZone: buyerTimeZone(buyer), year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", hourCycle: "h23" }).formatToParts(now);
  const get = (type: string) => parts.find((part) => part.type === type)?.value ?? "";
  const [year, month, day] = [get("year"), get("month"), get("day")];
  const date = `${year}-${month}-${day}`;
  // The calendar day as UTC midnight, to step back to its Monday without time-zone arithmetic.
  const civil = new Date(`${date}T00:00:00Z`);
  const monday = new Date(civil.getTime() - ((civil.getUTCDay() + 6) % 7) * 86_400_000).toISOString().slice(0, 10);
  return { hour: `${date}T${get("hour")}`, day: date, week: monday, month: `${year}-${month}` };
}

/** Whether any cap or budget is set (then every lead it is sold is counted, across replicas). */
export function isLimited(buyer: Pick<Buyer, "caps" | "budget">): boolean {
  const { caps, budget } = buyer;
  return caps !== undefined && Object.values(caps).some((cap) => cap !== undefined) || budget !== undefined && Object.values(budget).some((limit) => limit !== undefined);
}

/** A cap of 0 or a budget below the price: the buyer can take nothing, whatever was sold. */
export function shutByLimits(buyer: Pick<Buyer, "caps" | "budget">, price: number): boolean {
  const { caps, budget } = buyer;
  return (caps !== undefined && Object.values(caps).some((cap) => cap === 0)) || (budget !== undefined && Object.values(budget).some((limit) => limit !== undefined && limit < price));
}

/** The secrets that verify a buyer's signature at `now`: its own, and the previous one during its overlap. */
export function activeSecrets(buyer: Pick<Buyer, "secret" | "previousSecret" | "previousSecretUntil">, now: Date): string[] {
  const previousOn = buyer.previousSecret !== undefined && buyer.previousSecretUntil !== undefined && now.getTime() < Date.parse(buyer.previousSecretUntil);
  return previousOn ? [buyer.secret, buyer.previousSecret!] : [buyer.secret];
}

/** Whether the buyer takes leads at `now` by its schedule (no schedule: always). */
export function isOpen(buyer: Buyer, now: Date): boolean {
  const schedule = buyer.schedule;
  if (!schedule) return true;
  const parts = dateTimeFormat("en-US", { timeZone: schedule.timeZone, weekday: "short", hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).formatToParts(now);
  const get = (type: string) => parts.find((part) => part.type === type)?.value ?? "";
  const day = WEEKDAY_OF[get("weekday")];
  const time = `${get("hour")}:${get("minute")}`;
  return day !== undefined && schedule.days.includes(day) && time >= schedule.from && time < schedule.to;
}

/** Whether the buyer takes a lead from this state (one of the rules of server/delivery/offer.ts). */
export function takesState(buyer: Buyer, state: string): boolean {
  return buyer.states === undefined || buyer.states.includes(state);
}
