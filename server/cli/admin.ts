/**
 * Ops command for the operations console's users (docs/operations-console.md):
 *   npm run admin -- add-user NAME --role analyst|ops    password typed (not shown) or piped on stdin
 *   npm run admin -- set-password NAME                   a new password (also lifts a lockout)
 *   npm run admin -- disable-user NAME                   no more sign-ins; open sessions end
 *   npm run admin -- enable-user NAME
 *   npm run admin -- list-users [--format table|json]
 * Same configuration as the server (DATABASE_URL, or the embedded store in DATA_DIR, through the
 * running server's database process when there is one: decision 033). Passwords are stored only as
 * scrypt hashes and never printed or logged.
 */
import { parseArgs } from "node:util";
import type { Writable } from "node:stream";
import { loadConfig } from "../config";
import { openDatabase } from "../db/database";
import { migrate } from "../db/migrate";
import { ADMIN_ROLES, USER_NAME_PATTERN, adminUserRepository, type AdminUser } from "../admin/users";
import { hashPassword, passwordProblem } from "../admin/passwords";
import { readNewPassword, type PasswordInput } from "../admin/password-input";
import type { AdminRole } from "../../shared/admin-views";
import { runAsScript, UsageError } from "./common";

const USAGE = `Usage: npm run admin -- <command> [options]
  add-user NAME --role ${ADMIN_ROLES.join("|")}   create a console user; the password is typed (not shown) or piped on stdin
  set-password NAME                      a new password for NAME (also lifts a lockout)
  disable-user NAME                      NAME can no longer sign in; open sessions end now
  enable-user NAME                       NAME may sign in again
  list-users [--format table|json]       every user: role, created, last sign-in, disabled, locked
Names: 2-32 of a-z 0-9 . _ -. Roles: analyst (reports) or ops (reports, leads, buyers, privacy requests, and actions).`;

const COMMAND_OPTIONS: Record<string, readonly string[]> = {
  "add-user": ["role"],
  "set-password": [],
  "disable-user": [],
  "enable-user": [],
  "list-users": ["format"],
};

function userName(value: string | undefined, command: string): string {
  if (value === undefined) throw new UsageError(`Say which user: npm run admin -- ${command} NAME`);
  if (!USER_NAME_PATTERN.test(value)) throw new UsageError(`${value} is not a valid name: 2-32 of lower-case letters, digits, . _ and -.`);
  return value;
}

const iso = (date: Date | null) => date?.toISOString().slice(0, 19).replace("T", " ") ?? "";

function usersTable(users: AdminUser[], now: Date): string {
  if (users.length === 0) return "No users. Create one with: npm run admin -- add-user NAME --role ops\n";
  const rows = [
    ["NAME", "ROLE", "CREATED (UTC)", "LAST SIGN-IN (UTC)", "STATE"],
    ...users.map((user) => [user.name, user.role, iso(user.createdAt), iso(user.lastSignInAt), user.disabledAt ? "disabled" : user.lockedUntil && user.lockedUntil > now ? `locked until ${iso(user.lockedUntil)}` : "active"]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return `${rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join("  ").trimEnd()).join("\n")}\n`;
}

async function newPassword(input: PasswordInput, prompt: Writable): Promise<string> {
  const password = await readNewPassword(input, prompt);
  const problem = passwordProblem(password);
  if (problem) throw new UsageError(problem);
  return password;
}

export async function run(
  argv: string[],
  out: (text: string) => void,
  env: NodeJS.ProcessEnv = process.env,
  input: PasswordInput = process.stdin,
  prompt: Writable = process.stderr,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { role: { type: "string" }, format: { type: "string" }, help: { type: "boolean", short: "h" } },
  });
  const [command, ...operands] = positionals;
  if (values.help || !command) {
    out(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const allowed = COMMAND_OPTIONS[command];
  if (!allowed) throw new UsageError(`Unknown command ${command}.\n${USAGE}`);
  for (const option of Object.keys(values)) {
    if (!allowed.includes(option)) throw new UsageError(`--${option} does not apply to ${command}.`);
  }
  const takesName = command !== "list-users";
  if (operands.length > (takesName ? 1 : 0)) throw new UsageError(`Unexpected ${operands.slice(takesName ? 1 : 0).join(" ")} after ${command}.`);
  const name = takesName ? userName(operands[0], command) : undefined;
  if (command === "add-user" && !ADMIN_ROLES.includes(values.role as AdminRole)) {
    throw new UsageError(`Say the role with --role ${ADMIN_ROLES.join(" or ")}.`);
  }
  const format = values.format ?? "table";
  if (!["table", "json"].includes(format)) throw new UsageError(`Unknown format ${format}: use table or json.`);
  // The password before the database: a mistake costs nothing, and the store is held briefly.
  const password = command === "add-user" || command === "set-password" ? await newPassword(input, prompt) : undefined;
  const passwordHash = password === undefined ? undefined : await hashPassword(password);

  const config = loadConfig(env);
  const db = await openDatabase(config);
  try {
    await migrate(db);
    const users = adminUserRepository(db);
    switch (command) {
      case "add-user": {
        const role = values.role as AdminRole;
        if (!(await users.create({ name: name!, role, passwordHash: passwordHash! }))) throw new UsageError(`${name} exists already (to change the password: npm run admin -- set-password ${name}).`);
        out(`Created ${role} ${name}.\n`);
        return 0;
      }
      case "set-password":
        if (!(await users.setPassword(name!, passwordHash!))) throw new UsageError(`No user ${name}.`);
        out(`New password set for ${name}.\n`);
        return 0;
      case "disable-user":
      case "enable-user": {
        const disable = command === "disable-user";
        if (!(await users.setDisabled(name!, disable))) throw new UsageError(`No user ${name}.`);
        out(disable ? `${name} is disabled; their sessions have ended.\n` : `${name} may sign in again.\n`);
        return 0;
      }
      default: {
        const list = await users.list();
        if (format === "json") {
          // Everything but the hash.
          out(`${JSON.stringify(list.map(({ passwordHash: _hash, id: _id, ...user }) => user), null, 2)}\n`);
        } else out(usersTable(list, new Date()));
        return 0;
      }
    }
  } finally {
    await db.close();
  }
}

runAsScript(import.meta.url, run);
