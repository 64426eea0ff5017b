/**
 * Lead delivery's side of `npm run bench` (issue 10; `npm run bench -- --delivery-only` runs it
 * alone), on PostgreSQL (TEST_DATABASE_URL, or a throwaway cluster), against one buyer played by
 * tools/buyer-stub.ts in this process: it checks every signature and answers 200 after
 * BUYER_DELAY_MS. The production server runs with a BUYERS_FILE naming that buyer alone.
 *
 * (a) Deliveries per second. DRAIN_LEADS leads are stored through the API by a replica whose
 *     worker is held to DELIVERY_CONCURRENCY=1 (so almost all of them wait in the outbox), that
 *     replica is stopped, and a fresh one with the concurrency under test drains the backlog:
 *     the rate is timed at the buyer, from its first 2xx answer to its last. Then the same with
 *     two replicas draining together, as the compose stack runs them.
 * (b) End to end, lead stored → buyer accepted, at a steady PACED_RATE leads/s through the API
 *     (below the delivery rate, so this is the pipeline's latency rather than a queue's): from
 *     SQL, per delivery, `completed_at − created_at` (created in the lead's own transaction;
 *     completed_at is when the accepting attempt started) plus that attempt's `latency_ms`.
 * (c) POST /api/leads at LEAD_CONNECTIONS connections, as bench-leads.ts loads it, against three
 *     replicas: "off" without BUYERS_FILE (as before issue 10); "on" with it, its worker sending
 *     the leads while they arrive (both on one database); and "queued", which schedules each
 *     lead's delivery in the lead's transaction like "on" but whose worker sends nothing (one
 *     slot, held by a buyer that never answers; a database of its own), to split what delivery
 *     costs the API into the outbox write and the sending. Interleaved rounds whose order rotates;
 *     before each round the "on" replica's backlog is drained, so no other round pays for it.
 * Every phase checks that each lead reached the buyer exactly once with a valid signature.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { configSchema } from "../../server/config";
import { startProductionServer, type RunningServer } from "../../tools/production-server";
import { startBuyerStub, type BuyerStub, type BuyerTally } from "../../tools/buyer-stub";
import { leadBody } from "../../tools/lead-session";
import { createTestDatabase, provideAdminUrl, type TestDatabase } from "../../tools/postgres";
import type { LoadResult } from "./bench-autocannon";
import { processCpuMs } from "./bench-cpu";
import { LEAD_CONNECTIONS, openSession, postLeads, type LeadLoadShape } from "./bench-leads";
import { fmt, mean, median, rotate } from "./bench-stats";

export const BUYER_ID = "bench";
const BUYER_SECRET = "bench-only-buyer-secret-of-at-least-32-characters";
/** The "queued" replica's buyer: its requests are left hanging, so that replica's one worker slot stays busy. */
const HELD_BUYER_ID = "held";
const HELD_SECRET = "bench-only-held-secret-of-at-least-32-characters";
const CSRF_SECRET = "bench-only-csrf-secret-of-at-least-32-characters";
export const BUYER_DELAY_MS = 50;
export const DRAIN_LEADS = 3_000;
/** Leads per second for (b): well below what one replica can both take in and send on this machine. */
export const PACED_RATE = 50;
export const PACED_SECONDS = 20;
export const API_ROUNDS = 3;
export const API_SECONDS = 10;
export const API_WARMUP_SECONDS = 2;
const DRAIN_TIMEOUT_MS = 180_000;

/** DELIVERY_CONCURRENCY when the environment leaves it unset (server/config.ts). */
export const DEFAULT_CONCURRENCY: number = configSchema.shape.DELIVERY_CONCURRENCY.parse(undefined);

/** The concurrency a replica started without an explicit one runs with: the environment's, else the default. */
function inheritedConcurrency(): number {
  const fromEnv = Number(process.env.DELIVERY_CONCURRENCY);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : DEFAULT_CONCURRENCY;
}

export interface QueueCounts {
  /** Leads stored (each has one buyer delivery: one buyer, no cap, no duplicates). */
  leads: number;
  /** Buyer deliveries still pending or being sent. */
  open: number;
  accepted: number;
  /** Rejected, failed or returned: none is expected here. */
  other: number;
  total: number;
  /** Tries over all buyer deliveries (1 each when nothing was retried). */
  attempts: number;
}

