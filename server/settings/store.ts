/**
 * The business settings in the database (migration 17, issue 33): the buyers, the traffic sources,
 * the auction's rules and the A/B experiments (issue 45), each entry checked by the same zod schemas as BUYERS_FILE
 * (server/delivery/buyers.ts). The one module that reads and writes those tables: the console's
 * forms, `npm run buyers -- import|export` and the start-up import all come through here, and
 * every change writes a settings_changes row (who, when, what, before and after with secrets
 * masked) in the same transaction. That table's highest id is the settings' version: replicas
 * poll it and reload (server/settings/directory.ts).
 */
import { createHash, randomBytes } from "node:crypto";
import { sql, type Transaction } from "kysely";
import type { Builder } from "../db/database";
import type { Tables } from "../db/schema";
import type { OutboundPolicy } from "../delivery/outbound";
import { buyerSchema, buyersFileSchema, fileAddressProblems, sourceSchema, type Buyer, type LiveSettings, type BuyerStatus, type Source, type SourceStatus } from "../delivery/buyers";
import { clashes, experimentSchema, knobsOf, type Experiment } from "../experiments/schema";

/** The settings every replica runs on, with the version (settings_changes' highest id) they were read at. */
export interface BusinessSettings extends LiveSettings {
  version: number;
}

export type AuctionSettings = LiveSettings["auction"];
export const DEFAULT_AUCTION: AuctionSettings = { maxShared: 4, bidLifetimeMs: 60_000 };

export type ChangeKind = "buyer" | "source" | "auction" | "experiment";
/** start, stop and stop_all (the console's kill switch) are an experiment's status changes. */
export type ChangeAction = "create" | "update" | "pause" | "resume" | "archive" | "rotate_secret" | "rotate_credential" | "import" | "start" | "stop" | "stop_all";

/** One row of a buyer's (or source's) history, as the console shows it. */
export interface SettingsChange {
  id: number;
  kind: ChangeKind;
  key: string;
  action: ChangeAction;
  actor: string;
  at: Date;
  /** The entry before and after, secrets replaced by their fingerprints; null when there was none. */
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

/** Who made a change: "console:<user>", "cli" or "startup". */
export type Actor = string;

/** Thrown when the entry changed since the editor read it (its revision moved on): nothing is saved. */
export class StaleRevisionError extends Error {
  constructor(readonly kind: ChangeKind, readonly key: string, readonly current: number) {
    super(`${kind} ${key} was changed by someone else (now revision ${current})`);
    this.name = "StaleRevisionError";
  }
}

/** Thrown for an id or sid that exists already (create) or does not (update), or a buyer name another buyer has; `field` names which. */
export class SettingsKeyError extends Error {
  constructor(message: string, readonly field: "id" | "sid" | "name" = "id") {
    super(message);
    this.name = "SettingsKeyError";
  }
}

/** A secret the server makes: 32 random bytes, base64url (43 characters). */
export function generateSecret(): string {
  return randomBytes(32).toString("base64url");
}

/** How a secret appears in history and to analysts: never itself, a short fingerprint ops can compare. */
export function secretFingerprint(secret: string): string {
  return `sha256:${createHash("sha256").update(secret, "utf8").digest("hex").slice(0, 12)}`;
}

const SECRET_KEYS = ["secret", "previousSecret"] as const;

/** A buyer's credentials (the values its spec's authentication names) as fingerprints, by name. */
export function credentialFingerprints(credentials: Readonly<Record<string, string>> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(credentials ?? {}).map(([name, value]) => [name, secretFingerprint(value)]));
}

/** The entry with its secrets and credentials as fingerprints: what history keeps and analysts see. */
export function maskSecrets<T extends object>(entry: T): T {
  const masked: Record<string, unknown> = { ...(entry as Record<string, unknown>) };
  for (const key of SECRET_KEYS) if (typeof masked[key] === "string") masked[key] = secretFingerprint(masked[key]);
  const credentials = masked.credentials;
  if (credentials !== null && typeof credentials === "object" && !Array.isArray(credentials)) {
    masked.credentials = Object.fromEntries(Object.entries(credentials as Record<string, unknown>).map(([name, value]) => [name, typeof value === "string" ? secretFingerprint(value) : "(not text)"]));
  }
  return masked as T;
}

/** The parts of a buyer only the store sets: its secrets (createBuyer, rotateBuyerSecret) and credentials (setBuyerCredential, an import). */
export type BuyerSecretKey = "secret" | "previousSecret" | "previousSecretUntil" | "credentials";
/** A buyer as the console saves it: everything but what only the store sets. */
export type BuyerInput = Omit<Buyer, BuyerSecretKey>;

/** The stored JSON of an entry: its checked fields without the status (a column of its own). */
const configOf = <T extends { status: string }>(entry: T): Omit<T, "status"> => {
  const { status: _status, ...config } = entry;
  return config;
};

type Tx = Transaction<Tables>;

