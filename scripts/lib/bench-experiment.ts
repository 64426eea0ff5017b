/**
 * `npm run bench -- --experiment-only` (issue 45, docs/experiments.md, "Assignment and exposure"):
 * what a running landing page experiment costs ad clicks. A production server on PostgreSQL whose
 * BUYERS_FILE holds a running 50/50 headline experiment for one source (sid a1), loaded with
 * phones' ad clicks (a new tid each) from that source and from another, in interleaved rounds
 * whose order rotates (as the page benchmark's); a server without experiments beside it. Each click without a cookie is a new visitor: an id minted, a
 * Set-Cookie, a variant's cache entry and an exposure row, the most an experiment adds. A
 * returning visitor (the same cookie on every request) is measured beside it.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { startProductionServer, type RunningServer } from "../../tools/production-server";
import { createTestDatabase, provideAdminUrl, type TestDatabase } from "../../tools/postgres";
import { httpGet } from "../../tools/http-get";
import { runLoad } from "./bench-autocannon";
import { cpuDelta, sampleCpu } from "./bench-cpu";
import { fmt, mean, median, optional, rotate } from "./bench-stats";
import { BENCH_LOG_LEVEL, CONNECTIONS, PAUSE_BETWEEN_RUNS_MS, PHONE_HEADERS, REQUEST_TIMEOUT_SECONDS, ROUND_SECONDS, WARMUP_SECONDS } from "./bench-options";

/** More rounds than the page benchmark's: the ratio asked for (≥ 0.95) is closer to 1 than its others. */
export const EXPERIMENT_ROUNDS = 5;
/** Issue 45: ad clicks with a landing experiment running ÷ without. */
export const EXPERIMENT_ON_TO_OFF_RATIO = 0.95;

const EXPERIMENT = {
  id: "bench-headline",
  name: "Benchmark headline",
  hypothesis: "A headline naming the time it takes gets more ZIP codes entered",
  status: "running",
  variants: [
    { id: "control", name: "Control", share: 50 },
    { id: "minutes", name: "Two minutes", share: 50, values: { "landing.headline": "Car Insurance Quotes in Two Minutes", "landing.buttonText": "See My Rates" } },
  ],
  // One source only: the same server's clicks from another source take the path without an
  // experiment, so on and off are compared in one process (two processes differ by more than
  // the experiment's cost: up to 15% between identical runs on this machine).
  sids: ["a1"],
  startAt: "2020-01-01T00:00:00Z",
};

type Server = "plain" | "experiment";
interface ExperimentTarget {
  id: "off" | "on" | "onReturning" | "plain";
  label: string;
  server: Server;
  sid: string;
  /** A Cookie header sent with every request (a returning visitor). */
  cookie?: string;
}

export interface ExperimentBench {
  rounds: number;
  /** Mean req/s per target, and each round's. */
  results: Array<{ id: ExperimentTarget["id"]; label: string; meanReqPerSec: number; reqPerSecByRound: number[]; maxP99Ms: number; errors: number; medianServerUsPerRequest: number | undefined }>;
  /** New visitors with the experiment ÷ without (the same server, another source). */
  ratio: number;
  /** Returning visitors with the experiment ÷ without. */
  returningRatio: number;
  /** Without experiment: the same server ÷ a server without any (what running one costs the others' clicks). */
  offToPlainRatio: number;
  pass: boolean;
}

