/**
 * Ops command for privacy requests (docs/privacy-operations.md):
 *   npm run privacy-requests -- list [--since 2026-01-01] [--until 2026-02-01] [--status received] [--format table|csv|json]
 *   npm run privacy-requests -- overdue [--format …]
 *   npm run privacy-requests -- complete PR-XXXX-XXXX [--note "…"]
 *   npm run privacy-requests -- deny PR-XXXX-XXXX --note "could not verify identity"
 *   npm run privacy-requests -- purge [--older-than-months 24]
 *   npm run privacy-requests -- record --type opt_out_sale_sharing --phone "(415) 555-0134" --via phone
 *   npm run privacy-requests -- suppressed [--email …] [--phone …]
 *   npm run privacy-requests -- disclosures EMAIL|PHONE [--format csv|json]   (or --email …, --phone …)
 * It uses the same configuration as the server (DATABASE_URL, or the embedded store in DATA_DIR;
 * the embedded store can only be opened while the server is stopped).
 */
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { loadConfig, type Config } from "../config";
import { openDatabase, type Database } from "../db/database";
import { migrate } from "../db/migrate";
import { deliveryRepository } from "../db/deliveries";
import { privacyRequestRepository, type NewPrivacyRequest, type PrivacyRequestRecord, type PrivacyRequestStatus } from "../db/privacy-requests";
import { commandSettings } from "./settings";
import { dueDate } from "../privacy/deadlines";
import { monthsBefore, PRIVACY_REQUEST_RETENTION_MONTHS } from "../leads/retention";
import { disclosuresFor, personContact, type Disclosure } from "../privacy/disclosures";
import { storePrivacyRequest, type RequestChannel } from "../privacy/requests";
import { suppressionList } from "../privacy/suppression";
import { DETAILS_TYPES, PRIVACY_REFERENCE_PATTERN, PRIVACY_REQUEST_TYPES, validatePrivacyRequest, type PrivacyRequestType } from "../../shared/privacy-request";
import { csv, parseDay, runAsScript, UsageError } from "./common";

const USAGE = `Usage: npm run privacy-requests -- <command> [options]
  list      [--since YYYY-MM-DD] [--until YYYY-MM-DD] [--status received|completed|denied] [--format table|csv|json]
  overdue   [--format table|csv|json]      open requests past their due date
  complete  <reference> [--note TEXT]      mark a request as done
  deny      <reference> --note TEXT        close a request you could not honour (say why)
  purge     [--older-than-months N]        delete closed requests received more than N months ago (default ${PRIVACY_REQUEST_RETENTION_MONTHS};
                                           the daily \`npm run leads -- purge\` does it too);
                                           the suppression list keeps their opt-outs
  record    --type ${PRIVACY_REQUEST_TYPES.join("|")}
            [--email ADDRESS] [--phone NUMBER] [--state XX] [--details TEXT] --via phone|email
            [--received YYYY-MM-DD|ISO time] [--format table|json]
                                           store a request made by phone or email (an opt-out also
                                           puts the email and phone on the suppression list)
  suppressed EMAIL|PHONE, or [--email ADDRESS] [--phone NUMBER]   whether they are on the suppression list
  disclosures EMAIL|PHONE, or [--email ADDRESS] [--phone NUMBER] [--format csv|json]
                                           every delivery of that person's leads: buyer, status,
                                           sale or not, price, when sent, accepted, returned`;

type JsonValue = string | number | boolean | null;

