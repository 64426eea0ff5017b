/**
 * The leads list's form (GET /leads and /leads.csv): from, until (exclusive), sid, state, status,
 * buyer, find (a phone number or an email address) and after (the keyset cursor). Every value is
 * optional; the default is the last 7 days of REPORT_TIME_ZONE, as the report counts days. Unlike
 * the report, a bad value is refused (400, each problem named) rather than replaced: a list that
 * silently dropped a filter would look like an answer to the question asked. Who may search by
 * contact is the role's business (403), decided here so the repository only ever runs a query.
 */
import * as z from "zod/mini";
import { campaignIdSchema } from "../../shared/campaign";
import { emailSchema, normalizeUsPhone } from "../../shared/contact";
import { dayIn } from "../../shared/formatters";
import { US_STATES } from "../../shared/privacy-request";
import { LEAD_STATUSES, type AdminRole, type LeadListQuery, type LeadStatus, type LeadsView } from "../../shared/admin-views";
import { addDays, daysBetween, isDay } from "../analytics/report-days";
import type { LeadListFilter } from "../db/lead-list";
import { leadReferenceOf } from "./leads-view";

export const DEFAULT_LIST_DAYS = 7;
/** As the report: a longer range is a question for `npm run leads -- export`. */
export const MAX_LIST_RANGE_DAYS = 400;
/** Searching by a contact detail (or asking for its rows) is for ops only: analysts never see one. */
export const CONTACT_SEARCH_FORBIDDEN = "Only ops can search leads by phone number or email address. Search by lead reference instead.";

const FIELDS = ["since", "until", "sid", "state", "status", "buyer", "find", "after"] as const;
type Field = (typeof FIELDS)[number];
const LABELS: Record<Field, string> = { since: "From", until: "Until", sid: "Source", state: "State", status: "Status", buyer: "Buyer", find: "Search", after: "The page" };

export type ParsedLeadList =
  /** A lead reference was searched for: show that lead. */
  | { kind: "reference"; reference: string }
  | { kind: "list"; query: LeadListQuery; filter: LeadListFilter; after?: string }
  | { kind: "invalid"; errors: string[]; form: NonNullable<LeadsView["listForm"]> }
  | { kind: "forbidden"; message: string; form: NonNullable<LeadsView["listForm"]> };

/**
 * The instant day `day` starts in `timeZone`: UTC midnight moved by the zone's offset, checked
 * again at the result (a DST change falls at 2 a.m., never at midnight, in the US zones).
 */
