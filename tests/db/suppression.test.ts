/**
 * The opt-out suppression list (server/privacy/suppression.ts) and the privacy requests that fill
 * it (server/privacy/requests.ts, through the web form's service), against both stores.
 */
import { createHash, randomUUID } from "node:crypto";
import type { Request } from "express";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { migrate } from "../../server/db/migrate";
import { migrations } from "../../server/db/migrations";
import type { NewLead } from "../../server/leads/store";
import { answerColumns } from "../../server/db/lead-rows";
import { newReference } from "../../server/db/references";
import { privacyRequestRepository, type NewPrivacyRequest } from "../../server/db/privacy-requests";
import { createPrivacyService } from "../../server/privacy/service";
import { storePrivacyRequest, suppressionSourceOf } from "../../server/privacy/requests";
import { hashContact, salesAllowed, suppressionList, type SuppressionList } from "../../server/privacy/suppression";
import { allStores, type TestDatabase } from "../support/databases";
import { sampleNewLead } from "../../tools/lead-session";

const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");

const T0 = new Date("2026-03-02T17:00:00.000Z");

function request(overrides: Partial<NewPrivacyRequest> = {}): NewPrivacyRequest {
  return { submissionId: randomUUID(), requestType: "opt_out_sale_sharing", email: "opt.out@example.com", gpc: false, receivedAt: T0, dueAt: new Date(T0.getTime() + 21 * 86_400_000), ...overrides };
}

/** Just enough of an Express request for the privacy service: its headers and its logger. */
function fakeRequest(headers: Record<string, string> = {}): Request {
  return { get: (name: string) => headers[name.toLowerCase()], log: { info: vi.fn() } } as unknown as Request;
}

async function rows(db: TestDatabase) {
  const { rows: found } = await db.query<{ kind: string; hash: string; source: string; request_reference: string | null }>(
    "SELECT kind, hash, source, request_reference FROM suppressions ORDER BY kind, hash",
  );
  return found;
}

describe("hashContact", () => {
  it("hashes the lower-cased email and the E.164 phone, however they were typed", () => {
    expect(hashContact({ email: "  Ana.Diaz@Example.COM ", phone: "(415) 555-0134" })).toEqual([
      { kind: "email", hash: sha256("ana.diaz@example.com") },
      { kind: "phone", hash: sha256("+14155550134") },
    ]);
    expect(hashContact({ phone: "+1 415.555.0134" })).toEqual([{ kind: "phone", hash: sha256("+14155550134") }]);
    expect(hashContact({ email: " ", phone: "12345" })).toEqual([]);
    expect(hashContact({})).toEqual([]);
  });
});

describe("salesAllowed", () => {
  it("is false with GPC (without looking the contact up), false when suppressed, true otherwise; one lookup for all", async () => {
    const areSuppressed = vi.fn(async (contacts: readonly { email?: string | null }[]) => contacts.map(({ email }) => email === "no@example.com"));
    const leads = [
      { gpc: true, email: "yes@example.com", phone: "+14155550134" },
      { gpc: false, email: "no@example.com", phone: "+14155550134" },
      { gpc: false, email: "yes@example.com", phone: "+14155550134" },
    ];
    expect(await salesAllowed(leads, { areSuppressed })).toEqual([false, false, true]);
    expect(areSuppressed).toHaveBeenCalledTimes(1);
    expect(areSuppressed.mock.calls[0]?.[0][0]).toEqual({});
  });
});

describe("suppressionSourceOf", () => {
  it("puts opt-outs on the list under their channel, and any request from a GPC browser under gpc", () => {
    expect(suppressionSourceOf({ requestType: "opt_out_sale_sharing", gpc: false }, "web_form")).toBe("web_form");
    expect(suppressionSourceOf({ requestType: "nevada_opt_out", gpc: true }, "phone")).toBe("phone");
    expect(suppressionSourceOf({ requestType: "access", gpc: true }, "web_form")).toBe("gpc");
    expect(suppressionSourceOf({ requestType: "deletion", gpc: false }, "email")).toBeNull();
  });
});

