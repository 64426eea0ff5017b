/**
 * `npm run bench`: throughput and latency of the production build against a bare static-file
 * baseline, plus the JavaScript weight of the landing page. A report, not a test: a MISS still
 * exits 0; only a broken benchmark (a server that will not start or dies, a failed fetch) exits 1.
 *
 * One run, interleaved: after a warm-up, ROUNDS rounds each load every target for ROUND_SECONDS
 * (the order rotates per round), so drift on the machine (thermal, other processes, JIT) spreads
 * over all targets instead of landing on one. Per target: mean req/s over rounds, median p50,
 * worst p99. Results are also written to bench-results/latest.json.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { projectRoot, type RunningServer } from "./lib/production-server";
import { startProductionServer } from "./lib/production-server";
import { startStaticBaseline, type RunningBaseline } from "./lib/bench-baseline";
import { runLoad, type LoadResult, type LoadRun } from "./lib/bench-autocannon";
import { BROWSER_USER_AGENT, httpGet } from "./lib/bench-http";
import { JS_GZIP_LEVEL, measureJsWeight, type JsWeight } from "./lib/bench-js-weight";
import { cpuDelta, sampleCpu } from "./lib/bench-cpu";
import { benchLeads, LEAD_CONNECTIONS, type LeadBench } from "./lib/bench-leads";

const CONNECTIONS = 50;
const ROUNDS = 3;
const ROUND_SECONDS = 5;
const WARMUP_SECONDS = 2;
const PAUSE_BETWEEN_RUNS_MS = 250;
/** Per-request timeout inside autocannon; a timeout counts as an error. */
const REQUEST_TIMEOUT_SECONDS = 10;
/** Hard stop for the whole benchmark, whatever happens. */
const OVERALL_DEADLINE_MS = 5 * 60_000;

const TARGETS_BUDGET = {
  ssrToStaticRatio: 0.8,
  p99Ms: 100,
  landingJsGzipBytes: 100 * 1024,
  leadsPerSecondOnPostgres: 300,
  formJsGzipBytes: 35 * 1024,
} as const;

type TargetId = "ssr" | "ssrRender" | "staticInApp" | "static" | "go" | "notFound";

interface Target {
  id: TargetId;
  label: string;
  /** Which server: the app, or the static baseline. */
  server: "app" | "baseline";
  path: string;
  expectedStatus: number;
}

/** Where the app serves the landing page's bytes as a plain file, through its whole middleware stack. */
const IN_APP_STATIC_DIR = "__bench__";
const IN_APP_STATIC_PATH = `/${IN_APP_STATIC_DIR}/zipcode.html`;

const TARGETS: Target[] = [
  { id: "ssr", label: "SSR /zipcode?sid=a1&tid=b2", server: "app", path: "/zipcode?sid=a1&tid=b2", expectedStatus: 200 },
  // autocannon replaces [<id>] with a new id per request: every request is a fresh React render
  // (a visitor with a unique click id), never a page-cache hit.
  { id: "ssrRender", label: "SSR /zipcode, unique tid each", server: "app", path: "/zipcode?sid=a1&tid=[<id>]", expectedStatus: 200 },
  { id: "staticInApp", label: "static in app (same HTML)", server: "app", path: IN_APP_STATIC_PATH, expectedStatus: 200 },
  { id: "static", label: "static bare (same HTML)", server: "baseline", path: "/", expectedStatus: 200 },
  { id: "go", label: "/go?zip=90210&sid=a1&tid=b2", server: "app", path: "/go?zip=90210&sid=a1&tid=b2", expectedStatus: 303 },
  { id: "notFound", label: "404 /no-such-page", server: "app", path: "/no-such-page", expectedStatus: 404 },
];

