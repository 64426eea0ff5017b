/**
 * The buyers who pay for leads and the traffic sources who are paid for them, as the operator
 * configures them in BUYERS_FILE (docs/lead-delivery.md has the format and an example;
 * deploy/buyers.example.json is a working one). Read and checked once at start-up: a bad file
 * stops the process with a message naming each problem.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { normalizeUsPhone } from "../../shared/contact";
import { campaignIdSchema } from "../../shared/campaign";
import { US_STATES } from "../../shared/privacy-request";
import { dateTimeFormat } from "../../shared/formatters";
import { filtersSchema } from "./filter-schema";

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
  /** Two-letter state codes the buyer takes leads from; omitted = every state. */
  states: z
    .array(z.string().refine((code) => Object.hasOwn(US_STATES, code), "a two-letter US state code, like CA"))
    .min(1)
    .optional(),
  /** Which leads it takes by their answers (ZIP, ages, insurance, incidents, coverage): server/delivery/filter-schema.ts; omitted = every lead. */
  filters: filtersSchema.optional(),
  /** Leads per day at most (the buyer's day, in its schedule's time zone, else US Eastern), counted across replicas. */
  dailyCap: z.number().int().min(0).optional(),
  /** What the buyer pays per accepted lead, in US dollars (a price in the buyer's reply wins). */
  price: z.number().min(0).max(10_000),
  timeoutMs: z.number().int().min(100).max(60_000).default(5_000),
  schedule: scheduleSchema.optional(),
});

/** A `pingpost` buyer may write its post address as `postUrl`; it is read into `url`. */
export const buyerSchema = z.preprocess((raw) => {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return raw;
  const buyer = raw as Record<string, unknown>;
  return buyer.postUrl !== undefined && buyer.url === undefined ? { ...buyer, url: buyer.postUrl } : buyer;
}, buyerFields.extend({ postUrl: httpUrl.optional() }).superRefine((buyer, ctx) => {
  if (buyer.mode === "pingpost" && buyer.pingUrl === undefined) ctx.addIssue({ code: "custom", message: "a pingpost buyer needs its pingUrl", path: ["pingUrl"] });
  if (buyer.mode === "post" && buyer.pingUrl !== undefined) ctx.addIssue({ code: "custom", message: 'a pingUrl is for "mode": "pingpost" only', path: ["pingUrl"] });
  if (buyer.mode === "post" && buyer.saleTypes.includes("exclusive")) {
    ctx.addIssue({ code: "custom", message: 'a "post" buyer buys every matching lead at its price, so only shared; bid for exclusives with "mode": "pingpost"', path: ["saleTypes"] });
  }
  if (buyer.postUrl !== undefined && buyer.postUrl !== buyer.url) ctx.addIssue({ code: "custom", message: "give the post address once, as url or postUrl", path: ["postUrl"] });
}));
export type Buyer = z.infer<typeof buyerSchema>;

export const sourceSchema = z.object({
  sid: campaignIdSchema,
  /** What we pay the source per lead a buyer accepts, in US dollars. */
  payout: z.number().min(0).max(10_000),
  /** No bid below this price wins this source's leads in the auction, in US dollars. */
  floor: z.number().min(0).max(10_000).default(0),
  /** Called when a buyer accepts (status=sold) or returns (status=returned) a lead with a tid: {tid}, {payout}, {status}. */
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
  })
  .superRefine((file, ctx) => {
    const seen = (values: string[], what: string, path: string) => {
      const duplicates = values.filter((value, index) => values.indexOf(value) !== index);
      for (const value of new Set(duplicates)) ctx.addIssue({ code: "custom", message: `${what} ${value} is listed twice`, path: [path] });
    };
    seen(file.buyers.map((buyer) => buyer.id), "buyer id", "buyers");
    seen(file.buyers.map((buyer) => buyer.name), "buyer name", "buyers");
    seen(file.sources.map((source) => source.sid), "source sid", "sources");
  });
export type BuyersFile = z.infer<typeof buyersFileSchema>;

export class BuyersFileError extends Error {
  constructor(file: string, problems: string[]) {
    super(`Invalid BUYERS_FILE ${file}:\n${problems.map((line) => `  - ${line}`).join("\n")}`);
    this.name = "BuyersFileError";
  }
}

/** Reads and checks the file; throws BuyersFileError naming every problem. */
export function loadBuyersFile(file: string): BuyersFile {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new BuyersFileError(file, [(error as Error).message]);
  }
  const parsed = buyersFileSchema.safeParse(raw);
  if (!parsed.success) {
    throw new BuyersFileError(
      file,
      parsed.error.issues.map((issue) => `${issue.path.join(".") || "(file)"}: ${issue.message}`),
    );
  }
  return parsed.data;
}

const WEEKDAY_OF: Record<string, Weekday> = { Mon: "mon", Tue: "tue", Wed: "wed", Thu: "thu", Fri: "fri", Sat: "sat", Sun: "sun" };

/** The buyer's own calendar day (YYYY-MM-DD) at `now`, for its daily cap. */
export function buyerDay(buyer: Buyer, now: Date): string {
  return dateTimeFormat("en-CA", { timeZone: buyer.schedule?.timeZone ?? "America/New_York", year: "numeric", month: "2-digit", day: "2-digit" }).format(now);
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
