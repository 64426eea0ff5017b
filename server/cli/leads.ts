/**
 * Ops command for quote requests (docs/lead-operations.md):
 *   npm run leads -- export [--since 2026-11-01] [--until 2026-12-01] [--format csv|ndjson]   (days in REPORT_TIME_ZONE; default the last 30)
 *   npm run leads -- purge [--dry-run]          the retention job: run it daily
 *   npm run leads -- deliveries [--status failed] [--since 2026-11-01] [--reference LD-…] [--format table|csv|json]
 *   npm run leads -- retry LD-… [--buyer ID]    dead-lettered deliveries back in the queue
 *   npm run leads -- return LD-… --buyer ID --reason "…"   a buyer's return: revenue reversed
 *   npm run leads -- test-link [--hours 24] [--zip 90210] [--sid SID]   a link whose leads are tests
 * Same configuration as the server (DATABASE_URL, or the embedded store in DATA_DIR, through the
 * running server's database process when there is one, decision 033; BUYERS_FILE for `return`).
 * Output goes to stdout; an export holds personal information, so write it only where such data
 * may live (the deliveries list holds none: references, buyers, prices, statuses).
 */
import { parseArgs } from "node:util";
import type { DestinationStream } from "pino";
import { loadConfig } from "../config";
import { openDatabase, type Database } from "../db/database";
import { migrate } from "../db/migrate";
import { leadRepository, type LeadRecord } from "../db/leads";
import { leadsCsv } from "../leads/export-columns";
import { deliveryRepository, type AttemptRecord, type DeliveryRecord } from "../db/deliveries";
import type { DeliveryStatus } from "../db/schema";
import { loadBuyersFile } from "../delivery/buyers";
import { commandSettings } from "./settings";
import { returnLead, type ReturnDependencies, type ReturnRequest } from "../delivery/returns";
import { createLogger } from "../logger";
import { createEventWriter } from "../analytics/writer";
import { analyticsCutoff, countExpiredAnalytics, purgeAnalytics, type PurgeCounts } from "../analytics/retention";
import { leadCheckRepository } from "../db/lead-checks";
import { retentionCutoffs, LEAD_RETENTION_YEARS, CONSENT_RETENTION_YEARS, DELIVERY_RETENTION_YEARS, PRIVACY_REQUEST_RETENTION_MONTHS } from "../leads/retention";
import { privacyRequestRepository } from "../db/privacy-requests";
import { LEAD_REFERENCE_PATTERN } from "../../shared/lead/api";
import { csv, parseDay, runAsScript, UsageError } from "./common";
import { testLink, TEST_LINK_MAX_HOURS } from "../leads/test-link";
import { campaignIdSchema, zipSchema } from "../../shared/campaign";
import { DEFAULT_DAYS } from "../admin/report-query";
import { dayStart } from "../admin/lead-list-query";
import { addDays } from "../analytics/report-days";
import { dayIn } from "../../shared/formatters";

const DELIVERY_STATUSES: readonly DeliveryStatus[] = ["pending", "sending", "accepted", "rejected", "failed", "returned"];
/** As POST /api/buyer-returns allows. */
const REASON_MAX_LENGTH = 500;

/**
 * The export's instants: [since, until) as days in the report's time zone (the days analysts and
 * the console count in), until tomorrow and the ${DEFAULT_DAYS} days before it unless given.
 */
export function exportRange(since: string | undefined, until: string | undefined, timeZone: string, now: Date): { since: Date; until: Date } {
  const lastDay = until ?? addDays(dayIn(now, timeZone), 1);
  const firstDay = since ?? addDays(lastDay, -DEFAULT_DAYS);
  return { since: dayStart(firstDay, timeZone), until: dayStart(lastDay, timeZone) };
}

