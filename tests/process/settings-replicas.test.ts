/**
 * Business settings live on every replica (issue 33, items 3 and 5): two production servers on one
 * PostgreSQL, a local HTTP server playing the buyers, leads submitted over HTTP to both. A pause
 * and a resume made through the first replica's operations console (signed in, with its CSRF
 * token) are applied by both within 5 seconds without a restart; a buyer written by a third
 * process (as `npm run buyers -- import` or another console would) is named and offered by both.
 * Caps per hour and a dollar budget hold exactly across the two under concurrent load.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProductionServer, type RunningServer } from "../../tools/production-server";
import { addConsoleUser, signedInConsole } from "../support/console-session";
import { startBuyerStub, type BuyerStub } from "../../tools/buyer-stub";
import { leadBody, openLeadSession, postLead } from "../../tools/lead-session";
import { freshPostgresUrl, type FreshPostgres } from "../support/databases";
import { openDatabase, type Database } from "../../server/db/database";
import { buyerSchema } from "../../server/delivery/buyers";
import { createBuyer, getBuyer, updateBuyer } from "../../server/settings/store";

const SECRETS = { acme: "acme-secret-that-is-at-least-32-chars!!", capped: "capped-secret-that-is-at-least-32-chars", budgeted: "budgeted-secret-that-is-at-least-32-char" };
const CSRF_SECRET = "a-shared-csrf-secret-of-at-least-32-characters";
/** What the issue allows a change to take to reach every replica. */
const LIVE_WITHIN_MS = 5_000;
const OPS = { name: "olivia", password: "a long enough password for ops" };