export interface CpuFigures {
  /** The app process(es) under test, in % of one core (summed over replicas). */
  serverPctOfCore: number | undefined;
  /** PostgreSQL's processes (backends and background workers alive at both samples), in % of one core. */
  databasePctOfCore: number | undefined;
  /** The whole machine's busy time, in % of all its cores. */
  machineBusyPct: number;
  /** Busy time outside the replica, PostgreSQL and this process (other people's work), in % of the machine. */
  othersPctOfMachine: number | undefined;
}

export interface DrainResult {
  /** Replicas draining together (each with its own worker at `concurrency`). */
  replicas: number;
  concurrency: number;
  /** 201 answers while the backlog was stored. */
  submitted: number;
  /** What the replica with concurrency 1 had already sent before it was stopped. */
  sentWhileStoring: number;
  /** The backlog the measured replica found: pending buyer deliveries. */
  backlog: number;
  /** 2xx answers the buyer sent while the backlog drained. */
  accepted: number;
  /** From the buyer's first 2xx answer to its last. */
  seconds: number;
  /** (accepted − 1) ÷ seconds. */
  deliveriesPerSecond: number;
  /** From spawning the draining replica to the buyer's first 2xx (start-up included). */
  firstAcceptanceAfterSpawnMs: number;
  /** Replica CPU per delivery, milliseconds (between the first and the last acceptance). */
  serverCpuMsPerDelivery: number | undefined;
  cpu: CpuFigures;
  queueAfter: QueueCounts;
  badSignatures: number;
  repeats: number;
  /** What went wrong (empty: every stored lead accepted once, one try each, signature valid, nothing open). */
  problems: string[];
}

export interface LatencyFigures {
  /** Accepted buyer deliveries measured. */
  deliveries: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  /** created_at → the accepting attempt's start: time in the outbox. */
  waitP50Ms: number;
  waitP99Ms: number;
  /** The accepting attempt's latency_ms: the buyer's answer, as the worker timed it. */
  sendP50Ms: number;
  sendP99Ms: number;
}

export interface PacedResult {
  ratePerSecond: number;
  seconds: number;
  /** 201 answers. */
  submitted: number;
  latency: LatencyFigures;
  queueAfter: QueueCounts;
  badSignatures: number;
  repeats: number;
  problems: string[];
}

export type ApiMode = "off" | "queued" | "on";

export interface ApiRound {
  round: number;
  delivery: ApiMode;
  seconds: number;
  created: number;
  leadsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Socket errors, timeouts and any status other than 201. */
  errors: number;
  statusCounts: Record<string, number>;
  /** The loaded replica's CPU per stored lead (with its delivery when on), microseconds. */
  serverUsPerLead: number | undefined;
  cpu: CpuFigures;
  /** "on": the buyer's 2xx answers during the round, per second. */
  deliveriesPerSecond: number | undefined;
  /** "on": deliveries still open when the round ended, and how long they took to drain afterwards. */
  backlogAtEnd: number | undefined;
  drainSeconds: number | undefined;
}

export interface ApiSide {
  meanLeadsPerSecond: number;
  leadsPerSecondByRound: number[];
  medianP50Ms: number;
  maxP99Ms: number;
  errors: number;
  medianServerUsPerLead: number | undefined;
}

export interface ApiComparison {
  connections: number;
  rounds: ApiRound[];
  off: ApiSide;
  queued: ApiSide;
  on: ApiSide;
  /** mean on ÷ mean off. */
  ratio: number;
  /** mean queued ÷ mean off: what the outbox write in the lead's transaction costs alone. */
  queuedRatio: number;
  /** Server CPU per lead, off ÷ on: the ratio with a core to itself (contention does not move CPU time much). */
  cpuRatio: number | undefined;
  /** The "on" rounds' leads: stored → accepted while the API is loaded flat out (a queue forms when leads come faster than they are sent). */
  latencyUnderLoad: LatencyFigures;
  queueAfter: QueueCounts;
  /** The buyer's 2xx answers over the whole comparison (warm-up included) = accepted deliveries in SQL. */
  buyerAccepted: number;
  badSignatures: number;
  repeats: number;
  problems: string[];
}