interface RunRecord {
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

interface Aggregate {
  target: TargetId;
  label: string;
  expectedStatus: number;
  meanReqPerSec: number;
  reqPerSecByRound: number[];
  medianP50Ms: number;
  maxP99Ms: number;
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

interface Verdict {
  name: string;
  target: string;
  actual: string;
  pass: boolean;
}

// ---------------------------------------------------------------------------------------------

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function definedOnly(values: Array<number | undefined>): number[] | undefined {
  return values.every((value): value is number => value !== undefined) ? values : undefined;
}

function mean(values: number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length;
}

function rotate<T>(items: T[], by: number): T[] {
  const shift = by % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

const fmt = {
  int: (value: number) => Math.round(value).toLocaleString("en-US"),
  ms: (value: number) => (Number.isFinite(value) ? value.toFixed(value < 10 ? 1 : 0) : "n/a"),
  maybe: (value: number | undefined, digits = 0) => (value === undefined || !Number.isFinite(value) ? "n/a" : value.toFixed(digits)),
  kb: (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`,
};

function table(headers: string[], rows: string[][], rightAligned: boolean[]): string {
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => (row[column] ?? "").length)));
  const line = (cells: string[]) =>
    cells.map((cell, column) => (rightAligned[column] ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!))).join("  ");
  return [line(headers), widths.map((width) => "-".repeat(width)).join("  "), ...rows.map(line)].join("\n");
}

// ---------------------------------------------------------------------------------------------

/** Rejects as soon as either server process exits, so a crash mid-run fails the benchmark. */
function crashWatch(app: RunningServer, baseline: RunningBaseline): { crashed: Promise<never>; cancel(): void } {
  let cancelled = false;
  const watch = (name: string, exited: RunningServer["exited"]) =>
    exited.then(({ code, signal }) => {
      if (!cancelled) throw new Error(`${name} exited during the benchmark (code ${code}, signal ${signal})`);
      return new Promise<never>(() => {});
    });
  const crashed = Promise.race([watch("the app server", app.exited), watch("the static baseline", baseline.exited)]);
  crashed.catch(() => {}); // observed by whoever races it
  return {
    crashed,
    cancel() {
      cancelled = true;
    },
  };
}

let currentRun: LoadRun | undefined;

type ServerPids = Record<Target["server"], number | undefined>;

async function load(
  origin: string,
  target: Target,
  seconds: number,
  crashed: Promise<never>,
  pids: ServerPids,
): Promise<{ result: LoadResult; cpu: ReturnType<typeof cpuDelta> }> {
  const before = sampleCpu(pids);
  const run = runLoad({
    url: `${origin}${target.path}`,
    idReplacement: target.path.includes("[<id>]"),
    connections: CONNECTIONS,
    duration: seconds,
    timeout: REQUEST_TIMEOUT_SECONDS,
    headers: { "user-agent": BROWSER_USER_AGENT, accept: "text/html,application/xhtml+xml,*/*;q=0.8" },
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

function record(target: Target, round: number, slot: number, result: LoadResult, cpu: ReturnType<typeof cpuDelta>): RunRecord {
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

function runCpu(cpu: ReturnType<typeof cpuDelta>, serverMs: number | undefined, completed: number): RunCpu {
  return {
    serverUsPerRequest: serverMs !== undefined && completed > 0 ? (serverMs * 1000) / completed : undefined,
    serverPctOfCore: serverMs !== undefined ? (100 * serverMs) / cpu.wallMs : undefined,
    loadGeneratorPctOfCore: (100 * cpu.selfMs) / cpu.wallMs,
    othersPctOfMachine: cpu.othersMs !== undefined ? (100 * cpu.othersMs) / cpu.capacityMs : undefined,
  };
}

function optional(values: Array<number | undefined>, reduce: (values: number[]) => number): number | undefined {
  const defined = definedOnly(values);
  return defined ? reduce(defined) : undefined;
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

// ---------------------------------------------------------------------------------------------

interface Probe {
  target: TargetId;
  status: number;
  bytes: number;
  location?: string;
}

async function main(): Promise<number> {
  const startedAt = new Date();
  const loadAverageAtStart = os.loadavg();
  const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);
  let app: RunningServer | undefined;
  let baseline: RunningBaseline | undefined;
  let tempDir: string | undefined;
  let inAppStaticDir: string | undefined;
  let watch: ReturnType<typeof crashWatch> | undefined;

  const cleanup = async () => {
    currentRun?.stop();
    watch?.cancel();
    await Promise.allSettled([app?.stop(), baseline?.stop()]);
    if (tempDir) await rm(tempDir, { recursive: true, force: true });
    if (inAppStaticDir) await rm(inAppStaticDir, { recursive: true, force: true });
  };

  // Interrupted (Ctrl-C, a CI cancel): stop both servers before going.
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      log(`interrupted by ${signal}; stopping the servers`);
      void cleanup().finally(() => process.exit(1));
    });
  }

  const deadline = setTimeout(() => {
    log(`FAILED: the benchmark exceeded its ${OVERALL_DEADLINE_MS / 1000} s deadline`);
    void cleanup().finally(() => process.exit(1));
  }, OVERALL_DEADLINE_MS);
  deadline.unref();

  try {
    // 1. The app as production runs it (LOG_LEVEL=info: one access-log line per request). Its
    //    landing page's exact bytes become the static baselines: a file the app itself serves
    //    (same middleware: the cost of rendering alone) and a bare express.static server.
    log("starting the production server (LOG_LEVEL=info) to capture the landing page…");
    const probeServer = await startProductionServer({ LOG_LEVEL: "info" }, { keepLogs: "problems" });
    const landing = await httpGet(`${probeServer.origin}/zipcode`);
    await probeServer.stop();
    if (landing.status !== 200) throw new Error(`GET /zipcode answered ${landing.status}, expected 200`);
    inAppStaticDir = path.join(projectRoot, "dist", "client", IN_APP_STATIC_DIR);
    await mkdir(inAppStaticDir, { recursive: true });
    await writeFile(path.join(inAppStaticDir, "zipcode.html"), landing.body);
    log("starting the production server for the load…");
    app = await startProductionServer({ LOG_LEVEL: "info" }, { keepLogs: "problems" });
    tempDir = await mkdtemp(path.join(os.tmpdir(), "bench-static-"));
    await writeFile(path.join(tempDir, "index.html"), landing.body);
    log("starting the static baseline…");
    baseline = await startStaticBaseline(tempDir);
    const baselineCheck = await httpGet(`${baseline.origin}/`);
    if (baselineCheck.status !== 200 || !baselineCheck.body.equals(landing.body)) {
      throw new Error(`the static baseline does not serve /zipcode's bytes (status ${baselineCheck.status}, ${baselineCheck.body.length} vs ${landing.body.length} bytes)`);
    }
    const origins = { app: app.origin, baseline: baseline.origin };
    const pids: ServerPids = { app: app.child.pid, baseline: baseline.child.pid };

    // One request per target first: wrong statuses are reported (and counted during the load).
    const probes: Probe[] = [];
    for (const target of TARGETS) {
      const response = await httpGet(`${origins[target.server]}${target.path}`);
      const location = typeof response.headers.location === "string" ? response.headers.location : undefined;
      probes.push({ target: target.id, status: response.status, bytes: response.body.length, ...(location ? { location } : {}) });
      if (response.status !== target.expectedStatus) {
        log(`WARNING: ${target.label} answered ${response.status}, expected ${target.expectedStatus}`);
      }
    }

    // JavaScript weight of the landing page, from the HTML the app just served.
    log("measuring the landing page's JavaScript…");
    const js = await measureJsWeight(app.origin, "/zipcode", landing.body.toString("utf8"));

    // 3. Load: warm-up (discarded), then interleaved rounds.
    watch = crashWatch(app, baseline);
    const totalSeconds = TARGETS.length * (WARMUP_SECONDS + ROUNDS * ROUND_SECONDS);
    log(`load: ${CONNECTIONS} connections, warm-up ${WARMUP_SECONDS} s per target, then ${ROUNDS} rounds × ${TARGETS.length} targets × ${ROUND_SECONDS} s (~${totalSeconds} s)…`);
    for (const target of TARGETS) {
      await load(origins[target.server], target, WARMUP_SECONDS, watch.crashed, pids);
      await sleep(PAUSE_BETWEEN_RUNS_MS);
    }
    const runs: RunRecord[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const order = rotate(TARGETS, round);
      for (const [slot, target] of order.entries()) {
        const { result, cpu } = await load(origins[target.server], target, ROUND_SECONDS, watch.crashed, pids);
        const entry = record(target, round + 1, slot, result, cpu);
        runs.push(entry);
        log(`round ${round + 1}/${ROUNDS} ${target.label}: ${fmt.int(entry.reqPerSec)} req/s, p50 ${fmt.ms(entry.p50Ms)} ms, p99 ${fmt.ms(entry.p99Ms)} ms, server ${fmt.maybe(entry.cpu.serverUsPerRequest)} µs CPU/req, other processes ${fmt.maybe(entry.cpu.othersPctOfMachine)}% of machine`);
        await sleep(PAUSE_BETWEEN_RUNS_MS);
      }
    }
    watch.cancel();
    if (app.child.exitCode !== null || baseline.child.exitCode !== null) throw new Error("a server exited during the benchmark");

    const aggregates = TARGETS.map((target) => aggregate(target, runs));
    const byId = (id: TargetId) => aggregates.find((entry) => entry.target === id)!;
    const ssr = byId("ssr");
    const ssrRender = byId("ssrRender");
    // The target compares like with like: the same bytes as a file through the same app.
    const staticBaseline = byId("staticInApp");
    const bareBaseline = byId("static");
    const ratio = ssr.meanReqPerSec / staticBaseline.meanReqPerSec;
    const ratios = {
      cachedVsInApp: ratio,
      cachedVsBare: ssr.meanReqPerSec / bareBaseline.meanReqPerSec,
      renderVsInApp: ssrRender.meanReqPerSec / staticBaseline.meanReqPerSec,
      renderVsBare: ssrRender.meanReqPerSec / bareBaseline.meanReqPerSec,
    };
    // Server CPU per request is barely affected by who else uses the machine: its inverse ratio is
    // what the req/s ratio would be if each server had a core of its own and a faster load generator.
    const cpuRatio =
      ssr.medianServerUsPerRequest !== undefined && staticBaseline.medianServerUsPerRequest !== undefined
        ? staticBaseline.medianServerUsPerRequest / ssr.medianServerUsPerRequest
        : undefined;
    const appAggregates = aggregates.filter((entry) => entry.target !== "static");
    const appErrors = appAggregates.reduce((sum, entry) => sum + entry.errors, 0);

    const verdicts: Verdict[] = [
      {
        name: "SSR /zipcode req/s ≥ 0.8 × the same HTML as a static file in the app",
        target: `≥ ${TARGETS_BUDGET.ssrToStaticRatio.toFixed(2)}×`,
        actual: `${ratio.toFixed(2)}× (${fmt.int(ssr.meanReqPerSec)} vs ${fmt.int(staticBaseline.meanReqPerSec)} req/s)`,
        pass: ratio >= TARGETS_BUDGET.ssrToStaticRatio,
      },
      {
        name: "zero errors (app targets: socket errors, timeouts, unexpected statuses)",
        target: "0",
        actual: `${fmt.int(appErrors)} of ${fmt.int(appAggregates.reduce((sum, entry) => sum + entry.completed, 0))} requests`,
        pass: appErrors === 0,
      },
      ...appAggregates.map((entry) => ({
        name: `p99 < ${TARGETS_BUDGET.p99Ms} ms at ${CONNECTIONS} connections — ${entry.label}`,
        target: `< ${TARGETS_BUDGET.p99Ms} ms`,
        actual: `${fmt.ms(entry.maxP99Ms)} ms (worst round)`,
        pass: entry.maxP99Ms < TARGETS_BUDGET.p99Ms,
      })),
      {
        name: "landing JS at page load ≤ 100 KiB gzip (level 9)",
        target: `≤ ${fmt.int(TARGETS_BUDGET.landingJsGzipBytes)} B`,
        actual: `${fmt.int(js.atLoad.gzipBytes)} B (${fmt.kb(js.atLoad.gzipBytes)})`,
        pass: js.atLoad.gzipBytes <= TARGETS_BUDGET.landingJsGzipBytes,
      },
    ];

    const serverWarnings = app.logs.filter((entry) => ["warn", "error", "fatal"].includes(String(entry.level)));

    // 4. Quote requests: the page servers go first, so the lead load has the machine to itself.
    await cleanup();
    const leads = await benchLeads(log);
    verdicts.push(...leadVerdicts(leads));
    const environment = {
      node: process.version,
      platform: `${os.platform()} ${os.release()} ${os.arch()}`,
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? "unknown",
      totalMemoryMiB: Math.round(os.totalmem() / 1024 / 1024),
      loadAverageAtStart,
      loadAverageAtEnd: os.loadavg(),
    };

    printReport({ startedAt, environment, probes, aggregates, runs, ratio, ratios, cpuRatio, verdicts, js, serverWarnings, leads });

    const json = {
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      environment,
      settings: {
        connections: CONNECTIONS,
        rounds: ROUNDS,
        roundSeconds: ROUND_SECONDS,
        warmupSecondsPerTarget: WARMUP_SECONDS,
        requestTimeoutSeconds: REQUEST_TIMEOUT_SECONDS,
        appLogLevel: "warn",
        productionLogLevel: "info",
        acceptEncoding: "none",
        userAgent: BROWSER_USER_AGENT,
        gzipLevel: JS_GZIP_LEVEL,
        order: "rotated by one target each round",
      },
      targets: TARGETS,
      probes,
      aggregates,
      runs,
      ssrToStaticRatio: ratio,
      ratios,
      ssrToStaticCpuPerRequestRatio: cpuRatio ?? null,
      javascript: js,
      leads,
      verdicts,
      serverWarnings: serverWarnings.slice(0, 50),
    };
    const outDir = path.join(projectRoot, "bench-results");
    await mkdir(outDir, { recursive: true });
    const outFile = path.join(outDir, "latest.json");
    await writeFile(outFile, `${JSON.stringify(json, null, 2)}\n`);
    process.stdout.write(`\nResults written to ${path.relative(process.cwd(), outFile) || outFile}\n`);
    return 0;
  } finally {
    clearTimeout(deadline);
    await cleanup();
  }
}

// ---------------------------------------------------------------------------------------------

function printReport(report: {
  startedAt: Date;
  environment: { node: string; cpus: number; cpuModel: string; platform: string; loadAverageAtStart: number[]; loadAverageAtEnd: number[] };
  probes: Probe[];
  aggregates: Aggregate[];
  runs: RunRecord[];
  ratio: number;
  ratios: Record<"cachedVsInApp" | "cachedVsBare" | "renderVsInApp" | "renderVsBare", number>;
  cpuRatio: number | undefined;
  verdicts: Verdict[];
  js: JsWeight;
  serverWarnings: Array<Record<string, unknown>>;
  leads: LeadBench;
}): void {
  const { environment, aggregates, runs, ratios, cpuRatio, verdicts, js, probes } = report;
  const out: string[] = [];
  const rule = "=".repeat(100);
  out.push("", rule, "BENCHMARK REPORT — production build vs express.static baselines", rule);
  out.push(
    `When:     ${report.startedAt.toISOString()}`,
    `Machine:  ${environment.cpus} CPU core(s), ${environment.cpuModel}; ${environment.platform}; Node ${environment.node}`,
    `Load:     autocannon (programmatic), ${CONNECTIONS} connections, loopback 127.0.0.1, keep-alive, no pipelining`,
    `Schedule: warm-up ${WARMUP_SECONDS} s per target (discarded), then ${ROUNDS} interleaved rounds × ${ROUND_SECONDS} s per target,`,
    `          order rotated each round; aggregate = mean req/s, median of p50, max of p99 across rounds`,
    "",
    "Caveats:",
    `  - autocannon, the app server and the baseline all share these ${environment.cpus} core(s): absolute req/s are lower`,
    "    (and latencies higher) than with a separate load generator; the SSR/static ratio is the meaningful figure.",
    "  - The app runs as in production, LOG_LEVEL=info: one JSON access-log line per request (plus campaign_hit",
    "    on the SSR targets), written to a pipe this process drains.",
    "  - SSR /zipcode?sid=a1&tid=b2 repeats one address, so after the first render it is served from the page",
    "    cache (server/page-cache.ts); 'unique tid each' gives every request a new address: a full React render,",
    "    as for ad visitors whose click ids are unique.",
    `  - 'static in app' is the landing page's bytes as a file under ${IN_APP_STATIC_PATH}, served by the app's`,
    "    express.static through the same middleware (request id, access log, helmet, compression): the target's",
    "    baseline. 'static bare' is the same bytes from a bare Express 5 express.static in its own process.",
    "  - Requests carry a desktop Chrome User-Agent (the app streams for browsers) and no Accept-Encoding, so neither",
    "    server compresses; real browsers get gzip from the app, which costs it extra CPU per response.",
    "  - Latencies are recorded at 1 ms resolution.",
  );

  out.push("", "Probe (one request each before the load):");
  out.push(
    table(
      ["target", "status", "expected", "body bytes", "location"],
      probes.map((probe) => {
        const target = TARGETS.find((entry) => entry.id === probe.target)!;
        return [target.label, String(probe.status), String(target.expectedStatus), fmt.int(probe.bytes), probe.location ?? ""];
      }),
      [false, true, true, true, false],
    ),
  );

  out.push("", `Results (${ROUNDS} rounds × ${ROUND_SECONDS} s, ${CONNECTIONS} connections):`);
  out.push(
    table(
      ["target", "req/s", "p50 ms", "p99 ms", "errors", "requests", "bytes/resp", "status", "srv µs CPU/req", "srv CPU", "gen CPU", "others"],
      aggregates.map((entry) => [
        entry.label,
        fmt.int(entry.meanReqPerSec),
        fmt.ms(entry.medianP50Ms),
        fmt.ms(entry.maxP99Ms),
        fmt.int(entry.errors),
        fmt.int(entry.completed),
        fmt.int(entry.bytesPerResponse),
        String(entry.expectedStatus),
        fmt.maybe(entry.medianServerUsPerRequest),
        `${fmt.maybe(entry.meanServerPctOfCore)}%`,
        `${fmt.maybe(entry.meanLoadGeneratorPctOfCore)}%`,
        `${fmt.maybe(entry.maxOthersPctOfMachine)}%`,
      ]),
      [false, true, true, true, true, true, true, true, true, true, true, true],
    ),
  );
  out.push(
    "  bytes/resp = response bytes incl. headers; status = the expected one; srv µs CPU/req = median over rounds of the",
    "  serving process's CPU time per request; srv CPU / gen CPU = server / load generator (autocannon) in % of one",
    "  core; others = worst share of the whole machine used by processes outside the benchmark during a run.",
  );
  out.push(
    "",
    "Ratios of req/s (SSR ÷ static):",
    `  SSR, same address (page cache)   ÷ static file in the app: ${ratios.cachedVsInApp.toFixed(2)}×   (the target)`,
    `  SSR, same address (page cache)   ÷ bare express.static:    ${ratios.cachedVsBare.toFixed(2)}×`,
    `  SSR, unique tid (React renders)  ÷ static file in the app: ${ratios.renderVsInApp.toFixed(2)}×`,
    `  SSR, unique tid (React renders)  ÷ bare express.static:    ${ratios.renderVsBare.toFixed(2)}×`,
  );
  if (cpuRatio !== undefined) {
    out.push(`  target ratio by server CPU per request: ${cpuRatio.toFixed(2)}×  (the req/s ratio with a core each and an unsaturated load generator)`);
  }
  const busiest = Math.max(...aggregates.map((entry) => entry.maxOthersPctOfMachine ?? 0));
  if (busiest >= 10) {
    out.push(`WARNING: other processes used up to ${busiest.toFixed(0)}% of the machine during a run: req/s and latencies are disturbed; prefer the CPU-per-request figures and re-run on a quiet machine.`);
  }
  const saturated = aggregates.filter((entry) => entry.meanLoadGeneratorPctOfCore >= 90).map((entry) => entry.label);
  if (saturated.length > 0) {
    out.push(`NOTE: the load generator used ≥ 90% of a core for: ${saturated.join("; ")}. Those req/s are a floor, bounded by autocannon rather than the server.`);
  }
  const errorDetail = aggregates.filter((entry) => entry.errors > 0);
  if (errorDetail.length > 0) {
    out.push("Errors by kind:");
    for (const entry of errorDetail) {
      const statuses = runs
        .filter((run) => run.target === entry.target)
        .flatMap((run) => Object.entries(run.statusCounts))
        .filter(([status]) => status !== String(entry.expectedStatus))
        .reduce<Record<string, number>>((acc, [status, count]) => ({ ...acc, [status]: (acc[status] ?? 0) + count }), {});
      out.push(`  ${entry.label}: socket errors ${entry.socketErrors}, timeouts ${entry.timeouts}, unexpected statuses ${JSON.stringify(statuses)}`);
    }
  } else {
    out.push("Errors: none (no socket errors, no timeouts, every status as expected).");
  }

  out.push("", "Per round (req/s | p50 ms | p99 ms | server µs CPU/req | others % of machine):");
  out.push(
    table(
      ["target", ...Array.from({ length: ROUNDS }, (_, index) => `round ${index + 1}`)],
      aggregates.map((entry) => [
        entry.label,
        ...runs
          .filter((run) => run.target === entry.target)
          .sort((a, b) => a.round - b.round)
          .map((run) => `${fmt.int(run.reqPerSec)} | ${fmt.ms(run.p50Ms)} | ${fmt.ms(run.p99Ms)} | ${fmt.maybe(run.cpu.serverUsPerRequest)} | ${fmt.maybe(run.cpu.othersPctOfMachine)}%`),
      ]),
      [false, ...Array.from({ length: ROUNDS }, () => true)],
    ),
  );

  out.push("", `JavaScript of /zipcode (each file fetched from the app, gzipped here with zlib level ${JS_GZIP_LEVEL}):`);
  const jsRows = (group: "at load" | "lazy", files: JsWeight["atLoad"]["files"]) =>
    files.map((file) => [group, file.path, fmt.int(file.rawBytes), fmt.int(file.gzipBytes), file.via]);
  out.push(
    table(
      ["when", "file", "raw B", "gzip B", "reached via"],
      [...jsRows("at load", js.atLoad.files), ...jsRows("lazy", js.lazy.files)],
      [false, false, true, true, false],
    ),
  );
  out.push(
    `  (a) at page load (entry <script> + modulepreload + their static imports): ${fmt.int(js.atLoad.gzipBytes)} B gzip = ${fmt.kb(js.atLoad.gzipBytes)} (${fmt.int(js.atLoad.rawBytes)} B raw)`,
    `  (b) lazily loaded (import() chunks, fetched only when used):              ${fmt.int(js.lazy.gzipBytes)} B gzip = ${fmt.kb(js.lazy.gzipBytes)} (${fmt.int(js.lazy.rawBytes)} B raw)`,
    `  inline <script> in the HTML: ${js.inlineScripts.count} (${fmt.int(js.inlineScripts.rawBytes)} B raw, part of the document)`,
    `  CSS (context, not JS): ${fmt.int(js.css.gzipBytes)} B gzip (${fmt.int(js.css.rawBytes)} B raw)`,
  );
  for (const entry of js.unfollowableDynamicImports) {
    out.push(`  note: ${entry.path} has ${entry.count} import() call(s) with a computed argument; they cannot be followed statically`);
  }
  for (const skipped of js.skipped) out.push(`  note: not counted (outside /assets/ or another origin): ${skipped}`);
  for (const note of js.notes) out.push(`  note: ${note}`);

  out.push("", ...leadReport(report.leads));

  if (report.serverWarnings.length > 0) {
    out.push("", `The app logged ${report.serverWarnings.length} line(s) at warn or above during the run; first ones:`);
    for (const entry of report.serverWarnings.slice(0, 5)) out.push(`  ${JSON.stringify(entry).slice(0, 300)}`);
  }

  out.push("", "Targets:");
  out.push(
    table(
      ["", "target", "budget", "measured"],
      verdicts.map((verdict) => [verdict.pass ? "PASS" : "MISS", verdict.name, verdict.target, verdict.actual]),
      [false, false, false, false],
    ),
  );
  const misses = verdicts.filter((verdict) => !verdict.pass).length;
  out.push("", misses === 0 ? "All targets met." : `${misses} of ${verdicts.length} target(s) missed (a report, not a test: exit code 0).`);
  const loads = (values: number[]) => values.map((value) => value.toFixed(2)).join(", ");
  out.push(`Load average (1, 5, 15 min): at start ${loads(environment.loadAverageAtStart)}; at end ${loads(environment.loadAverageAtEnd)}`, rule);
  process.stdout.write(`${out.join("\n")}\n`);
}

function leadVerdicts({ results, formJs }: LeadBench): Verdict[] {
  const postgres = results.find((result) => result.store === "postgres");
  return [
    {
      name: `POST /api/leads on PostgreSQL ≥ ${TARGETS_BUDGET.leadsPerSecondOnPostgres} stored leads/s (${LEAD_CONNECTIONS} connections)`,
      target: `≥ ${TARGETS_BUDGET.leadsPerSecondOnPostgres}/s`,
      actual: postgres ? `${fmt.int(postgres.leadsPerSecond)}/s` : "not run",
      pass: postgres !== undefined && postgres.leadsPerSecond >= TARGETS_BUDGET.leadsPerSecondOnPostgres,
    },
    ...results.map((result) => {
      // autocannon drops the requests in flight when a run's time is up: those leads are stored
      // but their 201 is never counted, at most one per connection per run (warm-up and measure).
      const inFlight = result.stored - result.createdIncludingWarmUp;
      return {
        name: `POST /api/leads (${result.store}): zero errors, every 201 stored`,
        target: `0 errors; rows = 201s + ≤ ${2 * result.connections} in flight at the stops`,
        actual: `${fmt.int(result.errors)} errors; ${fmt.int(result.stored)} rows = ${fmt.int(result.createdIncludingWarmUp)} 201s + ${fmt.int(inFlight)}`,
        pass: result.errors === 0 && inFlight >= 0 && inFlight <= 2 * result.connections,
      };
    }),
    {
      name: "quote form (rapidfire.html) JS at load ≤ 35 KiB gzip",
      target: `≤ ${fmt.int(TARGETS_BUDGET.formJsGzipBytes)} B`,
      actual: `${fmt.int(formJs.atLoad.gzipBytes)} B (${fmt.kb(formJs.atLoad.gzipBytes)})`,
      pass: formJs.atLoad.gzipBytes <= TARGETS_BUDGET.formJsGzipBytes,
    },
  ];
}

function leadReport({ results, formJs }: LeadBench): string[] {
  return [
    `POST /api/leads (${LEAD_CONNECTIONS} connections, each request a new visitor: lead + consent record in one transaction):`,
    table(
      ["store", "stored leads/s", "p50 ms", "p99 ms", "errors", "201s", "201s incl. warm-up", "rows after", "statuses"],
      results.map((result) => [
        result.store,
        fmt.int(result.leadsPerSecond),
        fmt.ms(result.p50Ms),
        fmt.ms(result.p99Ms),
        fmt.int(result.errors),
        fmt.int(result.created),
        fmt.int(result.createdIncludingWarmUp),
        fmt.int(result.stored),
        JSON.stringify(result.statusCounts),
      ]),
      [false, true, true, true, true, true, true, true, false],
    ),
    "  rows after = leads counted with SQL once the server stopped: the 201s (warm-up included) plus the requests in",
    "  flight when each run's time was up (autocannon drops their answers; at most one per connection per run).",
    "",
    "JavaScript of the quote form, /rapidfire.html:",
    table(
      ["file", "raw B", "gzip B", "reached via"],
      formJs.atLoad.files.map((file) => [file.path, fmt.int(file.rawBytes), fmt.int(file.gzipBytes), file.via]),
      [false, true, true, false],
    ),
    `  at load: ${fmt.int(formJs.atLoad.gzipBytes)} B gzip = ${fmt.kb(formJs.atLoad.gzipBytes)}; lazy: ${fmt.int(formJs.lazy.gzipBytes)} B; inline scripts: ${formJs.inlineScripts.count}`,
  ];
}

/** `npm run bench -- --leads-only`: just the quote-request part (a minute instead of several). */
async function leadsOnly(): Promise<number> {
  const leads = await benchLeads((message) => process.stderr.write(`[bench] ${message}\n`));
  const verdicts = leadVerdicts(leads);
  const lines = [
    ...leadReport(leads),
    "",
    table(["", "target", "budget", "measured"], verdicts.map((verdict) => [verdict.pass ? "PASS" : "MISS", verdict.name, verdict.target, verdict.actual]), [false, false, false, false]),
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}

(process.argv.includes("--leads-only") ? leadsOnly() : main()).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`[bench] FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