/** Each column: its name, and its value for JSON (CSV writes it as text, null as an empty cell). */
const DISCLOSURE_COLUMNS: Array<[string, (row: Disclosure) => JsonValue]> = [
  ["lead_reference", (row) => row.leadReference],
  ["lead_received_at", (row) => row.leadReceivedAt.toISOString()],
  ["kind", (row) => row.kind],
  ["recipient_id", (row) => row.recipientId],
  ["recipient_name", (row) => row.recipientName],
  ["status", (row) => row.status],
  ["sale", (row) => row.sale],
  ["price", (row) => row.price],
  ["scheduled_at", (row) => row.scheduledAt.toISOString()],
  ["sent_at", (row) => row.sentAt?.toISOString() ?? null],
  ["attempts", (row) => row.attempts],
  ["accepted_at", (row) => row.acceptedAt?.toISOString() ?? null],
  ["returned_at", (row) => row.returnedAt?.toISOString() ?? null],
  ["reason", (row) => row.reason],
];

const cell = (value: JsonValue, name: string) => (value === null ? "" : name === "price" ? (value as number).toFixed(2) : String(value));

export function formatDisclosures(rows: Disclosure[], format: string): string {
  if (format === "csv") return csv([DISCLOSURE_COLUMNS.map(([name]) => name), ...rows.map((row) => DISCLOSURE_COLUMNS.map(([name, get]) => cell(get(row), name)))]);
  if (format === "json") return `${JSON.stringify(rows.map((row) => Object.fromEntries(DISCLOSURE_COLUMNS.map(([name, get]) => [name, get(row)]))), null, 2)}\n`;
  throw new UsageError(`Unknown format ${format}: use csv or json.`);
}

const CHANNELS: readonly Exclude<RequestChannel, "web_form">[] = ["phone", "email"];