describe.each(allStores())("the suppression list ($kind)", (store) => {
  let db: TestDatabase;
  let list: SuppressionList;

  beforeAll(async () => {
    db = await store.open();
    list = suppressionList(db);
  });
  afterAll(async () => {
    await db?.close();
  });
  beforeEach(async () => {
    await db.query("TRUNCATE suppressions, privacy_requests RESTART IDENTITY");
  });

  it("stores only hashes, keyed by kind and hash, and finds a contact by either its email or its phone", async () => {
    expect(await list.add({ email: "Ana@Example.com", phone: "415-555-0134" }, "web_form", "PR-AAAA-BBBB")).toBe(2);
    expect(await rows(db)).toEqual(
      [
        { kind: "email", hash: sha256("ana@example.com"), source: "web_form", request_reference: "PR-AAAA-BBBB" },
        { kind: "phone", hash: sha256("+14155550134"), source: "web_form", request_reference: "PR-AAAA-BBBB" },
      ].sort((a, b) => a.kind.localeCompare(b.kind) || a.hash.localeCompare(b.hash)),
    );
    const { rows: clear } = await db.query("SELECT * FROM suppressions WHERE hash LIKE '%example%' OR hash LIKE '%4155550134%'");
    expect(clear).toEqual([]);

    expect(await list.isSuppressed({ email: "ANA@example.com" })).toBe(true);
    expect(await list.isSuppressed({ phone: "+14155550134" })).toBe(true);
    expect(await list.isSuppressed({ email: "someone.else@example.com", phone: "(415) 555-0134" })).toBe(true);
    expect(await list.isSuppressed({ email: "ana@example.com", phone: "(415) 555-9999" })).toBe(true);
    expect(await list.isSuppressed({ email: "someone.else@example.com", phone: "(415) 555-9999" })).toBe(false);
    expect(await list.isSuppressed({})).toBe(false);
    expect(await list.areSuppressed([{ email: "ANA@example.com" }, { email: "someone.else@example.com", phone: "(415) 555-9999" }, {}, { phone: "(415) 555-0134" }])).toEqual([true, false, false, true]);
    expect(await list.areSuppressed([])).toEqual([]);
  });

  it("is idempotent: adding again adds nothing and keeps the first source, reference and date", async () => {
    expect(await list.add({ email: "twice@example.com" }, "phone", "PR-AAAA-AAAA")).toBe(1);
    const [first] = await list.entries({ email: "twice@example.com" });
    expect(await list.add({ email: "TWICE@example.com", phone: "(415) 555-0100" }, "gpc", "LD-BBBB-BBBB")).toBe(1);
    expect(await list.add({ email: "twice@example.com", phone: "(415) 555-0100" }, "email")).toBe(0);
    const entries = await list.entries({ email: "twice@example.com", phone: "4155550100" });
    expect(entries).toHaveLength(2);
    expect(entries[0]).toEqual(first);
    expect(entries[0]).toMatchObject({ kind: "email", source: "phone", requestReference: "PR-AAAA-AAAA" });
    expect(entries[1]).toMatchObject({ kind: "phone", source: "gpc", requestReference: "LD-BBBB-BBBB" });
    expect(entries[0]!.addedAt).toBeInstanceOf(Date);
  });

  it("refuses contacts it could never match, and adds nothing for an empty contact", async () => {
    await expect(list.add({ phone: "12345" }, "web_form")).rejects.toThrow(/US number/);
    await expect(list.add({ email: "  " }, "web_form")).rejects.toThrow(/blank/);
    expect(await list.add({}, "web_form")).toBe(0);
    expect(await rows(db)).toEqual([]);
  });

  it("works inside a transaction, and rolls back with it", async () => {
    await db.builder
      .transaction()
      .execute(async (tx) => {
        await suppressionList(tx).add({ email: "rolled.back@example.com" }, "web_form");
        expect(await suppressionList(tx).isSuppressed({ email: "rolled.back@example.com" })).toBe(true);
        throw new Error("abort");
      })
      .catch(() => {});
    expect(await list.isSuppressed({ email: "rolled.back@example.com" })).toBe(false);
  });

  describe("filled by privacy requests", () => {
    it("an opt-out from the web form puts its email and phone on the list, in the request's transaction", async () => {
      const service = createPrivacyService(db);
      const outcome = await service.submit(fakeRequest(), { requestType: "opt_out_sale_sharing", email: "Web.Form@Example.com", phone: "(415) 555-0177" }, randomUUID());
      expect(outcome.kind).toBe("created");
      const reference = outcome.kind === "created" ? outcome.reference : "";
      const entries = await list.entries({ email: "web.form@example.com", phone: "+14155550177" });
      expect(entries.map(({ kind, source, requestReference }) => ({ kind, source, requestReference }))).toEqual([
        { kind: "email", source: "web_form", requestReference: reference },
        { kind: "phone", source: "web_form", requestReference: reference },
      ]);
      const nevada = await service.submit(fakeRequest(), { requestType: "nevada_opt_out", phone: "(702) 555-0101" }, randomUUID());
      expect(nevada.kind).toBe("created");
      expect(await list.isSuppressed({ phone: "+17025550101" })).toBe(true);
    });

    it("a request of another type does not, unless the browser sent Global Privacy Control", async () => {
      const service = createPrivacyService(db);
      await service.submit(fakeRequest(), { requestType: "access", email: "access@example.com" }, randomUUID());
      await service.submit(fakeRequest(), { requestType: "deletion", email: "deletion@example.com" }, randomUUID());
      expect(await list.isSuppressed({ email: "access@example.com" })).toBe(false);
      expect(await list.isSuppressed({ email: "deletion@example.com" })).toBe(false);

      const outcome = await service.submit(fakeRequest({ "sec-gpc": "1" }), { requestType: "access", email: "gpc.access@example.com" }, randomUUID());
      expect(await list.entries({ email: "gpc.access@example.com" })).toMatchObject([{ source: "gpc", requestReference: outcome.kind === "created" ? outcome.reference : "?" }]);
    });

    it("a form sent twice is one request and one entry", async () => {
      const service = createPrivacyService(db);
      const submissionId = randomUUID();
      const first = await service.submit(fakeRequest(), { requestType: "opt_out_sale_sharing", email: "twice@example.com" }, submissionId);
      const second = await service.submit(fakeRequest(), { requestType: "opt_out_sale_sharing", email: "twice@example.com" }, submissionId);
      expect(second).toEqual({ kind: "duplicate", reference: first.kind === "created" ? first.reference : "?" });
      expect(await privacyRequestRepository(db).count()).toBe(1);
      expect(await rows(db)).toHaveLength(1);
    });

    it("stores neither the request nor the entry when the list cannot be written", async () => {
      await db.query("ALTER TABLE suppressions RENAME TO suppressions_away");
      try {
        await expect(storePrivacyRequest(db, request({ email: "atomic@example.com" }), "web_form")).rejects.toThrow();
        expect(await privacyRequestRepository(db).count()).toBe(0);
        // A request that needs no entry is stored as before.
        expect((await storePrivacyRequest(db, request({ requestType: "access", email: "atomic@example.com" }), "web_form")).created).toBe(true);
      } finally {
        await db.query("ALTER TABLE suppressions_away RENAME TO suppressions");
      }
    });

    it("keeps the opt-out when the closed request is purged after 24 months", async () => {
      const stored = await storePrivacyRequest(db, request({ email: "old.opt.out@example.com", phone: "+14155550188", receivedAt: new Date("2020-01-06T10:00:00Z") }), "email");
      expect(stored).toMatchObject({ created: true, suppressed: true });
      const repository = privacyRequestRepository(db);
      expect(await repository.close(stored.created ? stored.reference : "", "completed", "suppressed")).toBe(true);
      expect(await repository.purgeClosedBefore(new Date("2022-01-06T10:00:00Z"))).toBe(1);
      expect(await repository.count()).toBe(0);
      expect(await list.entries({ email: "old.opt.out@example.com", phone: "+14155550188" })).toMatchObject([
        { kind: "email", source: "email" },
        { kind: "phone", source: "email" },
      ]);
    });

    it("the service given only the repository (the old call) still stores requests", async () => {
      const outcome = await createPrivacyService(privacyRequestRepository(db)).submit(fakeRequest(), { requestType: "access", email: "legacy@example.com" }, randomUUID());
      expect(outcome.kind).toBe("created");
    });
  });
});