export interface DeliveryBench {
  startedAt: string;
  finishedAt: string;
  store: "postgres";
  buyerDelayMs: number;
  defaultConcurrency: number;
  loadAverageAtStart: number[];
  loadAverageAtEnd: number[];
  drains: DrainResult[];
  paced: PacedResult;
  api: ApiComparison;
}

type Log = (message: string) => void;

const epochMs = () => performance.timeOrigin + performance.now();

// ---- the database, read with plain SQL ----

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

async function queueCounts(client: pg.Client): Promise<QueueCounts> {
  const { rows } = await client.query<QueueCounts>(
    `SELECT (SELECT count(*) FROM leads)::int AS leads,
            count(*) FILTER (WHERE status IN ('pending', 'sending'))::int AS open,
            count(*) FILTER (WHERE status = 'accepted')::int AS accepted,
            count(*) FILTER (WHERE status NOT IN ('pending', 'sending', 'accepted'))::int AS other,
            count(*)::int AS total,
            coalesce(sum(attempts), 0)::int AS attempts
       FROM deliveries WHERE kind = 'buyer'`,
  );
  return rows[0]!;
}

/**
 * Waits until nothing is open and the counts hold still over two reads 250 ms apart: requests
 * autocannon gave up on when its time was up are still being stored then, and delivered after.
 */
async function waitDrained(client: pg.Client): Promise<QueueCounts> {
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  let previous: QueueCounts | undefined;
  for (;;) {
    const counts = await queueCounts(client);
    if (counts.open === 0 && previous && previous.open === 0 && previous.leads === counts.leads && previous.accepted === counts.accepted) return counts;
    if (Date.now() > deadline) throw new Error(`deliveries still open after ${DRAIN_TIMEOUT_MS / 1000} s: ${JSON.stringify(counts)}`);
    previous = counts;
    await sleep(250);
  }
}

/**
 * Exactly once, signed, first time: each of `leads` stored leads has one accepted delivery and
 * no other (none open, refused or retried), at least every 201 answered is among them, and the
 * buyer accepted `buyerAccepted` requests and received no other (no bad signature, no repeat).
 */
function deliveryProblems(queue: QueueCounts, tally: BuyerTally, expected: { leads: number; answered: number; buyerAccepted: number }): string[] {
  const problems: string[] = [];
  if (queue.open > 0) problems.push(`${queue.open} deliveries still open`);
  if (queue.other > 0) problems.push(`${queue.other} deliveries rejected, failed or returned`);
  if (queue.accepted !== expected.leads) problems.push(`${queue.accepted} accepted deliveries for ${expected.leads} leads`);
  if (queue.accepted < expected.answered) problems.push(`${expected.answered} leads answered 201, ${queue.accepted} accepted deliveries`);
  if (queue.attempts !== queue.total) problems.push(`${queue.attempts} tries for ${queue.total} deliveries`);
  if (tally.accepted !== expected.buyerAccepted) problems.push(`the buyer accepted ${tally.accepted} requests, ${expected.buyerAccepted} expected`);
  if (tally.received !== tally.accepted) problems.push(`the buyer received ${tally.received} requests and accepted ${tally.accepted}`);
  if (tally.badSignatures > 0) problems.push(`${tally.badSignatures} bad signatures`);
  if (tally.repeats > 0) problems.push(`${tally.repeats} repeated Idempotency-Keys`);
  return problems;
}

/** Stored → accepted for the accepted buyer deliveries of the leads whose tid starts with `tidPrefix`. */
async function latencyOf(client: pg.Client, tidPrefix: string): Promise<LatencyFigures> {
  const { rows } = await client.query<Record<keyof LatencyFigures, string | number | null>>(
    `SELECT count(*)::int AS deliveries,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY e2e) AS "p50Ms",
            percentile_cont(0.9) WITHIN GROUP (ORDER BY e2e) AS "p90Ms",
            percentile_cont(0.99) WITHIN GROUP (ORDER BY e2e) AS "p99Ms",
            max(e2e) AS "maxMs",
            percentile_cont(0.5) WITHIN GROUP (ORDER BY wait) AS "waitP50Ms",
            percentile_cont(0.99) WITHIN GROUP (ORDER BY wait) AS "waitP99Ms",
            percentile_cont(0.5) WITHIN GROUP (ORDER BY send) AS "sendP50Ms",
            percentile_cont(0.99) WITHIN GROUP (ORDER BY send) AS "sendP99Ms"
       FROM (SELECT extract(epoch FROM d.completed_at - d.created_at) * 1000 AS wait,
                    a.latency_ms AS send,
                    extract(epoch FROM d.completed_at - d.created_at) * 1000 + a.latency_ms AS e2e
               FROM deliveries d
               JOIN leads l ON l.id = d.lead_id
               JOIN LATERAL (SELECT latency_ms FROM delivery_attempts
                              WHERE delivery_id = d.id ORDER BY attempted_at DESC, id DESC LIMIT 1) a ON true
              WHERE d.kind = 'buyer' AND d.status = 'accepted' AND l.tid LIKE $1) t`,
    [`${tidPrefix}%`],
  );
  const row = rows[0]!;
  return Object.fromEntries(Object.entries(row).map(([key, value]) => [key, value === null ? Number.NaN : Number(value)])) as unknown as LatencyFigures;
}

