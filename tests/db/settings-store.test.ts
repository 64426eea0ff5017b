/**
 * The business settings in the database (server/settings/, issue 33 items 1–3) on both stores:
 * every change keeps its history with secrets masked, an edit from a stale form is refused, a
 * rotated secret overlaps, and a replica's directory picks up a change it was not told of at its
 * next poll (two server processes: tests/process/settings-replicas.test.ts); the consent
 * disclosure follows the buyers' names.
 */
import pino from "pino";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { activeSecrets, buyerSchema, type Buyer } from "../../server/delivery/buyers";
import { openSettingsDirectory, type SettingsDirectory } from "../../server/settings/directory";
import {
  createBuyer,
  createSource,
  exportSettings,
  importSettings,
  setBuyerCredential,
  updateBuyerSpec,
  getBuyer,
  loadSettings,
  rotateBuyerSecret,
  secretFingerprint,
  setBuyerStatus,
  settingsHistory,
  settingsVersion,
  StaleRevisionError,
  SettingsKeyError,
  updateBuyer,
  updateSource,
} from "../../server/settings/store";
import { createLeadCapture } from "../../server/leads/capture";
import { disclosureBody } from "../../tools/lead-session";
import { parseSpec, type RequestSpec } from "../../server/delivery/spec";
import { ACME_POST } from "../../tools/buyer-spec-examples";
import { allStores, type TestDatabase } from "../support/databases";

const quiet = pino({ level: "silent" });
type BuyerInput = Parameters<typeof createBuyer>[1];
const input = (overrides: Partial<Buyer> = {}): BuyerInput => {
  const { secret: _secret, ...buyer } = buyerSchema.parse({ id: "acme", name: "Acme Insurance Agency", url: "https://leads.acme.example/post", price: 12, secret: "s".repeat(32), ...overrides });
  return buyer;
};

