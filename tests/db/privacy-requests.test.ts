/**
 * The privacy_requests table through its repository, against both stores: the embedded PGlite
 * store and PostgreSQL. One database per store is opened for the whole file (PGlite takes seconds
 * to open) and emptied before each test.
 */
import { randomUUID } from "node:crypto";
import type * as NodeCrypto from "node:crypto";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { openDatabase, type Database } from "../../server/db/database";
import { migrate } from "../../server/db/migrate";
import { migrations } from "../../server/db/migrations";
import { privacyRequestRepository, type NewPrivacyRequest, type PrivacyRequestRepository } from "../../server/db/privacy-requests";
import { PRIVACY_REFERENCE_PATTERN } from "../../shared/privacy-request";
import { allStores, freshPostgresUrl, type TestDatabase } from "../support/databases";

const ALL_VERSIONS = migrations.map((migration) => migration.version);
/** A version after the last real one, for migrations made up by the tests below. */
const NEXT_VERSION = Math.max(...ALL_VERSIONS) + 1;

/** randomBytes, replaceable per test: the repository draws references from it. */
const randomBytesOverride = vi.hoisted(() => ({ next: [] as Buffer[] }));
vi.mock("node:crypto", async (importOriginal) => {
  const actual = await importOriginal<typeof NodeCrypto>();
  const randomBytes = ((size: number) => randomBytesOverride.next.shift() ?? actual.randomBytes(size)) as typeof actual.randomBytes;
  return { ...actual, default: { ...actual, randomBytes }, randomBytes };
});

const T0 = new Date("2024-03-01T17:45:12.345Z");
const hours = (n: number) => new Date(T0.getTime() + n * 3_600_000);

function request(overrides: Partial<NewPrivacyRequest> = {}): NewPrivacyRequest {
  return {
    submissionId: randomUUID(),
    requestType: "access",
    email: "person@example.com",
    gpc: false,
    receivedAt: T0,
    dueAt: new Date(T0.getTime() + 45 * 86_400_000),
    ...overrides,
  };
}

async function created(repo: PrivacyRequestRepository, input: NewPrivacyRequest): Promise<string> {
  const result = await repo.create(input);
  if (!result.created) throw new Error(`expected a new request, got a duplicate of ${result.duplicateOf}`);
  return result.reference;
}

