/**
 * Version 8: the operations console's users and sessions (issue 11, docs/operations-console.md).
 *
 * - admin_users: created with `npm run admin -- add-user`; the password is kept only as a scrypt
 *   hash. failed_attempts and locked_until implement the sign-in lockout.
 * - admin_sessions: one row per signed-in browser. The cookie holds a random token; only its
 *   SHA-256 is stored, so a copy of the table signs no one in. csrf_token guards the session's forms.
 */
import type { Migration } from "./migration";

export const adminUsers: Migration = {
  version: 8,
  name: "admin-users",
  statements: [
    `CREATE TABLE admin_users (
       id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
       name text NOT NULL UNIQUE,
       role text NOT NULL CHECK (role IN ('analyst', 'ops')),
       password_hash text NOT NULL,
       created_at timestamptz NOT NULL DEFAULT now(),
       disabled_at timestamptz,
       failed_attempts integer NOT NULL DEFAULT 0,
       locked_until timestamptz,
       last_sign_in_at timestamptz
     )`,
    `CREATE TABLE admin_sessions (
       token_sha256 text PRIMARY KEY,
       user_id bigint NOT NULL REFERENCES admin_users (id) ON DELETE CASCADE,
       csrf_token text NOT NULL,
       created_at timestamptz NOT NULL DEFAULT now(),
       expires_at timestamptz NOT NULL,
       last_seen_at timestamptz NOT NULL DEFAULT now()
     )`,
    "CREATE INDEX admin_sessions_expires_at ON admin_sessions (expires_at)",
  ],
};
