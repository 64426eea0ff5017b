/**
 * A confirmed privacy request survives the server being killed outright (SIGKILL, no shutdown
 * code runs) right after it answered, on both stores; the server starts again on the same data.
 */
import { describe, expect, it } from "vitest";
import { parse } from "node-html-parser";
import { startProductionServer, type RunningServer } from "../../tools/production-server";
import { openDatabase } from "../../server/db/database";
import { privacyRequestRepository } from "../../server/db/privacy-requests";
import { freshDataDir, freshPostgresUrl } from "../support/databases";

async function submitThroughServer(server: RunningServer): Promise<string> {
  const page = await fetch(`${server.origin}/do-not-sell`);
  const cookie = page.headers.getSetCookie().map((line) => line.split(";")[0]).join("; ");
  const csrf = parse(await page.text()).querySelector('input[name="_csrf"]')!.getAttribute("value")!;
  const response = await fetch(`${server.origin}/api/privacy-requests`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Cookie: cookie, "X-CSRF-Token": csrf },
    body: JSON.stringify({ submissionId: crypto.randomUUID(), requestType: "opt_out_sale_sharing", email: "kill9@example.com" }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { reference: string }).reference;
}

async function killAndRestart(env: Record<string, string>): Promise<string> {
  const first = await startProductionServer(env);
  const reference = await submitThroughServer(first);
  first.child.kill("SIGKILL");
  expect((await first.exited).signal).toBe("SIGKILL");
  // The server comes back on the same data (the embedded store's stale lock is taken over).
  const second = await startProductionServer(env);
  const health = await fetch(`${second.origin}/readyz`);
  expect(health.status).toBe(200);
  await second.stop();
  expect((await second.exited).code).toBe(0);
  return reference;
}

describe("a server killed with SIGKILL right after confirming a privacy request", { timeout: 90_000 }, () => {
  it("still has it after a restart, on the embedded store", async () => {
    const data = await freshDataDir();
    try {
      const reference = await killAndRestart({ DATA_DIR: data.dir });
      const db = await openDatabase({ DATA_DIR: data.dir });
      try {
        expect(await privacyRequestRepository(db).findByReference(reference)).toMatchObject({ email: "kill9@example.com" });
      } finally {
        await db.close();
      }
    } finally {
      await data.remove();
    }
  });

  it("still has it after a restart, on PostgreSQL", async () => {
    const postgres = await freshPostgresUrl();
    try {
      const reference = await killAndRestart({ DATABASE_URL: postgres.url });
      const db = await openDatabase({ DATABASE_URL: postgres.url, DATA_DIR: "unused" });
      try {
        expect(await privacyRequestRepository(db).findByReference(reference)).toMatchObject({ email: "kill9@example.com" });
      } finally {
        await db.close();
      }
    } finally {
      await postgres.drop();
    }
  });
});
