/**
 * Ops command for quote requests (docs/lead-operations.md):
 *   npm run leads -- export --since 2026-11-01 [--until 2026-12-01] [--format csv|ndjson]
 *   npm run leads -- purge [--dry-run]          the retention job: run it daily
 * Same configuration as the server (DATABASE_URL, or the embedded store in DATA_DIR, which only
 * one process can open: stop the server first, or use PostgreSQL). Output goes to stdout; it holds
 * personal information, so write it only where such data may live.
 */
import { parseArgs } from "node:util";
import { loadConfig } from "../config";
import { openDatabase } from "../db/database";
import { migrate } from "../db/migrate";
import { leadRepository, type LeadRecord } from "../db/leads";
import { LEAD_ANSWER_COLUMNS } from "../db/lead-rows";
import { retentionCutoffs, LEAD_RETENTION_YEARS, CONSENT_RETENTION_YEARS } from "../leads/retention";
import { csv, parseDay, runAsScript, UsageError } from "./common";

const USAGE = `Usage: npm run leads -- <command> [options]
  export  --since YYYY-MM-DD [--until YYYY-MM-DD] [--format csv|ndjson]
          quote requests received in [since, until) (UTC days), with their consent records
  purge   [--dry-run]   delete leads older than ${LEAD_RETENTION_YEARS} years and consent records older than ${CONSENT_RETENTION_YEARS} years`;

const iso = (date: Date | null | undefined) => date?.toISOString() ?? "";

type Column = [name: string, value: (row: LeadRecord) => string];
const snakeCase = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** The export's columns, in order: the lead, then its consent record. */
const COLUMNS: Column[] = [
  ["reference", (row) => row.reference],
  ["received_at", (row) => iso(row.receivedAt)],
  ["duplicate_of", (row) => row.duplicateOf ?? ""],
  ["sid", (row) => row.sid ?? ""],
  ["tid", (row) => row.tid ?? ""],
  // The answers, each under its column's name; the ZIP's place beside it.
  ...LEAD_ANSWER_COLUMNS.flatMap((column): Column[] => {
    const answer: Column = [snakeCase(column), (row) => String(row[column] ?? "")];
    return column === "zip" ? [answer, ["city", (row) => row.city], ["state", (row) => row.state]] : [answer];
  }),
  ["gpc", (row) => String(row.gpc)],
  ["consent_disclosure_version", (row) => String(row.consent?.disclosureVersion ?? "")],
  ["consent_disclosure_sha256", (row) => row.consent?.disclosureSha256 ?? ""],
  ["consent_checkbox", (row) => String(row.consent?.checkboxChecked ?? "")],
  ["consented_at", (row) => iso(row.consent?.consentedAt)],
  ["consent_ip", (row) => row.consent?.ip ?? ""],
  ["consent_user_agent", (row) => row.consent?.userAgent ?? ""],
  ["consent_form_url", (row) => row.consent?.formUrl ?? ""],
  ["consent_page_url", (row) => row.consent?.pageUrl ?? ""],
];

export function formatLeads(rows: LeadRecord[], format: string): string {
  if (format === "csv") return csv([COLUMNS.map(([name]) => name), ...rows.map((row) => COLUMNS.map(([, get]) => get(row)))]);
  if (format === "ndjson") return rows.map((row) => `${JSON.stringify(row)}\n`).join("");
  throw new UsageError(`Unknown format ${format}: use csv or ndjson.`);
}

export async function run(argv: string[], out: (text: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      since: { type: "string" },
      until: { type: "string" },
      format: { type: "string", default: "csv" },
      "dry-run": { type: "boolean", default: false },
      help: { type: "boolean", short: "h" },
    },
  });
  const [command] = positionals;
  if (values.help || !command) {
    out(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  if (command !== "export" && command !== "purge") throw new UsageError(`Unknown command ${command}.\n${USAGE}`);
  // Check the options before touching the database.
  const since = parseDay(values.since, "since");
  const until = parseDay(values.until, "until");
  if (command === "export") {
    if (!since) throw new UsageError("Say where the export starts with --since YYYY-MM-DD.");
    if (until && until <= since) throw new UsageError("--until must be after --since.");
    if (!["csv", "ndjson"].includes(values.format)) throw new UsageError(`Unknown format ${values.format}: use csv or ndjson.`);
  }

  const db = await openDatabase(loadConfig(env));
  try {
    await migrate(db);
    const repository = leadRepository(db);
    if (command === "export") {
      out(formatLeads(await repository.list({ since, until }), values.format));
      return 0;
    }
    const { leadCutoff, consentCutoff } = retentionCutoffs(new Date());
    if (values["dry-run"]) {
      const expired = await repository.countExpired(leadCutoff, consentCutoff);
      out(`Would delete ${expired.leads} lead(s) received before ${iso(leadCutoff)} and ${expired.consents} consent record(s) given before ${iso(consentCutoff)}.\n`);
      return 0;
    }
    const deleted = await repository.purge(leadCutoff, consentCutoff);
    out(
      `Deleted ${deleted.leads} lead(s) received before ${iso(leadCutoff)} and ${deleted.consents} consent record(s) given before ${iso(consentCutoff)}.\n`,
    );
    return 0;
  } finally {
    await db.close();
  }
}

runAsScript(import.meta.url, run);
