/**
 * Applies pending migrations at start-up. A transaction-scoped advisory lock makes replicas that
 * start together take turns, so each migration runs exactly once.
 */
import type { Database } from "./database";
import { migrations as allMigrations, type Migration } from "./migrations";

/** An arbitrary constant: "the schema migration lock" for this application. */
const MIGRATION_LOCK_ID = 7_242_001;

export async function migrate(db: Database, migrations: readonly Migration[] = allMigrations): Promise<number[]> {
  return db.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK_ID]);
    await tx.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         version integer PRIMARY KEY,
         name text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const { rows } = await tx.query<{ version: number }>("SELECT version FROM schema_migrations");
    const done = new Set(rows.map((row) => Number(row.version)));
    const applied: number[] = [];
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (done.has(migration.version)) continue;
      for (const statement of migration.statements) await tx.query(statement);
      await tx.query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [migration.version, migration.name]);
      applied.push(migration.version);
    }
    return applied;
  });
}
