/**
 * `npm run bench:auction`: the ping/post auction under load (issue 16; docs/lead-auction.md), on
 * PostgreSQL (TEST_DATABASE_URL, or a throwaway cluster), the built server, and ten ping/post
 * buyers played by one HTTP server on loopback: six answering in 20–120 ms, two slow (500–1,000 ms:
 * some late), one never answering, one bidding high and refusing every post (so its wins cascade).
 * Leads are sent through the quote form's API at a fixed rate, each a new visitor (its own address
 * in X-Forwarded-For, the server trusting its loopback balancer).
 *
 * Measured: from the lead's 201 to its first accepted post (p50, p95, p99), auctions settled per
 * second, and the invariants read back from the database afterwards: no lead sold exclusive twice,
 * to the same buyer twice, or to more than maxShared buyers. And whether the site keeps serving
 * meanwhile: the landing page's throughput (ad clicks: a new tid each, a phone's Accept-Encoding,
 * 8 at a time) alone and during the auctions, and the lead API's own latency.
 *
 * Several rates in one run (issue 35: where does it stop keeping up?), each on a fresh database and
 * a fresh server, so one rate's backlog never spills into the next, warmed up by 100 leads (sold,
 * not measured) so its figures are a running server's. For each, the CPU time spent
 * from the first lead sent until the drain ended (utime + stime in /proc/<pid>/stat), per lead
 * stored: the server process, its background worker (the child running background.js: delivery
 * and auctions), the PostgreSQL cluster (the postmaster, its children, and what it reaped from
 * backends that ended meanwhile) and this process (the buyer stubs and the load generators,
 * process.cpuUsage()). The server's and the bench's figures include the landing-page load that runs
 * alongside (its requests are in the JSON). A table with one column per rate, the verdicts per
 * rate, and bench-results/auction.json: an array, one result per rate.
 * Options: --rates A,B,… (leads per second, default 20,40,70,100) or --rate N (just one),
 * --checks (issue 44: each rate also with every lead check on, against local fakes answering in
 * 50 ms) and --rounds N (with --checks: N pairs per rate, alternating which runs first),
 * --seconds N (each rate, default 10), --statements (PostgreSQL's statements per lead, from
 * pg_stat_statements: the throwaway cluster preloads it), --profile DIR (V8 CPU profiles of the
 * server and its background worker, one per process and rate).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { signBody } from "../server/delivery/signature";
import { startProductionServer, type RunningServer } from "../tools/production-server";
import { auctionCpuPerLead, auctionTable, auctionVerdicts, checksComparison, cpuPerLead, parseRates, verdictLines, type CpuSpent } from "../tools/auction-bench";
import { childWithCommandLine, processTreeCpuMs } from "../tools/rss";
import { processCpuMs } from "./lib/bench-cpu";
import { createTestDatabase, provideAdminUrl } from "../tools/postgres";
import { leadBody, openLeadSession, postLead } from "../tools/lead-session";
import { FAKE_PROVIDERS, startCheckFakes } from "../tools/check-fakes";

interface Behaviour {
  delay: () => number;
  bid: () => { price: number; type: "exclusive" | "shared" } | null;
  hang?: boolean;
  refusePosts?: boolean;
}

const between = (low: number, high: number) => low + Math.random() * (high - low);
const cents = (value: number) => Math.round(value * 100) / 100;

const BUYERS: Record<string, Behaviour> = {
  "fast-1": { delay: () => between(20, 120), bid: () => ({ price: cents(between(15, 35)), type: "exclusive" }) },
  "fast-2": { delay: () => between(20, 120), bid: () => ({ price: cents(between(15, 35)), type: "exclusive" }) },
  "fast-3": { delay: () => between(20, 120), bid: () => ({ price: cents(between(4, 12)), type: "shared" }) },
  "fast-4": { delay: () => between(20, 120), bid: () => ({ price: cents(between(4, 12)), type: "shared" }) },
  "fast-5": { delay: () => between(20, 120), bid: () => (Math.random() < 0.3 ? null : { price: cents(between(4, 12)), type: "shared" }) },
  "fast-6": { delay: () => between(20, 120), bid: () => ({ price: cents(between(4, 12)), type: "shared" }) },
  "slow-1": { delay: () => between(500, 1_000), bid: () => ({ price: cents(between(30, 50)), type: "exclusive" }) },
  "slow-2": { delay: () => between(500, 1_000), bid: () => ({ price: cents(between(5, 15)), type: "shared" }) },
  silent: { delay: () => 0, bid: () => null, hang: true },
  refuser: { delay: () => between(20, 80), bid: () => ({ price: cents(between(36, 60)), type: "exclusive" }), refusePosts: true },
};
const secretOf = (id: string) => `${id}-bench-secret-0123456789abcdef0123`;

/** Ad clicks on the landing page, `connections` at a time for `ms`: requests per second and p99 latency. */
async function pageLoad(origin: string, ms: number, connections = 8): Promise<{ requests: number; perSecond: number; p99Ms: number; errors: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const latencies: number[] = [];
  let errors = 0;
  let click = 0;
  const until = performance.now() + ms;
  const one = () =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      const request = http.get(`${origin}/zipcode?sid=bench&tid=c${(click += 1)}`, { agent, headers: { "accept-encoding": "gzip, deflate, br", "user-agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X)" } }, (response) => {
        response.resume();
        response.on("end", () => {
          if (response.statusCode === 200) latencies.push(performance.now() - started);
          else errors += 1;
          resolve();
        });
      });
      request.on("error", () => {
        errors += 1;
        resolve();
      });
    });
  await Promise.all(Array.from({ length: connections }, async () => {
    while (performance.now() < until) await one();
  }));
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { requests: latencies.length, perSecond: Number((latencies.length / (ms / 1_000)).toFixed(0)), p99Ms: Math.round(percentile(latencies, 99)), errors };
}