async function recordChange(tx: Tx, change: { kind: ChangeKind; key: string; action: ChangeAction; actor: Actor; before: object | null; after: object | null }): Promise<void> {
  await tx
    .insertInto("settingsChanges")
    .values({
      kind: change.kind,
      key: change.key,
      action: change.action,
      actor: change.actor,
      before: change.before === null ? null : JSON.stringify(maskSecrets(change.before)),
      after: change.after === null ? null : JSON.stringify(maskSecrets(change.after)),
    })
    .execute();
}

/** jsonb comes back parsed from both drivers; a string (older pg settings) is parsed here. */
const parsedJson = (value: unknown): unknown => (typeof value === "string" ? JSON.parse(value) : value);

/** The settings' version: the last change's id (0 before any). */
export async function settingsVersion(db: Builder): Promise<number> {
  const row = await db.selectFrom("settingsChanges").select(sql<string | number>`coalesce(max(id), 0)`.as("version")).executeTakeFirstOrThrow();
  return Number(row.version);
}

/**
 * Every buyer and source (archived ones too: their deliveries in flight and returns still need
 * them) and the auction's rules, read in one transaction with the version they make up. An entry
 * the schema no longer accepts (written by a newer release) is left out and named in `invalid`.
 */
export async function loadSettings(db: Builder): Promise<BusinessSettings & { invalid: string[] }> {
  return db.transaction().execute(async (tx) => {
    const version = await settingsVersion(tx);
    const [buyerRows, sourceRows, auctionRow, experimentRows] = await Promise.all([
      tx.selectFrom("buyers").select(["id", "status", "config"]).orderBy("position").execute(),
      tx.selectFrom("trafficSources").select(["sid", "status", "config"]).orderBy("position").execute(),
      tx.selectFrom("businessSettings").select("value").where("key", "=", "auction").executeTakeFirst(),
      experimentRowsQuery(tx).execute(),
    ]);
    const invalid: string[] = [];
    const buyers: Buyer[] = [];
    for (const row of buyerRows) {
      const parsed = buyerSchema.safeParse({ ...(parsedJson(row.config) as object), status: row.status });
      if (parsed.success) buyers.push(parsed.data);
      else invalid.push(`buyer ${row.id}`);
    }
    const sources: Source[] = [];
    for (const row of sourceRows) {
      const parsed = sourceSchema.safeParse({ ...(parsedJson(row.config) as object), status: row.status });
      if (parsed.success) sources.push(parsed.data);
      else invalid.push(`source ${row.sid}`);
    }
    const auction = auctionRow ? { ...DEFAULT_AUCTION, ...(parsedJson(auctionRow.value) as Partial<AuctionSettings>) } : DEFAULT_AUCTION;
    const experiments: Experiment[] = [];
    for (const row of experimentRows) {
      const parsed = experimentSchema.safeParse(parsedJson(row.value));
      if (parsed.success) experiments.push(parsed.data);
      else invalid.push(`experiment ${row.key.slice(EXPERIMENT_KEY_PREFIX.length)}`);
    }
    return { version, buyers, sources, auction, experiments, invalid };
  });
}

/** Whether nothing was ever configured (no buyer, no source): the start-up import's condition. */
export async function settingsEmpty(db: Builder): Promise<boolean> {
  const [buyer, source] = await Promise.all([
    db.selectFrom("buyers").select("id").limit(1).executeTakeFirst(),
    db.selectFrom("trafficSources").select("sid").limit(1).executeTakeFirst(),
  ]);
  return buyer === undefined && source === undefined;
}

interface Stored<T> {
  entry: T;
  revision: number;
}

async function storedBuyer(tx: Tx | Builder, id: string, lock = false): Promise<Stored<Buyer> | undefined> {
  let query = tx.selectFrom("buyers").select(["status", "config", "revision"]).where("id", "=", id);
  if (lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row ? { entry: buyerSchema.parse({ ...(parsedJson(row.config) as object), status: row.status }), revision: row.revision } : undefined;
}

async function storedSource(tx: Tx | Builder, sid: string, lock = false): Promise<Stored<Source> | undefined> {
  let query = tx.selectFrom("trafficSources").select(["status", "config", "revision"]).where("sid", "=", sid);
  if (lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row ? { entry: sourceSchema.parse({ ...(parsedJson(row.config) as object), status: row.status }), revision: row.revision } : undefined;
}

/** One buyer with its revision (for an edit form's optimistic check), or undefined. */
export async function getBuyer(db: Builder, id: string): Promise<Stored<Buyer> | undefined> {
  return storedBuyer(db, id);
}

/** One source with its revision, or undefined. */
export async function getSource(db: Builder, sid: string): Promise<Stored<Source> | undefined> {
  return storedSource(db, sid);
}

const sameEntry = (a: object, b: object) => JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .filter(([, entry]) => entry !== undefined)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, entry]) => [key, sortKeys(entry)]),
  );
}

