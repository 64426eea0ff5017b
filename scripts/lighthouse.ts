/**
 * `npm run lighthouse`: Lighthouse (mobile defaults) on the built landing page, 3 runs, the
 * median against issue 12's targets. The URL is an ad click's, with a new tid each run, so no run
 * is helped by a cache keyed on the address. `-- --page quote` measures the quote page (/) and
 * `-- --page form` the quote form on its own (rapidfire.html), as an ad visitor with a ZIP meets
 * them (issue 32: accessibility 100 there too, the quote page's LCP no worse). `--proof` switches
 * TrustedForm and Jornaya on, their scripts served by the local fakes (tools/check-fakes.ts), so
 * the quote form loads them as it would the providers' (issue 44: `/` stays at 100 with them; the
 * fakes are a few hundred bytes, the real scripts are not). A report, not a test: a MISS still exits 0; only a
 * run that cannot happen (no build, no Chromium, a server that will not start, a failed audit)
 * exits 1. Results go to bench-results/lighthouse.json.
 */
import { randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { projectRoot, startProductionServer, type RunningServer } from "../tools/production-server";
import { findChromium } from "./lib/lighthouse-chromium";
import { runLighthouse, type RunFigures } from "./lib/lighthouse-run";
import { mediansOf, verdictsOf, type Medians } from "./lib/lighthouse-verdicts";
import { startCheckFakes, type CheckFakes } from "../tools/check-fakes";

const RUNS = 3;

/** The pages it can measure: the address of an ad click on each (a new tid per run). */
const PAGES = {
  landing: (tid: string) => `/zipcode?sid=a1&tid=${tid}`,
  quote: (tid: string) => `/?zip=90210&sid=a1&tid=${tid}`,
  form: (tid: string) => `/rapidfire.html?zip=90210&sid=a1&tid=${tid}`,
} as const;
type PageName = keyof typeof PAGES;

function pageOf(argv: readonly string[]): PageName | undefined {
  const at = argv.indexOf("--page");
  if (at < 0) return "landing";
  const name = argv[at + 1];
  return name !== undefined && Object.hasOwn(PAGES, name) ? (name as PageName) : undefined;
}

const log = (message: string) => process.stderr.write(`[lighthouse] ${message}\n`);
const ms = (value: number) => `${Math.round(value)} ms`;

function line(label: string, figures: RunFigures | Medians): string {
  const { scores } = figures;
  return (
    `${label.padEnd(8)} LCP ${ms(figures.lcpMs).padStart(8)}  FCP ${ms(figures.fcpMs).padStart(8)}  TBT ${ms(figures.tbtMs).padStart(6)}  ` +
    `SI ${ms(figures.speedIndexMs).padStart(8)}  CLS ${figures.cls.toFixed(3)}  ` +
    `perf ${scores.performance}  a11y ${scores.accessibility}  bp ${scores["best-practices"]}  seo ${scores.seo}`
  );
}

async function main(): Promise<number> {
  const page = pageOf(process.argv.slice(2));
  if (!page) {
    log(`--page takes one of: ${Object.keys(PAGES).join(", ")}`);
    return 2;
  }
  const proof = process.argv.includes("--proof");
  const resultsFile = path.join(projectRoot, "bench-results", `${page === "landing" ? "lighthouse" : `lighthouse-${page}`}${proof ? "-proof" : ""}.json`);
  let chromiumPath: string;
  try {
    chromiumPath = findChromium();
  } catch (error) {
    log((error as Error).message);
    return 1;
  }
  let server: RunningServer | undefined;
  let fakes: CheckFakes | undefined;
  try {
    fakes = proof ? await startCheckFakes() : undefined;
    // Only the form's scripts: no provider API is called while a page loads.
    const env: Record<string, string> = fakes
      ? { TRUSTEDFORM: "on", TRUSTEDFORM_SCRIPT_URL: `${fakes.origin}/trustedform.js`, TRUSTEDFORM_CERT_ORIGIN: fakes.certOrigin, JORNAYA: "on", JORNAYA_SCRIPT_URL: `${fakes.origin}/leadid.js` }
      : {};
    // The production log level (the port is read from the info-level server_started line); only problems are kept.
    server = await startProductionServer(env, { keepLogs: "problems" });
    // Simulated metrics still follow the observed run, so a busy machine shows in them: say how busy it was.
    log(`${page} page${fakes ? ", TrustedForm and Jornaya on (the local fakes' scripts)" : ""}, production build on ${server.origin}; Chromium ${chromiumPath}; ${RUNS} runs; load average ${os.loadavg().map((load) => load.toFixed(2)).join(" ")}`);
    const runs: RunFigures[] = [];
    for (let run = 1; run <= RUNS; run += 1) {
      const url = `${server.origin}${PAGES[page](randomUUID().replaceAll("-", ""))}`;
      const figures = await runLighthouse(chromiumPath, url);
      runs.push(figures);
      console.log(`${line(`run ${run}`, figures)}  (observed FCP ${ms(figures.observedFcpMs ?? NaN)}, LCP ${ms(figures.observedLcpMs ?? NaN)})`);
    }
    const medians = mediansOf(runs);
    const verdicts = verdictsOf(medians);
    console.log(line("median", medians));
    const lcpElement = runs.find((run) => run.lcpElement)?.lcpElement;
    if (lcpElement) console.log(`LCP element: ${lcpElement}`);
    const costing = new Map(runs.flatMap((run) => run.failedAudits).map((audit) => [`${audit.category} ${audit.id}`, audit]));
    if (costing.size > 0) console.log(`audits below 1 in some run: ${[...costing.values()].map((audit) => `${audit.category}/${audit.id} (${audit.score})`).join(", ")}`);
    for (const verdict of verdicts) console.log(`${verdict.pass ? "PASS" : "MISS"}  ${verdict.target.padEnd(20)} median ${verdict.measured}`);
    await mkdir(path.dirname(resultsFile), { recursive: true });
    const environment = { node: process.version, platform: `${os.platform()} ${os.release()} ${os.arch()}`, cpus: os.cpus().length, chromium: chromiumPath, loadAverage: os.loadavg() };
    await writeFile(resultsFile, `${JSON.stringify({ finishedAt: new Date().toISOString(), page, proof, environment, runs, medians, verdicts }, null, 2)}\n`);
    log(`results written to ${path.relative(projectRoot, resultsFile)}`);
    return 0;
  } catch (error) {
    log(`could not run: ${(error as Error).stack ?? String(error)}`);
    return 1;
  } finally {
    await server?.stop();
    await fakes?.close();
  }
}

process.exitCode = await main();
