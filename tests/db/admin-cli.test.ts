/**
 * `npm run admin` (server/cli/admin.ts): console users created, changed and listed against both
 * stores; bad names, roles and short passwords refused before the store is touched; only a
 * scrypt hash is ever stored.
 */
import { Readable, Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../server/cli/admin";
import { UsageError } from "../../server/cli/common";
import { openDatabase } from "../../server/db/database";
import { adminUserRepository } from "../../server/admin/users";
import { verifyPassword } from "../../server/admin/passwords";
import { commandStores, type CommandStore } from "../support/databases";

const PASSWORD = "a long enough password";

/** Piped standard input, as `echo … | npm run admin -- add-user …` gives it. */
const piped = (text: string) => Readable.from([Buffer.from(text)]);
const silent = new Writable({ write: (_chunk, _encoding, callback) => callback() });

async function admin(location: CommandStore, argv: string[], stdin = ""): Promise<{ code: number; output: string }> {
  let output = "";
  const code = await run(argv, (text) => (output += text), location.env, piped(stdin), silent);
  return { code, output };
}

async function storedUser(location: CommandStore, name: string) {
  const db = await openDatabase(location.options);
  try {
    return await adminUserRepository(db).findByName(name);
  } finally {
    await db.close();
  }
}

describe.each(commandStores({}, { running: true }))("npm run admin ($kind)", ({ make }) => {
  let location: CommandStore;
  beforeAll(async () => {
    location = await make();
  });
  afterAll(() => location.remove());

  it("adds a user with a role, keeping only a scrypt hash of the piped password", async () => {
    const { code, output } = await admin(location, ["add-user", "alice", "--role", "ops"], `${PASSWORD}\n`);
    expect(code).toBe(0);
    expect(output).toBe("Created ops alice.\n");
    const user = await storedUser(location, "alice");
    expect(user).toMatchObject({ name: "alice", role: "ops", disabledAt: null, failedAttempts: 0 });
    expect(user!.passwordHash).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(user!.passwordHash).not.toContain(PASSWORD);
    await expect(verifyPassword(PASSWORD, user!.passwordHash)).resolves.toBe(true);
  });

  it("refuses a name that exists already", async () => {
    await expect(admin(location, ["add-user", "alice", "--role", "analyst"], `${PASSWORD}\n`)).rejects.toThrow(/alice exists already/);
  });

  it.each([
    [["add-user", "Alice", "--role", "ops"], /not a valid name/],
    [["add-user", "a", "--role", "ops"], /not a valid name/],
    [["add-user", "bob smith", "--role", "ops"], /not a valid name/],
    [["add-user", "x".repeat(33), "--role", "ops"], /not a valid name/],
    [["add-user", "bob", "--role", "admin"], /--role analyst or ops/],
    [["add-user", "bob"], /--role analyst or ops/],
    [["add-user"], /Say which user/],
    [["add-user", "bob", "--role", "ops", "extra"], /Unexpected extra/],
    [["list-users", "--role", "ops"], /--role does not apply/],
    [["remove-user", "bob"], /Unknown command/],
  ])("refuses %j as a usage error", async (argv, message) => {
    const attempt = admin(location, argv, `${PASSWORD}\n`);
    await expect(attempt).rejects.toThrow(UsageError);
    await expect(attempt).rejects.toThrow(message);
  });

  it("refuses a password shorter than 12 characters and creates nobody", async () => {
    await expect(admin(location, ["add-user", "bob", "--role", "analyst"], "short pass\n")).rejects.toThrow(/at least 12 characters/);
    expect(await storedUser(location, "bob")).toBeUndefined();
  });

  it("sets a new password, which also lifts a lockout", async () => {
    const db = await openDatabase(location.options);
    try {
      const user = await adminUserRepository(db).findByName("alice");
      for (let i = 0; i < 5; i += 1) await adminUserRepository(db).recordFailure(user!.id, 5, 60_000);
    } finally {
      await db.close();
    }
    expect((await storedUser(location, "alice"))!.lockedUntil).not.toBeNull();
    const { code } = await admin(location, ["set-password", "alice"], "another long password\n");
    expect(code).toBe(0);
    const user = await storedUser(location, "alice");
    expect(user!.lockedUntil).toBeNull();
    await expect(verifyPassword("another long password", user!.passwordHash)).resolves.toBe(true);
  });

  it("disables and enables a user, and lists users without their hashes", async () => {
    await admin(location, ["add-user", "carol", "--role", "analyst"], `${PASSWORD}\n`);
    expect((await admin(location, ["disable-user", "carol"])).output).toMatch(/carol is disabled/);
    let listed = await admin(location, ["list-users"]);
    expect(listed.output).toMatch(/^NAME\s+ROLE/);
    expect(listed.output).toMatch(/alice\s+ops .*active/);
    expect(listed.output).toMatch(/carol\s+analyst .*disabled/);
    await admin(location, ["enable-user", "carol"]);
    listed = await admin(location, ["list-users", "--format", "json"]);
    const users = JSON.parse(listed.output) as Record<string, unknown>[];
    expect(users.map((user) => [user.name, user.role, user.disabledAt])).toEqual([
      ["alice", "ops", null],
      ["carol", "analyst", null],
    ]);
    expect(listed.output).not.toMatch(/scrypt|passwordHash/);
    await expect(admin(location, ["disable-user", "nobody"])).rejects.toThrow(/No user nobody/);
  });
});