describe.each(allStores())("privacy requests ($kind)", (store) => {
  let db: TestDatabase;
  let repo: PrivacyRequestRepository;
  let firstMigrate: number[];
  let secondMigrate: number[];

  beforeAll(async () => {
    db = await store.open({ migrate: false });
    firstMigrate = await migrate(db);
    secondMigrate = await migrate(db);
    repo = privacyRequestRepository(db);
  });
  afterAll(async () => {
    await db?.close();
  });
  beforeEach(async () => {
    randomBytesOverride.next = [];
    await db.query("TRUNCATE privacy_requests RESTART IDENTITY");
  });

  describe("migrate()", () => {
    it("applies every migration once, in order; later calls apply nothing", async () => {
      expect(firstMigrate).toEqual(ALL_VERSIONS);
      expect(secondMigrate).toEqual([]);
      expect(await migrate(db)).toEqual([]);
      const { rows } = await db.query<{ version: number; name: string }>("SELECT version, name FROM schema_migrations ORDER BY version");
      expect(rows.map((row) => ({ version: Number(row.version), name: row.name }))).toEqual(migrations.map(({ version, name }) => ({ version, name })));
    });

    it("applies nothing of a migration that fails: its statements and its bookkeeping roll back together", async () => {
      const broken = { version: NEXT_VERSION, name: "broken", statements: ["CREATE TABLE half_done (id int)", "SELECT no_such_column FROM half_done"] };
      await expect(migrate(db, [...migrations, broken])).rejects.toThrow(/no_such_column/);
      const { rows } = await db.query<{ version: number }>("SELECT version FROM schema_migrations ORDER BY version");
      expect(rows.map((row) => Number(row.version))).toEqual(ALL_VERSIONS);
      const table = await db.query<{ name: string | null }>("SELECT to_regclass('half_done')::text AS name");
      expect(table.rows[0]?.name).toBeNull();
    });

    it("two concurrent calls on one handle apply a new migration once", async () => {
      const extra = { version: NEXT_VERSION, name: "extra", statements: ["CREATE TABLE extra_table (id int)"] };
      try {
        const results = await Promise.all([migrate(db, [...migrations, extra]), migrate(db, [...migrations, extra])]);
        expect(results.map((applied) => applied.join(",")).sort()).toEqual(["", String(NEXT_VERSION)]);
      } finally {
        await db.query("DROP TABLE IF EXISTS extra_table");
        await db.query("DELETE FROM schema_migrations WHERE version = $1", [NEXT_VERSION]);
      }
    });
  });

  describe("create()", () => {
    it("stores every field exactly and returns a reference like PR-XXXX-XXXX", async () => {
      const input = request({
        requestType: "correction",
        email: "ana.o'brien+privacy@example.com",
        phone: "+14155550134",
        state: "CA",
        details: 'My address is wrong — it is "12 Oak St", not 21.\nThanks 👍',
        gpc: true,
        receivedAt: new Date("2024-03-01T23:59:59.999Z"),
        dueAt: new Date("2024-04-15T23:59:59.999Z"),
      });
      const result = await repo.create(input);
      expect(result).toEqual({ created: true, reference: expect.stringMatching(PRIVACY_REFERENCE_PATTERN) });
      const reference = result.created ? result.reference : "";

      const stored = await repo.findByReference(reference);
      expect(stored).toEqual({
        reference,
        requestType: "correction",
        email: input.email,
        phone: "+14155550134",
        state: "CA",
        details: input.details,
        gpc: true,
        status: "received",
        receivedAt: input.receivedAt,
        dueAt: input.dueAt,
        closedAt: null,
        resolutionNote: null,
      });
      expect(stored?.receivedAt).toBeInstanceOf(Date);
      expect(stored?.receivedAt.toISOString()).toBe("2024-03-01T23:59:59.999Z");
      expect(stored?.dueAt.toISOString()).toBe("2024-04-15T23:59:59.999Z");

      const raw = await db.query<{ submission_id: string; received_at: unknown; due_at: unknown }>(
        "SELECT submission_id::text, received_at, due_at FROM privacy_requests WHERE reference = $1",
        [reference],
      );
      expect(raw.rows[0]?.submission_id).toBe(input.submissionId);
      expect(raw.rows[0]?.received_at).toBeInstanceOf(Date);
      expect((raw.rows[0]?.received_at as Date).getTime()).toBe(input.receivedAt.getTime());
      expect((raw.rows[0]?.due_at as Date).getTime()).toBe(input.dueAt.getTime());
    });

    it("stores absent optional fields as null", async () => {
      const reference = await created(repo, { submissionId: randomUUID(), requestType: "deletion", phone: "+12125550100", gpc: false, receivedAt: T0, dueAt: hours(1080) });
      expect(await repo.findByReference(reference)).toMatchObject({ requestType: "deletion", email: null, phone: "+12125550100", state: null, details: null, gpc: false });
    });

    it("finds nothing for an unknown reference", async () => {
      expect(await repo.findByReference("PR-0000-0000")).toBeUndefined();
    });

    it("reports the same submissionId again as a duplicate of the first, storing one row", async () => {
      const submissionId = randomUUID();
      const first = await repo.create(request({ submissionId }));
      expect(first.created).toBe(true);
      const reference = first.created ? first.reference : "";
      const second = await repo.create(request({ submissionId, email: "someone-else@example.com", requestType: "deletion" }));
      expect(second).toEqual({ created: false, duplicateOf: reference });
      expect(await repo.count()).toBe(1);
      expect(await repo.findByReference(reference)).toMatchObject({ email: "person@example.com", requestType: "access" });
    });

    it("stores one row when the same submission arrives ten times at once", async () => {
      const submissionId = randomUUID();
      const results = await Promise.all(Array.from({ length: 10 }, () => repo.create(request({ submissionId }))));
      const winners = results.flatMap((result) => (result.created ? [result.reference] : []));
      expect(winners).toHaveLength(1);
      for (const result of results) if (!result.created) expect(result.duplicateOf).toBe(winners[0]);
      expect(await repo.count()).toBe(1);
    });

    it("stores 200 simultaneous requests with 200 distinct references", async () => {
      const results = await Promise.all(Array.from({ length: 200 }, (_, i) => repo.create(request({ email: `p${i}@example.com` }))));
      const references = results.map((result) => (result.created ? result.reference : "duplicate"));
      expect(references.every((reference) => PRIVACY_REFERENCE_PATTERN.test(reference))).toBe(true);
      expect(new Set(references).size).toBe(200);
      expect(await repo.count()).toBe(200);
      const { rows } = await db.query<{ n: number }>("SELECT count(DISTINCT reference)::int AS n FROM privacy_requests");
      expect(Number(rows[0]?.n)).toBe(200);
    });

    it("draws another reference when the random one is taken", async () => {
      const same = Buffer.from([1, 2, 3, 4, 5, 6, 7, 8]);
      randomBytesOverride.next = [same, Buffer.from(same), Buffer.from([9, 10, 11, 12, 13, 14, 15, 16])];
      const first = await created(repo, request());
      const second = await created(repo, request());
      expect(first).toBe("PR-1234-5678");
      expect(second).toBe("PR-9ABC-DEFG");
      expect(await repo.count()).toBe(2);
    });

    it("gives up after five taken references in a row", async () => {
      const same = Buffer.from([1, 2, 3, 4, 5, 6, 7, 8]);
      randomBytesOverride.next = Array.from({ length: 6 }, () => Buffer.from(same));
      await created(repo, request());
      await expect(repo.create(request())).rejects.toThrow("Could not allocate a unique privacy request reference");
      expect(await repo.count()).toBe(1);
    });
  });

  describe("list()", () => {
    let refs: Record<string, string>;

    beforeEach(async () => {
      // Inserted out of order; two share a received_at (then insertion order decides).
      refs = {};
      for (const [name, at] of [["h3", 3], ["h1", 1], ["h5", 5], ["h2a", 2], ["h2b", 2], ["h4", 4]] as const) {
        refs[name] = await created(repo, request({ receivedAt: hours(at) }));
      }
      await repo.close(refs.h2a!, "completed", null, hours(6));
      await repo.close(refs.h4!, "denied", "could not verify", hours(6));
    });

    const names = (records: { reference: string }[]) => records.map((record) => Object.keys(refs).find((name) => refs[name] === record.reference));

    it("returns everything, oldest first", async () => {
      expect(names(await repo.list())).toEqual(["h1", "h2a", "h2b", "h3", "h4", "h5"]);
    });

    it("filters by since (inclusive) and until (exclusive)", async () => {
      expect(names(await repo.list({ since: hours(2) }))).toEqual(["h2a", "h2b", "h3", "h4", "h5"]);
      expect(names(await repo.list({ until: hours(3) }))).toEqual(["h1", "h2a", "h2b"]);
      expect(names(await repo.list({ since: hours(2), until: hours(4) }))).toEqual(["h2a", "h2b", "h3"]);
      expect(await repo.list({ since: hours(6) })).toEqual([]);
    });

    it("filters by status", async () => {
      expect(names(await repo.list({ status: "received" }))).toEqual(["h1", "h2b", "h3", "h5"]);
      expect(names(await repo.list({ status: "completed" }))).toEqual(["h2a"]);
      expect(names(await repo.list({ status: "denied", since: hours(1), until: hours(5) }))).toEqual(["h4"]);
    });
  });

  describe("close()", () => {
    it("completes an open request once, recording when and why", async () => {
      const reference = await created(repo, request());
      const at = new Date("2024-03-05T09:00:00.123Z");
      expect(await repo.close(reference, "completed", "opted out in CRM", at)).toBe(true);
      expect(await repo.close(reference, "denied", "second try", hours(100))).toBe(false);
      expect(await repo.findByReference(reference)).toMatchObject({ status: "completed", closedAt: at, resolutionNote: "opted out in CRM" });
    });

    it("denies an open request, with or without a note", async () => {
      const withNote = await created(repo, request());
      const withoutNote = await created(repo, request());
      expect(await repo.close(withNote, "denied", "identity not verified", hours(2))).toBe(true);
      expect(await repo.close(withoutNote, "denied", null, hours(3))).toBe(true);
      expect(await repo.close(withoutNote, "completed", "late", hours(4))).toBe(false);
      expect(await repo.findByReference(withNote)).toMatchObject({ status: "denied", closedAt: hours(2), resolutionNote: "identity not verified" });
      expect(await repo.findByReference(withoutNote)).toMatchObject({ status: "denied", closedAt: hours(3), resolutionNote: null });
    });

    it("returns false for an unknown reference", async () => {
      expect(await repo.close("PR-0000-0000", "completed", null)).toBe(false);
    });
  });

  describe("purgeClosedBefore()", () => {
    it("deletes only closed requests received before the cutoff", async () => {
      const oldCompleted = await created(repo, request({ receivedAt: hours(1) }));
      const oldDenied = await created(repo, request({ receivedAt: hours(2) }));
      const oldOpen = await created(repo, request({ receivedAt: hours(3) }));
      const atCutoff = await created(repo, request({ receivedAt: hours(10) }));
      const recentClosed = await created(repo, request({ receivedAt: hours(11) }));
      for (const reference of [oldCompleted, atCutoff, recentClosed]) await repo.close(reference, "completed", null, hours(20));
      await repo.close(oldDenied, "denied", null, hours(20));

      expect(await repo.purgeClosedBefore(hours(10))).toBe(2);
      expect((await repo.list()).map((record) => record.reference)).toEqual([oldOpen, atCutoff, recentClosed]);
      expect(await repo.purgeClosedBefore(hours(10))).toBe(0);
    });
  });

  describe("the table's constraints", () => {
    const insert = (columns: Record<string, unknown>) => {
      const names = Object.keys(columns);
      return db.query(
        `INSERT INTO privacy_requests (${names.join(", ")}) VALUES (${names.map((_, i) => `$${i + 1}`).join(", ")})`,
        Object.values(columns),
      );
    };
    const valid = () => ({ reference: `PR-${randomUUID().slice(0, 4).toUpperCase()}-TEST`, submission_id: randomUUID(), request_type: "access", email: "a@example.com", due_at: T0 });

    it("accepts a valid row by direct INSERT (so the refusals below are the constraints')", async () => {
      await insert(valid());
      await insert({ ...valid(), email: null, phone: "+14155550134" });
      expect(await repo.count()).toBe(2);
    });

    it("refuses a row with neither email nor phone", async () => {
      await expect(insert({ ...valid(), email: null, phone: null })).rejects.toMatchObject({ code: "23514" });
    });

    it("refuses an unknown request type", async () => {
      await expect(insert({ ...valid(), request_type: "sell_everything" })).rejects.toMatchObject({ code: "23514" });
    });

    it("refuses an unknown status", async () => {
      await expect(insert({ ...valid(), status: "lost" })).rejects.toMatchObject({ code: "23514" });
    });

    it("refuses a second row with the same submission id or reference", async () => {
      const row = valid();
      await insert(row);
      await expect(insert({ ...valid(), submission_id: row.submission_id })).rejects.toMatchObject({ code: "23505" });
      await expect(insert({ ...valid(), reference: row.reference })).rejects.toMatchObject({ code: "23505" });
      expect(await repo.count()).toBe(1);
    });
  });
});

describe("migrate() on PostgreSQL from two connections at once", () => {
  const opened: Database[] = [];
  const drops: (() => Promise<void>)[] = [];

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((db) => db.close()));
    await Promise.all(drops.splice(0).map((drop) => drop()));
  });

  it.each([1, 2, 3, 4, 5])("applies every migration exactly once (round %i)", async () => {
    const database = await freshPostgresUrl();
    drops.push(database.drop);
    const [a, b] = await Promise.all([0, 1].map(() => openDatabase({ DATABASE_URL: database.url, DATA_DIR: "unused", DATABASE_POOL_SIZE: 1 })));
    opened.push(a!, b!);
    const results = await Promise.all([migrate(a!), migrate(b!)]);
    expect(results.map((applied) => applied.join(",")).sort()).toEqual(["", ALL_VERSIONS.join(",")]);
    const { rows } = await a!.query<{ n: number }>("SELECT count(*)::int AS n FROM schema_migrations");
    expect(Number(rows[0]?.n)).toBe(ALL_VERSIONS.length);
  });
});