async function writeBuyer(tx: Tx, buyer: Buyer, actor: Actor, action: ChangeAction, before: Stored<Buyer> | undefined): Promise<number> {
  const config = JSON.stringify(configOf(buyer));
  if (before === undefined) {
    await tx.insertInto("buyers").values({ id: buyer.id, status: buyer.status, config, updatedBy: actor }).execute();
  } else {
    await tx
      .updateTable("buyers")
      .set({ status: buyer.status, config, revision: before.revision + 1, updatedAt: new Date(), updatedBy: actor })
      .where("id", "=", buyer.id)
      .execute();
  }
  await recordChange(tx, { kind: "buyer", key: buyer.id, action, actor, before: before?.entry ?? null, after: buyer });
  return (before?.revision ?? 0) + 1;
}

async function writeSource(tx: Tx, source: Source, actor: Actor, action: ChangeAction, before: Stored<Source> | undefined): Promise<number> {
  const config = JSON.stringify(configOf(source));
  if (before === undefined) {
    await tx.insertInto("trafficSources").values({ sid: source.sid, status: source.status, config, updatedBy: actor }).execute();
  } else {
    await tx
      .updateTable("trafficSources")
      .set({ status: source.status, config, revision: before.revision + 1, updatedAt: new Date(), updatedBy: actor })
      .where("sid", "=", source.sid)
      .execute();
  }
  await recordChange(tx, { kind: "source", key: source.sid, action, actor, before: before?.entry ?? null, after: source });
  return (before?.revision ?? 0) + 1;
}

/** The names a new or renamed buyer may not take: another buyer's (the consent disclosure names buyers by name). */
async function assertNameFree(tx: Tx, buyer: Buyer): Promise<void> {
  const rows = await tx.selectFrom("buyers").select(["id", "config"]).where("id", "<>", buyer.id).execute();
  const clash = rows.find((row) => (parsedJson(row.config) as { name?: string }).name?.toLowerCase() === buyer.name.toLowerCase());
  if (clash) throw new SettingsKeyError(`buyer ${clash.id} is already named ${buyer.name}`, "name");
}

/**
 * A new buyer (its secret made here, returned once) from the console's checked form. Throws
 * SettingsKeyError when the id or name is taken.
 */
export async function createBuyer(db: Builder, input: BuyerInput, actor: Actor): Promise<{ buyer: Buyer; secret: string }> {
  const secret = generateSecret();
  const buyer = buyerSchema.parse({ ...input, secret });
  await db.transaction().execute(async (tx) => {
    if (await storedBuyer(tx, buyer.id, true)) throw new SettingsKeyError(`a buyer with id ${buyer.id} exists already`);
    await assertNameFree(tx, buyer);
    await writeBuyer(tx, buyer, actor, "create", undefined);
  });
  return { buyer, secret };
}

/**
 * Saves an edited buyer (its secrets and credentials are kept: only rotateBuyerSecret and
 * setBuyerCredential change them) if its revision is still `revision`; else StaleRevisionError.
 * The input is the whole buyer, its spec included: a form that does not edit the spec passes the
 * stored one (the revision check makes sure it is still the stored one). Returns the new revision
 * (the same when nothing changed: no history row is written for a form saved unchanged).
 */
export async function updateBuyer(db: Builder, input: BuyerInput, revision: number, actor: Actor): Promise<number> {
  return db.transaction().execute(async (tx) => {
    const before = await storedBuyer(tx, input.id, true);
    if (!before) throw new SettingsKeyError(`there is no buyer ${input.id}`);
    if (before.revision !== revision) throw new StaleRevisionError("buyer", input.id, before.revision);
    const { secret, previousSecret, previousSecretUntil, credentials } = before.entry;
    const { credentials: _ignored, ...edited } = input as BuyerInput & { credentials?: unknown };
    const buyer = buyerSchema.parse({ ...edited, secret, ...(previousSecret ? { previousSecret, previousSecretUntil } : {}), ...(credentials ? { credentials } : {}) });
    if (sameEntry(buyer, before.entry)) return before.revision;
    if (buyer.name !== before.entry.name) await assertNameFree(tx, buyer);
    return writeBuyer(tx, buyer, actor, "update", before);
  });
}

const STATUS_ACTION: Record<BuyerStatus, ChangeAction> = { active: "resume", paused: "pause", archived: "archive" };

/** Pauses, resumes or archives a buyer (an archived one may be made active again). Returns the new revision. */
export async function setBuyerStatus(db: Builder, id: string, status: BuyerStatus, actor: Actor): Promise<number> {
  return db.transaction().execute(async (tx) => {
    const before = await storedBuyer(tx, id, true);
    if (!before) throw new SettingsKeyError(`there is no buyer ${id}`);
    if (before.entry.status === status) return before.revision;
    return writeBuyer(tx, { ...before.entry, status }, actor, STATUS_ACTION[status], before);
  });
}

