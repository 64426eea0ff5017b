/** bench-results/latest.json: every setting, run, aggregate and verdict of one benchmark, for comparing runs. */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { projectRoot } from "../../tools/production-server";
import { BROWSER_USER_AGENT } from "../../tools/http-get";
import { JS_GZIP_LEVEL } from "../../tools/js-weight";
import { CONNECTIONS, PRODUCTION_LOG_LEVEL, REQUEST_TIMEOUT_SECONDS, ROUND_SECONDS, ROUNDS, TARGETS, WARMUP_SECONDS } from "./bench-options";
import type { LeadBench } from "./bench-leads";
import type { DeliveryBench } from "./bench-delivery";
import type { PageBench } from "./bench-pages";
import type { RssRuns } from "./bench-rss";
import type { Environment } from "./bench-report";
import type { PageRatios, Verdict } from "./bench-verdicts";

export const RESULTS_FILE = path.join(projectRoot, "bench-results", "latest.json");

/** Writes the results and returns the file's path. */
export async function writeResults(results: {
  startedAt: Date;
  environment: Environment;
  pages: PageBench;
  figures: PageRatios;
  rss: RssRuns;
  leads: LeadBench;
  delivery: DeliveryBench;
  verdicts: Verdict[];
}): Promise<string> {
  const { pages, figures } = results;
  const json = {
    startedAt: results.startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    environment: results.environment,
    settings: {
      connections: CONNECTIONS,
      rounds: ROUNDS,
      roundSeconds: ROUND_SECONDS,
      warmupSecondsPerTarget: WARMUP_SECONDS,
      requestTimeoutSeconds: REQUEST_TIMEOUT_SECONDS,
      // The LOG_LEVEL the app under load was really started with (its child process's environment).
      appLogLevel: pages.appLogLevel,
      productionLogLevel: PRODUCTION_LOG_LEVEL,
      acceptEncoding: "none",
      userAgent: BROWSER_USER_AGENT,
      // JavaScript weights: as the server sends them (gzip; phone = "gzip, deflate, br"); zlib at this level for comparison.
      gzipLevel: JS_GZIP_LEVEL,
      order: "rotated by one target each round",
    },
    targets: TARGETS,
    probes: pages.probes,
    aggregates: pages.aggregates,
    runs: pages.runs,
    ssrToStaticRatio: figures.ratio,
    ratios: figures.ratios,
    ssrToStaticCpuPerRequestRatio: figures.cpuRatio ?? null,
    javascript: pages.js,
    // PostgreSQL's run where it always was (its database figures added), the embedded store's beside it.
    memory: results.rss.postgresql,
    memoryEmbedded: results.rss.embedded,
    leads: results.leads,
    delivery: results.delivery,
    verdicts: results.verdicts,
    serverWarnings: pages.serverWarnings.slice(0, 50),
  };
  await mkdir(path.dirname(RESULTS_FILE), { recursive: true });
  await writeFile(RESULTS_FILE, `${JSON.stringify(json, null, 2)}\n`);
  return RESULTS_FILE;
}

/**
 * `--delivery-only`: puts the delivery figures and verdicts into the existing file (or a new one),
 * leaving the other parts as their last full run wrote them. Returns the file's path.
 */
export async function mergeDeliveryResults(delivery: DeliveryBench, verdicts: Verdict[], environment: Environment): Promise<string> {
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(await readFile(RESULTS_FILE, "utf8")) as Record<string, unknown>;
  } catch {
    // No earlier run (or an unreadable file): this run's delivery part alone.
  }
  const deliveryNames = new Set(verdicts.map((verdict) => verdict.name));
  // An earlier run's delivery verdicts are replaced (their names may differ with the concurrency measured).
  const earlier = Array.isArray(json.verdicts) ? (json.verdicts as Verdict[]).filter((verdict) => !deliveryNames.has(verdict.name) && !/^deliveries\/s|^POST \/api\/leads with delivery|^delivery:/.test(verdict.name)) : [];
  json.delivery = { ...delivery, environment, partialRun: "npm run bench -- --delivery-only" };
  json.verdicts = [...earlier, ...verdicts];
  await mkdir(path.dirname(RESULTS_FILE), { recursive: true });
  await writeFile(RESULTS_FILE, `${JSON.stringify(json, null, 2)}\n`);
  return RESULTS_FILE;
}
