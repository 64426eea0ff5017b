/**
 * Ops command for the business settings as a file (issue 33, item 7; docs/lead-delivery.md):
 *   npm run buyers -- import FILE [--dry-run]       create or update the file's buyers, sources, auction rules and experiments
 *   npm run buyers -- export [--with-secrets]       the settings as a buyers file, on stdout
 * The file is BUYERS_FILE's format. Import is idempotent (importing the same file again changes
 * nothing) and all or nothing; entries stored but not in the file are kept (archive them in the
 * console). A buyer given without a `secret` keeps its stored one, or gets a new one, printed once;
 * one given without `credentials` (the values its posting spec's authentication names, issue 43),
 * or without one of them, keeps the stored values. Export leaves secrets and credentials out unless
 * --with-secrets (the credentials' names stay in each spec's `auth`), so its output can go into a
 * ticket or a review, and importing it back keeps every secret and credential. Each change is in the settings history as `cli`, and
 * running servers apply it within SETTINGS_POLL_MS. Same configuration as the server (DATABASE_URL,
 * or the embedded store in DATA_DIR, through the running server's database process: decision 033).
 */
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { loadConfig } from "../config";
import { openDatabase } from "../db/database";
import { migrate } from "../db/migrate";
import { outboundPolicy } from "../delivery/outbound";
import { exportSettings, importSettings, ImportFileError, type ImportReport } from "../settings/store";
import { runAsScript, UsageError } from "./common";

const USAGE = `Usage: npm run buyers -- <command> [options]
  import FILE [--dry-run]     create or update the buyers, sources, auction rules and experiments of FILE (BUYERS_FILE's format);
                              entries not in FILE are kept; --dry-run says what would change and changes nothing
  export [--with-secrets]     the settings as such a file on stdout; secrets and credentials only with --with-secrets
                              (an import of a file without them keeps the stored ones)`;

function describe(report: ImportReport, dryRun: boolean): string {
  const would = dryRun ? " (would be)" : "";
  const lines = [
    report.created.length > 0 ? `Created${would} ${report.created.length}: ${report.created.join(", ")}` : "",
    report.updated.length > 0 ? `Updated${would} ${report.updated.length}: ${report.updated.join(", ")}` : "",
    report.unchanged.length > 0 ? `Unchanged ${report.unchanged.length}: ${report.unchanged.join(", ")}` : "",
    report.created.length + report.updated.length === 0 ? "Nothing to change: the settings already match the file." : "",
  ].filter(Boolean);
  const secrets = Object.entries(report.generatedSecrets);
  if (secrets.length > 0 && !dryRun) {
    lines.push("", "New secrets (shown this once: give each to its buyer; `npm run buyers -- export --with-secrets` shows them again):");
    for (const [id, secret] of secrets) lines.push(`  ${id}: ${secret}`);
  }
  return `${lines.join("\n")}\n`;
}

export async function run(argv: string[], out: (text: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { "dry-run": { type: "boolean" }, "with-secrets": { type: "boolean" }, help: { type: "boolean", short: "h" } },
  });
  const [command, ...operands] = positionals;
  if (values.help || !command) {
    out(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  if (command !== "import" && command !== "export") throw new UsageError(`Unknown command ${command}.\n${USAGE}`);
  if (command === "import" && values["with-secrets"]) throw new UsageError("--with-secrets is for export.");
  if (command === "export" && values["dry-run"]) throw new UsageError("--dry-run is for import.");
  if (command === "export" && operands.length > 0) throw new UsageError(`Unexpected ${operands.join(" ")} after export.`);
  if (command === "import" && operands.length !== 1) throw new UsageError("Say which file: npm run buyers -- import FILE");

  // The file before the database: a mistake costs nothing.
  let raw: unknown;
  if (command === "import") {
    let text: string;
    try {
      text = await readFile(operands[0]!, "utf8");
    } catch (error) {
      throw new UsageError(`Cannot read ${operands[0]}: ${(error as Error).message}`);
    }
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new UsageError(`${operands[0]} is not JSON: ${(error as Error).message}`);
    }
  }

  const config = loadConfig(env);
  const db = await openDatabase(config);
  try {
    await migrate(db);
    if (command === "export") {
      out(`${JSON.stringify(await exportSettings(db.builder, { withSecrets: values["with-secrets"] === true }), null, 2)}\n`);
      return 0;
    }
    const dryRun = values["dry-run"] === true;
    let report: ImportReport;
    try {
      report = await importSettings(db.builder, raw, "cli", { dryRun, outbound: outboundPolicy(config) });
    } catch (error) {
      // Exit 1, not a usage error's 2: the command was right, the file is not (a script sees the difference).
      if (error instanceof ImportFileError) throw new Error(`${operands[0]} is not a valid buyers file:\n${error.problems.map((line) => `  - ${line}`).join("\n")}\nNothing was changed.`, { cause: error });
      throw error;
    }
    out(describe(report, dryRun));
    if (dryRun) out("Dry run: nothing was changed.\n");
    return 0;
  } finally {
    await db.close();
  }
}

runAsScript(import.meta.url, run);