/**
 * A new secret for the buyer, made here and returned once. The old one keeps signing (a second
 * v1) and verifying for `overlapHours` (0: it stops at once), so the buyer switches without losing
 * a lead. A secret still overlapping from an earlier rotation is dropped. With `revision`, only
 * if the buyer is still at it (StaleRevisionError otherwise): a rotation posted twice (two
 * clicks, a reload) must not replace the secret just handed over.
 */
export async function rotateBuyerSecret(db: Builder, id: string, overlapHours: number, actor: Actor, now: Date = new Date(), revision?: number): Promise<{ secret: string; overlapUntil: Date | null }> {
  const secret = generateSecret();
  const overlapUntil = overlapHours > 0 ? new Date(now.getTime() + overlapHours * 3_600_000) : null;
  await db.transaction().execute(async (tx) => {
    const before = await storedBuyer(tx, id, true);
    if (!before) throw new SettingsKeyError(`there is no buyer ${id}`);
    if (revision !== undefined && before.revision !== revision) throw new StaleRevisionError("buyer", id, before.revision);
    const { previousSecret: _previous, previousSecretUntil: _until, ...rest } = before.entry;
    const buyer: Buyer = { ...rest, secret, ...(overlapUntil ? { previousSecret: before.entry.secret, previousSecretUntil: overlapUntil.toISOString() } : {}) };
    await writeBuyer(tx, buyer, actor, "rotate_secret", before);
  });
  return { secret, overlapUntil };
}

/** A credential's name, as buyerSchema's credentials take it. */
export const CREDENTIAL_NAME = /^[A-Za-z0-9_.-]{1,40}$/;

/**
 * Sets or replaces one of the buyer's credentials (the value its spec's authentication names: an
 * API key, a token, a password), from the console. History keeps the fingerprints only (action
 * rotate_credential). Returns whether it replaced a value and the new revision (the same when the
 * value was already this one: nothing is written).
 */
export async function setBuyerCredential(db: Builder, id: string, name: string, value: string, actor: Actor): Promise<{ replaced: boolean; revision: number }> {
  return db.transaction().execute(async (tx) => {
    const before = await storedBuyer(tx, id, true);
    if (!before) throw new SettingsKeyError(`there is no buyer ${id}`);
    const stored = before.entry.credentials ?? {};
    const replaced = Object.hasOwn(stored, name);
    if (stored[name] === value) return { replaced, revision: before.revision };
    const buyer = buyerSchema.parse({ ...before.entry, credentials: { ...stored, [name]: value } });
    return { replaced, revision: await writeBuyer(tx, buyer, actor, "rotate_credential", before) };
  });
}

/** A buyer's spec by stage, as the console saves it (absent: our signed JSON, format quoteridge). */
export type BuyerSpec = NonNullable<Buyer["spec"]>;

/**
 * Saves a buyer's posting spec (post and, for a ping/post buyer, ping) if its revision is still
 * `revision` (StaleRevisionError otherwise), keeping every other setting, its secrets and its
 * credentials. buyerSchema checks it again here (a spec naming a credential the buyer lacks is a
 * ZodError). Returns the new revision (the same when nothing changed).
 */
export async function updateBuyerSpec(db: Builder, id: string, spec: BuyerSpec | undefined, revision: number, actor: Actor): Promise<number> {
  return db.transaction().execute(async (tx) => {
    const before = await storedBuyer(tx, id, true);
    if (!before) throw new SettingsKeyError(`there is no buyer ${id}`);
    if (before.revision !== revision) throw new StaleRevisionError("buyer", id, before.revision);
    const { spec: _old, ...rest } = before.entry;
    const empty = spec === undefined || (spec.post === undefined && spec.ping === undefined);
    const buyer = buyerSchema.parse({ ...rest, ...(empty ? {} : { spec }) });
    if (sameEntry(buyer, before.entry)) return before.revision;
    return writeBuyer(tx, buyer, actor, "update", before);
  });
}

/** A new traffic source; SettingsKeyError when its sid is taken. */
export async function createSource(db: Builder, input: Source, actor: Actor): Promise<void> {
  const source = sourceSchema.parse(input);
  await db.transaction().execute(async (tx) => {
    if (await storedSource(tx, source.sid, true)) throw new SettingsKeyError(`a source with sid ${source.sid} exists already`, "sid");
    await writeSource(tx, source, actor, "create", undefined);
  });
}

/** Saves an edited source if its revision is still `revision` (StaleRevisionError otherwise); returns the new revision. */
export async function updateSource(db: Builder, input: Source, revision: number, actor: Actor): Promise<number> {
  return db.transaction().execute(async (tx) => {
    const before = await storedSource(tx, input.sid, true);
    if (!before) throw new SettingsKeyError(`there is no source ${input.sid}`, "sid");
    if (before.revision !== revision) throw new StaleRevisionError("source", input.sid, before.revision);
    const source = sourceSchema.parse(input);
    if (sameEntry(source, before.entry)) return before.revision;
    const action: ChangeAction = source.status !== before.entry.status ? (source.status === "archived" ? "archive" : "resume") : "update";
    return writeSource(tx, source, actor, action, before);
  });
}

