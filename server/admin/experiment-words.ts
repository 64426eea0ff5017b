/**
 * How the console says an experiment's parts (issue 45): a knob's value and a time, one way for the
 * pages (experiment-views.ts) and the history (experiment-history.ts). The primary metrics' words
 * are shared with the form page (shared/admin-views.ts PRIMARY_METRIC_WORDS).
 */
/** "2026-05-01 09:00 UTC": the console's times are UTC (client/admin/format.ts), and experiments are set to the minute. */
export function utcWords(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** A knob's value as ops read it: text in quotes, yes or no. */
export function knobValueWords(value: unknown): string {
  if (typeof value === "boolean") return value ? "yes" : "no";
  return `“${String(value)}”`;
}
