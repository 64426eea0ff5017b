/**
 * `npm run bench:auction`: the ping/post auction under load (issue 16; docs/lead-auction.md), on
 * PostgreSQL (TEST_DATABASE_URL, or a throwaway cluster), the built server, and ten ping/post
 * buyers played by one HTTP server on loopback: six answering in 20–120 ms, two slow (500–1,000 ms:
 * some late), one never answering, one bidding high and refusing every post (so its wins cascade).
 * Leads are sent through the quote form's API at a fixed rate, each a new visitor.
 *
 * Measured: from the lead's 201 to its first accepted post (p50, p95, p99), auctions settled per
 * second, and the invariants read back from the database afterwards: no lead sold exclusive twice,
 * to the same buyer twice, or to more than maxShared buyers. And whether the site keeps serving
 * meanwhile: the landing page's throughput (ad clicks: a new tid each, a phone's Accept-Encoding,
 * 8 at a time) alone and during the auctions, and the lead API's own latency. Written to
 * bench-results/auction.json.
 * Options: --rate N (leads per second, default 100), --seconds N (default 20).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { signBody } from "../server/delivery/signature";
import { startProductionServer } from "../tools/production-server";
import { createTestDatabase, provideAdminUrl } from "../tools/postgres";
import { leadBody, openLeadSession, postLead } from "../tools/lead-session";

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
async function pageLoad(origin: string, ms: number, connections = 8): Promise<{ perSecond: number; p99Ms: number; errors: number }> {
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
  return { perSecond: Number((latencies.length / (ms / 1_000)).toFixed(0)), p99Ms: Math.round(percentile(latencies, 99)), errors };
}

const percentile = (sorted: number[], p: number) => (sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!);

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { rate: { type: "string", default: "100" }, seconds: { type: "string", default: "20" } } });
  const rate = Number(values.rate);
  const seconds = Number(values.seconds);
  const log = (line: string) => process.stdout.write(`${line}\n`);

  // Buyers: pings answered by their behaviour, posts recorded with the time they were accepted.
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
  const origin = `http://127.0.0.1:${(buyers.address() as AddressInfo).port}`;

  const folder = await mkdtemp(path.join(os.tmpdir(), "bench-auction-"));
  log("auction: starting PostgreSQL (TEST_DATABASE_URL, or a throwaway cluster)…");
  const admin = await provideAdminUrl();
  const database = await createTestDatabase(admin.url);
  const buyersFile = path.join(folder, "buyers.json");
  await writeFile(
    buyersFile,
    JSON.stringify({
      buyers: Object.keys(BUYERS).map((id) => ({ id, name: `${id} Insurance`, mode: "pingpost", pingUrl: `${origin}/ping/${id}`, postUrl: `${origin}/post/${id}`, secret: secretOf(id), price: 0, saleTypes: ["exclusive", "shared"], pingTimeoutMs: 1_000 })),
    }),
  );
  const server = await startProductionServer(
    { DATABASE_URL: database.url, BUYERS_FILE: buyersFile, CSRF_SECRET: "bench-auction-csrf-secret-of-32-characters-or-more", LEAD_MIN_FILL_MS: "0", LEAD_RATE_LIMIT: "1000000", DATABASE_POOL_SIZE: process.env.DATABASE_POOL_SIZE ?? "10", DATABASE_BACKGROUND_POOL_SIZE: process.env.DATABASE_BACKGROUND_POOL_SIZE ?? "10" },
    { keepLogs: "problems" },
  );
  try {
    const session = await openLeadSession(server.origin);
    log("auction: the landing page alone for 3 s…");
    const pageAlone = await pageLoad(server.origin, 3_000);
    const stored = new Map<string, number>();
    const leadApiMs: number[] = [];
    let refused = 0;
    const sends: Promise<void>[] = [];
    log(`auction: ${rate} leads/s for ${seconds} s, 10 ping/post buyers, AUCTION_DEADLINE_MS 750…`);
    const startedAt = performance.now();
    const pageDuring = pageLoad(server.origin, seconds * 1_000);
    const total = rate * seconds;
    for (let index = 0; index < total; index += 1) {
      const due = startedAt + (index * 1_000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const sentAt = performance.now();
      sends.push(
        postLead(server.origin, session, leadBody(session, { sid: "bench", tid: `a${index}` })).then((response) => {
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

    const latencies = [...stored].flatMap(([reference, at]) => (firstAccepted.has(reference) ? [firstAccepted.get(reference)! - at] : [])).sort((a, b) => a - b);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const invariants = await client.query<{ exclusive_twice: string; buyer_twice: string; over_shared: string; sold: string; unsold: string; decided_per_second: string }>(`
      WITH live AS (SELECT * FROM deliveries WHERE kind = 'buyer' AND auction_id IS NOT NULL AND status IN ('pending', 'sending', 'accepted', 'returned'))
      SELECT
        (SELECT count(*) FROM (SELECT lead_reference FROM live WHERE sale_type = 'exclusive' GROUP BY lead_reference HAVING count(*) > 1) x) AS exclusive_twice,
        (SELECT count(*) FROM (SELECT lead_reference, target FROM deliveries WHERE kind = 'buyer' GROUP BY lead_reference, target HAVING count(*) > 1) x) AS buyer_twice,
        (SELECT count(*) FROM (SELECT lead_reference FROM live WHERE sale_type = 'shared' GROUP BY lead_reference HAVING count(*) > 4) x) AS over_shared,
        (SELECT count(*) FROM auctions WHERE status = 'sold') AS sold,
        (SELECT count(*) FROM auctions WHERE status = 'unsold') AS unsold,
        (SELECT count(*) / greatest(extract(epoch FROM max(decided_at) - min(decided_at)), 1) FROM auctions WHERE decided_at IS NOT NULL) AS decided_per_second`);
    const outcomes = await client.query<{ outcome: string; n: string }>("SELECT outcome, count(*) AS n FROM auction_pings GROUP BY outcome ORDER BY n DESC");
    // Where the time goes, per lead: stored → pinged (claim), pinged → decided (the ping round and the sale), decided → first accepted post.
    const stages = await client.query<{ stage: string; p50: string; p99: string }>(`
      WITH t AS (
        SELECT a.created_at, a.pinged_at, a.decided_at,
               (SELECT min(completed_at) FROM deliveries d WHERE d.auction_id = a.id AND d.status = 'accepted') AS accepted_at
        FROM auctions a)
      SELECT 'stored_to_pinged' AS stage, percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM pinged_at - created_at)) * 1000 AS p50,
             percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM pinged_at - created_at)) * 1000 AS p99 FROM t
      UNION ALL SELECT 'pinged_to_decided', percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM decided_at - pinged_at)) * 1000,
             percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM decided_at - pinged_at)) * 1000 FROM t
      UNION ALL SELECT 'decided_to_accepted', percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM accepted_at - decided_at)) * 1000,
             percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM accepted_at - decided_at)) * 1000 FROM t`);
    await client.end();
    const row = invariants.rows[0]!;
    const result = {
      rate,
      seconds,
      sentForSeconds: Number(sentFor.toFixed(1)),
      leadsStored: stored.size,
      leadsRefused: refused,
      soldWithAnAcceptedPost: latencies.length,
      storedToFirstAcceptedMs: { p50: Math.round(percentile(latencies, 50)), p95: Math.round(percentile(latencies, 95)), p99: Math.round(percentile(latencies, 99)), max: Math.round(latencies.at(-1) ?? Number.NaN) },
      auctionsDecidedPerSecond: Number(Number(row.decided_per_second).toFixed(1)),
      auctions: { sold: Number(row.sold), unsold: Number(row.unsold) },
      pingOutcomes: Object.fromEntries(outcomes.rows.map((outcome) => [outcome.outcome, Number(outcome.n)])),
      stagesMs: Object.fromEntries(stages.rows.map((stage) => [stage.stage, { p50: Math.round(Number(stage.p50)), p99: Math.round(Number(stage.p99)) }])),
      doubleSales: { exclusiveTwice: Number(row.exclusive_twice), sameBuyerTwice: Number(row.buyer_twice), overMaxShared: Number(row.over_shared) },
      landingPage: { alone: pageAlone, duringAuctions: pageDuringAuctions, ratio: Number((pageDuringAuctions.perSecond / Math.max(pageAlone.perSecond, 1)).toFixed(2)) },
      leadApiMs: { p50: Math.round(percentile(leadApiMs, 50)), p99: Math.round(percentile(leadApiMs, 99)) },
      loadAverage: os.loadavg(),
      drainedInSeconds: Number(((finishedAt - startedAt) / 1_000).toFixed(1)),
    };
    log(JSON.stringify(result, null, 2));
    const verdicts = [
      [`stored → first accepted post p99 ≤ 1,000 ms`, result.storedToFirstAcceptedMs.p99 <= 1_000, `${result.storedToFirstAcceptedMs.p99} ms`],
      [`auctions settled ≥ 100/s`, result.auctionsDecidedPerSecond >= 100, `${result.auctionsDecidedPerSecond}/s`],
      [`zero double sales`, result.doubleSales.exclusiveTwice + result.doubleSales.sameBuyerTwice + result.doubleSales.overMaxShared === 0, JSON.stringify(result.doubleSales)],
      [`landing page keeps its throughput during auctions (≥ 0.9×)`, result.landingPage.ratio >= 0.9, `${result.landingPage.duringAuctions.perSecond}/s vs ${result.landingPage.alone.perSecond}/s alone (${result.landingPage.ratio}×), p99 ${result.landingPage.duringAuctions.p99Ms} ms`],
    ] as const;
    for (const [target, pass, measured] of verdicts) log(`${pass ? "PASS" : "MISS"}  ${target}: ${measured}`);
    await mkdir("bench-results", { recursive: true });
    await writeFile(path.join("bench-results", "auction.json"), `${JSON.stringify({ at: new Date().toISOString(), ...result, verdicts }, null, 2)}\n`);
  } finally {
    for (const response of hung) response.destroy();
    buyers.closeAllConnections();
    await new Promise((resolve) => buyers.close(resolve));
    await server.stop();
    await database.drop();
    await admin.stop();
    await rm(folder, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
