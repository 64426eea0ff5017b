/**
 * The page side of `npm run bench`: the production server and a bare static baseline serving the
 * landing page's exact bytes, loaded in interleaved rounds (warm-up first, then ROUNDS rounds whose
 * order rotates), with the CPU each process spent per run. Also weighs the landing page's
 * JavaScript from the HTML the app served.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { projectRoot, startProductionServer, type RunningServer } from "../../tools/production-server";
import { createTestDatabase, provideAdminUrl, type TestDatabase } from "../../tools/postgres";
import { BROWSER_USER_AGENT, httpGet } from "../../tools/http-get";
import { measureJsWeight, type JsWeight } from "../../tools/js-weight";
import { startStaticBaseline, type RunningBaseline } from "./bench-baseline";
import { runLoad, type LoadResult, type LoadRun } from "./bench-autocannon";
import { cpuDelta, sampleCpu } from "./bench-cpu";
import { fmt, mean, median, optional, rotate } from "./bench-stats";
import {
  BENCH_LOG_LEVEL,
  CONNECTIONS,
  IN_APP_STATIC_DIR,
  PHONE_HEADERS,
  PAUSE_BETWEEN_RUNS_MS,
  REQUEST_TIMEOUT_SECONDS,
  ROUND_SECONDS,
  ROUNDS,
  TARGETS,
  WARMUP_SECONDS,
  type Target,
  type TargetId,
} from "./bench-options";

export interface RunRecord {
  target: TargetId;
  round: number;
  /** Position inside its round (0-based). */
  slot: number;
  durationSeconds: number;
  completed: number;
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  socketErrors: number;
  timeouts: number;
  unexpectedStatuses: number;
  statusCounts: Record<string, number>;
  bytesPerResponse: number;
  cpu: RunCpu;
}

/** Where the CPU went during one run (Linux; undefined where /proc is unavailable). */
interface RunCpu {
  /** CPU time of the server under load per completed request, in microseconds. */
  serverUsPerRequest: number | undefined;
  /** The server under load, in % of one core. */
  serverPctOfCore: number | undefined;
  /** The load generator (this process, autocannon), in % of one core. */
  loadGeneratorPctOfCore: number;
  /** Processes outside the benchmark, in % of the whole machine. */
  othersPctOfMachine: number | undefined;
}

export interface Aggregate {
  target: TargetId;
  label: string;
  expectedStatus: number;
  meanReqPerSec: number;
  reqPerSecByRound: number[];
  medianP50Ms: number;
  maxP99Ms: number;
  /** Each round's p99, in round order (a slow spell of the machine shows as one high round). */
  p99ByRound: number[];
  /** Socket errors + timeouts + responses with an unexpected status. */
  errors: number;
  socketErrors: number;
  timeouts: number;
  unexpectedStatuses: number;
  completed: number;
  bytesPerResponse: number;
  medianServerUsPerRequest: number | undefined;
  meanServerPctOfCore: number | undefined;
  meanLoadGeneratorPctOfCore: number;
  maxOthersPctOfMachine: number | undefined;
}

export interface Probe {
  target: TargetId;
  status: number;
  bytes: number;
  location?: string;
}

export interface PageBench {
  probes: Probe[];
  runs: RunRecord[];
  aggregates: Aggregate[];
  /** JavaScript of /zipcode. */
  js: JsWeight;
  /** The app's log lines at warn or above during the run. */
  serverWarnings: Array<Record<string, unknown>>;
  /** The LOG_LEVEL the app under load was started with. */
  appLogLevel: string;
}

type CpuDelta = ReturnType<typeof cpuDelta>;
type ServerPids = Record<Target["server"], number | undefined>;

/** Rejects as soon as either server process exits, so a crash mid-run fails the benchmark. */
function crashWatch(app: RunningServer, appNoEvents: RunningServer, baseline: RunningBaseline): { crashed: Promise<never>; cancel(): void } {
  let cancelled = false;
  const watch = (name: string, exited: RunningServer["exited"]) =>
    exited.then(({ code, signal }) => {
      if (!cancelled) throw new Error(`${name} exited during the benchmark (code ${code}, signal ${signal})`);
      return new Promise<never>(() => {});
    });
  const crashed = Promise.race([watch("the app server", app.exited), watch("the app server without events", appNoEvents.exited), watch("the static baseline", baseline.exited)]);
  crashed.catch(() => {}); // observed by whoever races it
  return {
    crashed,
    cancel() {
      cancelled = true;
    },
  };
}