/** Archives (or restores) a source. */
export async function setSourceStatus(db: Builder, sid: string, status: SourceStatus, actor: Actor): Promise<number> {
  return db.transaction().execute(async (tx) => {
    const before = await storedSource(tx, sid, true);
    if (!before) throw new SettingsKeyError(`there is no source ${sid}`, "sid");
    if (before.entry.status === status) return before.revision;
    return writeSource(tx, { ...before.entry, status }, actor, status === "archived" ? "archive" : "resume", before);
  });
}

async function writeAuction(tx: Tx, auction: AuctionSettings, actor: Actor, action: ChangeAction): Promise<boolean> {
  const row = await tx.selectFrom("businessSettings").select(["value", "revision"]).where("key", "=", "auction").forUpdate().executeTakeFirst();
  const before = row ? { ...DEFAULT_AUCTION, ...(parsedJson(row.value) as object) } : null;
  if (before && sameEntry(before, auction)) return false;
  if (!row && sameEntry(DEFAULT_AUCTION, auction)) return false;
  const value = JSON.stringify(auction);
  if (row) await tx.updateTable("businessSettings").set({ value, revision: row.revision + 1, updatedAt: new Date(), updatedBy: actor }).where("key", "=", "auction").execute();
  else await tx.insertInto("businessSettings").values({ key: "auction", value, updatedBy: actor }).execute();
  await recordChange(tx, { kind: "auction", key: "auction", action, actor, before: before ?? DEFAULT_AUCTION, after: auction });
  return true;
}

/** What an import did, entry by entry. */
export interface ImportReport {
  created: string[];
  updated: string[];
  unchanged: string[];
  /** Buyers given no secret in the file and new here: the secret made for each, to hand over once. */
  generatedSecrets: Record<string, string>;
}

export class ImportFileError extends Error {
  constructor(readonly problems: string[]) {
    super(`the file is not a valid buyers file:\n${problems.map((line) => `  - ${line}`).join("\n")}`);
    this.name = "ImportFileError";
  }
}

/**
 * Imports a buyers file (BUYERS_FILE's format; `exportSettings`' output): every buyer and source
 * in it is created or, when different, updated; those equal to what is stored are left alone
 * (importing the same file twice changes nothing the second time). Entries stored but not in the
 * file are kept. A buyer without a `secret` keeps its stored one, or is given a new one (reported
 * once); one without `credentials` (or one of them) keeps the stored values. All or nothing, in
 * one transaction; ImportFileError names every problem.
 */
export async function importSettings(db: Builder, raw: unknown, actor: Actor, options: { dryRun?: boolean; outbound?: OutboundPolicy } = {}): Promise<ImportReport> {
  try {
    return await importInTransaction(db, raw, actor, options);
  } catch (error) {
    if (error instanceof DryRunDone) return error.report;
    throw error;
  }
}

/** Rolls a dry run's transaction back, carrying what it would have done. */
class DryRunDone extends Error {
  constructor(readonly report: ImportReport) {
    super("dry run");
  }
}