/** --received: a day (midnight UTC) or an ISO time, not in the future; default now. */
function receivedAt(value: string | undefined, now: Date): Date {
  if (value === undefined) return now;
  const at = /^\d{4}-\d{2}-\d{2}$/.test(value) ? parseDay(value, "received")! : new Date(value);
  if (Number.isNaN(at.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(value)) throw new UsageError("--received must be a date like 2026-01-31 or a time like 2026-01-31T15:04:00-08:00.");
  if (at.getTime() > now.getTime()) throw new UsageError("--received cannot be in the future.");
  return at;
}

/** --email and --phone, at least one, normalised as the leads and the list store them. */
/**
 * The person to look up: --email and --phone, or the email address or phone number given on its
 * own (`disclosures ana@example.com`), told apart by its "@". Not both ways at once.
 */
function contactOption(values: { email?: string | undefined; phone?: string | undefined }, positional?: string): { email?: string; phone?: string } {
  if (positional !== undefined) {
    if (values.email !== undefined || values.phone !== undefined) throw new UsageError("Give the email address or phone number on its own, or with --email/--phone, not both.");
    values = positional.includes("@") ? { email: positional } : { phone: positional };
  }
  if (values.email === undefined && values.phone === undefined) throw new UsageError("Give an email address or a phone number (or --email, --phone or both).");
  try {
    return personContact(values.email, values.phone);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** The buyers' names by id, as the servers have them (server/cli/settings.ts). */
async function buyerNames(db: Database, config: Config): Promise<Map<string, string>> {
  const settings = await commandSettings(db, config);
  return new Map((settings?.buyers ?? []).map((buyer) => [buyer.id, buyer.name]));
}

interface RecordInput {
  request: NewPrivacyRequest;
  channel: Exclude<RequestChannel, "web_form">;
  format: "table" | "json";
}

/** The `record` options, checked with the form's own rules before anything is opened. */
function recordInput(values: Record<string, string | boolean | undefined>, now: Date): RecordInput {
  const text = (name: string) => (typeof values[name] === "string" ? (values[name] as string) : undefined);
  const type = text("type");
  if (!type || !(PRIVACY_REQUEST_TYPES as readonly string[]).includes(type)) throw new UsageError(`--type must be one of ${PRIVACY_REQUEST_TYPES.join(", ")}.`);
  const via = text("via");
  if (!via || !(CHANNELS as readonly string[]).includes(via)) throw new UsageError("--via must be phone or email: how the request reached us.");
  const format = text("format") ?? "table";
  if (format !== "table" && format !== "json") throw new UsageError(`Unknown format ${format}: use table or json.`);
  if (text("details") !== undefined && !DETAILS_TYPES.includes(type as PrivacyRequestType)) throw new UsageError("--details is kept only for a correction (what to correct) or an appeal (the earlier request and why).");
  const checked = validatePrivacyRequest({ requestType: type, email: text("email"), phone: text("phone"), state: text("state"), details: text("details") });
  if (!checked.ok) throw new UsageError(Object.entries(checked.errors).map(([field, message]) => `--${field === "requestType" ? "type" : field}: ${message}`).join("\n"));
  const receivedAtDate = receivedAt(text("received"), now);
  return {
    request: { ...checked.value, submissionId: randomUUID(), gpc: false, receivedAt: receivedAtDate, dueAt: dueDate(type as PrivacyRequestType, receivedAtDate) },
    channel: via as Exclude<RequestChannel, "web_form">,
    format,
  };
}

/** Stores a request made by phone or email as the form would (an opt-out suppresses its contact) and prints its reference. */
async function record(db: Database, { request, channel, format }: RecordInput, out: (text: string) => void): Promise<number> {
  const result = await storePrivacyRequest(db, request, channel);
  if (!result.created) throw new Error("A new request was reported as a duplicate"); // a fresh submissionId: cannot happen
  const { requestType: type, receivedAt: at, dueAt } = request;
  if (format === "json") {
    out(`${JSON.stringify({ reference: result.reference, type, via: channel, received_at: at.toISOString(), due_at: dueAt.toISOString(), suppressed: result.suppressed }, null, 2)}\n`);
    return 0;
  }
  const both = request.email !== undefined && request.phone !== undefined;
  const what = both ? "email and phone are" : request.email !== undefined ? "email is" : "phone is";
  out(`${result.reference}\n`);
  out(`Recorded ${type} received by ${channel} on ${at.toISOString()}; due ${dueAt.toISOString()}.\n`);
  if (result.suppressed) out(`The ${what} on the suppression list: leads with ${both ? "them" : "it"} are no longer sold.\n`);
  return 0;
}

const COLUMNS: Array<[string, (row: PrivacyRequestRecord) => string]> = [
  ["reference", (row) => row.reference],
  ["type", (row) => row.requestType],
  ["status", (row) => row.status],
  ["received_at", (row) => row.receivedAt.toISOString()],
  ["due_at", (row) => row.dueAt.toISOString()],
  ["email", (row) => row.email ?? ""],
  ["phone", (row) => row.phone ?? ""],
  ["state", (row) => row.state ?? ""],
  ["gpc", (row) => String(row.gpc)],
  ["details", (row) => row.details ?? ""],
  ["closed_at", (row) => row.closedAt?.toISOString() ?? ""],
  ["note", (row) => row.resolutionNote ?? ""],
];

export function formatRows(rows: PrivacyRequestRecord[], format: string): string {
  if (format === "json") return `${JSON.stringify(rows.map((row) => Object.fromEntries(COLUMNS.map(([name, get]) => [name, get(row)]))), null, 2)}\n`;
  if (format === "csv") return csv([COLUMNS.map(([name]) => name), ...rows.map((row) => COLUMNS.map(([, get]) => get(row)))]);
  if (format === "table") {
    if (rows.length === 0) return "No privacy requests.\n";
    const shown = COLUMNS.slice(0, 7);
    const cells = [shown.map(([name]) => name), ...rows.map((row) => shown.map(([, get]) => get(row)))];
    const widths = shown.map((_, column) => Math.max(...cells.map((line) => line[column]!.length)));
    return `${cells.map((line) => line.map((cell, column) => cell.padEnd(widths[column]!)).join("  ").trimEnd()).join("\n")}\n${rows.length} request(s)\n`;
  }
  throw new UsageError(`Unknown format ${format}: use table, csv or json.`);
}

function reference(value: string | undefined): string {
  const upper = value?.toUpperCase();
  if (!upper || !PRIVACY_REFERENCE_PATTERN.test(upper)) throw new UsageError("Give the request's reference, like PR-7K3M-Q9XD.");
  return upper;
}

export async function run(argv: string[], out: (text: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      since: { type: "string" },
      until: { type: "string" },
      status: { type: "string" },
      format: { type: "string" },
      note: { type: "string" },
      type: { type: "string" },
      email: { type: "string" },
      phone: { type: "string" },
      state: { type: "string" },
      details: { type: "string" },
      via: { type: "string" },
      received: { type: "string" },
      "older-than-months": { type: "string", default: String(PRIVACY_REQUEST_RETENTION_MONTHS) },
      help: { type: "boolean", short: "h" },
    },
  });
  const [command, target] = positionals;
  if (values.help || !command) {
    out(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  // Checked before the store is opened: a mistake costs nothing.
  const recording = command === "record" ? recordInput(values, new Date()) : undefined;
  const contact = command === "suppressed" || command === "disclosures" ? contactOption(values, target) : undefined;
  if (command === "disclosures" && values.format !== undefined && values.format !== "csv" && values.format !== "json") {
    throw new UsageError(`Unknown format ${values.format}: use csv or json.`);
  }
  const config = loadConfig(env);
  const db = await openDatabase(config);
  try {
    await migrate(db);
    const repository = privacyRequestRepository(db);
    switch (command) {
      case "list": {
        const status = values.status as PrivacyRequestStatus | undefined;
        if (status && !["received", "completed", "denied"].includes(status)) throw new UsageError("--status must be received, completed or denied.");
        const rows = await repository.list({ since: parseDay(values.since, "since"), until: parseDay(values.until, "until"), status });
        out(formatRows(rows, values.format ?? "table"));
        return 0;
      }
      case "overdue": {
        const now = Date.now();
        const rows = (await repository.list({ status: "received" })).filter((row) => row.dueAt.getTime() < now);
        out(formatRows(rows, values.format ?? "table"));
        return 0;
      }
      case "complete":
      case "deny": {
        const ref = reference(target);
        if (command === "deny" && !values.note) throw new UsageError("Say why with --note when denying a request.");
        const closed = await repository.close(ref, command === "complete" ? "completed" : "denied", values.note ?? null);
        if (!closed) {
          const existing = await repository.findByReference(ref);
          out(existing ? `${ref} is already ${existing.status}.\n` : `No privacy request ${ref}.\n`);
          return 1;
        }
        out(`${ref} marked ${command === "complete" ? "completed" : "denied"}.\n`);
        return 0;
      }
      case "purge": {
        const months = Number(values["older-than-months"]);
        if (!Number.isInteger(months) || months < 1) throw new UsageError("--older-than-months must be a whole number of months.");
        const cutoff = monthsBefore(new Date(), months);
        const deleted = await repository.purgeClosedBefore(cutoff);
        out(`Deleted ${deleted} closed request(s) received before ${cutoff.toISOString().slice(0, 10)}.\n`);
        return 0;
      }
      case "record":
        return await record(db, recording!, out);
      case "suppressed": {
        const entries = await suppressionList(db).entries(contact!);
        if (entries.length === 0) {
          out("Not on the suppression list.\n");
          return 1;
        }
        for (const entry of entries) {
          out(`The ${entry.kind} is on the suppression list since ${entry.addedAt.toISOString()} (${entry.source}${entry.requestReference ? `, ${entry.requestReference}` : ""}).\n`);
        }
        return 0;
      }
      case "disclosures": {
        const rows = await disclosuresFor(deliveryRepository(db), contact!, await buyerNames(db, config));
        out(formatDisclosures(rows, values.format ?? "csv"));
        return 0;
      }
      default:
        throw new UsageError(`Unknown command ${command}.\n${USAGE}`);
    }
  } finally {
    await db.close();
  }
}

runAsScript(import.meta.url, run);