// What is running, so stopPageServers() can stop it from a signal handler or the deadline too.
let currentRun: LoadRun | undefined;
let app: RunningServer | undefined;
let appNoEvents: RunningServer | undefined;
let baseline: RunningBaseline | undefined;
let tempDir: string | undefined;
/** The app servers' PostgreSQL (the database of record in production): their databases, and the server. */
let postgres: { admin: Awaited<ReturnType<typeof provideAdminUrl>>; databases: TestDatabase[] } | undefined;
let inAppStaticDir: string | undefined;
let watch: ReturnType<typeof crashWatch> | undefined;

/** Stops the load, both servers, and removes the files the page benchmark wrote. Safe to repeat. */
export async function stopPageServers(): Promise<void> {
  currentRun?.stop();
  watch?.cancel();
  await Promise.allSettled([app?.stop(), appNoEvents?.stop(), baseline?.stop()]);
  if (postgres) {
    const { admin, databases } = postgres;
    postgres = undefined;
    await Promise.allSettled(databases.map((database) => database.drop()));
    await admin.stop();
  }
  if (tempDir) await rm(tempDir, { recursive: true, force: true });
  if (inAppStaticDir) await rm(inAppStaticDir, { recursive: true, force: true });
}

async function load(origin: string, target: Target, seconds: number, crashed: Promise<never>, pids: ServerPids): Promise<{ result: LoadResult; cpu: CpuDelta }> {
  const before = sampleCpu(pids);
  const run = runLoad({
    url: `${origin}${target.path}`,
    idReplacement: target.path.includes("[<id>]"),
    connections: CONNECTIONS,
    duration: seconds,
    timeout: REQUEST_TIMEOUT_SECONDS,
    headers: target.phone ? { ...PHONE_HEADERS } : { "user-agent": BROWSER_USER_AGENT, accept: "text/html,application/xhtml+xml,*/*;q=0.8" },
  });
  currentRun = run;
  try {
    const result = await Promise.race([Promise.resolve(run), crashed]);
    return { result, cpu: cpuDelta(before, sampleCpu(pids)) };
  } catch (error) {
    run.stop();
    throw error;
  } finally {
    currentRun = undefined;
  }
}

function record(target: Target, round: number, slot: number, result: LoadResult, cpu: CpuDelta): RunRecord {
  const statusCounts: Record<string, number> = {};
  let responses = 0;
  for (const [status, { count }] of Object.entries(result.statusCodeStats)) {
    statusCounts[status] = count;
    responses += count;
  }
  const expected = statusCounts[String(target.expectedStatus)] ?? 0;
  const completed = result.requests.total;
  return {
    target: target.id,
    round,
    slot,
    durationSeconds: result.duration,
    completed,
    reqPerSec: result.duration > 0 ? completed / result.duration : 0,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    maxMs: result.latency.max,
    socketErrors: result.errors - result.timeouts,
    timeouts: result.timeouts,
    unexpectedStatuses: responses - expected,
    statusCounts,
    bytesPerResponse: completed > 0 ? result.throughput.total / completed : 0,
    cpu: runCpu(cpu, cpu.processes[target.server], completed),
  };
}

function runCpu(cpu: CpuDelta, serverMs: number | undefined, completed: number): RunCpu {
  return {
    serverUsPerRequest: serverMs !== undefined && completed > 0 ? (serverMs * 1000) / completed : undefined,
    serverPctOfCore: serverMs !== undefined ? (100 * serverMs) / cpu.wallMs : undefined,
    loadGeneratorPctOfCore: (100 * cpu.selfMs) / cpu.wallMs,
    othersPctOfMachine: cpu.othersMs !== undefined ? (100 * cpu.othersMs) / cpu.capacityMs : undefined,
  };
}

