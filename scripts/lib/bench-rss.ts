/**
 * The memory run of `npm run bench` (issues 12 and 34): the production server answers 100,000 ad
 * clicks (a phone's headers, a new `tid` each, spread over the landing page, the quote page, the
 * privacy policy and a 404) twice, one run after the other: on PostgreSQL, as the page servers
 * run, and on the embedded store (a fresh DATA_DIR, no DATABASE_URL), the default a site starts
 * with. Every 500 ms the server's resident set size (VmRSS in /proc/<pid>/status) is sampled, and
 * the database's memory beside it: on the embedded store the RSS (and PSS) of the database process
 * the server forks (decision 033); on PostgreSQL the PSS summed over the cluster's processes (the
 * postmaster and its children: backends, checkpointer, writers), so the pages they share (shared
 * buffers, the binary) count once, not once per process. Targets, for the server process on each
 * store: under 200 MB throughout, and flat: once warm (after the first 10,000 requests) it grows
 * by at most 10 MB to the end and by at most 2 MB per 10,000 requests (least-squares slope over
 * the samples after warm-up). The database's figures and the total are printed beside them.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { childPids, childWithCommandLine, memoryTable, pssMiB, rssFigures, rssMiB, type RssFigures, type RssSample } from "../../tools/rss";
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

export type MemoryStore = "postgresql" | "embedded";
export const STORE_NAMES: Record<MemoryStore, string> = { postgresql: "PostgreSQL", embedded: "embedded" };

/** The database's memory during a run, sampled with the server's. */
export interface DatabaseMemory extends RssFigures {
  /** What the figures are: the PSS summed over PostgreSQL's processes, or the embedded database process's RSS. */
  measure: string;
  /** The most processes one sample summed (1 for the embedded database process). */
  processes: number;
  /** The embedded database process's peak PSS (its RSS less its share of what it shares with others); null on PostgreSQL. */
  pssPeakMiB: number | null;
  samples: RssSample[];
}

/** One store's run; the RssFigures are the server process's RSS. */
export interface RssBench extends RssFigures {
  store: MemoryStore;
  requests: number;
  seconds: number;
  errors: number;
  unexpectedStatuses: number;
  statusCounts: Record<string, number>;
  samples: RssSample[];
  /** Null when the database's processes could not be found (a TEST_DATABASE_URL on another machine). */
  database: DatabaseMemory | null;
  /** The background worker process's RSS (decision 034; idle here: no buyers), null when it was not found. */
  background: RssFigures | null;
  /** The highest server + background + database figure of one sample; null without database figures. */
  totalPeakMiB: number | null;
}

/** Both runs of the memory run. */
export interface RssRuns {
  postgresql: RssBench;
  embedded: RssBench;
}

/**
 * The server process's verdicts on each store. PostgreSQL's keep the names they had before the
 * embedded run was added, so earlier results files still compare.
 */
export function rssVerdicts(runs: RssRuns): Verdict[] {
  return [...storeVerdicts(runs.postgresql, ""), ...storeVerdicts(runs.embedded, " (embedded store)")];
}

function storeVerdicts(rss: RssBench, label: string): Verdict[] {
  const growth = rss.endMiB - rss.afterWarmupMiB;
  return [
    { name: `RSS over ${fmt.int(rss.requests)} ad clicks${label}: peak`, target: `< ${RSS_BUDGET.maxMiB} MB`, actual: `${rss.peakMiB.toFixed(1)} MB`, pass: rss.peakMiB < RSS_BUDGET.maxMiB },
    {
      name: `RSS flat after warm-up${label} (end − after warm-up; slope)`,
      target: `≤ ${RSS_BUDGET.growthMiB} MB; ≤ ${RSS_BUDGET.slopeMiBPer10k} MB/10k`,
      actual: `${growth.toFixed(1)} MB; ${rss.slopeMiBPer10k.toFixed(2)} MB/10k`,
      pass: growth <= RSS_BUDGET.growthMiB && rss.slopeMiBPer10k <= RSS_BUDGET.slopeMiBPer10k,
    },
    { name: `RSS run${label}: errors and unexpected statuses`, target: "0", actual: String(rss.errors + rss.unexpectedStatuses), pass: rss.errors + rss.unexpectedStatuses === 0 },
  ];
}

const mb = (value: number | null | undefined) => (value === null || value === undefined ? "n/a" : value.toFixed(1));