describe("business settings across replicas", { timeout: 240_000 }, () => {
  let stub: BuyerStub;
  let postgres: FreshPostgres;
  let folder: string;
  let db: Database;
  const servers: RunningServer[] = [];

  async function submit(server: RunningServer, count: number): Promise<string[]> {
    const session = await openLeadSession(server.origin);
    return Promise.all(
      Array.from({ length: count }, async () => {
        const response = await postLead(server.origin, session, leadBody(session));
        expect(response.status, JSON.stringify(response.body)).toBe(201);
        return (response.body as { reference: string }).reference;
      }),
    );
  }

  /** The buyers each lead was offered to (its deliveries), read from the shared database. */
  async function offeredTo(references: readonly string[]): Promise<Map<string, string[]>> {
    const { rows } = await db.query<{ lead_reference: string; target: string }>("SELECT lead_reference, target FROM deliveries WHERE kind = 'buyer' AND lead_reference = ANY($1)", [references]);
    const offered = new Map<string, string[]>(references.map((reference) => [reference, []]));
    for (const row of rows) offered.get(row.lead_reference)!.push(row.target);
    return offered;
  }

  beforeAll(async () => {
    stub = await startBuyerStub({ buyers: SECRETS });
    postgres = await freshPostgresUrl();
    folder = mkdtempSync(path.join(os.tmpdir(), "settings-replicas-"));
    const file = path.join(folder, "buyers.json");
    writeFileSync(file, JSON.stringify({ buyers: [{ id: "acme", name: "Acme Insurance Agency", url: stub.url("acme"), secret: SECRETS.acme, price: 18.5 }], sources: [] }));
    const env = { DATABASE_URL: postgres.url, BUYERS_FILE: file, CSRF_SECRET, LEAD_MIN_FILL_MS: "0", LEAD_RATE_LIMIT: "100000", PUBLIC_BASE_URL: "http://127.0.0.1:9", ADMIN_HOST: "127.0.0.1", ADMIN_PORT: "0" };
    addConsoleUser(postgres.url, OPS, "ops");
    // One after the other: the first migrates and imports the file; the second finds buyers and leaves the file alone.
    servers.push(await startProductionServer(env, { keepLogs: "all" }));
    servers.push(await startProductionServer(env, { keepLogs: "all" }));
    db = await openDatabase({ DATABASE_URL: postgres.url, DATA_DIR: "unused" });
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled(servers.map((server) => server.stop()));
    await db?.close();
    await stub?.stop();
    await postgres?.drop();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it("imports BUYERS_FILE once, into the empty database, and says so; the second replica leaves it alone", () => {
    expect(servers[0]!.logs.filter((line) => line.event === "buyers_file_imported")).toHaveLength(1);
    expect(servers[1]!.logs.filter((line) => line.event === "buyers_file_imported")).toHaveLength(0);
    expect(servers[1]!.logs.filter((line) => line.event === "buyers_file_ignored")).toHaveLength(1);
  });

  it("a pause made in one replica's console stops offers on both within 5 s, and a resume brings them back, without a restart", async () => {
    const [first, second] = servers as [RunningServer, RunningServer];
    const before = [...(await submit(first, 2)), ...(await submit(second, 2))];
    expect([...(await offeredTo(before)).values()]).toEqual([["acme"], ["acme"], ["acme"], ["acme"]]);

    const opsConsole = await signedInConsole(first, OPS);
    expect((await opsConsole.post("/buyers/acme/status", { status: "paused" })).status).toBe(303);
    const pausedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, LIVE_WITHIN_MS - (Date.now() - pausedAt)));
    const during = [...(await submit(first, 3)), ...(await submit(second, 3))];
    expect([...(await offeredTo(during)).values()]).toEqual([[], [], [], [], [], []]);
    // Both replicas reloaded the settings: the first at once, the second at its poll.
    for (const server of servers) expect(server.logs.some((line) => line.event === "settings_reloaded")).toBe(true);
    expect(first.logs.some((line) => line.event === "admin_action" && line.action === "set_buyer_status" && line.outcome === "done")).toBe(true);
    // For the record (not a timed assertion): how long the other replica took to apply it.
    const reloadedAt = second.logs.find((line) => line.event === "settings_reloaded")?.time;
    process.stderr.write(`[settings] the second replica applied the pause ${Date.parse(String(reloadedAt)) - pausedAt} ms after the console answered\n`);

    expect((await opsConsole.post("/buyers/acme/status", { status: "active" })).status).toBe(303);
    await new Promise((resolve) => setTimeout(resolve, LIVE_WITHIN_MS));
    const after = [...(await submit(first, 1)), ...(await submit(second, 1))];
    expect([...(await offeredTo(after)).values()]).toEqual([["acme"], ["acme"]]);
    // The leads offered while paused were never offered later: resuming re-offers nothing.
    expect((await stub.waitForLeads("acme", 6, 30_000)).map((lead) => lead.reference).sort()).toEqual([...before, ...after].sort());
  });

  it("a buyer added on one side is named in the disclosure and offered leads on both within 5 s", async () => {
    const { secret: _ignored, ...budgeted } = buyerSchema.parse({ id: "budgeted", name: "Budget Auto Partners", url: stub.url("budgeted"), price: 9, secret: SECRETS.budgeted });
    await createBuyer(db.builder, budgeted, "console:test");
    // The secret the stub knows, as ops would hand over the one the console showed.
    await db.query(`UPDATE buyers SET config = jsonb_set(config, '{secret}', to_jsonb($1::text)) WHERE id = 'budgeted'`, [SECRETS.budgeted]);
    await updateBuyer(db.builder, { ...budgeted, budget: { day: 100 } }, 1, "console:test");
    await new Promise((resolve) => setTimeout(resolve, LIVE_WITHIN_MS));
    for (const server of servers) {
      const session = await openLeadSession(server.origin);
      expect(JSON.stringify(session)).toContain("Budget Auto Partners");
    }
    const references = [...(await submit(servers[0]!, 1)), ...(await submit(servers[1]!, 1))];
    expect([...(await offeredTo(references)).values()].map((targets) => targets.sort())).toEqual([["acme", "budgeted"], ["acme", "budgeted"]]);
  });

  it("an hourly cap and a dollar budget hold exactly across two replicas under concurrent load", async () => {
    const { secret: _ignored, ...capped } = buyerSchema.parse({ id: "capped", name: "Capped Auto Group", url: stub.url("capped"), price: 5, secret: SECRETS.capped, caps: { hour: 25 } });
    await createBuyer(db.builder, capped, "console:test");
    await db.query(`UPDATE buyers SET config = jsonb_set(config, '{secret}', to_jsonb($1::text)) WHERE id = 'capped'`, [SECRETS.capped]);
    await new Promise((resolve) => setTimeout(resolve, LIVE_WITHIN_MS));
    const references = (await Promise.all([submit(servers[0]!, 60), submit(servers[1]!, 60)])).flat();
    const offered = [...(await offeredTo(references)).values()];
    expect(offered.filter((targets) => targets.includes("capped"))).toHaveLength(25);
    // budgeted: $9 a lead, $100 a day, 2 leads taken above: 9 more fit (99), not 10.
    expect(offered.filter((targets) => targets.includes("budgeted"))).toHaveLength(9);
    expect(offered.every((targets) => targets.includes("acme"))).toBe(true);
    await stub.waitForLeads("capped", 25, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(stub.received("capped")).toHaveLength(25);
    const { rows } = await db.query<{ hour_count: number; day_spend: string }>("SELECT hour_count, day_spend FROM buyer_counters WHERE buyer_id IN ('capped', 'budgeted') ORDER BY buyer_id");
    expect(rows.map((row) => [Number(row.hour_count), Number(row.day_spend)])).toEqual([[11, 99], [25, 125]]);
    expect((await getBuyer(db.builder, "capped"))!.entry.caps).toEqual({ hour: 25 });
  });
});