describe.each(allStores())("business settings ($kind)", (store) => {
  let db: TestDatabase;
  let directories: SettingsDirectory[] = [];
  const directory = async (pollMs = 50) => {
    const opened = await openSettingsDirectory({ db: db.builder, logger: quiet, pollMs });
    directories.push(opened);
    return opened;
  };

  beforeAll(async () => {
    db = await store.open();
  });
  afterAll(async () => {
    await db?.close();
  });
  beforeEach(async () => {
    await db.query("TRUNCATE buyers, traffic_sources, business_settings, settings_changes, consent_disclosures RESTART IDENTITY CASCADE");
  });
  afterEach(() => {
    for (const opened of directories) opened.stop();
    directories = [];
  });

  it("creates a buyer with a secret made by the server, and keeps who changed what, before and after, secrets masked", async () => {
    const { buyer, secret } = await createBuyer(db.builder, input(), "console:alice");
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(buyer.secret).toBe(secret);
    await updateBuyer(db.builder, input({ price: 15, caps: { day: 100 } }), 1, "console:bob");
    await setBuyerStatus(db.builder, "acme", "paused", "console:bob");
    const history = await settingsHistory(db.builder, "buyer", "acme");
    expect(history.map((change) => [change.action, change.actor])).toEqual([["pause", "console:bob"], ["update", "console:bob"], ["create", "console:alice"]]);
    expect(history[1]).toMatchObject({ before: expect.objectContaining({ price: 12 }), after: expect.objectContaining({ price: 15, caps: { day: 100 } }) });
    expect(history[2]!.before).toBeNull();
    expect(JSON.stringify(history)).not.toContain(secret);
    expect(history[2]!.after!.secret).toBe(secretFingerprint(secret));
    expect((await getBuyer(db.builder, "acme"))).toMatchObject({ revision: 3, entry: { status: "paused", price: 15, secret } });
  });

  it("refuses an edit made on a stale revision, a taken id or name, and writes nothing for a form saved unchanged", async () => {
    await createBuyer(db.builder, input(), "console:alice");
    await expect(createBuyer(db.builder, input(), "console:alice")).rejects.toBeInstanceOf(SettingsKeyError);
    await expect(createBuyer(db.builder, input({ id: "other" }), "console:alice")).rejects.toThrow(/already named Acme Insurance Agency/);
    expect(await updateBuyer(db.builder, input({ price: 13 }), 1, "console:alice")).toBe(2);
    const stale = updateBuyer(db.builder, input({ price: 14 }), 1, "console:bob");
    await expect(stale).rejects.toBeInstanceOf(StaleRevisionError);
    const versionBefore = await settingsVersion(db.builder);
    expect(await updateBuyer(db.builder, input({ price: 13 }), 2, "console:alice")).toBe(2);
    expect(await settingsVersion(db.builder)).toBe(versionBefore);
    await expect(updateBuyer(db.builder, input({ id: "nobody" }), 1, "console:alice")).rejects.toBeInstanceOf(SettingsKeyError);
  });

  it("rotates a secret with an overlap in which both verify, and without one the old stops at once", async () => {
    const { secret: first } = await createBuyer(db.builder, input(), "console:alice");
    const now = new Date();
    const { secret: second, overlapUntil } = await rotateBuyerSecret(db.builder, "acme", 24, "console:alice", now);
    expect(overlapUntil!.getTime()).toBe(now.getTime() + 24 * 3_600_000);
    const rotated = (await getBuyer(db.builder, "acme"))!.entry;
    expect(activeSecrets(rotated, now)).toEqual([second, first]);
    expect(activeSecrets(rotated, new Date(now.getTime() + 25 * 3_600_000))).toEqual([second]);
    const { secret: third } = await rotateBuyerSecret(db.builder, "acme", 0, "console:alice", now);
    expect(activeSecrets((await getBuyer(db.builder, "acme"))!.entry, now)).toEqual([third]);
    expect((await settingsHistory(db.builder, "buyer", "acme"))[0]).toMatchObject({ action: "rotate_secret", after: expect.objectContaining({ secret: secretFingerprint(third) }) });
  });

  it("rotates once when two rotations of the same revision arrive together, and names the field of a taken key", async () => {
    await createBuyer(db.builder, input(), "console:alice");
    const results = await Promise.allSettled([rotateBuyerSecret(db.builder, "acme", 24, "console:alice", new Date(), 1), rotateBuyerSecret(db.builder, "acme", 24, "console:bob", new Date(), 1)]);
    expect(results.map((result) => result.status).sort()).toEqual(["fulfilled", "rejected"]);
    expect(results.find((result) => result.status === "rejected")).toMatchObject({ reason: expect.any(StaleRevisionError) });
    expect((await settingsHistory(db.builder, "buyer", "acme")).filter((change) => change.action === "rotate_secret")).toHaveLength(1);
    await expect(createBuyer(db.builder, input({ id: "other" }), "console:alice")).rejects.toMatchObject({ field: "name" });
    await expect(createBuyer(db.builder, input(), "console:alice")).rejects.toMatchObject({ field: "id" });
  });

  it("keeps a buyer's credentials like its secret: an edit keeps them, a replacement is a fingerprint in history, a spec needs its credential", async () => {
    const parsed = parseSpec(ACME_POST, "post");
    if (!parsed.ok) throw new Error("the example spec is valid");
    const spec: RequestSpec = parsed.spec;
    await createBuyer(db.builder, input(), "console:alice");
    // A spec naming a credential the buyer lacks is refused, nothing written.
    await expect(updateBuyerSpec(db.builder, "acme", { post: spec }, 1, "console:alice")).rejects.toThrow(/credentials/);
    expect(await setBuyerCredential(db.builder, "acme", "key", "first-key-value", "console:alice")).toEqual({ replaced: false, revision: 2 });
    expect(await updateBuyerSpec(db.builder, "acme", { post: spec }, 2, "console:alice")).toBe(3);
    await expect(updateBuyerSpec(db.builder, "acme", undefined, 2, "console:bob")).rejects.toBeInstanceOf(StaleRevisionError);
    // An edit of the other settings (the spec passed as stored) keeps the credentials, which it cannot carry.
    expect(await updateBuyer(db.builder, { ...input({ price: 15 }), spec: { post: spec } }, 3, "console:bob")).toBe(4);
    expect((await getBuyer(db.builder, "acme"))!.entry).toMatchObject({ price: 15, credentials: { key: "first-key-value" }, spec: { post: { format: "form" } } });
    // Setting the same value again writes nothing; another replaces it.
    expect(await setBuyerCredential(db.builder, "acme", "key", "first-key-value", "console:alice")).toEqual({ replaced: true, revision: 4 });
    expect(await setBuyerCredential(db.builder, "acme", "key", "second-key-value", "console:alice")).toEqual({ replaced: true, revision: 5 });
    const history = await settingsHistory(db.builder, "buyer", "acme");
    expect(history.map((change) => change.action)).toEqual(["rotate_credential", "update", "update", "rotate_credential", "create"]);
    expect(history[0]).toMatchObject({ before: { credentials: { key: secretFingerprint("first-key-value") } }, after: { credentials: { key: secretFingerprint("second-key-value") } } });
    expect(JSON.stringify(history)).not.toContain("first-key-value");
    expect(JSON.stringify(history)).not.toContain("second-key-value");
    // Removing the spec keeps the credentials (only their values are secret, and ops may bring the spec back).
    expect(await updateBuyerSpec(db.builder, "acme", undefined, 5, "console:alice")).toBe(6);
    expect((await getBuyer(db.builder, "acme"))!.entry.spec).toBeUndefined();
  });

  it("exports credentials only with secrets, and an import that leaves them (or one of them) out keeps the stored values", async () => {
    const buyer = { id: "acme", name: "Acme Auto Agents", url: "https://leads.acme.example/post", price: 12, spec: { post: ACME_POST }, credentials: { key: "acme-key", spare: "spare-value" } };
    expect((await importSettings(db.builder, { buyers: [buyer] }, "cli")).created).toEqual(["buyer acme"]);
    const plain = await exportSettings(db.builder, { withSecrets: false });
    expect(JSON.stringify(plain)).not.toContain("acme-key");
    expect((plain.buyers as Array<Record<string, unknown>>)[0]!.credentials).toBeUndefined();
    expect(((await exportSettings(db.builder, { withSecrets: true })).buyers as Buyer[])[0]!.credentials).toEqual({ key: "acme-key", spare: "spare-value" });
    // Round trip: unchanged.
    expect(await importSettings(db.builder, plain, "cli")).toMatchObject({ created: [], updated: [], unchanged: ["buyer acme", "auction"] });
    // One credential given: it is replaced, the other kept.
    const { credentials: _credentials, ...withoutCredentials } = buyer;
    expect((await importSettings(db.builder, { buyers: [{ ...withoutCredentials, credentials: { key: "acme-key-2" } }] }, "cli")).updated).toEqual(["buyer acme"]);
    expect((await getBuyer(db.builder, "acme"))!.entry.credentials).toEqual({ key: "acme-key-2", spare: "spare-value" });
    const [last] = await settingsHistory(db.builder, "buyer", "acme");
    expect(last!.after!.credentials).toEqual({ key: secretFingerprint("acme-key-2"), spare: secretFingerprint("spare-value") });
    expect(JSON.stringify(await settingsHistory(db.builder, "buyer", "acme"))).not.toMatch(/acme-key|spare-value/);
  });

  it("keeps sources with their history and refuses a stale edit", async () => {
    await createSource(db.builder, { sid: "fb01", name: "Facebook prospecting", status: "active", payout: 6, floor: 0 }, "console:alice");
    expect(await updateSource(db.builder, { sid: "fb01", name: "Facebook prospecting", status: "active", payout: 7, floor: 10 }, 1, "console:alice")).toBe(2);
    await expect(updateSource(db.builder, { sid: "fb01", status: "archived", payout: 7, floor: 10 }, 1, "console:bob")).rejects.toBeInstanceOf(StaleRevisionError);
    expect((await loadSettings(db.builder)).sources).toEqual([{ sid: "fb01", name: "Facebook prospecting", status: "active", payout: 7, floor: 10 }]);
    expect((await settingsHistory(db.builder, "source", "fb01")).map((change) => change.action)).toEqual(["update", "create"]);
  });

  it("applies a change it was not told of at its next poll, and at once after refresh()", async () => {
    const replica = await directory(50);
    replica.start();
    const heard: number[] = [];
    replica.onChange((settings) => void heard.push(settings.buyers.length));
    expect(replica.current().buyers).toEqual([]);
    // As another replica's console would: written to the database, this directory not told.
    await createBuyer(db.builder, input(), "console:alice");
    await expect.poll(() => replica.current().buyers.map((buyer) => buyer.id), { timeout: 5_000, interval: 20 }).toEqual(["acme"]);
    expect(heard).toEqual([1]);
    const here = await directory(60_000);
    await setBuyerStatus(db.builder, "acme", "paused", "console:alice");
    await here.refresh();
    expect(here.current().buyers[0]!.status).toBe("paused");
  });

  it("calls a listener that failed (the database blinked) again at the next poll", async () => {
    const replica = await directory(40);
    let calls = 0;
    replica.onChange(() => {
      calls += 1;
      if (calls === 1) throw new Error("the database went away");
    });
    replica.start();
    await createBuyer(db.builder, input(), "console:alice");
    await expect.poll(() => calls, { timeout: 5_000, interval: 20 }).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(calls).toBe(2); // and not again once it succeeded
  });

  it("leaves out, with an error in the log, an entry this release cannot read, and runs on the others", async () => {
    await createBuyer(db.builder, input(), "console:alice");
    await createBuyer(db.builder, input({ id: "beta", name: "Beta Auto" }), "console:alice");
    await db.query(`UPDATE buyers SET config = jsonb_set(config, '{price}', '"free"') WHERE id = 'beta'`);
    const lines: string[] = [];
    const opened = await openSettingsDirectory({ db: db.builder, logger: pino({ level: "info" }, { write: (line: string) => lines.push(line) }), pollMs: 60_000 });
    expect(opened.current().buyers.map((buyer) => buyer.id)).toEqual(["acme"]);
    expect(lines.some((line) => line.includes('"event":"settings_invalid"') && line.includes("buyer beta"))).toBe(true);
  });

  it("names a buyer added from the console to the next visitor, in a new disclosure version, and drops a paused or archived one, without a restart", async () => {
    await createBuyer(db.builder, input(), "console:alice");
    const replica = await directory(60_000);
    const capture = await createLeadCapture(db, "x".repeat(32), { LEAD_MIN_FILL_MS: 0 }, replica);
    // The words a visitor with the sample answers is shown (docs/decisions/039-disclosure-per-visitor.md).
    const words = async () => {
      const outcome = await capture.disclosures.forRequest(disclosureBody(), new Date());
      if (outcome.kind !== "shown") throw new Error(`no words: ${JSON.stringify(outcome)}`);
      return outcome.disclosure;
    };
    const first = await words();
    await createBuyer(db.builder, input({ id: "beta", name: "Beta Auto Group" }), "console:alice");
    await replica.refresh();
    const second = await words();
    expect(second.version).toBeGreaterThan(first.version);
    expect(JSON.stringify(second.parts)).toContain("Beta Auto Group");
    // A paused buyer could not take the request now: not named (issue 44); archived neither.
    await setBuyerStatus(db.builder, "beta", "paused", "console:alice");
    await replica.refresh();
    const paused = await words();
    expect(JSON.stringify(paused.parts)).not.toContain("Beta Auto Group");
    expect(paused.version).toBe(first.version); // the same words as before: the same stored version
    await setBuyerStatus(db.builder, "beta", "archived", "console:alice");
    await replica.refresh();
    expect((await words()).version).toBe(first.version);
  });
});