/** The printed report: both stores side by side, server and database, then how to read them. */
export function rssReport(runs: RssRuns): string[] {
  const stores = [runs.postgresql, runs.embedded];
  const rows = stores.map((rss) => ({
    store: STORE_NAMES[rss.store],
    server: rss,
    database: rss.database,
    totalPeakMiB: rss.totalPeakMiB,
    seconds: rss.seconds,
    errors: rss.errors + rss.unexpectedStatuses,
  }));
  const lines = [
    `Memory: ${fmt.int(RSS_REQUESTS)} ad clicks on each store in turn (phone headers, a new tid each; /zipcode, /?zip, /privacy-policy, a 404 in turn), ${CONNECTIONS} connections; MB sampled every ${RSS_SAMPLE_MS} ms`,
    ...memoryTable(rows).map((line) => `  ${line}`),
    `  server: the site's process, RSS; flat means end − after warm-up ≤ ${RSS_BUDGET.growthMiB} MB and slope ≤ ${RSS_BUDGET.slopeMiBPer10k} MB/10k (least squares after warm-up)`,
  ];
  for (const rss of stores) {
    const database = rss.database;
    const name = STORE_NAMES[rss.store];
    if (!database) lines.push(`  database (${name}): not measured (its processes are not on this machine)`);
    else {
      const pss = database.pssPeakMiB === null ? "" : `; its PSS peaked at ${mb(database.pssPeakMiB)} MB`;
      lines.push(`  database (${name}): ${database.measure}${database.processes > 1 ? `, up to ${database.processes} processes` : ""}; slope ${database.slopeMiBPer10k.toFixed(2)} MB/10k${pss}`);
    }
  }
  for (const rss of stores) {
    const background = rss.background;
    lines.push(`  background worker (${STORE_NAMES[rss.store]}): ${background ? `RSS start ${mb(background.startMiB)} MB, peak ${mb(background.peakMiB)} MB, end ${mb(background.endMiB)} MB (no buyers here: it waits)` : "not found"}`);
  }
  lines.push(`  total: server RSS + background worker RSS + database, per sample; the highest sample (not a verdict)`);
  for (const rss of stores) lines.push(`  ${STORE_NAMES[rss.store]}: ${fmt.int(rss.requests)} requests, statuses ${JSON.stringify(rss.statusCounts)}, errors ${rss.errors}, ${rss.samples.length} samples`);
  return lines;
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


/** Reads the database's memory at one moment; undefined when it cannot. */
interface DatabaseProbe {
  measure: string;
  read(): { mib: number; pssMiB: number | null; processes: number } | undefined;
}

/**
 * The PostgreSQL cluster behind `databaseUrl`, when it runs on this machine: its postmaster's pid
 * is the first line of postmaster.pid in its data directory. Undefined otherwise.
 */
async function postgresProbe(databaseUrl: string): Promise<DatabaseProbe | undefined> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 10_000 });
  let postmaster: number | undefined;
  try {
    await client.connect();
    const { rows } = await client.query<{ data_directory: string }>("SHOW data_directory");
    const dataDirectory = rows[0]?.data_directory;
    if (dataDirectory) postmaster = Number(readFileSync(path.join(dataDirectory, "postmaster.pid"), "utf8").split("\n")[0]);
  } catch {
    postmaster = undefined; // another machine's cluster, or a data directory we may not read
  } finally {
    await client.end().catch(() => {});
  }
  if (!postmaster || !Number.isInteger(postmaster) || pssMiB(postmaster) === undefined) return undefined;
  const pid = postmaster;
  return {
    measure: "PSS summed over the cluster's processes (the postmaster and its children)",
    read() {
      const own = pssMiB(pid);
      if (own === undefined) return undefined;
      let mib = own;
      let processes = 1;
      for (const child of childPids(pid)) {
        const pss = pssMiB(child);
        if (pss === undefined) continue; // ended between the listing and the reading
        mib += pss;
        processes += 1;
      }
      return { mib, pssMiB: null, processes };
    },
  };
}

/**
 * The embedded store's database process: the pid in the server's `embedded_database_started`
 * line (logged before `server_started`, so kept whatever keepLogs says), or the server's child
 * after a restart.
 */
function embeddedProbe(server: RunningServer): DatabaseProbe {
  const logged = server.logs.findLast((entry) => entry.event === "embedded_database_started")?.pid;
  let pid = typeof logged === "number" ? logged : undefined;
  return {
    measure: "RSS of the database process",
    read() {
      let rss = rssMiB(pid);
      if (rss === undefined && server.child.pid !== undefined) {
        pid = childPids(server.child.pid)[0];
        rss = rssMiB(pid);
      }
      if (rss === undefined) return undefined;
      return { mib: rss, pssMiB: pssMiB(pid) ?? null, processes: 1 };
    },
  };
}

