/** What the ops commands share: usage errors, date options, CSV cells, and running as a script. */
import { pathToFileURL } from "node:url";

/** A mistake in the command line: exit code 2 and the message, no stack. */
export class UsageError extends Error {}

/**
 * RFC 4180 quoting; a leading = + - @ is defused so spreadsheets do not run it as a formula
 * (OWASP CSV injection). A plain signed number (an E.164 phone, "+14155550134") is no formula
 * and stays as it is, so CRM imports get the number unchanged.
 */
export function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) && !/^[+-]\d+(\.\d+)?$/.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** Rows of cells as CSV with CRLF line ends (RFC 4180). */
export function csv(lines: string[][]): string {
  return `${lines.map((line) => line.map(csvCell).join(",")).join("\r\n")}\r\n`;
}

/** "2026-01-31" → midnight UTC of that day; undefined when the option was not given. */
export function parseDay(value: string | undefined, name: string): Date | undefined {
  if (value === undefined) return undefined;
  const day = new Date(`${value}T00:00:00Z`);
  // Date rolls impossible days over (2026-02-30 → 2 March): the day must come back unchanged.
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== value) {
    throw new UsageError(`--${name} must be a date like 2026-01-31.`);
  }
  return day;
}

/** Runs `run` when `moduleUrl` is the script node was started with (not when a test imports it). */
export function runAsScript(moduleUrl: string, run: (argv: string[], out: (text: string) => void) => Promise<number>): void {
  if (!process.argv[1] || moduleUrl !== pathToFileURL(process.argv[1]).href) return;
  run(process.argv.slice(2), (text) => process.stdout.write(text)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(error instanceof UsageError || (error as { code?: string }).code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" ? 2 : 1);
    },
  );
}