/** PostgreSQL's processes (every row of pg_stat_activity but this session). */
async function databasePids(client: pg.Client): Promise<number[]> {
  const { rows } = await client.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE pid <> pg_backend_pid()");
  return rows.map((row) => row.pid);
}

// ---- CPU between two moments ----

function machineBusyMs(): number {
  return os.cpus().reduce((sum, cpu) => sum + cpu.times.user + cpu.times.nice + cpu.times.sys + cpu.times.irq, 0);
}

interface CpuMark {
  at: number;
  busy: number;
  self: number;
  server: number | undefined;
  database: Map<number, number | undefined>;
}

/** `servers`: the app process(es) under test, summed. */
function markCpu(servers: RunningServer | RunningServer[], dbPids: number[]): CpuMark {
  const usage = process.cpuUsage();
  const each = (Array.isArray(servers) ? servers : [servers]).map((server) => processCpuMs(server.child.pid));
  return {
    at: performance.now(),
    busy: machineBusyMs(),
    self: (usage.user + usage.system) / 1000,
    server: each.every((value) => value !== undefined) ? each.reduce((sum: number, value) => sum + value!, 0) : undefined,
    database: new Map(dbPids.map((pid) => [pid, processCpuMs(pid)])),
  };
}

function cpuBetween(before: CpuMark, after: CpuMark): CpuFigures & { serverMs: number | undefined } {
  const wall = after.at - before.at;
  const serverMs = before.server !== undefined && after.server !== undefined ? after.server - before.server : undefined;
  let databaseMs: number | undefined = 0;
  for (const [pid, start] of before.database) {
    const end = after.database.get(pid);
    // A process gone by the second sample: its share is unknown, not zero.
    if (start === undefined || end === undefined) continue;
    databaseMs += end - start;
  }
  if (process.platform !== "linux") databaseMs = undefined;
  const busy = after.busy - before.busy;
  const ours = serverMs !== undefined && databaseMs !== undefined ? serverMs + databaseMs + (after.self - before.self) : undefined;
  const capacity = wall * os.cpus().length;
  return {
    serverMs,
    serverPctOfCore: serverMs === undefined ? undefined : (100 * serverMs) / wall,
    databasePctOfCore: databaseMs === undefined ? undefined : (100 * databaseMs) / wall,
    machineBusyPct: (100 * busy) / capacity,
    othersPctOfMachine: ours === undefined ? undefined : (100 * Math.max(0, busy - ours)) / capacity,
  };
}

// ---- the API under load ----

/** POST /api/leads, each request a new visitor whose tid is `${tag}-<n>` (so SQL can find its deliveries). */
const postTaggedLeads = (server: RunningServer, shape: LeadLoadShape, tag: string, counter: { n: number }): Promise<LoadResult> =>
  postLeads(server, shape, () => `${tag}-${(counter.n += 1)}`);

/**
 * POSTs a lead every 1000/rate ms for `seconds`, each its own request as visitors arrive one by
 * one (autocannon's rate limit sends each second's share in a burst, which measures queueing, not
 * delivery). Answers are counted by status, as autocannon counts them.
 */