async function importInTransaction(db: Builder, raw: unknown, actor: Actor, options: { dryRun?: boolean; outbound?: OutboundPolicy }): Promise<ImportReport> {
  return db.transaction().execute(async (tx) => {
    const report: ImportReport = { created: [], updated: [], unchanged: [], generatedSecrets: {} };
    const withSecrets = await fillSecrets(tx, raw, report.generatedSecrets);
    const parsed = buyersFileSchema.safeParse(withSecrets);
    if (!parsed.success) throw new ImportFileError(parsed.error.issues.map((issue) => `${issue.path.join(".") || "(file)"}: ${issue.message}`));
    const file = parsed.data;
    const refused = options.outbound ? fileAddressProblems(file, options.outbound) : [];
    if (refused.length > 0) throw new ImportFileError(refused);
    for (const buyer of file.buyers) {
      const before = await storedBuyer(tx, buyer.id, true);
      const name = `buyer ${buyer.id}`;
      if (before && sameEntry(before.entry, buyer)) report.unchanged.push(name);
      else {
        await assertNameFree(tx, buyer);
        await writeBuyer(tx, buyer, actor, "import", before);
        (before ? report.updated : report.created).push(name);
      }
    }
    for (const source of file.sources) {
      const before = await storedSource(tx, source.sid, true);
      const name = `source ${source.sid}`;
      if (before && sameEntry(before.entry, source)) report.unchanged.push(name);
      else {
        await writeSource(tx, source, actor, "import", before);
        (before ? report.updated : report.created).push(name);
      }
    }
    if (isObject(raw) && raw.auction !== undefined) {
      if (await writeAuction(tx, file.auction, actor, "import")) report.updated.push("auction");
      else report.unchanged.push("auction");
    }
    // Only a file that lists experiments touches them (an older buyers file has none to say).
    if (isObject(raw) && raw.experiments !== undefined) await importExperiments(tx, file.experiments, actor, report);
    if (options.dryRun) throw new DryRunDone(report);
    return report;
  });
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * What a file leaves out that the store keeps: a buyer without `secret` keeps its stored one (or
 * gets a new one, reported once); a buyer without `credentials`, or without one of them, keeps the
 * stored values (an export without --with-secrets leaves them out, and imports back unchanged). A
 * credential is replaced only by giving its value.
 */
async function fillSecrets(tx: Tx, raw: unknown, generated: Record<string, string>): Promise<unknown> {
  if (!isObject(raw) || !Array.isArray(raw.buyers)) return raw;
  const buyers = await Promise.all(
    raw.buyers.map(async (entry: unknown) => {
      if (!isObject(entry) || typeof entry.id !== "string") return entry;
      const stored = await tx.selectFrom("buyers").select("config").where("id", "=", entry.id).executeTakeFirst();
      const config = stored ? (parsedJson(stored.config) as Partial<Buyer>) : undefined;
      let filled: Record<string, unknown> = entry;
      const storedCredentials = config?.credentials;
      if (storedCredentials && Object.keys(storedCredentials).length > 0 && (entry.credentials === undefined || isObject(entry.credentials))) {
        filled = { ...filled, credentials: { ...storedCredentials, ...(entry.credentials as Record<string, unknown> | undefined) } };
      }
      if (entry.secret !== undefined) return filled;
      if (config?.secret) return { ...filled, secret: config.secret, ...(config.previousSecret && entry.previousSecret === undefined ? { previousSecret: config.previousSecret, previousSecretUntil: config.previousSecretUntil } : {}) };
      const secret = generateSecret();
      generated[entry.id] = secret;
      return { ...filled, secret };
    }),
  );
  return { ...raw, buyers };
}

/**
 * The settings as a buyers file (what import reads back). Secrets and credentials are left out
 * unless `withSecrets`: an export is safe to paste into a ticket; importing it keeps the stored
 * secrets and credentials. The credentials' names stay visible in each spec's `auth`.
 */
export async function exportSettings(db: Builder, options: { withSecrets: boolean }): Promise<Record<string, unknown>> {
  const settings = await loadSettings(db);
  const strip = (buyer: Buyer) => {
    if (options.withSecrets) return buyer;
    const { secret: _secret, previousSecret: _previous, previousSecretUntil: _until, credentials: _credentials, ...rest } = buyer;
    return rest;
  };
  return { buyers: settings.buyers.map(strip), sources: settings.sources, auction: settings.auction, experiments: settings.experiments };
}

/** A buyer's, source's or experiment's history, newest first (the console's history table). */
export async function settingsHistory(db: Builder, kind: ChangeKind, key: string, limit = 50): Promise<SettingsChange[]> {
  const rows = await db
    .selectFrom("settingsChanges")
    .select(["id", "kind", "key", "action", "actor", "at", "before", "after"])
    .where("kind", "=", kind)
    .where("key", "=", key)
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    id: Number(row.id),
    kind: row.kind,
    key: row.key,
    action: row.action as ChangeAction,
    actor: row.actor,
    at: row.at,
    before: (parsedJson(row.before) as Record<string, unknown> | null) ?? null,
    after: (parsedJson(row.after) as Record<string, unknown> | null) ?? null,
  }));
}

// --- Experiments (issue 45) ----------------------------------------------------------------------
//
// One business_settings row per experiment, keyed `experiment:<id>`: each has its own revision, so
// an edit form's optimistic check is about that experiment alone (a start of another one does not
// make it stale), and its history is kind "experiment", key <id>. The rules that involve the other
// experiments (two not stopped ones changing the same knob for the same traffic) are checked here,
// inside the transaction that writes, under one advisory lock: two ops saving clashing experiments
// at once get one refusal, not two saves.

const EXPERIMENT_KEY_PREFIX = "experiment:";
const experimentKey = (id: string) => `${EXPERIMENT_KEY_PREFIX}${id}`;
/** Serializes the writes of experiments (the clash check reads them all). Distinct from the migration's and the disclosures' locks. */
const EXPERIMENT_LOCK_ID = 7_242_045;

/** The experiments' rows, oldest first: the list's order, and the order of an export. */
const experimentRowsQuery = (tx: Tx | Builder) => tx.selectFrom("businessSettings").select(["key", "value", "revision"]).where("key", "like", `${EXPERIMENT_KEY_PREFIX}%`).orderBy("createdAt").orderBy("key");

/**
 * What may change once an experiment has started (running, or stopped after running): its words and
 * its stop. Its variants, shares, knob values, sources, metric and start define who saw what; a
 * change would mix two experiments in one result, so that is a new experiment.
 */
export const EXPERIMENT_FIELDS_AFTER_START = ["name", "hypothesis", "stopAt"] as const;

/** Ids the console's own addresses take (/experiments/new, /experiments/stop-all): an experiment so named could not be opened. */
export const RESERVED_EXPERIMENT_IDS = ["new", "stop-all"] as const;