function aggregate(target: Target, runs: RunRecord[]): Aggregate {
  const mine = runs.filter((run) => run.target === target.id).sort((a, b) => a.round - b.round);
  const socketErrors = mine.reduce((sum, run) => sum + run.socketErrors, 0);
  const timeouts = mine.reduce((sum, run) => sum + run.timeouts, 0);
  const unexpectedStatuses = mine.reduce((sum, run) => sum + run.unexpectedStatuses, 0);
  const completed = mine.reduce((sum, run) => sum + run.completed, 0);
  return {
    target: target.id,
    label: target.label,
    expectedStatus: target.expectedStatus,
    meanReqPerSec: mean(mine.map((run) => run.reqPerSec)),
    reqPerSecByRound: mine.map((run) => run.reqPerSec),
    medianP50Ms: median(mine.map((run) => run.p50Ms)),
    maxP99Ms: Math.max(...mine.map((run) => run.p99Ms)),
    p99ByRound: mine.map((run) => run.p99Ms),
    errors: socketErrors + timeouts + unexpectedStatuses,
    socketErrors,
    timeouts,
    unexpectedStatuses,
    completed,
    bytesPerResponse: completed > 0 ? mine.reduce((sum, run) => sum + run.bytesPerResponse * run.completed, 0) / completed : 0,
    medianServerUsPerRequest: optional(mine.map((run) => run.cpu.serverUsPerRequest), median),
    meanServerPctOfCore: optional(mine.map((run) => run.cpu.serverPctOfCore), mean),
    meanLoadGeneratorPctOfCore: mean(mine.map((run) => run.cpu.loadGeneratorPctOfCore)),
    maxOthersPctOfMachine: optional(mine.map((run) => run.cpu.othersPctOfMachine), (values) => Math.max(...values)),
  };
}

