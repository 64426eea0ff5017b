/**
 * `npm run bench`: throughput and latency of the production build against a bare static-file
 * baseline, plus the JavaScript weight of the landing page. A report, not a test: a MISS still
 * exits 0; only a broken benchmark (a server that will not start or dies, a failed fetch) exits 1.
 *
 * One run, interleaved: after a warm-up, ROUNDS rounds each load every target for ROUND_SECONDS
 * (the order rotates per round), so drift on the machine (thermal, other processes, JIT) spreads
 * over all targets instead of landing on one. Per target: mean req/s over rounds, median p50,
 * worst p99. Results are also written to bench-results/latest.json.
 *
 * The parts, in scripts/lib/: bench-options (settings, targets, budgets, command line),
 * bench-pages (the page servers and rounds), bench-leads (POST /api/leads on both stores),
 * bench-verdicts (ratios and budgets), bench-report (the printed report), bench-results (the JSON).
 */
import os from "node:os";
import path from "node:path";
import { OVERALL_DEADLINE_MS, parseBenchArgs, USAGE } from "./lib/bench-options";
import { benchPages, stopPageServers } from "./lib/bench-pages";
import { benchExperiment, printExperimentReport } from "./lib/bench-experiment";
import { benchLeads } from "./lib/bench-leads";
import { benchRss, rssReport, rssVerdicts, type RssRuns } from "./lib/bench-rss";
import { benchDelivery } from "./lib/bench-delivery";
import { deliveryVerdicts, leadVerdicts, pageRatios, pageVerdicts } from "./lib/bench-verdicts";
import { printDeliveryReport, printLeadsReport, printPagesReport, printReport, type Environment } from "./lib/bench-report";
import { mergeDeliveryResults, writeResults } from "./lib/bench-results";

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

function environmentOf(loadAverageAtStart: number[]): Environment {
  return {
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? "unknown",
    totalMemoryMiB: Math.round(os.totalmem() / 1024 / 1024),
    loadAverageAtStart,
    loadAverageAtEnd: os.loadavg(),
  };
}

async function main(deliveryConcurrencies: Array<number | undefined>): Promise<number> {
  const startedAt = new Date();
  const loadAverageAtStart = os.loadavg();

  // Interrupted (Ctrl-C, a CI cancel): stop both servers before going.
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      log(`interrupted by ${signal}; stopping the servers`);
      void stopPageServers().finally(() => process.exit(1));
    });
  }
  const deadline = setTimeout(() => {
    log(`FAILED: the benchmark exceeded its ${OVERALL_DEADLINE_MS / 1000} s deadline`);
    void stopPageServers().finally(() => process.exit(1));
  }, OVERALL_DEADLINE_MS);
  deadline.unref();

  try {
    // 1–3. The pages; the page servers are gone when it returns, so the lead load has the machine to itself.
    const pages = await benchPages(log);
    const figures = pageRatios(pages.aggregates);
    // Memory across 100,000 ad clicks, on PostgreSQL and then on the embedded store, each on a server of its own.
    const rss = await benchRss(log);
    // 4. Quote requests.
    const leads = await benchLeads(log);
    // 5. Lead delivery.
    const delivery = await benchDelivery(log, deliveryConcurrencies);
    const verdicts = [...pageVerdicts(pages, figures), ...rssVerdicts(rss), ...leadVerdicts(leads), ...deliveryVerdicts(delivery)];
    const environment = environmentOf(loadAverageAtStart);

    printReport({ startedAt, environment, pages, figures, verdicts, leads, delivery });
    printRss(rss);
    const outFile = await writeResults({ startedAt, environment, pages, figures, rss, leads, delivery, verdicts });
    process.stdout.write(`\nResults written to ${path.relative(process.cwd(), outFile) || outFile}\n`);
    return 0;
  } finally {
    clearTimeout(deadline);
    await stopPageServers();
  }
}

/** `npm run bench -- --experiment-only`: a landing page experiment's cost to ad clicks (issue 45), about 2 minutes. */
async function experimentOnly(): Promise<number> {
  const bench = await benchExperiment(log);
  printExperimentReport(bench, (text) => process.stdout.write(text));
  return bench.pass ? 0 : 1;
}

/** `npm run bench -- --pages-only`: just the pages (ad traffic included), a few minutes. */
async function pagesOnly(): Promise<number> {
  const pages = await benchPages(log);
  const figures = pageRatios(pages.aggregates);
  printPagesReport(pages, figures, pageVerdicts(pages, figures));
  return 0;
}

function printRss(rss: RssRuns): void {
  process.stdout.write(`\n${rssReport(rss).join("\n")}\n`);
}

/** `npm run bench -- --rss-only`: just the memory run, on both stores (a few minutes). */
async function rssOnly(): Promise<number> {
  const rss = await benchRss(log);
  printRss(rss);
  for (const verdict of rssVerdicts(rss)) process.stdout.write(`  ${verdict.pass ? "PASS" : "MISS"}  ${verdict.name}: ${verdict.actual} (target ${verdict.target})\n`);
  return 0;
}

/** `npm run bench -- --leads-only`: just the quote-request part (a minute instead of several). */
async function leadsOnly(): Promise<number> {
  const leads = await benchLeads(log);
  printLeadsReport(leads, leadVerdicts(leads));
  return 0;
}

/** `npm run bench -- --delivery-only`: just lead delivery (about two minutes); merged into latest.json. */
async function deliveryOnly(deliveryConcurrencies: Array<number | undefined>): Promise<number> {
  const loadAverageAtStart = os.loadavg();
  const delivery = await benchDelivery(log, deliveryConcurrencies);
  const verdicts = deliveryVerdicts(delivery);
  printDeliveryReport(delivery, verdicts);
  const outFile = await mergeDeliveryResults(delivery, verdicts, environmentOf(loadAverageAtStart));
  process.stdout.write(`\nDelivery figures written to ${path.relative(process.cwd(), outFile) || outFile}\n`);
  return 0;
}

async function run(): Promise<number> {
  let args;
  try {
    args = parseBenchArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`[bench] ${(error as Error).message}`);
    return 2;
  }
  if (args.mode === "help") {
    process.stdout.write(USAGE);
    return 0;
  }
  // The benchmark decides where delivery is on: a BUYERS_FILE in the caller's shell would turn it
  // on for every server (the page and lead figures are those of a site without delivery).
  delete process.env.BUYERS_FILE;
  if (args.mode === "leads-only") return leadsOnly();
  if (args.mode === "pages-only") return pagesOnly();
  if (args.mode === "rss-only") return rssOnly();
  if (args.mode === "delivery-only") return deliveryOnly(args.deliveryConcurrencies);
  if (args.mode === "experiment-only") return experimentOnly();
  return main(args.deliveryConcurrencies);
}

run().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`[bench] FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
