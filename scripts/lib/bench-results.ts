/** bench-results/latest.json: every setting, run, aggregate and verdict of one benchmark, for comparing runs. */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { projectRoot } from "../../tools/production-server";
import { BROWSER_USER_AGENT } from "../../tools/http-get";
import { JS_GZIP_LEVEL } from "../../tools/js-weight";
import { CONNECTIONS, PRODUCTION_LOG_LEVEL, REQUEST_TIMEOUT_SECONDS, ROUND_SECONDS, ROUNDS, TARGETS, WARMUP_SECONDS } from "./bench-options";
import type { LeadBench } from "./bench-leads";
import type { PageBench } from "./bench-pages";
import type { Environment } from "./bench-report";
import type { PageRatios, Verdict } from "./bench-verdicts";

export const RESULTS_FILE = path.join(projectRoot, "bench-results", "latest.json");

/** Writes the results and returns the file's path. */
export async function writeResults(results: {
  startedAt: Date;
  environment: Environment;
  pages: PageBench;
  figures: PageRatios;
  leads: LeadBench;
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
    leads: results.leads,
    verdicts: results.verdicts,
    serverWarnings: pages.serverWarnings.slice(0, 50),
  };
  await mkdir(path.dirname(RESULTS_FILE), { recursive: true });
  await writeFile(RESULTS_FILE, `${JSON.stringify(json, null, 2)}\n`);
  return RESULTS_FILE;
}
