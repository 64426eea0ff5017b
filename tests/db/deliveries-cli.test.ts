/**
 * `npm run leads -- deliveries | retry | return` (server/cli/leads.ts): what ops see of the
 * delivery outbox and what they can do with it, against both stores. The deliveries are made the
 * way the worker makes them (scheduled in the lead's transaction, claimed, completed with their
 * attempts), then the command opens the store itself from its environment, as in production.
 */
import { registerDisclosure } from "../../server/consent/disclosures";
import { disclosureFor } from "../../server/leads/disclosure";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../server/cli/leads";
import { UsageError } from "../../server/cli/common";
import { openDatabase, type Database } from "../../server/db/database";
import { migrate } from "../../server/db/migrate";
import { leadRepository } from "../../server/db/leads";
import { leadStore } from "../../server/leads/store";
import { deliveryRepository, type Completion, type DeliveryRecord } from "../../server/db/deliveries";
import { commandStores, type CommandStore } from "../support/databases";
import { sampleNewLead } from "../../tools/lead-session";
import { projectRoot } from "../../tools/production-server";

const BUYERS_FILE = path.join(projectRoot, "deploy", "buyers.example.json");
/** The server's configuration wants one with BUYERS_FILE (consent certificate links), and so does the command. */
const CERTIFICATE_SECRET = "test-certificate-secret-test-certificate";

const CSV_COLUMNS = [
  "reference",
  "kind",
  "target",
  "status",
  "attempts",
  "price",
  "sale",
  "last_error",
  "reason",
  "created_at",
  "next_attempt_at",
  "completed_at",
  "returned_at",
  "idempotency_key",
];

type Location = CommandStore;

const LOCATIONS = commandStores({ BUYERS_FILE, CERTIFICATE_SECRET });

/** Opens the store, works with it, and closes it again (before the command opens it). */
async function withStore<T>(location: Location, work: (db: Database) => Promise<T>): Promise<T> {
  const db = await openDatabase(location.options);
  try {
    await migrate(db);
    await registerDisclosure(db.builder, disclosureFor(undefined));
    return await work(db);
  } finally {
    await db.close();
  }
}

/** Stores a lead from the example's source fb01 with a click id, its deliveries to these buyers scheduled in the same transaction. */
async function leadFor(db: Database, buyerIds: string[], tid = "click-1"): Promise<string> {
  const result = await leadStore(leadRepository(db)).create(sampleNewLead({ sid: "fb01", tid }), (lead) => ({
    deliveries: buyerIds.map((buyerId) => ({ kind: "buyer" as const, target: buyerId, idempotencyKey: `${lead.reference}:${buyerId}`, sale: true, price: buyerId === "summit" ? 18.5 : 12, url: null, capDay: null })),
  }));
  if (!result.created) throw new Error("expected a new lead");
  return result.reference;
}

type Answer = Omit<Completion, "attemptedAt" | "latencyMs" | "excerpt"> & { excerpt?: string | null };

/**
 * One round of the worker: claims every delivery due (by `at`) and records the answer `decide`
 * gives it (undefined: leave it claimed). Returns how many were answered.
 */
async function workerRound(db: Database, at: Date, decide: (delivery: DeliveryRecord) => Answer | undefined): Promise<number> {
  const repository = deliveryRepository(db);
  let answered = 0;
  for (const delivery of await repository.claimDue(100, 60_000, at)) {
    const answer = decide(delivery);
    if (!answer) continue;
    await repository.complete(delivery, { latencyMs: 42, excerpt: null, attemptedAt: at, ...answer });
    answered += 1;
  }
  return answered;
}

const accepted = (price: number): Answer => ({ outcome: "accepted", httpStatus: 200, status: "accepted", price, excerpt: `{"price":${price}}` });
const busy = (at: Date): Answer => ({ outcome: "retry", httpStatus: 503, status: "pending", nextAttemptAt: new Date(at.getTime() + 2_000), error: "HTTP 503", excerpt: "Service Unavailable" });
const deadLettered: Answer = { outcome: "retry", httpStatus: 503, status: "failed", error: "HTTP 503", excerpt: "Service Unavailable" };

