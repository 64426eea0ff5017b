/**
 * Ops command for privacy requests (docs/privacy-operations.md):
 *   npm run privacy-requests -- list [--since 2026-01-01] [--until 2026-02-01] [--status received] [--format table|csv|json]
 *   npm run privacy-requests -- overdue [--format …]
 *   npm run privacy-requests -- complete PR-XXXX-XXXX [--note "…"]
 *   npm run privacy-requests -- deny PR-XXXX-XXXX --note "could not verify identity"
 *   npm run privacy-requests -- purge [--older-than-months 24]
 * It uses the same configuration as the server (DATABASE_URL, or the embedded store in DATA_DIR;
 * the embedded store can only be opened while the server is stopped).
 */
import { parseArgs } from "node:util";
import { loadConfig } from "../config";
import { openDatabase } from "../db/database";
import { migrate } from "../db/migrate";
import { privacyRequestRepository, type PrivacyRequestRecord, type PrivacyRequestStatus } from "../db/privacy-requests";
import { PRIVACY_REFERENCE_PATTERN } from "../../shared/privacy-request";
import { csv, parseDay, runAsScript, UsageError } from "./common";

const USAGE = `Usage: npm run privacy-requests -- <command> [options]
  list      [--since YYYY-MM-DD] [--until YYYY-MM-DD] [--status received|completed|denied] [--format table|csv|json]
  overdue   [--format table|csv|json]      open requests past their due date
  complete  <reference> [--note TEXT]      mark a request as done
  deny      <reference> --note TEXT        close a request you could not honour (say why)
  purge     [--older-than-months N]        delete closed requests received more than N months ago (default 24)`;

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
      format: { type: "string", default: "table" },
      note: { type: "string" },
      "older-than-months": { type: "string", default: "24" },
      help: { type: "boolean", short: "h" },
    },
  });
  const [command, target] = positionals;
  if (values.help || !command) {
    out(`${USAGE}\n`);
    return values.help ? 0 : 2;
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
        out(formatRows(rows, values.format));
        return 0;
      }
      case "overdue": {
        const now = Date.now();
        const rows = (await repository.list({ status: "received" })).filter((row) => row.dueAt.getTime() < now);
        out(formatRows(rows, values.format));
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
        const cutoff = new Date();
        cutoff.setUTCMonth(cutoff.getUTCMonth() - months);
        const deleted = await repository.purgeClosedBefore(cutoff);
        out(`Deleted ${deleted} closed request(s) received before ${cutoff.toISOString().slice(0, 10)}.\n`);
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
