/** One schema change: SQL statements applied once, inside the same transaction as its bookkeeping row. */
export interface Migration {
  version: number;
  name: string;
  statements: string[];
}