/** A problem with an experiment, at its schema path (["variants", 1, "values", "landing.headline"]), for the form to show beside its field. */
export interface ExperimentProblem {
  path: Array<string | number>;
  message: string;
}

/** Thrown when an experiment cannot be saved as it is beside the others (a clash), or changes what is fixed once started: nothing is saved. */
export class ExperimentRefusedError extends Error {
  constructor(
    readonly id: string,
    readonly problems: ExperimentProblem[],
  ) {
    super(`experiment ${id} was not saved: ${problems.map((problem) => problem.message).join("; ")}`);
    this.name = "ExperimentRefusedError";
  }
}

/**
 * Why `next` cannot be stored beside `others` (every other stored experiment): each clash named at
 * the knob field of its first variant that changes the knob (so a form shows it beside that field,
 * issue 45's "with the field named"); and, for one that has started (`before` not a draft), a change
 * to anything but EXPERIMENT_FIELDS_AFTER_START, or a return to draft.
 */
export function experimentProblems(next: Experiment, before: Experiment | undefined, others: readonly Experiment[]): ExperimentProblem[] {
  const problems: ExperimentProblem[] = [];
  if ((RESERVED_EXPERIMENT_IDS as readonly string[]).includes(next.id)) problems.push({ path: ["id"], message: `${next.id} is the address of a console page (/experiments/${next.id}): choose another id` });
  for (const knob of knobsOf(next)) {
    // The experiment reduced to this knob, so each message belongs to one field.
    const onlyThis: Experiment = { ...next, variants: next.variants.map((variant) => ({ ...variant, values: Object.hasOwn(variant.values, knob) ? { [knob]: variant.values[knob] } : {} })) };
    const index = next.variants.findIndex((variant) => Object.hasOwn(variant.values, knob));
    for (const message of clashes(onlyThis, others)) problems.push({ path: ["variants", index, "values", knob], message });
  }
  if (before && before.status !== "draft") {
    if (next.status === "draft") problems.push({ path: ["status"], message: "an experiment that has started cannot go back to draft" });
    const fixed = Object.keys({ ...before, ...next }).filter((key) => key !== "status" && !(EXPERIMENT_FIELDS_AFTER_START as readonly string[]).includes(key));
    for (const key of fixed) {
      const was = (before as Record<string, unknown>)[key];
      const now = (next as Record<string, unknown>)[key];
      if (!sameEntry({ value: was }, { value: now })) problems.push({ path: [key], message: "fixed once the experiment has started (a change would mix two experiments in one result): create a new experiment instead" });
    }
  }
  return problems;
}

