/**
 * The memory run of `npm run bench` (issue 12): the production server, on PostgreSQL as the page
 * servers run, answers 100,000 ad clicks (a phone's headers, a new `tid` each, spread over the
 * landing page, the quote page, the privacy policy and a 404) while its resident set size
 * (VmRSS in /proc/<pid>/status) is sampled every 500 ms. Targets: under 200 MB throughout, and
 * flat: once warm (after the first 10,000 requests) it grows by at most 10 MB to the end and by
 * at most 2 MB per 10,000 requests (least-squares slope over the samples after warm-up).
 */
import { RSS_WARMUP_REQUESTS, rssFigures, rssMiB, type RssFigures, type RssSample } from "../../tools/rss";
import { startProductionServer, type RunningServer } from "../../tools/production-server";
import { createTestDatabase, provideAdminUrl } from "../../tools/postgres";
import { runLoad, type AutocannonRequest } from "./bench-autocannon";
import { BENCH_LOG_LEVEL, CONNECTIONS, PHONE_HEADERS, REQUEST_TIMEOUT_SECONDS } from "./bench-options";
import { fmt } from "./bench-stats";
import type { Verdict } from "./bench-verdicts";

export const RSS_REQUESTS = 100_000;
export const RSS_SAMPLE_MS = 500;
export const RSS_BUDGET = { maxMiB: 200, growthMiB: 10, slopeMiBPer10k: 2 } as const;

/** The ad clicks, in turn: path and query before the click id, and the status each must get. */
export const RSS_PATHS = [
  { path: "/zipcode?sid=a1&tid=", status: 200 },
  { path: "/?zip=90210&sid=a1&tid=", status: 200 },
  { path: "/privacy-policy?sid=a1&tid=", status: 200 },
  { path: "/old-offer?sid=a1&tid=", status: 404 },
] as const;

export interface RssBench extends RssFigures {
  requests: number;
  seconds: number;
  errors: number;
  unexpectedStatuses: number;
  statusCounts: Record<string, number>;
  samples: RssSample[];
}

export function rssVerdicts(rss: RssBench): Verdict[] {
  const growth = rss.endMiB - rss.afterWarmupMiB;
  return [
    { name: `RSS over ${fmt.int(rss.requests)} ad clicks: peak`, target: `< ${RSS_BUDGET.maxMiB} MB`, actual: `${rss.peakMiB.toFixed(1)} MB`, pass: rss.peakMiB < RSS_BUDGET.maxMiB },
    {
      name: "RSS flat after warm-up (end − after warm-up; slope)",
      target: `≤ ${RSS_BUDGET.growthMiB} MB; ≤ ${RSS_BUDGET.slopeMiBPer10k} MB/10k`,
      actual: `${growth.toFixed(1)} MB; ${rss.slopeMiBPer10k.toFixed(2)} MB/10k`,
      pass: growth <= RSS_BUDGET.growthMiB && rss.slopeMiBPer10k <= RSS_BUDGET.slopeMiBPer10k,
    },
    { name: "RSS run: errors and unexpected statuses", target: "0", actual: String(rss.errors + rss.unexpectedStatuses), pass: rss.errors + rss.unexpectedStatuses === 0 },
  ];
}

export function rssReport(rss: RssBench): string[] {
  return [
    `Memory: ${fmt.int(rss.requests)} ad clicks (phone headers, a new tid each; /zipcode, /?zip, /privacy-policy, a 404 in turn), ${CONNECTIONS} connections, ${rss.seconds.toFixed(0)} s`,
    `  RSS at start ${rss.startMiB.toFixed(1)} MB, after ${fmt.int(RSS_WARMUP_REQUESTS)} requests ${rss.afterWarmupMiB.toFixed(1)} MB, peak ${rss.peakMiB.toFixed(1)} MB, at the end ${rss.endMiB.toFixed(1)} MB;`,
    `  slope after warm-up ${rss.slopeMiBPer10k.toFixed(2)} MB per 10k requests (least squares over ${rss.samples.length} samples every ${RSS_SAMPLE_MS} ms)`,
    `  flat means: end − after warm-up ≤ ${RSS_BUDGET.growthMiB} MB and slope ≤ ${RSS_BUDGET.slopeMiBPer10k} MB/10k; statuses ${JSON.stringify(rss.statusCounts)}, errors ${rss.errors}`,
  ];
}

/**
 * Every answer must be 200 or 404, and a quarter of them 404 (every fourth click goes to an
 * unknown path), give or take the requests in flight when the run stopped.
 */
export function statusCheck(stats: Record<string, { count: number }>, total: number): Pick<RssBench, "statusCounts" | "unexpectedStatuses"> {
  const statusCounts = Object.fromEntries(Object.entries(stats).map(([status, { count }]) => [status, count]));
  const ok = statusCounts["200"] ?? 0;
  const notFound = statusCounts["404"] ?? 0;
  const offMix = Math.max(0, Math.abs(notFound - total / RSS_PATHS.length) - CONNECTIONS);
  return { statusCounts, unexpectedStatuses: total - ok - notFound + Math.round(offMix) };
}

/** Runs the memory run against its own server (stopped before returning). */
export async function benchRss(log: (message: string) => void): Promise<RssBench> {
  log("memory run: starting PostgreSQL and the production server…");
  const admin = await provideAdminUrl();
  const database = await createTestDatabase(admin.url);
  let server: RunningServer | undefined;
  try {
    server = await startProductionServer({ LOG_LEVEL: BENCH_LOG_LEVEL, DATABASE_URL: database.url }, { keepLogs: "problems" });
    const pid = server.child.pid;
    let sent = 0;
    const samples: RssSample[] = [];
    const tracker = { answered: 0 };
    const sample = () => {
      const rss = rssMiB(pid);
      if (rss !== undefined) samples.push({ requests: tracker.answered, rssMiB: rss });
    };
    sample();
    const timer = setInterval(sample, RSS_SAMPLE_MS);
    const started = Date.now();
    log(`memory run: ${fmt.int(RSS_REQUESTS)} ad clicks at ${CONNECTIONS} connections…`);
    try {
      const result = await runLoad({
        url: server.origin,
        connections: CONNECTIONS,
        amount: RSS_REQUESTS,
        timeout: REQUEST_TIMEOUT_SECONDS,
        headers: { ...PHONE_HEADERS },
        requests: [
          {
            method: "GET",
            setupRequest: (request: AutocannonRequest) => {
              const target = RSS_PATHS[sent % RSS_PATHS.length]!;
              sent += 1;
              // A request is set up when its connection's previous one was answered.
              tracker.answered = Math.max(0, sent - CONNECTIONS);
              return { ...request, path: `${target.path}c${sent.toString(36)}x${Math.random().toString(36).slice(2, 10)}` };
            },
          },
        ],
      });
      tracker.answered = result.requests.total;
      sample();
      const seconds = (Date.now() - started) / 1000;
      if (server.child.exitCode !== null) throw new Error("the server exited during the memory run");
      return { requests: result.requests.total, seconds, errors: result.errors, ...statusCheck(result.statusCodeStats, result.requests.total), samples, ...rssFigures(samples) };
    } finally {
      clearInterval(timer);
    }
  } finally {
    await server?.stop();
    await database.drop();
    await admin.stop();
  }
}