/** The rows of the table the command prints, as cells split on runs of 2+ spaces. */
function tableRows(output: string): string[][] {
  const [block = ""] = output.split("\n\n");
  return block.split("\n").map((line) => line.split(/ {2,}/));
}

/** RFC 4180 as the export writes it (no quoted line breaks in these rows). */
function csvRows(output: string): string[][] {
  return output
    .split("\r\n")
    .filter(Boolean)
    .map((line) => [...line.matchAll(/("(?:[^"]|"")*"|[^,]*)(,|$)/g)].slice(0, -1).map((match) => match[1]!.replace(/^"|"$/g, "").replaceAll('""', '"')));
}

describe.each(LOCATIONS)("npm run leads: deliveries ($kind)", ({ make }) => {
  let location: Location;
  const refs: Record<string, string> = {};
  let logged: string[] = [];

  async function cli(...argv: string[]) {
    let output = "";
    logged = [];
    const logTo = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        logged.push(...chunk.toString("utf8").split("\n").filter(Boolean));
        callback();
      },
    });
    const code = await run(argv, (text) => (output += text), location.env, logTo);
    return { code, output };
  }
  const deliveries = (reference: string) => withStore(location, (db) => deliveryRepository(db).list({ reference }));

  beforeAll(async () => {
    location = await make();
    await withStore(location, async (db) => {
      // The worker's clock runs a little ahead, so every delivery just scheduled is due.
      const t0 = new Date(Date.now() + 1_000);
      const t1 = new Date(t0.getTime() + 5_000);
      // Sold to Summit at the price it answered; Harbor answered 503 twice and was dead-lettered.
      refs.sold = await leadFor(db, ["summit", "harbor"], "click-sold");
      await workerRound(db, t0, (delivery) => (delivery.target === "summit" ? accepted(20.5) : busy(t0)));
      await workerRound(db, t1, () => deadLettered);
      // Refused by Summit, with a reason carrying a terminal escape sequence and a line break.
      refs.refused = await leadFor(db, ["summit"]);
      await workerRound(db, t1, () => ({ outcome: "rejected", httpStatus: 400, status: "rejected", reason: "Out of area\u001b[31m\nCALL 911", error: null }));
      // Sold to Summit alone, to be returned.
      refs.toReturn = await leadFor(db, ["summit"], "click-ret");
      await workerRound(db, t1, () => accepted(18.5));
      // Never tried yet, and old: created on 1 January 2026.
      refs.old = await leadFor(db, ["harbor"]);
      await db.query("UPDATE deliveries SET created_at = '2026-01-01T12:00:00Z' WHERE lead_reference = $1", [refs.old]);
    });
  });
  afterAll(async () => {
    await location?.remove();
  });

  it("lists every delivery as a table: one line each, oldest first, with a count by status", async () => {
    const { code, output } = await cli("deliveries");
    expect(code).toBe(0);
    const [header, ...rows] = tableRows(output);
    expect(header).toEqual(["LEAD", "KIND", "TO", "STATUS", "TRIES", "PRICE", "SALE", "CREATED (UTC)", "WHEN (UTC)", "LAST ERROR / REASON"]);
    expect(rows.map((row) => [row[0], row[2], row[3]])).toEqual([
      [refs.old, "harbor", "pending"],
      [refs.sold, "summit", "accepted"],
      [refs.sold, "harbor", "failed"],
      [refs.refused, "summit", "rejected"],
      [refs.toReturn, "summit", "accepted"],
    ]);
    const harbor = rows.find((row) => row[0] === refs.sold && row[2] === "harbor")!;
    expect(harbor.slice(3, 7)).toEqual(["failed", "2", "12.00", "yes"]);
    expect(harbor[8]).toMatch(/^done \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(harbor[9]).toBe("HTTP 503");
    expect(rows.find((row) => row[0] === refs.sold && row[2] === "summit")!.slice(3, 6)).toEqual(["accepted", "1", "20.50"]);
    expect(rows[0]![8]).toMatch(/^next /);
    expect(output.trimEnd().split("\n").at(-1)).toBe("5 deliveries: 1 pending, 2 accepted, 1 rejected, 1 failed");
  });

  it("never lets a buyer's text break the table: control characters become spaces", async () => {
    const { output } = await cli("deliveries", "--status", "rejected");
    expect(output).not.toContain("\u001b");
    const [, row] = tableRows(output);
    expect(row![9]).toBe("Out of area [31m CALL 911");
  });

  it("filters by status, by creation day and by lead", async () => {
    const targets = async (...argv: string[]) => tableRows((await cli("deliveries", ...argv)).output).slice(1).map((row) => `${row[0]}:${row[2]}`);
    expect(await targets("--status", "failed")).toEqual([`${refs.sold}:harbor`]);
    expect(await targets("--status", "pending")).toEqual([`${refs.old}:harbor`]);
    expect(await targets("--since", "2026-01-02")).not.toContain(`${refs.old}:harbor`);
    expect(await targets("--since", "2026-01-01", "--status", "pending")).toEqual([`${refs.old}:harbor`]);
    expect(await targets("--reference", refs.refused!.toLowerCase())).toEqual([`${refs.refused}:summit`]);
    expect(await cli("deliveries", "--status", "returned")).toEqual({ code: 0, output: "No deliveries.\n" });
  });

  it("with --reference, shows every try of each delivery", async () => {
    const { output } = await cli("deliveries", "--reference", refs.sold!);
    expect(output).toContain(`Tries of ${refs.sold} to summit:`);
    const harborTries = output.split(`Tries of ${refs.sold} to harbor:\n`)[1]!.split("\n\n")[0]!.split("\n");
    expect(harborTries[0]!.trim().split(/ {2,}/)).toEqual(["AT (UTC)", "HTTP", "MS", "OUTCOME", "ANSWER"]);
    expect(harborTries.slice(1).map((line) => line.trim().split(/ {2,}/).slice(1))).toEqual([
      ["503", "42", "retry", "Service Unavailable"],
      ["503", "42", "retry", "Service Unavailable"],
    ]);
  });

  it("writes CSV with one line per delivery and every field", async () => {
    const { code, output } = await cli("deliveries", "--format", "csv", "--reference", refs.sold!);
    expect(code).toBe(0);
    const [header, ...rows] = csvRows(output);
    expect(header).toEqual(CSV_COLUMNS);
    const cells = rows.map((row) => Object.fromEntries(header!.map((name, i) => [name, row[i]])));
    expect(cells).toEqual([
      expect.objectContaining({ reference: refs.sold, kind: "buyer", target: "summit", status: "accepted", attempts: "1", price: "20.50", sale: "true", last_error: "", reason: "", next_attempt_at: "", returned_at: "", idempotency_key: `${refs.sold}:summit` }),
      expect.objectContaining({ reference: refs.sold, kind: "buyer", target: "harbor", status: "failed", attempts: "2", price: "12.00", last_error: "HTTP 503", next_attempt_at: "" }),
    ]);
    for (const row of cells) {
      expect(row.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/);
      expect(row.completed_at).toMatch(/^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/);
    }
    // Just the header when nothing matches.
    expect((await cli("deliveries", "--format", "csv", "--status", "returned")).output).toBe(`${CSV_COLUMNS.join(",")}\r\n`);
  });

  it("writes JSON: an array of deliveries, with their tries when a lead is named", async () => {
    const all = JSON.parse((await cli("deliveries", "--format", "json")).output) as Record<string, unknown>[];
    expect(all).toHaveLength(5);
    expect(all[0]).not.toHaveProperty("tries");
    const [summit, harbor] = JSON.parse((await cli("deliveries", "--format", "json", "--reference", refs.sold!)).output) as Record<string, unknown>[];
    expect(summit).toMatchObject({ leadReference: refs.sold, kind: "buyer", target: "summit", status: "accepted", attempts: 1, price: 20.5, sale: true, idempotencyKey: `${refs.sold}:summit` });
    expect(harbor).toMatchObject({ target: "harbor", status: "failed", attempts: 2, lastError: "HTTP 503", tries: [{ httpStatus: 503, outcome: "retry" }, { httpStatus: 503, outcome: "retry" }] });
  });

  it("retry puts a lead's dead-lettered delivery back in the queue, once", async () => {
    expect(await cli("retry", refs.sold!, "--buyer", "summit")).toEqual({
      code: 1,
      output: `No failed delivery of ${refs.sold} to summit to send again (see: npm run leads -- deliveries --reference ${refs.sold}).\n`,
    });
    expect(await cli("retry", refs.sold!)).toEqual({ code: 0, output: `Queued 1 failed delivery of ${refs.sold} again: the worker sends it now.\n` });
    const harbor = (await deliveries(refs.sold!)).find((row) => row.target === "harbor")!;
    // A fresh start: the whole retry schedule again (the earlier tries stay recorded).
    expect(harbor).toMatchObject({ status: "pending", lastError: null, completedAt: null, attempts: 0 });
    expect(harbor.nextAttemptAt.getTime()).toBeLessThanOrEqual(Date.now());
    // The accepted one is untouched; nothing is left to retry.
    expect((await deliveries(refs.sold!)).find((row) => row.target === "summit")).toMatchObject({ status: "accepted", price: 20.5 });
    expect((await cli("retry", refs.sold!)).code).toBe(1);
  });

  it("return reverses a buyer's accepted lead, logs lead_returned, and queues the source's status=returned postback", async () => {
    const { code, output } = await cli("return", refs.toReturn!, "--buyer", "summit", "--reason", "Disconnected number");
    expect({ code, output }).toEqual({ code: 0, output: `Returned ${refs.toReturn} from summit: $18.50 reversed.\n` });
    const rows = await deliveries(refs.toReturn!);
    expect(rows.find((row) => row.kind === "buyer")).toMatchObject({ target: "summit", status: "returned", reason: "Disconnected number" });
    expect(rows.find((row) => row.kind === "postback")).toMatchObject({
      target: "fb01",
      status: "pending",
      url: "http://127.0.0.1:4100/postback?tid=click-ret&payout=6.00&status=returned",
    });
    const event = logged.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.event === "lead_returned");
    expect(event).toMatchObject({ level: "info", reference: refs.toReturn, buyerId: "summit", via: "cli" });
    // And the list shows it.
    const [, ...listed] = tableRows((await cli("deliveries", "--status", "returned")).output);
    expect(listed.map((row) => [row[0], row[2], row[8]?.startsWith("returned "), row[9]])).toEqual([[refs.toReturn, "summit", true, "Disconnected number"]]);
  });

  it("return says so, with exit code 1, when the lead was already returned or the buyer has no accepted delivery of it", async () => {
    expect(await cli("return", refs.toReturn!, "--buyer", "summit", "--reason", "again")).toEqual({ code: 1, output: `${refs.toReturn} was already returned by summit.\n` });
    expect(await cli("return", refs.refused!, "--buyer", "summit", "--reason", "x")).toEqual({
      code: 1,
      output: `summit has no accepted delivery of ${refs.refused} (see: npm run leads -- deliveries --reference ${refs.refused}).\n`,
    });
    expect((await cli("return", refs.sold!, "--buyer", "harbor", "--reason", "x")).code).toBe(1);
    expect((await cli("return", "LD-0000-0000", "--buyer", "summit", "--reason", "x")).code).toBe(1);
  });
});

