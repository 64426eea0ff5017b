/**
 * Taking over a stale embedded-store lock must be safe when two processes find the same stale
 * lock at once (two replicas restarted together after a crash). Process B's side is simulated
 * deterministically: right after this process reads the stale pid, B removes the stale lock and
 * writes its own, as B would if it ran a moment ahead.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type * as NodeFs from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { openDatabase, type Database } from "../../server/db/database";
import { freshDataDir } from "../support/databases";

const race = vi.hoisted(() => ({ takeOverAs: undefined as number | undefined }));

vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof NodeFs>();
  const readFileSync = ((...args: Parameters<typeof actual.readFileSync>) => {
    const content = actual.readFileSync(...args);
    const [file] = args;
    if (race.takeOverAs !== undefined && typeof file === "string" && file.endsWith("quote-site.lock")) {
      // Process B, which also saw the stale lock, takes it over between our read and our remove.
      actual.rmSync(file, { force: true });
      actual.writeFileSync(file, String(race.takeOverAs));
      race.takeOverAs = undefined;
    }
    return content;
  }) as typeof actual.readFileSync;
  return { ...actual, default: { ...actual, readFileSync }, readFileSync };
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  race.takeOverAs = undefined;
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("the embedded store's stale-lock takeover", { timeout: 90_000 }, () => {
  it("refuses when another live process took the stale lock over first", async () => {
    const data = await freshDataDir();
    cleanups.push(data.remove);
    const deadPid = spawnSync(process.execPath, ["-e", ""]).pid;
    const lockFile = path.join(data.dir, "quote-site.lock");
    writeFileSync(lockFile, String(deadPid));
    const processB = process.ppid; // alive, and not us

    race.takeOverAs = processB;
    let opened: Database | undefined;
    const outcome = await openDatabase({ DATA_DIR: data.dir }).then(
      (db) => {
        opened = db;
        return "opened";
      },
      (error: Error) => error.message,
    );
    const lockAfter = readFileSync(lockFile, "utf8");
    if (opened) await opened.close();

    expect(race.takeOverAs, "the simulated process B ran (it hooks readFileSync of the lock file)").toBeUndefined();
    // Expected: B holds the directory, so we must be refused, and B's lock must still be there.
    // (Today the stale lock is removed by path without checking it is still the stale one: B's
    // fresh lock is deleted and both processes open the same PGlite directory.)
    expect(outcome).toMatch(new RegExp(`in use by process ${processB}\\b`));
    expect(lockAfter).toBe(String(processB));
  });
});
