/**
 * sql.js (SQLite compiled to WebAssembly) opened from Node: no native module to build. The
 * package ships no types, so the little of its API used here is declared.
 */
import { createRequire } from "node:module";

export type SqlValue = string | number | null | Uint8Array;

export interface SqlDatabase {
  exec(sql: string): { columns: string[]; values: SqlValue[][] }[];
  close(): void;
}

interface SqlJsStatic {
  Database: new (data: Uint8Array) => SqlDatabase;
}

const require = createRequire(import.meta.url);

export async function openSqlite(data: Uint8Array): Promise<SqlDatabase> {
  const initSqlJs = require("sql.js") as (config: { locateFile(file: string): string }) => Promise<SqlJsStatic>;
  const SQL = await initSqlJs({ locateFile: (file) => require.resolve(`sql.js/dist/${file}`) });
  return new SQL.Database(data);
}

/** The rows of one SELECT (an empty result has no result set at all in sql.js). */
export function rows(db: SqlDatabase, sql: string): SqlValue[][] {
  return db.exec(sql)[0]?.values ?? [];
}