describe("npm run leads: the delivery commands' command line", () => {
  /** A store that cannot be reached: every refusal below must come before the command opens it. */
  const unreachable = { DATABASE_URL: "postgres://nobody@127.0.0.1:1/none", DATA_DIR: "unused", BUYERS_FILE, CERTIFICATE_SECRET };
  async function cli(...argv: string[]) {
    let output = "";
    const code = await run(argv, (text) => (output += text), unreachable);
    return { code, output };
  }

  it("lists deliveries, retry and return in the usage", async () => {
    const { code, output } = await cli();
    expect(code).toBe(2);
    expect(output).toMatch(/deliveries \[--status pending\|sending\|accepted\|rejected\|failed\|returned\] \[--since YYYY-MM-DD\]/);
    expect(output).toMatch(/\[--reference LD-XXXX-XXXX\] \[--format table\|csv\|json\]/);
    expect(output).toMatch(/retry\s+LD-XXXX-XXXX \[--buyer ID\]/);
    expect(output).toMatch(/return\s+LD-XXXX-XXXX --buyer ID --reason TEXT/);
  });

  it("refuses an unknown status or format, a bad day and a malformed reference", async () => {
    await expect(cli("deliveries", "--status", "lost")).rejects.toThrow(new UsageError("Unknown status lost: use pending, sending, accepted, rejected, failed, returned."));
    await expect(cli("deliveries", "--format", "ndjson")).rejects.toThrow(new UsageError("Unknown format ndjson: use table, csv or json."));
    await expect(cli("deliveries", "--since", "2026-02-30")).rejects.toThrow(new UsageError("--since must be a date like 2026-01-31."));
    await expect(cli("deliveries", "--reference", "LD-123")).rejects.toThrow(new UsageError("LD-123 is not a lead reference like LD-7K3M-Q9XD."));
  });

  it("refuses options that belong to another command, and extra words", async () => {
    await expect(cli("deliveries", "--dry-run")).rejects.toThrow(new UsageError("--dry-run does not apply to deliveries."));
    await expect(cli("export", "--since", "2026-02-01", "--status", "failed")).rejects.toThrow(new UsageError("--status does not apply to export."));
    await expect(cli("retry", "LD-7K3M-Q9XD", "--reason", "x")).rejects.toThrow(new UsageError("--reason does not apply to retry."));
    await expect(cli("deliveries", "failed")).rejects.toThrow(new UsageError("Unexpected failed after deliveries."));
    await expect(cli("retry", "LD-7K3M-Q9XD", "LD-7K3M-Q9XE")).rejects.toThrow(new UsageError("Unexpected LD-7K3M-Q9XE after retry."));
  });

  it("refuses retry and return without a lead, and return without a buyer or a reason", async () => {
    await expect(cli("retry")).rejects.toThrow(new UsageError("Say which lead: npm run leads -- retry LD-XXXX-XXXX …"));
    await expect(cli("retry", "LD-7K3M-Q9XD", "--buyer", " ")).rejects.toThrow(new UsageError("--buyer needs a buyer id (or a source's sid, for a postback)."));
    await expect(cli("return", "--buyer", "summit", "--reason", "x")).rejects.toThrow(new UsageError("Say which lead: npm run leads -- return LD-XXXX-XXXX …"));
    await expect(cli("return", "LD-7K3M-Q9XD", "--reason", "x")).rejects.toThrow(new UsageError("Say which buyer returns the lead with --buyer ID."));
    await expect(cli("return", "LD-7K3M-Q9XD", "--buyer", "summit")).rejects.toThrow(new UsageError("Say why with --reason TEXT (the buyer's words: it is kept with the delivery)."));
    await expect(cli("return", "LD-7K3M-Q9XD", "--buyer", "summit", "--reason", "  ")).rejects.toThrow(UsageError);
    await expect(cli("return", "LD-7K3M-Q9XD", "--buyer", "summit", "--reason", "x".repeat(501))).rejects.toThrow(new UsageError("--reason is at most 500 characters."));
  });

  it("refuses a return with a bad BUYERS_FILE before opening the database, as an error rather than a usage mistake", async () => {
    const withEnv = (env: NodeJS.ProcessEnv) => run(["return", "LD-7K3M-Q9XD", "--buyer", "summit", "--reason", "x"], () => {}, env);
    await expect(withEnv({ ...unreachable, BUYERS_FILE: path.join(projectRoot, "package.json") })).rejects.toThrow(/^Invalid BUYERS_FILE /);
  });

  it("exits with code 2 and the message on stderr when run as a script with a usage mistake", () => {
    const result = spawnSync(process.execPath, ["--import", "tsx", path.join(projectRoot, "server/cli/leads.ts"), "return", "LD-7K3M-Q9XD", "--buyer", "summit"], {
      cwd: projectRoot,
      env: { PATH: process.env.PATH, ...unreachable },
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toBe("Say why with --reason TEXT (the buyer's words: it is kept with the delivery).\n");
    expect(result.stdout).toBe("");
  });
});