async function steadyLeads(server: RunningServer, rate: number, seconds: number, tag: string, counter: { n: number }): Promise<Pick<LoadResult, "duration" | "statusCodeStats">> {
  const session = await openSession(server.origin);
  const statusCodeStats: LoadResult["statusCodeStats"] = {};
  const count = (status: string) => (statusCodeStats[status] = { count: (statusCodeStats[status]?.count ?? 0) + 1 });
  const started = performance.now();
  const sends: Promise<unknown>[] = [];
  for (let sent = 0; sent < rate * seconds; sent += 1) {
    const wait = started + (sent * 1000) / rate - performance.now();
    if (wait > 0) await sleep(wait);
    counter.n += 1;
    const body = JSON.stringify(leadBody(session, { sid: "bench", tid: `${tag}-${counter.n}` }));
    sends.push(
      fetch(`${server.origin}/api/leads`, { method: "POST", headers: { "content-type": "application/json", "x-csrf-token": session.csrfToken, cookie: session.cookie }, body, signal: AbortSignal.timeout(10_000) }).then(
        async (response) => {
          await response.arrayBuffer();
          count(String(response.status));
        },
        () => count("error"),
      ),
    );
  }
  await Promise.all(sends);
  return { duration: (performance.now() - started) / 1000, statusCodeStats };
}

const created = (result: Pick<LoadResult, "statusCodeStats">) => result.statusCodeStats["201"]?.count ?? 0;
const statusCounts = (result: LoadResult) => Object.fromEntries(Object.entries(result.statusCodeStats).map(([status, { count }]) => [status, count]));

// ---- the phases ----

interface Setup {
  adminUrl: string;
  stub: BuyerStub;
  buyersFile: string;
  /** The "queued" replica's: the held buyer only. */
  heldBuyersFile: string;
  counter: { n: number };
  log: Log;
}

function serverEnv(database: TestDatabase, extra: Record<string, string> = {}): Record<string, string> {
  return { LOG_LEVEL: "info", LEAD_RATE_LIMIT: "1000000", LEAD_MIN_FILL_MS: "0", DATABASE_URL: database.url, CSRF_SECRET, ...extra };
}

async function withDatabase<T>(adminUrl: string, work: (database: TestDatabase, client: pg.Client) => Promise<T>): Promise<T> {
  const database = await createTestDatabase(adminUrl);
  try {
    const client = await connect(database.url);
    try {
      return await work(database, client);
    } finally {
      await client.end();
    }
  } finally {
    await database.drop();
  }
}