const USAGE = `Usage: npm run leads -- <command> [options]
  export  [--since YYYY-MM-DD] [--until YYYY-MM-DD] [--format csv|ndjson]
          quote requests received in [since, until), with their consent records; days in
          REPORT_TIME_ZONE (America/New_York unless set), as the report and the console count them;
          until defaults to tomorrow (today is in), since to ${DEFAULT_DAYS} days before until
  purge   [--dry-run]   the retention job, daily: delete leads older than ${LEAD_RETENTION_YEARS} years, consent records and
          finished deliveries older than ${CONSENT_RETENTION_YEARS} years, closed privacy requests older than
          ${PRIVACY_REQUEST_RETENTION_MONTHS} months and analytics events older than ANALYTICS_RETENTION_DAYS (396 days by default)
  deliveries [--status ${DELIVERY_STATUSES.join("|")}] [--since YYYY-MM-DD]
          [--reference LD-XXXX-XXXX] [--format table|csv|json]
          deliveries to buyers and postbacks to traffic sources, oldest first (with --reference, every try)
  retry   LD-XXXX-XXXX [--buyer ID]
          send a lead's dead-lettered (failed) deliveries again, or only the one to that buyer
  return  LD-XXXX-XXXX --buyer ID --reason TEXT
          the buyer returns the lead: its price is no longer revenue, the traffic source is told (needs the buyer configured)
  test-link [--hours N] [--zip ZIP] [--sid SID]
          a quote page link, good for N hours (24 by default, at most ${TEST_LINK_MAX_HOURS}), whose quote requests are
          test leads whatever their contact details: sandbox buyers only, never billed (needs CSRF_SECRET,
          the servers' own; the link starts with PUBLIC_BASE_URL)`;

/** The options each command takes (anything else is a usage mistake). */
const COMMAND_OPTIONS: Record<string, readonly string[]> = {
  export: ["since", "until", "format"],
  purge: ["dry-run"],
  deliveries: ["status", "since", "reference", "format"],
  retry: ["buyer"],
  return: ["buyer", "reason"],
  "test-link": ["hours", "zip", "sid"],
};

const iso = (date: Date | null | undefined) => date?.toISOString() ?? "";

export function formatLeads(rows: LeadRecord[], format: string): string {
  if (format === "csv") return leadsCsv(rows);
  if (format === "ndjson") return rows.map((row) => `${JSON.stringify(row)}\n`).join("");
  throw new UsageError(`Unknown format ${format}: use csv or ndjson.`);
}

// ---- deliveries --------------------------------------------------------------------------

/** A delivery as the command lists it; with --reference, its tries too. */
type Listed = DeliveryRecord & { tries?: AttemptRecord[] };

const money = (price: number | null) => (price === null ? "" : price.toFixed(2));

/** The CSV's columns, one line per delivery (the JSON has the same fields, camelCase, and `tries` with --reference). */
const DELIVERY_COLUMNS: [name: string, value: (row: DeliveryRecord) => string][] = [
  ["reference", (row) => row.leadReference],
  ["kind", (row) => row.kind],
  ["target", (row) => row.target],
  ["status", (row) => row.status],
  ["attempts", (row) => String(row.attempts)],
  ["price", (row) => money(row.price)],
  ["sale", (row) => String(row.sale)],
  ["last_error", (row) => row.lastError ?? ""],
  ["reason", (row) => row.reason ?? ""],
  ["created_at", (row) => iso(row.createdAt)],
  ["next_attempt_at", (row) => (row.status === "pending" || row.status === "sending" ? iso(row.nextAttemptAt) : "")],
  ["completed_at", (row) => iso(row.completedAt)],
  ["returned_at", (row) => iso(row.returnedAt)],
  ["idempotency_key", (row) => row.idempotencyKey],
];

/** "2026-11-23 13:40:05" (UTC), for the table. */
const shortTime = (date: Date | null) => (date ? date.toISOString().slice(0, 19).replace("T", " ") : "");

/**
 * Text that came from outside (a buyer's reason, an error excerpt) as one harmless table cell:
 * control characters (line breaks, terminal escape sequences) become spaces, and it is cut short.
 */
function cell(text: string, max = 60): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** What happens next or happened last: "next 13:40:05", "done 13:40:01", "returned 14:02:00". */
function when(row: DeliveryRecord): string {
  if (row.status === "pending" || row.status === "sending") return `next ${shortTime(row.nextAttemptAt)}`;
  if (row.status === "returned") return `returned ${shortTime(row.returnedAt)}`;
  return `done ${shortTime(row.completedAt)}`;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((text, column) => (column === row.length - 1 ? text : text.padEnd(widths[column]!))).join("  ").trimEnd()).join("\n");
}

