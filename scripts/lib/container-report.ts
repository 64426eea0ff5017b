/**
 * The container test's output: numbered steps with their durations, and the figures printed at
 * the end (image size, build time, the rolling restart's numbers).
 */

export const print = (line: string) => process.stdout.write(`${line}\n`);

/** Name → value lines for the closing "figures" table, in order. */
export const figures: Array<[string, string]> = [];

export const MB = 1_000_000;
export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
export const megabytes = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;

/** Prints the step's name, runs it, then prints it again with how long it took. */
export async function step<T>(name: string, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  print(`\n▶ ${name}`);
  const result = await work();
  print(`✓ ${name} (${seconds(Date.now() - started)})`);
  return result;
}

export function printFigures(): void {
  print("\nfigures");
  const width = Math.max(...figures.map(([name]) => name.length));
  for (const [name, value] of figures) print(`  ${name.padEnd(width)}  ${value}`);
}
