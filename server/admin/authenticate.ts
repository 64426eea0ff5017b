/**
 * Checking a console sign-in: the password against its scrypt hash, and the lockout (5
 * consecutive failures lock the user for 15 minutes; during a lockout even the right password is
 * refused). Every refusal is the same to the person signing in, so the form never tells whether a
 * name exists, is disabled or is locked; the log line says which (for ops, never the password).
 */
import type { AdminUserRepository } from "./users";
import { PASSWORD_MAX_LENGTH, verifyPassword } from "./passwords";
import type { AdminRole } from "../../shared/admin-views";

export const MAX_FAILED_SIGN_INS = 5;
export const LOCKOUT_MS = 15 * 60_000;

export type SignInOutcome =
  | { ok: true; user: { id: string; name: string; role: AdminRole } }
  | { ok: false; reason: "unknown_user" | "wrong_password" | "locked" | "disabled" };

export async function authenticate(users: AdminUserRepository, name: string, password: string, now: Date = new Date()): Promise<SignInOutcome> {
  const user = await users.findByName(name);
  // An over-long password cannot be right (none is stored that long): the same work, then no.
  const matches = await verifyPassword(password.slice(0, PASSWORD_MAX_LENGTH + 1), password.length > PASSWORD_MAX_LENGTH ? undefined : user?.passwordHash);
  if (!user) return { ok: false, reason: "unknown_user" };
  if (user.disabledAt !== null) return { ok: false, reason: "disabled" };
  if (user.lockedUntil !== null && user.lockedUntil > now) return { ok: false, reason: "locked" };
  if (!matches) {
    await users.recordFailure(user.id, MAX_FAILED_SIGN_INS, LOCKOUT_MS, now);
    return { ok: false, reason: "wrong_password" };
  }
  await users.recordSuccess(user.id, now);
  return { ok: true, user: { id: user.id, name: user.name, role: user.role } };
}