function deliveriesTable(rows: Listed[]): string {
  if (rows.length === 0) return "No deliveries.\n";
  const header = ["LEAD", "KIND", "TO", "STATUS", "TRIES", "PRICE", "SALE", "CREATED (UTC)", "WHEN (UTC)", "LAST ERROR / REASON"];
  const lines = rows.map((row) => [
    row.leadReference,
    row.kind,
    row.target,
    row.status,
    String(row.attempts),
    money(row.price),
    row.sale ? "yes" : "no",
    shortTime(row.createdAt),
    when(row),
    cell([row.lastError, row.reason].filter(Boolean).join(" / ")),
  ]);
  let text = `${table([header, ...lines])}\n`;
  const tried = rows.filter((row) => row.tries && row.tries.length > 0);
  for (const row of tried) {
    text += `\nTries of ${row.leadReference} to ${row.target}:\n`;
    text += `${table([
      ["  AT (UTC)", "HTTP", "MS", "OUTCOME", "ANSWER"],
      ...row.tries!.map((attempt) => [`  ${shortTime(attempt.attemptedAt)}`, attempt.httpStatus === null ? "-" : String(attempt.httpStatus), String(attempt.latencyMs), attempt.outcome, cell(attempt.excerpt ?? "")]),
    ])}\n`;
  }
  const counts = DELIVERY_STATUSES.map((status) => [status, rows.filter((row) => row.status === status).length] as const).filter(([, n]) => n > 0);
  return `${text}\n${rows.length} ${rows.length === 1 ? "delivery" : "deliveries"}: ${counts.map(([status, n]) => `${n} ${status}`).join(", ")}\n`;
}

export function formatDeliveries(rows: Listed[], format: string): string {
  if (format === "table") return deliveriesTable(rows);
  if (format === "csv") return csv([DELIVERY_COLUMNS.map(([name]) => name), ...rows.map((row) => DELIVERY_COLUMNS.map(([, get]) => get(row)))]);
  if (format === "json") return `${JSON.stringify(rows, null, 2)}\n`;
  throw new UsageError(`Unknown format ${format}: use table, csv or json.`);
}

function leadReference(value: string | undefined, command: string): string {
  if (value === undefined) throw new UsageError(`Say which lead: npm run leads -- ${command} LD-XXXX-XXXX …`);
  const reference = value.trim().toUpperCase();
  if (!LEAD_REFERENCE_PATTERN.test(reference)) throw new UsageError(`${value} is not a lead reference like LD-7K3M-Q9XD.`);
  return reference;
}

async function listDeliveries(db: Database, filter: { status?: DeliveryStatus; since?: Date; reference?: string }): Promise<Listed[]> {
  const repository = deliveryRepository(db);
  const rows = await repository.list(filter);
  if (filter.reference === undefined) return rows;
  return Promise.all(rows.map(async (row) => ({ ...row, tries: await repository.attempts(row.id) })));
}

async function retryDeliveries(db: Database, reference: string, buyer: string | undefined, out: (text: string) => void): Promise<number> {
  const queued = await deliveryRepository(db).retry(reference, buyer);
  const to = buyer === undefined ? "" : ` to ${buyer}`;
  if (queued === 0) {
    out(`No failed delivery of ${reference}${to} to send again (see: npm run leads -- deliveries --reference ${reference}).\n`);
    return 1;
  }
  out(`Queued ${queued} failed ${queued === 1 ? "delivery" : "deliveries"} of ${reference}${to} again: the worker sends ${queued === 1 ? "it" : "them"} now.\n`);
  return 0;
}

/** `return`: what POST /api/buyer-returns does, for a return a buyer reported by email or phone. */
async function returnDelivery(deps: ReturnDependencies, request: ReturnRequest, out: (text: string) => void): Promise<number> {
  const { reference, buyerId } = request;
  const outcome = await returnLead(deps, request);
  if (outcome.kind === "returned") {
    const price = outcome.price === null ? "no charge (not sold)" : `$${outcome.price.toFixed(2)}`;
    out(`Returned ${reference} from ${buyerId}: ${price} reversed.\n`);
    return 0;
  }
  out(
    outcome.kind === "already_returned"
      ? `${reference} was already returned by ${buyerId}.\n`
      : `${buyerId} has no accepted delivery of ${reference} (see: npm run leads -- deliveries --reference ${reference}).\n`,
  );
  return 1;
}