async function lockExperiments(tx: Tx): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(${EXPERIMENT_LOCK_ID})`.execute(tx);
}

async function storedExperiment(tx: Tx | Builder, id: string, lock = false): Promise<Stored<Experiment> | undefined> {
  let query = tx.selectFrom("businessSettings").select(["value", "revision"]).where("key", "=", experimentKey(id));
  if (lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row ? { entry: experimentSchema.parse(parsedJson(row.value)), revision: row.revision } : undefined;
}

/** Every stored experiment this release can read (one it cannot is left out, as loadSettings does). */
async function storedExperiments(tx: Tx): Promise<Experiment[]> {
  const rows = await experimentRowsQuery(tx).execute();
  return rows.flatMap((row) => {
    const parsed = experimentSchema.safeParse(parsedJson(row.value));
    return parsed.success ? [parsed.data] : [];
  });
}

async function writeExperiment(tx: Tx, experiment: Experiment, actor: Actor, action: ChangeAction, before: Stored<Experiment> | undefined): Promise<number> {
  const value = JSON.stringify(experiment);
  const key = experimentKey(experiment.id);
  if (before === undefined) await tx.insertInto("businessSettings").values({ key, value, updatedBy: actor }).execute();
  else await tx.updateTable("businessSettings").set({ value, revision: before.revision + 1, updatedAt: new Date(), updatedBy: actor }).where("key", "=", key).execute();
  await recordChange(tx, { kind: "experiment", key: experiment.id, action, actor, before: before?.entry ?? null, after: experiment });
  return (before?.revision ?? 0) + 1;
}

/** Checks `next` against the others stored now (under the lock) and writes it; ExperimentRefusedError names every problem. */
async function saveExperiment(tx: Tx, next: Experiment, actor: Actor, action: ChangeAction, before: Stored<Experiment> | undefined): Promise<number> {
  const others = (await storedExperiments(tx)).filter((other) => other.id !== next.id);
  const problems = experimentProblems(next, before?.entry, others);
  if (problems.length > 0) throw new ExperimentRefusedError(next.id, problems);
  return writeExperiment(tx, next, actor, action, before);
}

/** One experiment with its revision (for an edit form's optimistic check), or undefined. */
export async function getExperiment(db: Builder, id: string): Promise<Stored<Experiment> | undefined> {
  return storedExperiment(db, id);
}

/**
 * A new experiment (the console makes drafts; an import may bring any status). Throws a ZodError
 * for an experiment the schema refuses, SettingsKeyError when the id is taken,
 * ExperimentRefusedError when it clashes with another.
 */
export async function createExperiment(db: Builder, input: Experiment, actor: Actor): Promise<Experiment> {
  const experiment = experimentSchema.parse(input);
  await db.transaction().execute(async (tx) => {
    await lockExperiments(tx);
    if (await storedExperiment(tx, experiment.id, true)) throw new SettingsKeyError(`an experiment with id ${experiment.id} exists already`);
    await saveExperiment(tx, experiment, actor, "create", undefined);
  });
  return experiment;
}

/**
 * Saves an edited experiment if its revision is still `revision` (StaleRevisionError otherwise),
 * keeping its stored status (the form has none: start and stop are their own actions). Returns the
 * new revision (the same when nothing changed: no history row).
 */
export async function updateExperiment(db: Builder, input: Omit<Experiment, "status">, revision: number, actor: Actor): Promise<number> {
  return db.transaction().execute(async (tx) => {
    await lockExperiments(tx);
    const before = await storedExperiment(tx, input.id, true);
    if (!before) throw new SettingsKeyError(`there is no experiment ${input.id}`);
    if (before.revision !== revision) throw new StaleRevisionError("experiment", input.id, before.revision);
    const experiment = experimentSchema.parse({ ...input, status: before.entry.status });
    if (sameEntry(experiment, before.entry)) return before.revision;
    return saveExperiment(tx, experiment, actor, "update", before);
  });
}

/**
 * Starts (running: visitors are assigned between its start and stop) or stops (everyone sees the
 * control, on every replica at its next settings poll) an experiment. A start is checked like a
 * save (a stopped experiment started again may clash with one made since) and refused when its stop
 * time has passed. Returns the new revision (the same when it already had that status).
 */
export async function setExperimentStatus(db: Builder, id: string, status: "running" | "stopped", actor: Actor, now: Date = new Date()): Promise<number> {
  return db.transaction().execute(async (tx) => {
    await lockExperiments(tx);
    const before = await storedExperiment(tx, id, true);
    if (!before) throw new SettingsKeyError(`there is no experiment ${id}`);
    if (before.entry.status === status) return before.revision;
    const experiment: Experiment = { ...before.entry, status };
    if (status === "running" && experiment.stopAt && Date.parse(experiment.stopAt) <= now.getTime()) {
      throw new ExperimentRefusedError(id, [{ path: ["stopAt"], message: "its stop time has passed: set a later stop (or none) before starting it" }]);
    }
    return saveExperiment(tx, experiment, actor, status === "running" ? "start" : "stop", before);
  });
}

/**
 * The kill switch: every running experiment (scheduled ones too) stopped in one transaction, each
 * with its history row (action stop_all). Returns the ids stopped, in the list's order.
 */
export async function stopAllExperiments(db: Builder, actor: Actor): Promise<string[]> {
  return db.transaction().execute(async (tx) => {
    await lockExperiments(tx);
    const stopped: string[] = [];
    for (const row of await experimentRowsQuery(tx).forUpdate().execute()) {
      const parsed = experimentSchema.safeParse(parsedJson(row.value));
      // One this release cannot read is not shown by it either; a newer release stops it.
      if (!parsed.success || parsed.data.status !== "running") continue;
      await writeExperiment(tx, { ...parsed.data, status: "stopped" }, actor, "stop_all", { entry: parsed.data, revision: row.revision });
      stopped.push(parsed.data.id);
    }
    return stopped;
  });
}

/**
 * A file's experiments: each created or, when different, updated, checked as the console's saves
 * are (the file's own clashes are the schema's; here, against those stored and not in the file, and
 * what is fixed once started). All problems at once, as an ImportFileError.
 */
async function importExperiments(tx: Tx, experiments: readonly Experiment[], actor: Actor, report: ImportReport): Promise<void> {
  await lockExperiments(tx);
  const inFile = new Set(experiments.map((experiment) => experiment.id));
  const storedOnly = (await storedExperiments(tx)).filter((experiment) => !inFile.has(experiment.id));
  const befores = await Promise.all(experiments.map((experiment) => storedExperiment(tx, experiment.id, true)));
  const problems = experiments.flatMap((experiment, index) =>
    experimentProblems(experiment, befores[index]?.entry, [...storedOnly, ...experiments.filter((other) => other.id !== experiment.id)]).map((problem) => `experiments.${index}.${problem.path.join(".")}: ${problem.message}`),
  );
  if (problems.length > 0) throw new ImportFileError(problems);
  for (const [index, experiment] of experiments.entries()) {
    const before = befores[index];
    const name = `experiment ${experiment.id}`;
    if (before && sameEntry(before.entry, experiment)) report.unchanged.push(name);
    else {
      await writeExperiment(tx, experiment, actor, "import", before);
      (before ? report.updated : report.created).push(name);
    }
  }
}