/** Runs the page benchmark; the servers are stopped when it returns or fails. */
export async function benchPages(log: (message: string) => void): Promise<PageBench> {
  try {
    // 1. The app as production runs it (LOG_LEVEL=info: one access-log line per request). Its
    //    landing page's exact bytes become the static baselines: a file the app itself serves
    //    (same middleware: the cost of rendering alone) and a bare express.static server.
    log(`starting the production server (LOG_LEVEL=${BENCH_LOG_LEVEL}) to capture the landing page…`);
    const probeServer = await startProductionServer({ LOG_LEVEL: BENCH_LOG_LEVEL }, { keepLogs: "problems" });
    const landing = await httpGet(`${probeServer.origin}/zipcode`);
    await probeServer.stop();
    if (landing.status !== 200) throw new Error(`GET /zipcode answered ${landing.status}, expected 200`);
    inAppStaticDir = path.join(projectRoot, "dist", "client", IN_APP_STATIC_DIR);
    await mkdir(inAppStaticDir, { recursive: true });
    await writeFile(path.join(inAppStaticDir, "zipcode.html"), landing.body);
    // As production runs: PostgreSQL, so the funnel events go where they go there (another process).
    log("starting PostgreSQL for the app servers (TEST_DATABASE_URL, or a throwaway cluster)…");
    const admin = await provideAdminUrl();
    postgres = { admin, databases: [] };
    const databaseUrl = async () => {
      const database = await createTestDatabase(admin.url);
      postgres?.databases.push(database);
      return database.url;
    };
    log("starting the production server for the load…");
    const server = (app = await startProductionServer({ LOG_LEVEL: BENCH_LOG_LEVEL, DATABASE_URL: await databaseUrl() }, { keepLogs: "problems" }));
    log("starting the production server without funnel events (ANALYTICS_EVENTS=off)…");
    const noEvents = (appNoEvents = await startProductionServer({ LOG_LEVEL: BENCH_LOG_LEVEL, ANALYTICS_EVENTS: "off", DATABASE_URL: await databaseUrl() }, { keepLogs: "problems" }));
    tempDir = await mkdtemp(path.join(os.tmpdir(), "bench-static-"));
    const baselineFiles = new Map<string, Buffer>([["index.html", landing.body]]);
    // Each other ad-click page's own bytes, as the app sends them to a client that takes no
    // compression: what issue 12 compares that page with.
    for (const target of TARGETS) {
      if (!target.baseline || baselineFiles.has(target.baseline.file)) continue;
      const page = await httpGet(`${server.origin}${target.path.replace("[<id>]", "baseline")}`);
      if (page.status !== target.expectedStatus) throw new Error(`${target.label} answered ${page.status}, expected ${target.expectedStatus}`);
      baselineFiles.set(target.baseline.file, page.body);
    }
    for (const [file, bytes] of baselineFiles) await writeFile(path.join(tempDir, file), bytes);
    log("starting the static baseline…");
    const bare = (baseline = await startStaticBaseline(tempDir));
    for (const [file, bytes] of baselineFiles) {
      const check = await httpGet(`${bare.origin}/${file === "index.html" ? "" : file}`);
      if (check.status !== 200 || !check.body.equals(bytes)) {
        throw new Error(`the static baseline does not serve ${file}'s bytes (status ${check.status}, ${check.body.length} vs ${bytes.length} bytes)`);
      }
    }
    const origins = { app: server.origin, appNoEvents: noEvents.origin, baseline: bare.origin };
    const pids: ServerPids = { app: server.child.pid, appNoEvents: noEvents.child.pid, baseline: bare.child.pid };

    // 2. One request per target first: wrong statuses are reported (and counted during the load).
    const probes: Probe[] = [];
    for (const target of TARGETS) {
      const response = await httpGet(`${origins[target.server]}${target.path}`);
      const location = typeof response.headers.location === "string" ? response.headers.location : undefined;
      probes.push({ target: target.id, status: response.status, bytes: response.body.length, ...(location ? { location } : {}) });
      if (response.status !== target.expectedStatus) log(`WARNING: ${target.label} answered ${response.status}, expected ${target.expectedStatus}`);
    }

    // JavaScript weight of the landing page, from the HTML the app just served.
    log("measuring the landing page's JavaScript…");
    const js = await measureJsWeight(server.origin, "/zipcode", landing.body.toString("utf8"));

    // 3. Load: warm-up (discarded), then interleaved rounds.
    const crash = (watch = crashWatch(server, noEvents, bare));
    const totalSeconds = TARGETS.length * (WARMUP_SECONDS + ROUNDS * ROUND_SECONDS);
    log(`load: ${CONNECTIONS} connections, warm-up ${WARMUP_SECONDS} s per target, then ${ROUNDS} rounds × ${TARGETS.length} targets × ${ROUND_SECONDS} s (~${totalSeconds} s)…`);
    for (const target of TARGETS) {
      await load(origins[target.server], target, WARMUP_SECONDS, crash.crashed, pids);
      await sleep(PAUSE_BETWEEN_RUNS_MS);
    }
    const runs: RunRecord[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const [slot, target] of rotate(TARGETS, round).entries()) {
        const { result, cpu } = await load(origins[target.server], target, ROUND_SECONDS, crash.crashed, pids);
        const entry = record(target, round + 1, slot, result, cpu);
        runs.push(entry);
        log(`round ${round + 1}/${ROUNDS} ${target.label}: ${fmt.int(entry.reqPerSec)} req/s, p50 ${fmt.ms(entry.p50Ms)} ms, p99 ${fmt.ms(entry.p99Ms)} ms, server ${fmt.maybe(entry.cpu.serverUsPerRequest)} µs CPU/req, other processes ${fmt.maybe(entry.cpu.othersPctOfMachine)}% of machine`);
        await sleep(PAUSE_BETWEEN_RUNS_MS);
      }
    }
    crash.cancel();
    if (server.child.exitCode !== null || noEvents.child.exitCode !== null || bare.child.exitCode !== null) throw new Error("a server exited during the benchmark");

    return {
      probes,
      runs,
      aggregates: TARGETS.map((target) => aggregate(target, runs)),
      js,
      serverWarnings: server.logs.filter((entry) => ["warn", "error", "fatal"].includes(String(entry.level))),
      appLogLevel: server.logLevel,
    };
  } finally {
    // The lead benchmark that follows gets the machine to itself.
    await stopPageServers();
  }
}