export async function run(argv: string[], out: (text: string) => void, env: NodeJS.ProcessEnv = process.env, logTo: DestinationStream = process.stderr): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      since: { type: "string" },
      until: { type: "string" },
      format: { type: "string" },
      "dry-run": { type: "boolean" },
      status: { type: "string" },
      reference: { type: "string" },
      buyer: { type: "string" },
      reason: { type: "string" },
      hours: { type: "string" },
      zip: { type: "string" },
      sid: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  const [command, ...operands] = positionals;
  if (values.help || !command) {
    out(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const allowed = COMMAND_OPTIONS[command];
  if (!allowed) throw new UsageError(`Unknown command ${command}.\n${USAGE}`);
  // Check the options before touching the database.
  for (const option of Object.keys(values)) {
    if (!allowed.includes(option)) throw new UsageError(`--${option} does not apply to ${command}.`);
  }
  const takesLead = command === "retry" || command === "return";
  if (operands.length > (takesLead ? 1 : 0)) throw new UsageError(`Unexpected ${operands.slice(takesLead ? 1 : 0).join(" ")} after ${command}.`);
  const since = parseDay(values.since, "since");
  const until = parseDay(values.until, "until");
  const format = values.format ?? (command === "deliveries" ? "table" : "csv");
  if (command === "export") {
    if (since && until && until <= since) throw new UsageError("--until must be after --since.");
    if (!["csv", "ndjson"].includes(format)) throw new UsageError(`Unknown format ${format}: use csv or ndjson.`);
  }
  if (command === "deliveries") {
    if (values.status !== undefined && !DELIVERY_STATUSES.includes(values.status as DeliveryStatus)) {
      throw new UsageError(`Unknown status ${values.status}: use ${DELIVERY_STATUSES.join(", ")}.`);
    }
    if (!["table", "csv", "json"].includes(format)) throw new UsageError(`Unknown format ${format}: use table, csv or json.`);
  }
  const reference = takesLead ? leadReference(operands[0], command) : values.reference === undefined ? undefined : leadReference(values.reference, command);
  if (values.buyer !== undefined && !values.buyer.trim()) throw new UsageError("--buyer needs a buyer id (or a source's sid, for a postback).");
  const reason = values.reason?.trim();
  if (command === "return") {
    if (values.buyer === undefined) throw new UsageError("Say which buyer returns the lead with --buyer ID.");
    if (!reason) throw new UsageError("Say why with --reason TEXT (the buyer's words: it is kept with the delivery).");
    if (reason.length > REASON_MAX_LENGTH) throw new UsageError(`--reason is at most ${REASON_MAX_LENGTH} characters.`);
  }

  if (command === "test-link") {
    const hoursText = values.hours ?? "24";
    const hours = Number(hoursText);
    if (!/^\d+$/.test(hoursText) || hours < 1 || hours > TEST_LINK_MAX_HOURS) throw new UsageError(`--hours must be a whole number from 1 to ${TEST_LINK_MAX_HOURS}.`);
    if (values.zip !== undefined && !zipSchema.safeParse(values.zip).success) throw new UsageError("--zip must be 5 digits.");
    if (values.sid !== undefined && !campaignIdSchema.safeParse(values.sid).success) throw new UsageError("--sid must be 1–64 letters, digits or - _ . ~.");
    const config = loadConfig(env);
    // Without it each server signs with a secret of its own, and no server could check the link.
    if (!config.CSRF_SECRET) throw new Error("test-link needs CSRF_SECRET, the same as the servers': they check the link with it.");
    const baseUrl = config.PUBLIC_BASE_URL ?? `http://localhost:${config.PORT}`;
    const expiresAt = new Date(Date.now() + hours * 3_600_000);
    out(`${testLink(config.CSRF_SECRET, { baseUrl, expiresAt, ...(values.zip ? { zip: values.zip } : {}), ...(values.sid ? { sid: values.sid } : {}) })}\n`);
    out(`Good until ${expiresAt.toISOString()}. Every quote request sent from it is a test lead: offered to sandbox buyers only, never billed.\n`);
    return 0;
  }

  const config = loadConfig(env);
  // A bad BUYERS_FILE stops here, before the database is opened.
  if (command === "return" && config.BUYERS_FILE) loadBuyersFile(config.BUYERS_FILE);

  const db = await openDatabase(config);
  try {
    await migrate(db);
    // A return tells the traffic source through its postback: the sources as the servers have them.
    const buyers = command === "return" ? await commandSettings(db, config) : undefined;
    if (command === "return" && !buyers) throw new Error("return needs the buyers: none is configured (the console's Buyers page, or BUYERS_FILE before the first start).");
    if (command === "deliveries") {
      const status = values.status as DeliveryStatus | undefined;
      out(formatDeliveries(await listDeliveries(db, { status, since, reference }), format));
      return 0;
    }
    if (command === "retry") return await retryDeliveries(db, reference!, values.buyer, out);
    if (command === "return") {
      // lead_returned goes to the log (stderr), as the API's does to the server's.
      const logger = createLogger(config, logTo);
      // The return is stored for the report too (its revenue and payout reversed), before exiting.
      const analytics = createEventWriter({ db, logger, timeZone: config.REPORT_TIME_ZONE, maxBuffer: 100, flushMs: 60_000 });
      try {
        return await returnDelivery({ db, buyers: buyers!, logger, analytics }, { reference: reference!, buyerId: values.buyer!, reason: reason!, via: "cli" }, out);
      } finally {
        await analytics.stop();
        logger.flush();
      }
    }
    const repository = leadRepository(db);
    if (command === "export") {
      const range = exportRange(values.since, values.until, config.REPORT_TIME_ZONE, new Date());
      out(formatLeads(await repository.list(range), format));
      return 0;
    }
    const now = new Date();
    const { leadCutoff, consentCutoff, deliveryCutoff, privacyRequestCutoff } = retentionCutoffs(now);
    const eventsCutoff = analyticsCutoff(now, config.ANALYTICS_RETENTION_DAYS, config.REPORT_TIME_ZONE);
    const eventsLine = (verb: string, counts: PurgeCounts) =>
      `${verb} ${counts.events} analytics event(s) from before ${iso(eventsCutoff.before)} (${config.ANALYTICS_RETENTION_DAYS} days) and ${counts.days} daily report row(s) before ${eventsCutoff.beforeDay}.\n`;
    const deliveriesLine = (verb: string, count: number) =>
      `${verb} ${count} finished delivery record(s) scheduled before ${iso(deliveryCutoff)} (${DELIVERY_RETENTION_YEARS} years).\n`;
    const requestsLine = (verb: string, count: number) =>
      `${verb} ${count} closed privacy request(s) received before ${iso(privacyRequestCutoff)} (${PRIVACY_REQUEST_RETENTION_MONTHS} months; their opt-outs stay on the suppression list).\n`;
    const deliveries = deliveryRepository(db);
    const requests = privacyRequestRepository(db);
    if (values["dry-run"]) {
      const expired = await repository.countExpired(leadCutoff, consentCutoff);
      out(`Would delete ${expired.leads} lead(s) received before ${iso(leadCutoff)} and ${expired.consents} consent record(s) given before ${iso(consentCutoff)}.\n`);
      out(deliveriesLine("Would delete", await deliveries.purgeBefore(deliveryCutoff, { dryRun: true })));
      out(requestsLine("Would delete", await requests.countClosedBefore(privacyRequestCutoff)));
      out(eventsLine("Would delete", await countExpiredAnalytics(db, eventsCutoff)));
      out(`Would delete ${await leadCheckRepository(db.builder).expire(now, { dryRun: true })} cached phone check answer(s) past their CHECK_CACHE_DAYS.\n`);
      return 0;
    }
    const deleted = await repository.purge(leadCutoff, consentCutoff);
    out(
      `Deleted ${deleted.leads} lead(s) received before ${iso(leadCutoff)} and ${deleted.consents} consent record(s) given before ${iso(consentCutoff)}.\n`,
    );
    out(deliveriesLine("Deleted", await deliveries.purgeBefore(deliveryCutoff)));
    out(requestsLine("Deleted", await requests.purgeClosedBefore(privacyRequestCutoff)));
    out(eventsLine("Deleted", await purgeAnalytics(db, eventsCutoff)));
    // A phone's cached check answers (issue 44) hold no lead and no number, only its hash: kept no longer than they are used.
    out(`Deleted ${await leadCheckRepository(db.builder).expire(now)} cached phone check answer(s) past their CHECK_CACHE_DAYS.\n`);
    return 0;
  } finally {
    await db.close();
  }
}

runAsScript(import.meta.url, run);