async function waitUntil(what: string, timeoutMs: number, done: () => boolean, everyMs = 5): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** (a): a stored backlog, drained by `replicas` replicas at `concurrency` (undefined: the environment's or the default). */
async function drain(setup: Setup, concurrency: number | undefined, replicas = 1): Promise<DrainResult> {
  const { stub, buyersFile, log } = setup;
  const effective = concurrency ?? inheritedConcurrency();
  return withDatabase(setup.adminUrl, async (database, client) => {
    log(`delivery (a): storing ${DRAIN_LEADS} leads through the API (worker held to concurrency 1)…`);
    stub.reset();
    const loader = await startProductionServer(serverEnv(database, { BUYERS_FILE: buyersFile, DELIVERY_CONCURRENCY: "1" }), { keepLogs: "problems" });
    let submitted: number;
    try {
      submitted = created(await postTaggedLeads(loader, { connections: LEAD_CONNECTIONS, amount: DRAIN_LEADS }, "drain", setup.counter));
    } finally {
      await loader.stop();
    }
    const sentWhileStoring = stub.tally(BUYER_ID).accepted;
    const before = await queueCounts(client);
    log(`delivery (a): ${before.open} deliveries waiting; ${replicas === 1 ? "a replica" : `${replicas} replicas`} at DELIVERY_CONCURRENCY=${effective} drain them…`);

    stub.reset();
    const spawnedAt = epochMs();
    const env = serverEnv(database, { BUYERS_FILE: buyersFile, ...(concurrency !== undefined ? { DELIVERY_CONCURRENCY: String(concurrency) } : {}) });
    const servers = await Promise.all(Array.from({ length: replicas }, () => startProductionServer(env, { keepLogs: "problems" })));
    let result: Omit<DrainResult, "queueAfter" | "problems">;
    try {
      await waitUntil("the first delivery", 60_000, () => stub.tally(BUYER_ID).accepted > 0, 2);
      // Sampled once the replicas work: their pools' connections (PostgreSQL backends) are open by then.
      const pids = await databasePids(client);
      const firstMark = markCpu(servers, pids);
      const acceptedAtFirstMark = stub.tally(BUYER_ID).accepted;
      await waitUntil(`${before.open} deliveries`, DRAIN_TIMEOUT_MS, () => stub.tally(BUYER_ID).accepted >= before.open, 5);
      const lastMark = markCpu(servers, pids);
      const tally = stub.tally(BUYER_ID);
      const seconds = (tally.lastAcceptedAt! - tally.firstAcceptedAt!) / 1000;
      const cpu = cpuBetween(firstMark, lastMark);
      const delivered = tally.accepted - acceptedAtFirstMark;
      result = {
        replicas,
        concurrency: effective,
        submitted,
        sentWhileStoring,
        backlog: before.open,
        accepted: tally.accepted,
        seconds,
        deliveriesPerSecond: seconds > 0 ? (tally.accepted - 1) / seconds : 0,
        firstAcceptanceAfterSpawnMs: tally.firstAcceptedAt! - spawnedAt,
        serverCpuMsPerDelivery: cpu.serverMs !== undefined && delivered > 0 ? cpu.serverMs / delivered : undefined,
        cpu: { serverPctOfCore: cpu.serverPctOfCore, databasePctOfCore: cpu.databasePctOfCore, machineBusyPct: cpu.machineBusyPct, othersPctOfMachine: cpu.othersPctOfMachine },
        badSignatures: tally.badSignatures,
        repeats: tally.repeats,
      };
      // Give a wrong extra send the chance to show before counting.
      await sleep(300);
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
    }
    const queueAfter = await queueCounts(client);
    const tally = stub.tally(BUYER_ID);
    const problems = deliveryProblems(queueAfter, tally, { leads: queueAfter.leads, answered: submitted, buyerAccepted: result.backlog });
    log(`delivery (a): ${result.accepted} deliveries in ${result.seconds.toFixed(2)} s = ${result.deliveriesPerSecond.toFixed(0)}/s (${replicas} replica${replicas === 1 ? "" : "s"}, concurrency ${effective})`);
    return { ...result, accepted: tally.accepted, queueAfter, problems };
  });
}

/** (b): a steady stream below the delivery rate; stored → accepted from SQL. */
async function paced(setup: Setup): Promise<PacedResult> {
  const { stub, buyersFile, log } = setup;
  return withDatabase(setup.adminUrl, async (database, client) => {
    stub.reset();
    const server = await startProductionServer(serverEnv(database, { BUYERS_FILE: buyersFile }), { keepLogs: "problems" });
    try {
      log(`delivery (b): warm-up, then ${PACED_SECONDS} s at a steady ${PACED_RATE} leads/s through the API…`);
      await steadyLeads(server, PACED_RATE, API_WARMUP_SECONDS, "pwarm", setup.counter);
      await waitDrained(client);
      const result = await steadyLeads(server, PACED_RATE, PACED_SECONDS, "paced", setup.counter);
      await waitDrained(client);
      await sleep(300);
      const queueAfter = await queueCounts(client);
      const latency = await latencyOf(client, "paced-");
      const tally = stub.tally(BUYER_ID);
      const submitted = created(result);
      log(`delivery (b): ${latency.deliveries} deliveries, stored → accepted p50 ${latency.p50Ms.toFixed(0)} ms, p99 ${latency.p99Ms.toFixed(0)} ms`);
      return {
        ratePerSecond: PACED_RATE,
        seconds: result.duration,
        submitted,
        latency,
        queueAfter,
        badSignatures: tally.badSignatures,
        repeats: tally.repeats,
        // Requests in flight at the stop are stored but not counted by autocannon: ≥, not =.
        problems: deliveryProblems(queueAfter, tally, { leads: queueAfter.leads, answered: submitted, buyerAccepted: queueAfter.accepted }),
      };
    } finally {
      await server.stop();
    }
  });
}

function side(rounds: ApiRound[]): ApiSide {
  const usPerLead = rounds.map((round) => round.serverUsPerLead);
  return {
    meanLeadsPerSecond: mean(rounds.map((round) => round.leadsPerSecond)),
    leadsPerSecondByRound: rounds.map((round) => round.leadsPerSecond),
    medianP50Ms: median(rounds.map((round) => round.p50Ms)),
    maxP99Ms: Math.max(...rounds.map((round) => round.p99Ms)),
    errors: rounds.reduce((sum, round) => sum + round.errors, 0),
    medianServerUsPerLead: usPerLead.every((value) => value !== undefined) ? median(usPerLead as number[]) : undefined,
  };
}

/** (c): the lead API with delivery off, queued and on, interleaved rounds. */
async function apiOnOff(setup: Setup): Promise<ApiComparison> {
  const { stub, buyersFile, log } = setup;
  return withDatabase(setup.adminUrl, async (database, client) =>
    withDatabase(setup.adminUrl, async (queuedDatabase) => {
      stub.reset();
      stub.script(HELD_BUYER_ID, Array.from({ length: 1_000 }, () => "hang" as const));
      const servers: Record<ApiMode, RunningServer> = {
        off: await startProductionServer(serverEnv(database), { keepLogs: "problems" }),
        queued: await startProductionServer(serverEnv(queuedDatabase, { BUYERS_FILE: setup.heldBuyersFile, DELIVERY_CONCURRENCY: "1" }), { keepLogs: "problems" }),
        on: await startProductionServer(serverEnv(database, { BUYERS_FILE: buyersFile }), { keepLogs: "problems" }),
      };
      try {
        log(`delivery (c): POST /api/leads, delivery off, queued and on: warm-up ${API_WARMUP_SECONDS} s each, then ${API_ROUNDS} interleaved rounds × ${API_SECONDS} s at ${LEAD_CONNECTIONS} connections…`);
        const modes: ApiMode[] = ["off", "queued", "on"];
        for (const mode of modes) await postTaggedLeads(servers[mode], { connections: LEAD_CONNECTIONS, duration: API_WARMUP_SECONDS }, `warm-${mode}`, setup.counter);
        const rounds: ApiRound[] = [];
        for (let round = 1; round <= API_ROUNDS; round += 1) {
          for (const mode of rotate(modes, round - 1)) {
            await waitDrained(client);
            const server = servers[mode];
            const pids = await databasePids(client);
            const acceptedBefore = stub.tally(BUYER_ID).accepted;
            const before = markCpu(server, pids);
            const result = await postTaggedLeads(server, { connections: LEAD_CONNECTIONS, duration: API_SECONDS }, `api-${mode}-r${round}`, setup.counter);
            const after = markCpu(server, pids);
            const delivered = stub.tally(BUYER_ID).accepted - acceptedBefore;
            const cpu = cpuBetween(before, after);
            const counts = statusCounts(result);
            const responses = Object.values(counts).reduce((sum, count) => sum + count, 0);
            const stored = created(result);
            let backlogAtEnd: number | undefined;
            let drainSeconds: number | undefined;
            if (mode === "on") {
              backlogAtEnd = (await queueCounts(client)).open;
              const drainStart = performance.now();
              while ((await queueCounts(client)).open > 0 && performance.now() - drainStart < DRAIN_TIMEOUT_MS) await sleep(50);
              drainSeconds = (performance.now() - drainStart) / 1000;
            }
            rounds.push({
              round,
              delivery: mode,
              seconds: result.duration,
              created: stored,
              leadsPerSecond: result.duration > 0 ? stored / result.duration : 0,
              p50Ms: result.latency.p50,
              p99Ms: result.latency.p99,
              errors: result.errors + (responses - stored),
              statusCounts: counts,
              serverUsPerLead: cpu.serverMs !== undefined && stored > 0 ? (1000 * cpu.serverMs) / stored : undefined,
              cpu: { serverPctOfCore: cpu.serverPctOfCore, databasePctOfCore: cpu.databasePctOfCore, machineBusyPct: cpu.machineBusyPct, othersPctOfMachine: cpu.othersPctOfMachine },
              deliveriesPerSecond: mode === "on" && result.duration > 0 ? delivered / result.duration : undefined,
              backlogAtEnd,
              drainSeconds,
            });
            const last = rounds.at(-1)!;
            log(
              `  round ${round}, delivery ${mode}: ${last.leadsPerSecond.toFixed(0)} leads/s, p99 ${last.p99Ms} ms, ${fmt.maybe(last.serverUsPerLead)} µs server CPU/lead` +
                (mode === "on" ? `, ${last.deliveriesPerSecond!.toFixed(0)} deliveries/s, ${backlogAtEnd} open at the end (drained in ${drainSeconds!.toFixed(1)} s)` : ""),
            );
          }
        }
        await waitDrained(client);
        await sleep(300);
        const queueAfter = await queueCounts(client);
        const latencyUnderLoad = await latencyOf(client, "api-on-");
        // Every lead the delivering replica stored (warm-up included) has exactly one accepted delivery.
        const leadsOn = (await client.query<{ n: number }>("SELECT count(*)::int AS n FROM leads WHERE tid LIKE 'api-on-%' OR tid LIKE 'warm-on-%'")).rows[0]!.n;
        const tally = stub.tally(BUYER_ID);
        const [off, queued, on] = modes.map((mode) => side(rounds.filter((round) => round.delivery === mode))) as [ApiSide, ApiSide, ApiSide];
        return {
          connections: LEAD_CONNECTIONS,
          rounds,
          off,
          queued,
          on,
          ratio: on.meanLeadsPerSecond / off.meanLeadsPerSecond,
          queuedRatio: queued.meanLeadsPerSecond / off.meanLeadsPerSecond,
          cpuRatio: off.medianServerUsPerLead !== undefined && on.medianServerUsPerLead !== undefined ? off.medianServerUsPerLead / on.medianServerUsPerLead : undefined,
          latencyUnderLoad,
          queueAfter,
          buyerAccepted: tally.accepted,
          badSignatures: tally.badSignatures,
          repeats: tally.repeats,
          problems: deliveryProblems(queueAfter, tally, { leads: leadsOn, answered: rounds.filter((round) => round.delivery === "on").reduce((sum, round) => sum + round.created, 0), buyerAccepted: queueAfter.accepted }),
        };
      } finally {
        await Promise.all(Object.values(servers).map((server) => server.stop()));
      }
    }),
  );
}

/**
 * The whole delivery benchmark. `concurrencies`: the DELIVERY_CONCURRENCY values to drain the
 * backlog at (a); undefined entries mean the environment's, else the default.
 */
export async function benchDelivery(log: Log, concurrencies: Array<number | undefined> = [undefined]): Promise<DeliveryBench> {
  const startedAt = new Date();
  const loadAverageAtStart = os.loadavg();
  const folder = await mkdtemp(path.join(os.tmpdir(), "bench-delivery-"));
  log("delivery: starting PostgreSQL (TEST_DATABASE_URL, or a throwaway cluster) and the buyer stub…");
  const admin = await provideAdminUrl();
  // Bounded records: tens of thousands of leads must not pile up in this process; the tallies count them all.
  const stub = await startBuyerStub({ buyers: { [BUYER_ID]: BUYER_SECRET, [HELD_BUYER_ID]: HELD_SECRET }, defaultResponse: { status: 200, body: {}, delayMs: BUYER_DELAY_MS }, maxRecorded: 100 });
  try {
    const buyersFile = path.join(folder, "buyers.json");
    await writeFile(
      buyersFile,
      JSON.stringify({ buyers: [{ id: BUYER_ID, name: "Bench Insurance Agency", url: stub.url(BUYER_ID), secret: BUYER_SECRET, price: 10, timeoutMs: 5_000 }], sources: [] }),
    );
    const heldBuyersFile = path.join(folder, "held-buyers.json");
    await writeFile(
      heldBuyersFile,
      JSON.stringify({ buyers: [{ id: HELD_BUYER_ID, name: "Held Insurance Agency", url: stub.url(HELD_BUYER_ID), secret: HELD_SECRET, price: 10, timeoutMs: 5_000 }], sources: [] }),
    );
    const setup: Setup = { adminUrl: admin.url, stub, buyersFile, heldBuyersFile, counter: { n: 0 }, log };
    const drains: DrainResult[] = [];
    for (const concurrency of concurrencies) drains.push(await drain(setup, concurrency));
    // The stack runs two replicas (docker-compose.yml): their workers share the outbox.
    drains.push(await drain(setup, undefined, 2));
    const pacedResult = await paced(setup);
    const api = await apiOnOff(setup);
    return {
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      store: "postgres",
      buyerDelayMs: BUYER_DELAY_MS,
      defaultConcurrency: DEFAULT_CONCURRENCY,
      loadAverageAtStart,
      loadAverageAtEnd: os.loadavg(),
      drains,
      paced: pacedResult,
      api,
    };
  } finally {
    await stub.stop();
    await admin.stop();
    await rm(folder, { recursive: true, force: true });
  }
}