const percentile = (sorted: number[], p: number) => (sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!);

/**
 * The postmaster of the PostgreSQL cluster behind `databaseUrl`, when it runs on this machine: the
 * first line of postmaster.pid in its data directory. Undefined otherwise (another machine's
 * cluster, or a data directory this user may not read).
 */
async function postmasterPid(databaseUrl: string): Promise<number | undefined> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
    const { rows } = await client.query<{ data_directory: string }>("SHOW data_directory");
    const dataDirectory = rows[0]?.data_directory;
    const pid = dataDirectory ? Number(readFileSync(path.join(dataDirectory, "postmaster.pid"), "utf8").split("\n")[0]) : Number.NaN;
    return Number.isInteger(pid) && pid > 0 && processCpuMs(pid) !== undefined ? pid : undefined;
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => {});
  }
}

/** The server's background worker: its child running background.js (forked at start-up; waited for up to 5 s). */
async function backgroundPid(server: RunningServer): Promise<number | undefined> {
  const until = performance.now() + 5_000;
  for (;;) {
    const pid = childWithCommandLine(server.child.pid, "background.js");
    if (pid !== undefined || performance.now() > until) return pid;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * PostgreSQL's own account of the statements run (pg_stat_statements, when the cluster preloads
 * it: TEST_POSTGRES_PRELOAD=pg_stat_statements for the throwaway one): reset before the leads,
 * read after the drain, per lead stored. Undefined when the extension is not loaded.
 */
async function statementsStats(databaseUrl: string) {
  const query = async <Row extends pg.QueryResultRow>(text: string): Promise<Row[] | undefined> => {
    const client = new pg.Client({ connectionString: databaseUrl });
    try {
      await client.connect();
      return (await client.query<Row>(text)).rows;
    } catch {
      return undefined;
    } finally {
      await client.end().catch(() => {});
    }
  };
  // The extension can be created without the library loaded; its view then refuses to be read.
  if (!(await query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")) || !(await query("SELECT 1 FROM pg_stat_statements LIMIT 1"))) return undefined;
  return {
    reset: () => query("SELECT pg_stat_statements_reset()"),
    async top(leads: number) {
      const rows = await query<{ calls: string; total_ms: string; query: string }>(
        `SELECT calls, total_exec_time + total_plan_time AS total_ms, query FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
         ORDER BY calls DESC LIMIT 40`,
      );
      const per = Math.max(leads, 1);
      return (rows ?? []).map((row) => ({ callsPerLead: Number((Number(row.calls) / per).toFixed(2)), msPerLead: Number((Number(row.total_ms) / per).toFixed(3)), query: row.query.replace(/\s+/g, " ").slice(0, 160) }));
    },
  };
}

interface Pids {
  server: number | undefined;
  background: number | undefined;
  postmaster: number | undefined;
}

/** CPU ms so far: each process's own, the PostgreSQL cluster's as a tree, this process's user + system. */
function sampleCpu(pids: Pids): CpuSpent {
  const usage = process.cpuUsage();
  return { server: processCpuMs(pids.server) ?? null, background: processCpuMs(pids.background) ?? null, postgres: processTreeCpuMs(pids.postmaster) ?? null, bench: (usage.user + usage.system) / 1_000 };
}

function cpuBetween(before: CpuSpent, after: CpuSpent): CpuSpent {
  const delta = (start: number | null, end: number | null) => (start === null || end === null ? null : Math.round(end - start));
  return { server: delta(before.server, after.server), background: delta(before.background, after.background), postgres: delta(before.postgres, after.postgres), bench: delta(before.bench, after.bench) };
}

/** The buyers' side of the bench: one HTTP server playing all ten, noting when each lead's first post was accepted. */
interface BuyerStubs {
  origin: string;
  firstAccepted: Map<string, number>;
  /** Pings the silent buyer never answers: ended after each rate. */
  hung: Set<http.ServerResponse>;
  close(): Promise<void>;
}

async function startBuyerStubs(): Promise<BuyerStubs> {
  const firstAccepted = new Map<string, number>();
  const pingsAnswered = { n: 0 };
  const hung = new Set<http.ServerResponse>();
  const buyers = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const [, kind, id] = /^\/(ping|post)\/([a-z0-9-]+)$/.exec(request.url ?? "") ?? [];
      const behaviour = id ? BUYERS[id] : undefined;
      if (!kind || !id || !behaviour) return void response.writeHead(404).end();
      if (kind === "ping") {
        if (behaviour.hang) return void hung.add(response);
        setTimeout(() => {
          const bid = behaviour.bid();
          const body = JSON.stringify({ bid: bid && { ...bid, bidId: `${id}-${(pingsAnswered.n += 1)}` } });
          response.writeHead(200, { "content-type": "application/json", "x-signature": signBody(secretOf(id), body) }).end(body);
        }, behaviour.delay());
        return;
      }
      if (behaviour.refusePosts) return void response.writeHead(400, { "content-type": "application/json" }).end('{"reason":"bench refusal"}');
      const reference = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { reference: string }).reference;
      if (!firstAccepted.has(reference)) firstAccepted.set(reference, performance.now());
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => buyers.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(buyers.address() as AddressInfo).port}`,
    firstAccepted,
    hung,
    async close() {
      for (const response of hung) response.destroy();
      buyers.closeAllConnections();
      await new Promise((resolve) => buyers.close(resolve));
    },
  };
}

/** --profile DIR: where the server and its background worker write their CPU profiles. */
let profileDirectory: string | undefined;

/** Leads sent before each rate's measured run, to warm the server up (runRate). */
const WARM_UP_LEADS = 100;

const log = (line: string) => process.stdout.write(`${line}\n`);

/** One rate on a fresh database and a fresh server: the result, verdicts not yet attached. */
/**
 * --checks (issue 44): the same rate again with every lead check on, each provider played by a
 * local fake answering in 50 ms (tools/check-fakes.ts), every buyer requiring all of them, and each
 * lead carrying a TrustedForm certificate URL and a LeadiD token as the form's scripts would.
 */
interface ChecksVariant {
  env: Record<string, string>;
  /** The fields the form's provider scripts add to each lead. */
  fields: () => Record<string, string>;
}

async function runRate(rate: number, seconds: number, adminUrl: string, buyersFile: string, stubs: BuyerStubs, checks?: ChecksVariant) {
  const { firstAccepted, hung } = stubs;
  firstAccepted.clear();
  const database = await createTestDatabase(adminUrl);
  let server: RunningServer | undefined;
  try {
    server = await startProductionServer(
      { DATABASE_URL: database.url, BUYERS_FILE: buyersFile, CSRF_SECRET: "bench-auction-csrf-secret-of-32-characters-or-more", LEAD_MIN_FILL_MS: "0", LEAD_RATE_LIMIT: "1000000", TRUST_PROXY: "loopback", DATABASE_POOL_SIZE: process.env.DATABASE_POOL_SIZE ?? "10", DATABASE_BACKGROUND_POOL_SIZE: process.env.DATABASE_BACKGROUND_POOL_SIZE ?? "10", ...(profileDirectory ? { NODE_OPTIONS: `--import ${path.resolve("tools/cpu-profile.mjs")}`, CPU_PROFILE_DIR: profileDirectory } : {}), ...checks?.env },
      { keepLogs: "problems" },
    );
    const pids: Pids = { server: server.child.pid, background: await backgroundPid(server), postmaster: await postmasterPid(database.url) };
    const session = await openLeadSession(server.origin);
    // A fresh server compiles its hot paths during its first leads: 100 leads at 20/s first, sold
    // and left out of every figure, so the CPU per lead is a running server's.
    log(`auction ${rate}/s: warming up (${WARM_UP_LEADS} leads at 20/s, not measured)…`);
    const warmUp = await Promise.all(
      Array.from({ length: WARM_UP_LEADS }, async (_, index) => {
        await new Promise((resolve) => setTimeout(resolve, index * 50));
        const response = await postLead(server!.origin, session, leadBody(session, { sid: "bench", tid: `w${index}`, ...checks?.fields() }), { "X-Forwarded-For": `10.255.0.${index}` });
        return response.status === 201 ? (response.body as { reference: string }).reference : undefined;
      }),
    );
    const warmedBy = performance.now() + 15_000;
    while (performance.now() < warmedBy && warmUp.some((reference) => reference !== undefined && !firstAccepted.has(reference))) await new Promise((resolve) => setTimeout(resolve, 100));
    log(`auction ${rate}/s: the landing page alone for 3 s…`);
    const aloneBefore = sampleCpu(pids);
    const pageAlone = await pageLoad(server.origin, 3_000);
    const aloneCpu = cpuBetween(aloneBefore, sampleCpu(pids));
    const stored = new Map<string, number>();
    const leadApiMs: number[] = [];
    let refused = 0;
    const sends: Promise<void>[] = [];
    const statements = process.env.TEST_POSTGRES_PRELOAD?.includes("pg_stat_statements") ? await statementsStats(database.url) : undefined;
    await statements?.reset();
    log(`auction ${rate}/s: ${rate} leads/s for ${seconds} s, 10 ping/post buyers, AUCTION_DEADLINE_MS 750${checks ? ", every lead check on (fakes answering in 50 ms)" : ""}…`);
    const cpuBefore = sampleCpu(pids);
    const logsBefore = server.logs.length;
    const startedAt = performance.now();
    const pageDuring = pageLoad(server.origin, seconds * 1_000);
    const total = Math.round(rate * seconds);
    for (let index = 0; index < total; index += 1) {
      const due = startedAt + (index * 1_000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const sentAt = performance.now();
      sends.push(
        // Each lead a visitor of its own behind the load balancer (its own address, so its own rate-limit row, as in real traffic).
        postLead(server.origin, session, leadBody(session, { sid: "bench", tid: `a${index}`, ...checks?.fields() }), { "X-Forwarded-For": `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}` }).then((response) => {
          leadApiMs.push(performance.now() - sentAt);
          if (response.status === 201) stored.set((response.body as { reference: string }).reference, performance.now());
          else refused += 1;
        }),
      );
    }
    await Promise.all(sends);
    const pageDuringAuctions = await pageDuring;
    leadApiMs.sort((a, b) => a - b);
    const sentFor = (performance.now() - startedAt) / 1_000;
    // Every auction settles within its deadline; posts and cascades follow.
    const settleBy = performance.now() + 15_000;
    while (performance.now() < settleBy && [...stored.keys()].some((reference) => !firstAccepted.has(reference))) await new Promise((resolve) => setTimeout(resolve, 100));
    const finishedAt = performance.now();
    const cpu = cpuBetween(cpuBefore, sampleCpu(pids));
    const loadAverage = os.loadavg().map((load) => Number(load.toFixed(2)));

    const latencies = [...stored].flatMap(([reference, at]) => (firstAccepted.has(reference) ? [firstAccepted.get(reference)! - at] : [])).sort((a, b) => a - b);
    // The measured run's auctions (the warm-up's are left out; the double-sale checks read them all).
    const measured = [...stored.keys()];
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const invariants = await client.query<{ exclusive_twice: string; buyer_twice: string; over_shared: string; sold: string; unsold: string; decided_per_second: string }>(`
      WITH live AS (SELECT * FROM deliveries WHERE kind = 'buyer' AND auction_id IS NOT NULL AND status IN ('pending', 'sending', 'accepted', 'returned'))
      SELECT
        (SELECT count(*) FROM (SELECT lead_reference FROM live WHERE sale_type = 'exclusive' GROUP BY lead_reference HAVING count(*) > 1) x) AS exclusive_twice,
        (SELECT count(*) FROM (SELECT lead_reference, target FROM deliveries WHERE kind = 'buyer' GROUP BY lead_reference, target HAVING count(*) > 1) x) AS buyer_twice,
        (SELECT count(*) FROM (SELECT lead_reference FROM live WHERE sale_type = 'shared' GROUP BY lead_reference HAVING count(*) > 4) x) AS over_shared,
        (SELECT count(*) FROM auctions WHERE status = 'sold' AND lead_reference = ANY($1)) AS sold,
        (SELECT count(*) FROM auctions WHERE status = 'unsold' AND lead_reference = ANY($1)) AS unsold,
        -- Each auction's first decision (its first posts queued, or unsold), not a cascade's later one.
        (SELECT count(*) / greatest(extract(epoch FROM max(first_decision) - min(first_decision)), 1)
           FROM (SELECT coalesce((SELECT min(d.created_at) FROM deliveries d WHERE d.auction_id = a.id), a.decided_at) AS first_decision
                   FROM auctions a WHERE a.lead_reference = ANY($1)) f WHERE first_decision IS NOT NULL) AS decided_per_second`, [measured]);
    const outcomes = await client.query<{ outcome: string; n: string }>("SELECT outcome, count(*) AS n FROM auction_pings p JOIN auctions a ON a.id = p.auction_id WHERE a.lead_reference = ANY($1) GROUP BY outcome ORDER BY n DESC", [measured]);
    // Where the time goes, per lead: stored → pinged (the claim), pinged → the first decision (the
    // ping round and the settlement: its first posts' queueing), that decision → the first accepted
    // post (the posts, and the cascades after refused ones); and how many posts each sale took.
    const stages = await client.query<{ stage: string; p50: string; p99: string }>(`
      WITH t AS (
        SELECT a.created_at, a.pinged_at,
               (SELECT min(created_at) FROM deliveries d WHERE d.auction_id = a.id) AS first_decided_at,
               (SELECT min(completed_at) FROM deliveries d WHERE d.auction_id = a.id AND d.status = 'accepted') AS accepted_at,
               (SELECT count(*) FROM deliveries d WHERE d.auction_id = a.id) AS posts
        FROM auctions a WHERE a.lead_reference = ANY($1))
      SELECT 'stored_to_pinged' AS stage, percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM pinged_at - created_at)) * 1000 AS p50,
             percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM pinged_at - created_at)) * 1000 AS p99 FROM t
      UNION ALL SELECT 'pinged_to_first_decision', percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM first_decided_at - pinged_at)) * 1000,
             percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM first_decided_at - pinged_at)) * 1000 FROM t
      UNION ALL SELECT 'first_decision_to_accepted', percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM accepted_at - first_decided_at)) * 1000,
             percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM accepted_at - first_decided_at)) * 1000 FROM t
      UNION ALL SELECT 'posts_per_sale', percentile_cont(0.5) WITHIN GROUP (ORDER BY posts), percentile_cont(0.99) WITHIN GROUP (ORDER BY posts) FROM t WHERE posts > 0`, [measured]);
    const unsoldReasons = await client.query<{ reason: string; n: string }>("SELECT coalesce(reason, '') AS reason, count(*) AS n FROM auctions WHERE status = 'unsold' AND lead_reference = ANY($1) GROUP BY reason ORDER BY n DESC", [measured]);
    await client.end();
    const topStatements = statements ? await statements.top(stored.size) : null;
    const row = invariants.rows[0]!;
    // The server's warnings and errors during the measured run (its log lines at warn and above), by event.
    const problems = new Map<string, Array<Record<string, unknown>>>();
    for (const line of server.logs.slice(logsBefore)) {
      const event = String(line.event ?? line.msg ?? "unnamed");
      const lines = problems.get(event) ?? [];
      lines.push(line);
      problems.set(event, lines);
    }
    return {
      rate,
      checks: checks !== undefined,
      seconds,
      sentForSeconds: Number(sentFor.toFixed(1)),
      leadsStored: stored.size,
      leadsRefused: refused,
      soldWithAnAcceptedPost: latencies.length,
      storedToFirstAcceptedMs: { p50: Math.round(percentile(latencies, 50)), p95: Math.round(percentile(latencies, 95)), p99: Math.round(percentile(latencies, 99)), max: Math.round(latencies.at(-1) ?? Number.NaN) },
      auctionsDecidedPerSecond: Number(Number(row.decided_per_second).toFixed(1)),
      auctions: { sold: Number(row.sold), unsold: Number(row.unsold), unsoldBecause: Object.fromEntries(unsoldReasons.rows.map((reason) => [reason.reason, Number(reason.n)])) },
      pingOutcomes: Object.fromEntries(outcomes.rows.map((outcome) => [outcome.outcome, Number(outcome.n)])),
      stagesMs: Object.fromEntries(stages.rows.filter((stage) => stage.stage !== "posts_per_sale").map((stage) => [stage.stage, { p50: Math.round(Number(stage.p50)), p99: Math.round(Number(stage.p99)) }])),
      postsPerSale: (({ p50, p99 }) => ({ p50: Number(p50), p99: Number(p99) }))(stages.rows.find((stage) => stage.stage === "posts_per_sale") ?? { p50: "NaN", p99: "NaN" }),
      doubleSales: { exclusiveTwice: Number(row.exclusive_twice), sameBuyerTwice: Number(row.buyer_twice), overMaxShared: Number(row.over_shared) },
      landingPage: { alone: pageAlone, duringAuctions: pageDuringAuctions, ratio: Number((pageDuringAuctions.perSecond / Math.max(pageAlone.perSecond, 1)).toFixed(2)) },
      leadApiMs: { p50: Math.round(percentile(leadApiMs, 50)), p99: Math.round(percentile(leadApiMs, 99)) },
      // CPU from the first lead sent until the drain ended; per lead stored. The server's and the bench's include the landing pages served and requested meanwhile.
      cpuMs: cpu,
      cpuMsPerLead: cpuPerLead(cpu, stored.size),
      // Less the landing pages' share, at their cost alone: the auction's own CPU per lead.
      auctionCpuMsPerLead: auctionCpuPerLead(cpu, aloneCpu, { alone: pageAlone.requests, during: pageDuringAuctions.requests }, stored.size),
      cpuMsAlone: aloneCpu,
      // null: no background.js child (its work is in the server's figure), or no PostgreSQL cluster on this machine.
      cpuPids: { server: pids.server ?? null, background: pids.background ?? null, postmaster: pids.postmaster ?? null },
      // For reading the server's share: its CPU per landing page when serving them alone (the 3 s before).
      serverCpuMsPerLandingPageAlone: aloneCpu.server === null || pageAlone.requests === 0 ? null : Number((aloneCpu.server / pageAlone.requests).toFixed(2)),
      problems: Object.fromEntries([...problems].map(([event, lines]) => [event, lines.length])),
      // The first of each, whole, to read why.
      problemExamples: [...problems.values()].map((lines) => lines[0]),
      ...(topStatements ? { statements: topStatements } : {}),
      loadAverage,
      drainedInSeconds: Number(((finishedAt - startedAt) / 1_000).toFixed(1)),
    };
  } finally {
    for (const response of hung) response.destroy();
    hung.clear();
    await server?.stop();
    await database.drop();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { rate: { type: "string" }, rates: { type: "string" }, seconds: { type: "string", default: "10" }, statements: { type: "boolean", default: false }, profile: { type: "string" }, checks: { type: "boolean", default: false }, rounds: { type: "string", default: "1" } } });
  // V8 CPU profiles of the server and its background worker, written when they stop (open them in Chrome's DevTools).
  if (values.profile) profileDirectory = path.resolve(values.profile);
  // The throwaway cluster loads pg_stat_statements when asked (a little overhead on every statement, so not by default).
  if (values.statements) process.env.TEST_POSTGRES_PRELOAD = "pg_stat_statements";
  const rates = parseRates(values.rates, values.rate);
  const seconds = Number(values.seconds);
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a positive whole number: ${values.rounds}`);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new Error(`--seconds must be a positive number: ${values.seconds}`);

  const stubs = await startBuyerStubs();
  const folder = await mkdtemp(path.join(os.tmpdir(), "bench-auction-"));
  log(`auction: rates ${rates.join(", ")} leads/s, ${seconds} s each; load average ${os.loadavg().map((load) => load.toFixed(2)).join(" ")} on ${os.cpus().length} cores`);
  log("auction: starting PostgreSQL (TEST_DATABASE_URL, or a throwaway cluster)…");
  const admin = await provideAdminUrl();
  const buyersFile = path.join(folder, "buyers.json");
  await writeFile(
    buyersFile,
    JSON.stringify({
      buyers: Object.keys(BUYERS).map((id) => ({ id, name: `${id} Insurance`, mode: "pingpost", pingUrl: `${stubs.origin}/ping/${id}`, postUrl: `${stubs.origin}/post/${id}`, secret: secretOf(id), price: 0, saleTypes: ["exclusive", "shared"], pingTimeoutMs: 1_000 })),
    }),
  );
  // --checks: the fakes answer every provider in 50 ms; the same buyers, each requiring every check.
  const fakes = values.checks ? await startCheckFakes({ latencyMs: 50 }) : undefined;
  const checkedFile = path.join(folder, "buyers-with-checks.json");
  if (fakes) {
    const file = JSON.parse(await readFile(buyersFile, "utf8")) as { buyers: object[] };
    const requirements = { trustedForm: "retained", leadid: "authentic", litigatorClean: true, noDnc: true, lineTypes: ["mobile", "landline", "fixedVoip", "nonFixedVoip"] };
    await writeFile(checkedFile, JSON.stringify({ buyers: file.buyers.map((buyer) => ({ ...buyer, requirements })) }));
  }
  const variant: ChecksVariant | undefined = fakes && { env: fakes.env, fields: () => ({ trustedFormCertUrl: fakes.certUrl(), leadidToken: randomUUID().toUpperCase() }) };
  try {
    const results = [];
    for (const rate of rates) {
      // With --checks, each rate without and with them back to back, so the two see the same
      // machine; with --rounds, again, the other one first.
      const order = Array.from({ length: variant ? rounds : 1 }, (_, round) => (variant ? (round % 2 === 0 ? [undefined, variant] : [variant, undefined]) : [undefined])).flat();
      for (const checks of order) {
        const result = await runRate(rate, seconds, admin.url, checks ? checkedFile : buyersFile, stubs, checks);
        const at = new Date().toISOString();
        results.push({ at, ...result, verdicts: auctionVerdicts(result) });
        log(
          `auction ${rate}/s${checks ? " with checks" : ""}: ${result.leadsStored} stored, p99 stored → first accepted ${result.storedToFirstAcceptedMs.p99} ms, lead API p99 ${result.leadApiMs.p99} ms, ${result.auctionsDecidedPerSecond} settled/s, CPU ms/lead ${JSON.stringify(result.cpuMsPerLead)}`,
        );
      }
    }
    if (fakes) {
      log("");
      for (const line of checksComparison(results)) log(line);
      log(`checks: provider calls in the run: ${FAKE_PROVIDERS.map((provider) => `${provider} ${fakes.count(provider)}`).join(", ")}`);
    }
    const missing = results.find((result) => result.cpuPids.background === null || result.cpuPids.postmaster === null);
    log("");
    for (const line of auctionTable(results)) log(line);
    log("");
    log("CPU: utime + stime from the first lead sent until the drain ended, per lead stored. The server's and the bench's include the landing-page load running alongside;");
    log(`PostgreSQL is the postmaster, its children and what it reaped from backends that ended meanwhile. Server CPU per landing page served alone: ${results.map((result) => `${result.serverCpuMsPerLandingPageAlone ?? "n/a"} ms`).join(", ")}.`);
    if (missing) log(`n/a: ${missing.cpuPids.background === null ? "no background.js child of the server (its work is in the server's figure and the total). " : ""}${missing.cpuPids.postmaster === null ? "the PostgreSQL cluster is not on this machine" : ""}`);
    log("");
    for (const result of results) {
      if (!result.statements) continue;
      log(`\nPostgreSQL's statements at ${result.rate}/s (pg_stat_statements), per lead stored: calls, ms executing, the statement`);
      for (const statement of result.statements.slice(0, 15)) log(`${statement.callsPerLead.toFixed(2).padStart(6)}  ${statement.msPerLead.toFixed(3).padStart(6)}  ${statement.query.slice(0, 110)}`);
      log(`${result.statements.reduce((sum, statement) => sum + statement.callsPerLead, 0).toFixed(2).padStart(6)}  ${result.statements.reduce((sum, statement) => sum + statement.msPerLead, 0).toFixed(3).padStart(6)}  in all (the 40 most called)`);
    }
    if (values.statements && !results.some((result) => result.statements)) log("\n--statements: pg_stat_statements is not loaded by this cluster (TEST_DATABASE_URL: add it to its shared_preload_libraries)");
    log("");
    for (const result of results) for (const line of verdictLines(result.rate, result.verdicts)) log(line);
    await mkdir("bench-results", { recursive: true });
    await writeFile(path.join("bench-results", "auction.json"), `${JSON.stringify(results, null, 2)}\n`);
    log("\nauction: written to bench-results/auction.json");
  } finally {
    await stubs.close();
    await fakes?.close();
    await admin.stop();
    await rm(folder, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