export function dayStart(day: string, timeZone: string): Date {
  const utcMidnight = Date.parse(`${day}T00:00:00Z`);
  const offsetAt = (instant: number) => {
    const parts = new Intl.DateTimeFormat("en-US", { timeZone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" }).formatToParts(instant);
    const part = (type: string) => Number(parts.find((candidate) => candidate.type === type)?.value);
    return Date.UTC(part("year"), part("month") - 1, part("day"), part("hour"), part("minute"), part("second")) - instant;
  };
  const first = utcMidnight - offsetAt(utcMidnight);
  return new Date(utcMidnight - offsetAt(first));
}

const emailOk = (value: string) => emailSchema.safeParse(value).success;
const sidOk = (value: string) => z.safeParse(campaignIdSchema, value).success;

export function parseLeadListQuery(raw: Record<string, unknown>, options: { role: AdminRole; buyers: readonly string[]; timeZone: string; now: Date }): ParsedLeadList {
  const errors: string[] = [];
  const values: Partial<Record<Field, string>> = {};
  for (const field of FIELDS) {
    const value = raw[field];
    if (value === undefined) continue;
    // Express's simple query parser makes ?a=1&a=2 an array: one value per field, or we would guess.
    if (typeof value !== "string") errors.push(`${LABELS[field]} was given more than once.`);
    else if (value.trim() !== "") values[field] = value.trim();
  }
  const form = Object.fromEntries(Object.entries(values).filter(([field]) => field !== "after")) as NonNullable<LeadsView["listForm"]>;

  const find = values.find;
  let contact: { phone: string } | { email: string } | undefined;
  if (find !== undefined) {
    const reference = leadReferenceOf(find);
    if (reference !== undefined && errors.length === 0) return { kind: "reference", reference };
    if (reference === undefined) {
      const phone = normalizeUsPhone(find);
      if (find.includes("@")) {
        const email = find.toLowerCase();
        if (emailOk(email)) contact = { email };
        else errors.push("Search: that is not an email address (name@example.com).");
      } else if (phone !== undefined) contact = { phone };
      else errors.push("Search for a lead reference (LD-7K3M-Q9XD), a 10-digit US phone number or an email address.");
    }
  }
  if (contact !== undefined && options.role !== "ops") return { kind: "forbidden", message: CONTACT_SEARCH_FORBIDDEN, form };

  // Days: the default week; with one end given the other keeps the week; a contact search with
  // neither looks through every lead kept (a person's leads may be months old).
  const end = addDays(dayIn(options.now, options.timeZone), 1);
  let since = addDays(end, -DEFAULT_LIST_DAYS);
  let until = end;
  const dayOf = (field: "since" | "until", example: string) => {
    const value = values[field];
    if (value === undefined) return undefined;
    if (isDay(value)) return value;
    errors.push(`${LABELS[field]} must be a date like ${example}.`);
    return null;
  };
  const givenSince = dayOf("since", "2026-11-01");
  const givenUntil = dayOf("until", "2026-11-08");
  if (givenSince) since = givenSince;
  if (givenUntil) until = givenUntil;
  if (givenSince && givenUntil === undefined) until = addDays(since, DEFAULT_LIST_DAYS);
  if (givenUntil && givenSince === undefined) since = addDays(until, -DEFAULT_LIST_DAYS);
  if (givenSince !== null && givenUntil !== null) {
    if (until <= since) errors.push("Until must be after From.");
    else if (daysBetween(since, until) > MAX_LIST_RANGE_DAYS) errors.push(`The range is at most ${MAX_LIST_RANGE_DAYS} days.`);
  }
  const bounded = !(contact !== undefined && givenSince === undefined && givenUntil === undefined);

  const query: LeadListQuery = bounded ? { since, until } : {};
  const filter: LeadListFilter = bounded ? { since: dayStart(since, options.timeZone), until: dayStart(until, options.timeZone) } : {};
  if (values.sid !== undefined) {
    if (sidOk(values.sid)) query.sid = filter.sid = values.sid;
    else errors.push("Source must be a sid: letters, digits, dot, dash or underscore.");
  }
  if (values.state !== undefined) {
    const state = values.state.toUpperCase();
    if (Object.hasOwn(US_STATES, state)) query.state = filter.state = state;
    else errors.push("State must be a two-letter US state code, like CA.");
  }
  if (values.status !== undefined) {
    if ((LEAD_STATUSES as readonly string[]).includes(values.status)) query.status = filter.status = values.status as LeadStatus;
    else errors.push(`Status must be one of ${LEAD_STATUSES.join(", ")}.`);
  }
  if (values.buyer !== undefined) {
    if (options.buyers.includes(values.buyer)) query.buyer = filter.buyer = values.buyer;
    else errors.push(options.buyers.length === 0 ? "No buyers are configured (the Buyers page), so there is no buyer to filter by." : `There is no buyer ${values.buyer}.`);
  }
  if (contact !== undefined && find !== undefined) {
    query.find = find;
    Object.assign(filter, contact);
  }
  let after: string | undefined;
  if (values.after !== undefined) {
    after = leadReferenceOf(values.after);
    if (after === undefined) errors.push("The page asked for is not one of this list's (after must be a lead reference).");
  }
  if (errors.length > 0) return { kind: "invalid", errors, form };
  return { kind: "list", query, filter, ...(after ? { after } : {}) };
}

/** The query string of a list query (for the pages' links and the CSV's), without empty values. */
export function leadListSearch(query: LeadListQuery, after?: string): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries({ ...query, ...(after ? { after } : {}) })) if (value !== undefined) params.set(key, String(value));
  return params.toString();
}