/** A lead row as stored before migration 5 (the lead repository of today reads the list, which did not exist then). */
async function storeEarlierLead(db: TestDatabase, input: NewLead): Promise<string> {
  const reference = newReference("LD");
  // The columns of the time: migration 10's (the lists, the newer answers) came later.
  const { vehicles: _vehicles, drivers: _drivers, insuredFor: _insuredFor, coverage: _coverage, residence: _residence, ...earlier } = answerColumns(input.lead);
  await db.builder
    .insertInto("leads")
    // The builder's table type is today's: the earlier row lacks migration 10's columns.
    .values({ ...(earlier as ReturnType<typeof answerColumns>), reference, idempotencyKey: input.idempotencyKey, receivedAt: input.receivedAt, city: input.location.city, state: input.location.state, sid: null, tid: null, gpc: input.gpc, duplicateOf: null })
    .execute();
  return reference;
}

describe.each(allStores())("migration 5 ($kind)", (store) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await store.open({ migrate: false });
    await migrate(db, migrations.filter((migration) => migration.version < 5));
  });
  afterAll(async () => {
    await db?.close();
  });

  it("puts the opt-outs and GPC quote requests received before the list on it, hashed as the code hashes them", async () => {
    const requests = privacyRequestRepository(db);
    const optOut = await requests.create(request({ email: "before@example.com", phone: "+14155550142" }));
    await requests.create(request({ requestType: "nevada_opt_out", email: undefined, phone: "+17025550142" }));
    await requests.create(request({ requestType: "access", email: "access.only@example.com" }));
    await requests.create(request({ requestType: "deletion", email: "gpc.deletion@example.com", gpc: true }));
    const gpcLead = await storeEarlierLead(db, sampleNewLead({ gpc: true, lead: { email: "gpc.lead@example.com", phone: "+13105550142" } }));
    await storeEarlierLead(db, sampleNewLead({ gpc: false, lead: { email: "plain.lead@example.com", phone: "+13105550143" } }));

    expect(await migrate(db)).toEqual(migrations.filter((migration) => migration.version >= 5).map((migration) => migration.version));
    const list = suppressionList(db);
    expect(await list.entries({ email: "before@example.com", phone: "+14155550142" })).toMatchObject([
      { kind: "email", source: "web_form", requestReference: optOut.created ? optOut.reference : "?", addedAt: T0 },
      { kind: "phone", source: "web_form" },
    ]);
    expect(await list.isSuppressed({ phone: "(702) 555-0142" })).toBe(true);
    expect(await list.isSuppressed({ email: "access.only@example.com" })).toBe(false);
    expect(await list.entries({ email: "gpc.deletion@example.com" })).toMatchObject([{ source: "gpc" }]);
    expect(await list.entries({ email: "gpc.lead@example.com", phone: "+13105550142" })).toMatchObject([
      { kind: "email", source: "gpc", requestReference: gpcLead },
      { kind: "phone", source: "gpc" },
    ]);
    expect(await list.isSuppressed({ email: "plain.lead@example.com", phone: "+13105550143" })).toBe(false);
  });
});
