/** The benchmark's small arithmetic and plain-text formatting: medians, means, number formats, tables. */

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function mean(values: number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length;
}

function definedOnly(values: Array<number | undefined>): number[] | undefined {
  return values.every((value): value is number => value !== undefined) ? values : undefined;
}

/** `reduce` over the values when every one is known, else undefined. */
export function optional(values: Array<number | undefined>, reduce: (values: number[]) => number): number | undefined {
  const defined = definedOnly(values);
  return defined ? reduce(defined) : undefined;
}

export function rotate<T>(items: T[], by: number): T[] {
  const shift = by % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

export const fmt = {
  int: (value: number) => Math.round(value).toLocaleString("en-US"),
  ms: (value: number) => (Number.isFinite(value) ? value.toFixed(value < 10 ? 1 : 0) : "n/a"),
  maybe: (value: number | undefined, digits = 0) => (value === undefined || !Number.isFinite(value) ? "n/a" : value.toFixed(digits)),
  kb: (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`,
};

export function table(headers: string[], rows: string[][], rightAligned: boolean[]): string {
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => (row[column] ?? "").length)));
  const line = (cells: string[]) =>
    cells.map((cell, column) => (rightAligned[column] ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!))).join("  ");
  return [line(headers), widths.map((width) => "-".repeat(width)).join("  "), ...rows.map(line)].join("\n");
}
