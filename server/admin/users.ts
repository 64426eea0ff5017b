/**
 * The admin_users table (migration 8): the one place that reads and writes it — the `npm run
 * admin` command creates and changes users, the console's sign-in counts failures and locks.
 */
import { sql } from "kysely";
import type { Database } from "../db/database";
import type { AdminRole } from "../../shared/admin-views";

export const ADMIN_ROLES: readonly AdminRole[] = ["analyst", "ops"];
/** Lower-case, so "Alice" and "alice" cannot be two people; what log lines name. */
export const USER_NAME_PATTERN = /^[a-z0-9._-]{2,32}$/;

export interface AdminUser {
  id: string;
  name: string;
  role: AdminRole;
  passwordHash: string;
  createdAt: Date;
  disabledAt: Date | null;
  failedAttempts: number;
  lockedUntil: Date | null;
  lastSignInAt: Date | null;
}

const COLUMNS = ["id", "name", "role", "passwordHash", "createdAt", "disabledAt", "failedAttempts", "lockedUntil", "lastSignInAt"] as const;

export function adminUserRepository(db: Database) {
  const builder = db.builder;
  const select = () => builder.selectFrom("adminUsers").select(COLUMNS);
  const fromRow = <Row extends { id: string | number }>(row: Row) => ({ ...row, id: String(row.id) });
  return {
    /** False when the name is taken. */
    async create(user: { name: string; role: AdminRole; passwordHash: string }): Promise<boolean> {
      const created = await builder
        .insertInto("adminUsers")
        .values({ ...user, disabledAt: null, lockedUntil: null, lastSignInAt: null })
        .onConflict((conflict) => conflict.column("name").doNothing())
        .returning("id")
        .executeTakeFirst();
      return created !== undefined;
    },

    async findByName(name: string): Promise<AdminUser | undefined> {
      const row = await select().where("name", "=", name).executeTakeFirst();
      return row && fromRow(row);
    },

    async list(): Promise<AdminUser[]> {
      return (await select().orderBy("name").execute()).map(fromRow);
    },

    /** A new password also lifts a lockout. False when there is no such user. */
    async setPassword(name: string, passwordHash: string): Promise<boolean> {
      const rows = await builder.updateTable("adminUsers").set({ passwordHash, failedAttempts: 0, lockedUntil: null }).where("name", "=", name).returning("id").execute();
      return rows.length === 1;
    },

    /** Disabling also ends the user's sessions (in the same statement's transaction). */
    async setDisabled(name: string, disabled: boolean, now: Date = new Date()): Promise<boolean> {
      return builder.transaction().execute(async (tx) => {
        const row = await tx
          .updateTable("adminUsers")
          .set(disabled ? { disabledAt: now } : { disabledAt: null, failedAttempts: 0, lockedUntil: null })
          .where("name", "=", name)
          .returning("id")
          .executeTakeFirst();
        if (!row) return false;
        if (disabled) await tx.deleteFrom("adminSessions").where("userId", "=", row.id).execute();
        return true;
      });
    },

    /**
     * Counts a failed sign-in; at `maxFailures` consecutive failures the user is locked until
     * `now + lockMs` and the count starts again. One statement, so parallel attempts cannot
     * slip past the limit.
     */
    async recordFailure(id: string, maxFailures: number, lockMs: number, now: Date = new Date()): Promise<void> {
      const lockUntil = new Date(now.getTime() + lockMs);
      await builder
        .updateTable("adminUsers")
        .set({
          failedAttempts: sql`CASE WHEN failed_attempts + 1 >= ${maxFailures}::int THEN 0 ELSE failed_attempts + 1 END`,
          lockedUntil: sql`CASE WHEN failed_attempts + 1 >= ${maxFailures}::int THEN ${lockUntil}::timestamptz ELSE locked_until END`,
        })
        .where("id", "=", id)
        .execute();
    },

    async recordSuccess(id: string, now: Date = new Date()): Promise<void> {
      await builder.updateTable("adminUsers").set({ failedAttempts: 0, lockedUntil: null, lastSignInAt: now }).where("id", "=", id).execute();
    },
  };
}

export type AdminUserRepository = ReturnType<typeof adminUserRepository>;