/** 100,000 ad clicks against a running server, its RSS and the database's sampled meanwhile. */
async function measureRun(log: (message: string) => void, store: MemoryStore, server: RunningServer, probe: DatabaseProbe | undefined): Promise<RssBench> {
  const pid = server.child.pid;
  let sent = 0;
  const samples: RssSample[] = [];
  const databaseSamples: RssSample[] = [];
  const backgroundSamples: RssSample[] = [];
  const backgroundPid = childWithCommandLine(pid, "background.js");
  let processes = 0;
  let pssPeakMiB: number | null = null;
  let totalPeakMiB: number | null = null;
  const tracker = { answered: 0 };
  const sample = () => {
    const rss = rssMiB(pid);
    const database = probe?.read();
    const background = backgroundPid === undefined ? undefined : rssMiB(backgroundPid);
    if (rss !== undefined) samples.push({ requests: tracker.answered, rssMiB: rss });
    if (background !== undefined) backgroundSamples.push({ requests: tracker.answered, rssMiB: background });
    if (database) {
      databaseSamples.push({ requests: tracker.answered, rssMiB: database.mib });
      processes = Math.max(processes, database.processes);
      if (database.pssMiB !== null) pssPeakMiB = Math.max(pssPeakMiB ?? 0, database.pssMiB);
      if (rss !== undefined) totalPeakMiB = Math.max(totalPeakMiB ?? 0, rss + (background ?? 0) + database.mib);
    }
  };
  sample();
  const timer = setInterval(sample, RSS_SAMPLE_MS);
  const started = Date.now();
  log(`memory run (${STORE_NAMES[store]}): ${fmt.int(RSS_REQUESTS)} ad clicks at ${CONNECTIONS} connections…`);
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
    if (server.child.exitCode !== null) throw new Error(`the server exited during the memory run (${STORE_NAMES[store]})`);
    const database: DatabaseMemory | null =
      probe && databaseSamples.length > 0 ? { measure: probe.measure, processes, pssPeakMiB, samples: databaseSamples, ...rssFigures(databaseSamples) } : null;
    return {
      store,
      requests: result.requests.total,
      seconds,
      errors: result.errors,
      ...statusCheck(result.statusCodeStats, result.requests.total),
      samples,
      ...rssFigures(samples),
      database,
      background: backgroundSamples.length > 0 ? rssFigures(backgroundSamples) : null,
      totalPeakMiB,
    };
  } finally {
    clearInterval(timer);
  }
}

/** On PostgreSQL: a throwaway cluster (or TEST_DATABASE_URL) and a database of its own. */
async function benchRssPostgres(log: (message: string) => void): Promise<RssBench> {
  log("memory run: starting PostgreSQL and the production server…");
  const admin = await provideAdminUrl();
  const database = await createTestDatabase(admin.url);
  let server: RunningServer | undefined;
  try {
    server = await startProductionServer({ LOG_LEVEL: BENCH_LOG_LEVEL, DATABASE_URL: database.url }, { keepLogs: "problems" });
    const probe = await postgresProbe(database.url);
    if (!probe) log("memory run: PostgreSQL's processes are not on this machine; its memory is not measured");
    return await measureRun(log, "postgresql", server, probe);
  } finally {
    await server?.stop();
    await database.drop();
    await admin.stop();
  }
}

/** On the embedded store: a fresh DATA_DIR (startProductionServer's own), so the first start creates the database. */
async function benchRssEmbedded(log: (message: string) => void): Promise<RssBench> {
  log("memory run: starting the production server on the embedded store (a new database)…");
  // A DATABASE_URL in the caller's shell would put this run on PostgreSQL; the child's environment is built before the first await.
  const inherited = process.env.DATABASE_URL;
  delete process.env.DATABASE_URL;
  const starting = startProductionServer({ LOG_LEVEL: BENCH_LOG_LEVEL }, { keepLogs: "problems", timeoutMs: 120_000 });
  if (inherited !== undefined) process.env.DATABASE_URL = inherited;
  const server = await starting;
  try {
    const probe = embeddedProbe(server);
    if (probe.read() === undefined) throw new Error("the embedded database process was not found (no embedded_database_started line, no child of the server)");
    return await measureRun(log, "embedded", server, probe);
  } finally {
    await server.stop();
  }
}

/** Runs the memory run on PostgreSQL, then on the embedded store, each against its own server (stopped before returning). */
export async function benchRss(log: (message: string) => void): Promise<RssRuns> {
  const postgresql = await benchRssPostgres(log);
  const embedded = await benchRssEmbedded(log);
  return { postgresql, embedded };
}
