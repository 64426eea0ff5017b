/**
 * Console sessions in admin_sessions (migration 8). The browser holds a random 32-byte token;
 * the table holds only its SHA-256, so a copy of the table (a backup, a replica) signs no one
 * in. Each session has its own CSRF token for its forms. Sessions expire after
 * ADMIN_SESSION_HOURS without use; expires_at slides forward, at most once a minute.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Database } from "../db/database";
import type { AdminRole } from "../../shared/admin-views";

/** base64url of 32 random bytes. */
export const SESSION_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
/** Sliding the expiry is a write: once a minute is plenty for an idle timeout counted in hours. */
const TOUCH_INTERVAL_MS = 60_000;

export const tokenDigest = (token: string): string => createHash("sha256").update(token).digest("hex");

export interface SignedInSession {
  tokenSha256: string;
  csrfToken: string;
  userId: string;
  name: string;
  role: AdminRole;
  expiresAt: Date;
  lastSeenAt: Date;
}

export function adminSessionRepository(db: Database, idleHours: number) {
  const builder = db.builder;
  const idleMs = idleHours * 3_600_000;
  return {
    /** A new session for the user; returns the token for the cookie (never stored) and the CSRF token. */
    async create(userId: string, now: Date = new Date()): Promise<{ token: string; csrfToken: string }> {
      const token = randomBytes(32).toString("base64url");
      const csrfToken = randomBytes(32).toString("base64url");
      await builder
        .insertInto("adminSessions")
        .values({ tokenSha256: tokenDigest(token), userId, csrfToken, expiresAt: new Date(now.getTime() + idleMs), lastSeenAt: now, createdAt: now })
        .execute();
      return { token, csrfToken };
    },

    /**
     * The live session of a cookie's token, with its user (not disabled); slides its expiry when
     * the last slide is over a minute old. Undefined for unknown, expired or disabled.
     */
    async find(token: string, now: Date = new Date()): Promise<SignedInSession | undefined> {
      if (!SESSION_TOKEN_PATTERN.test(token)) return undefined;
      const row = await builder
        .selectFrom("adminSessions")
        .innerJoin("adminUsers", "adminUsers.id", "adminSessions.userId")
        .select(["adminSessions.tokenSha256", "adminSessions.csrfToken", "adminSessions.expiresAt", "adminSessions.lastSeenAt", "adminUsers.id as userId", "adminUsers.name", "adminUsers.role"])
        .where("adminSessions.tokenSha256", "=", tokenDigest(token))
        .where("adminSessions.expiresAt", ">", now)
        .where("adminUsers.disabledAt", "is", null)
        .executeTakeFirst();
      if (!row) return undefined;
      const session: SignedInSession = { ...row, userId: String(row.userId) };
      if (now.getTime() - row.lastSeenAt.getTime() >= TOUCH_INTERVAL_MS) {
        const expiresAt = new Date(now.getTime() + idleMs);
        await builder.updateTable("adminSessions").set({ expiresAt, lastSeenAt: now }).where("tokenSha256", "=", row.tokenSha256).execute();
        session.expiresAt = expiresAt;
        session.lastSeenAt = now;
      }
      return session;
    },

    async delete(tokenSha256: string): Promise<void> {
      await builder.deleteFrom("adminSessions").where("tokenSha256", "=", tokenSha256).execute();
    },

    /** Housekeeping on each sign-in: expired rows go (they could never sign anyone in again). */
    async deleteExpired(now: Date = new Date()): Promise<number> {
      const rows = await builder.deleteFrom("adminSessions").where("expiresAt", "<=", now).returning("tokenSha256").execute();
      return rows.length;
    },
  };
}

export type AdminSessionRepository = ReturnType<typeof adminSessionRepository>;