export async function benchExperiment(log: (message: string) => void): Promise<ExperimentBench> {
  const servers: RunningServer[] = [];
  const databases: TestDatabase[] = [];
  const dir = await mkdtemp(path.join(os.tmpdir(), "bench-experiment-"));
  log("starting PostgreSQL for the two servers (TEST_DATABASE_URL, or a throwaway cluster)…");
  const admin = await provideAdminUrl();
  try {
    const database = async () => {
      const created = await createTestDatabase(admin.url);
      databases.push(created);
      return created.url;
    };
    const buyersFile = path.join(dir, "buyers.json");
    await writeFile(buyersFile, JSON.stringify({ buyers: [], experiments: [EXPERIMENT] }));
    log("starting the production server without experiments, and one with a running landing experiment…");
    const plain = await startProductionServer({ LOG_LEVEL: BENCH_LOG_LEVEL, DATABASE_URL: await database() }, { keepLogs: "problems" });
    servers.push(plain);
    // BUYERS_FILE asks for a certificate secret (server/config.ts); its value does not matter here.
    const withExperiment = await startProductionServer({ LOG_LEVEL: BENCH_LOG_LEVEL, DATABASE_URL: await database(), BUYERS_FILE: buyersFile, CERTIFICATE_SECRET: "bench-certificate-secret-bench-certificate" }, { keepLogs: "problems" });
    servers.push(withExperiment);
    const origins: Record<Server, string> = { plain: plain.origin, experiment: withExperiment.origin };

    // The experiment must really run: a new visitor gets the cookie.
    const probe = await httpGet(`${withExperiment.origin}/zipcode?sid=a1&tid=probe`, 10_000, { ...PHONE_HEADERS });
    const setCookie = ([] as string[]).concat(probe.headers["set-cookie"] ?? []).find((line) => line.startsWith("qr_vis="));
    if (probe.status !== 200 || !setCookie) throw new Error(`the server with BUYERS_FILE runs no landing experiment (status ${probe.status}, no qr_vis cookie)`);
    const returning = setCookie.split(";")[0]!;

    const targets: ExperimentTarget[] = [
      { id: "off", label: "ad click /zipcode?sid=b2, phone, new tid: no experiment for this source", server: "experiment", sid: "b2" },
      { id: "on", label: "ad click /zipcode?sid=a1, phone, new tid: experiment, a new visitor each", server: "experiment", sid: "a1" },
      { id: "onReturning", label: "ad click /zipcode?sid=a1, phone, new tid: experiment, a returning visitor", server: "experiment", sid: "a1", cookie: returning },
      { id: "plain", label: "ad click /zipcode?sid=a1, phone, new tid: a server without experiments", server: "plain", sid: "a1" },
    ];
    const load = (target: ExperimentTarget, seconds: number) =>
      runLoad({
        url: `${origins[target.server]}/zipcode?sid=${target.sid}&tid=[<id>]`,
        idReplacement: true,
        connections: CONNECTIONS,
        duration: seconds,
        timeout: REQUEST_TIMEOUT_SECONDS,
        headers: { ...PHONE_HEADERS, ...(target.cookie ? { cookie: target.cookie } : {}) },
      });
    log(`load: ${CONNECTIONS} connections, warm-up ${WARMUP_SECONDS} s per target, then ${EXPERIMENT_ROUNDS} rounds × ${targets.length} targets × ${ROUND_SECONDS} s…`);
    for (const target of targets) {
      await load(target, WARMUP_SECONDS);
      await sleep(PAUSE_BETWEEN_RUNS_MS);
    }
    const runs = new Map<ExperimentTarget["id"], Array<{ reqPerSec: number; p99Ms: number; errors: number; serverUs: number | undefined }>>(targets.map((target) => [target.id, []]));
    const pids = { plain: plain.child.pid, experiment: withExperiment.child.pid };
    for (let round = 0; round < EXPERIMENT_ROUNDS; round += 1) {
      for (const target of rotate(targets, round)) {
        const before = sampleCpu(pids);
        const result = await load(target, ROUND_SECONDS);
        // The Node process's own CPU per answer: what the experiment costs the server, apart from
        // the database's work (on this machine, the same two cores).
        const serverMs = cpuDelta(before, sampleCpu(pids)).processes[target.server];
        const ok = result.statusCodeStats["200"]?.count ?? 0;
        const reqPerSec = result.duration > 0 ? result.requests.total / result.duration : 0;
        const serverUs = serverMs !== undefined && result.requests.total > 0 ? (serverMs * 1000) / result.requests.total : undefined;
        runs.get(target.id)!.push({ reqPerSec, p99Ms: result.latency.p99, errors: result.errors + (result.requests.total - ok), serverUs });
        log(`round ${round + 1}/${EXPERIMENT_ROUNDS} ${target.label}: ${fmt.int(reqPerSec)} req/s, p99 ${fmt.ms(result.latency.p99)} ms, server ${fmt.maybe(serverUs)} µs CPU/req`);
        await sleep(PAUSE_BETWEEN_RUNS_MS);
      }
    }
    const results = targets.map((target) => {
      const mine = runs.get(target.id)!;
      return { id: target.id, label: target.label, meanReqPerSec: mean(mine.map((run) => run.reqPerSec)), reqPerSecByRound: mine.map((run) => run.reqPerSec), maxP99Ms: Math.max(...mine.map((run) => run.p99Ms)), errors: mine.reduce((sum, run) => sum + run.errors, 0), medianServerUsPerRequest: optional(mine.map((run) => run.serverUs), median) };
    });
    const rate = (id: ExperimentTarget["id"]) => results.find((entry) => entry.id === id)!.meanReqPerSec;
    const ratio = rate("on") / rate("off");
    const returningRatio = rate("onReturning") / rate("off");
    const offToPlainRatio = rate("off") / rate("plain");
    const errors = results.reduce((sum, entry) => sum + entry.errors, 0);
    return { rounds: EXPERIMENT_ROUNDS, results, ratio, returningRatio, offToPlainRatio, pass: ratio >= EXPERIMENT_ON_TO_OFF_RATIO && errors === 0 };
  } finally {
    await Promise.allSettled(servers.map((server) => server.stop()));
    await Promise.allSettled(databases.map((database) => database.drop()));
    await admin.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

export function printExperimentReport(bench: ExperimentBench, write: (text: string) => void): void {
  write("\nA/B experiment on the landing page (issue 45): ad clicks with it running vs without\n");
  for (const entry of bench.results) {
    write(`  ${entry.label}: ${fmt.int(entry.meanReqPerSec)} req/s (rounds ${entry.reqPerSecByRound.map((value) => fmt.int(value)).join(", ")}), p99 ≤ ${fmt.ms(entry.maxP99Ms)} ms, server ${fmt.maybe(entry.medianServerUsPerRequest)} µs CPU/req (median), errors ${entry.errors}\n`);
  }
  write(`  ${bench.pass ? "PASS" : "MISS"}  new visitors, experiment on ÷ off: ${bench.ratio.toFixed(3)}× (target ≥ ${EXPERIMENT_ON_TO_OFF_RATIO.toFixed(2)}×, no errors)\n`);
  write(`  info  returning visitors (cookie), experiment on ÷ off: ${bench.returningRatio.toFixed(3)}×\n`);
  write(`  info  another source's clicks on the server running it ÷ a server without experiments (two processes): ${bench.offToPlainRatio.toFixed(3)}×\n`);
}
