/**
 * The benchmark's plain-text report on stdout: settings and caveats, the page results and ratios,
 * per-round figures, the JavaScript weights, the quote-request results and the verdicts.
 */
import { JS_GZIP_LEVEL, type JsWeight } from "../../tools/js-weight";
import { CONNECTIONS, IN_APP_STATIC_PATH, PRODUCTION_LOG_LEVEL, ROUND_SECONDS, ROUNDS, TARGETS, WARMUP_SECONDS } from "./bench-options";
import { LEAD_CONNECTIONS, type LeadBench } from "./bench-leads";
import { API_ROUNDS, API_SECONDS, DRAIN_LEADS, PACED_RATE, PACED_SECONDS, type DeliveryBench, type LatencyFigures } from "./bench-delivery";
import type { PageBench } from "./bench-pages";
import { fmt, table } from "./bench-stats";
import type { PageRatios, Verdict } from "./bench-verdicts";

export interface Environment {
  node: string;
  platform: string;
  cpus: number;
  cpuModel: string;
  totalMemoryMiB: number;
  loadAverageAtStart: number[];
  loadAverageAtEnd: number[];
}

function verdictTable(verdicts: Verdict[]): string {
  return table(
    ["", "target", "budget", "measured"],
    verdicts.map((verdict) => [verdict.pass ? "PASS" : "MISS", verdict.name, verdict.target, verdict.actual]),
    [false, false, false, false],
  );
}

export function printReport(report: {
  startedAt: Date;
  environment: Environment;
  pages: PageBench;
  figures: PageRatios;
  verdicts: Verdict[];
  leads: LeadBench;
  delivery: DeliveryBench;
}): void {
  const { environment, verdicts } = report;
  const { aggregates, runs, js, probes, serverWarnings, appLogLevel } = report.pages;
  const { ratios, cpuRatio } = report.figures;
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
    ...(appLogLevel === PRODUCTION_LOG_LEVEL
      ? [
          `  - The app runs as in production, LOG_LEVEL=${appLogLevel}: one JSON access-log line per request (plus campaign_hit`,
          "    on the SSR targets), written to a pipe this process drains.",
        ]
      : [`  - The app runs with LOG_LEVEL=${appLogLevel} (production: ${PRODUCTION_LOG_LEVEL}), written to a pipe this process drains.`]),
    "  - SSR /zipcode?sid=a1&tid=b2 repeats one address, so after the first render it is served from the page",
    "    cache (server/pages/cache.ts); 'unique tid each' gives every request a new address, as ad visitors' click",
    "    ids are unique: the page cache keeps pages by shape (ids as slots), so it is answered from the cache too.",
    `  - 'static in app' is the landing page's bytes as a file under ${IN_APP_STATIC_PATH}, served by the app's`,
    "    express.static through the same middleware (request id, access log, helmet, compression): the target's",
    "    baseline. 'static bare' is the same bytes from a bare Express 5 express.static in its own process.",
    "  - Each ad click (phone) is compared with the bare static server sending that page's own bytes uncompressed",
    "    (the landing page's, the quote page's, the privacy policy's, the 404 page's), as issue 12 asks.",
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
    `  SSR, unique tid, events stored   ÷ events off:             ${ratios.eventsOnVsOff.toFixed(2)}×`,
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

  out.push(
    "",
    `JavaScript of /zipcode, each file fetched from the app: gzip B = as sent to a gzip-only browser; phone B = as sent with "gzip, deflate, br"; zlib ${JS_GZIP_LEVEL} B = zlib level ${JS_GZIP_LEVEL} of its bytes (for comparison):`,
  );
  const jsRows = (group: "at load" | "lazy", files: JsWeight["atLoad"]["files"]) =>
    files.map((file) => [group, file.path, fmt.int(file.rawBytes), fmt.int(file.gzipBytes), fmt.int(file.phoneBytes), fmt.int(file.gzip9Bytes), file.via]);
  out.push(
    table(
      ["when", "file", "raw B", "gzip B", "phone B", `zlib ${JS_GZIP_LEVEL} B`, "reached via"],
      [...jsRows("at load", js.atLoad.files), ...jsRows("lazy", js.lazy.files)],
      [false, false, true, true, true, true, false],
    ),
  );
  out.push(
    `  (a) at page load (entry <script> + modulepreload + their static imports): ${fmt.int(js.atLoad.gzipBytes)} B gzip = ${fmt.kb(js.atLoad.gzipBytes)} (${fmt.int(js.atLoad.rawBytes)} B raw; phone ${fmt.int(js.atLoad.phoneBytes)} B; zlib ${JS_GZIP_LEVEL} ${fmt.int(js.atLoad.gzip9Bytes)} B)`,
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
  out.push("", ...deliveryReport(report.delivery));

  if (serverWarnings.length > 0) {
    out.push("", `The app logged ${serverWarnings.length} line(s) at warn or above during the run; first ones:`);
    for (const entry of serverWarnings.slice(0, 5)) out.push(`  ${JSON.stringify(entry).slice(0, 300)}`);
  }

  out.push("", "Targets:", verdictTable(verdicts));
  const misses = verdicts.filter((verdict) => !verdict.pass).length;
  out.push("", misses === 0 ? "All targets met." : `${misses} of ${verdicts.length} target(s) missed (a report, not a test: exit code 0).`);
  const loads = (values: number[]) => values.map((value) => value.toFixed(2)).join(", ");
  out.push(`Load average (1, 5, 15 min): at start ${loads(environment.loadAverageAtStart)}; at end ${loads(environment.loadAverageAtEnd)}`, rule);
  process.stdout.write(`${out.join("\n")}\n`);
}

export function leadReport({ results, formJs }: LeadBench): string[] {
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
    `  at load: ${fmt.int(formJs.atLoad.gzipBytes)} B gzip = ${fmt.kb(formJs.atLoad.gzipBytes)} (phone ${fmt.int(formJs.atLoad.phoneBytes)} B; zlib ${JS_GZIP_LEVEL} ${fmt.int(formJs.atLoad.gzip9Bytes)} B); lazy: ${fmt.int(formJs.lazy.gzipBytes)} B; inline scripts: ${formJs.inlineScripts.count}`,
  ];
}

/** `--pages-only`: each page target's figures, the ratios and the page verdicts. */
export function printPagesReport(pages: PageBench, figures: PageRatios, verdicts: Verdict[]): void {
  const rows = pages.aggregates.map((entry) => [entry.label, fmt.int(entry.meanReqPerSec), fmt.ms(entry.medianP50Ms), fmt.ms(entry.maxP99Ms), fmt.int(entry.errors), fmt.int(entry.bytesPerResponse)]);
  const { ratios } = figures;
  process.stdout.write(
    `${[
      table(["target", "req/s", "p50 ms", "p99 ms", "errors", "bytes/resp"], rows, [false, true, true, true, true, true]),
      "",
      `SSR, same address ÷ static in app ${ratios.cachedVsInApp.toFixed(2)}×; unique tid ÷ bare static ${ratios.renderVsBare.toFixed(2)}×; events stored ÷ off ${ratios.eventsOnVsOff.toFixed(2)}×`,
      "",
      verdictTable(verdicts),
    ].join("\n")}\n`,
  );
}

/** `--leads-only`: the quote-request part of the report and its verdicts. */
export function printLeadsReport(leads: LeadBench, verdicts: Verdict[]): void {
  process.stdout.write(`${[...leadReport(leads), "", verdictTable(verdicts)].join("\n")}\n`);
}

const pct = (value: number | undefined) => `${fmt.maybe(value)}%`;
const latencyCells = (latency: LatencyFigures) => [
  fmt.int(latency.deliveries),
  fmt.ms(latency.p50Ms),
  fmt.ms(latency.p90Ms),
  fmt.ms(latency.p99Ms),
  fmt.ms(latency.maxMs),
  `${fmt.ms(latency.waitP50Ms)} / ${fmt.ms(latency.waitP99Ms)}`,
  `${fmt.ms(latency.sendP50Ms)} / ${fmt.ms(latency.sendP99Ms)}`,
];
const LATENCY_HEADERS = ["deliveries", "p50 ms", "p90 ms", "p99 ms", "max ms", "in outbox p50/p99", "buyer answer p50/p99"];

export function deliveryReport(delivery: DeliveryBench): string[] {
  const loads = (values: number[]) => values.map((value) => value.toFixed(2)).join(", ");
  const { api, paced } = delivery;
  const rows = api.rounds.map((round) => [
    String(round.round),
    round.delivery,
    fmt.int(round.leadsPerSecond),
    fmt.ms(round.p50Ms),
    fmt.ms(round.p99Ms),
    fmt.int(round.errors),
    fmt.maybe(round.serverUsPerLead),
    pct(round.cpu.serverPctOfCore),
    pct(round.cpu.databasePctOfCore),
    pct(round.cpu.othersPctOfMachine),
    round.deliveriesPerSecond === undefined ? "" : fmt.int(round.deliveriesPerSecond),
    round.backlogAtEnd === undefined ? "" : `${fmt.int(round.backlogAtEnd)} (${round.drainSeconds!.toFixed(1)} s)`,
  ]);
  return [
    `Lead delivery (PostgreSQL; one buyer, tools/buyer-stub.ts in the benchmark's process, answering 200 after ${delivery.buyerDelayMs} ms and checking every signature):`,
    `  load average (1, 5, 15 min): at start ${loads(delivery.loadAverageAtStart)}; at end ${loads(delivery.loadAverageAtEnd)}`,
    "",
    `(a) Deliveries per second: ${fmt.int(DRAIN_LEADS)} leads stored through the API while the worker is held to 1, then fresh replicas drain the backlog`,
    table(
      ["replicas", "concurrency", "backlog", "deliveries/s", "seconds", "replica CPU", "PostgreSQL CPU", "machine busy", "others", "replica ms CPU/delivery", "= per core-second", "1st accept after spawn", "clean"],
      delivery.drains.map((drain) => [
        String(drain.replicas),
        String(drain.concurrency),
        fmt.int(drain.backlog),
        fmt.int(drain.deliveriesPerSecond),
        drain.seconds.toFixed(2),
        pct(drain.cpu.serverPctOfCore),
        pct(drain.cpu.databasePctOfCore),
        pct(drain.cpu.machineBusyPct),
        pct(drain.cpu.othersPctOfMachine),
        fmt.maybe(drain.serverCpuMsPerDelivery, 2),
        drain.serverCpuMsPerDelivery === undefined ? "n/a" : fmt.int(1000 / drain.serverCpuMsPerDelivery),
        `${fmt.int(drain.firstAcceptanceAfterSpawnMs)} ms`,
        drain.problems.length === 0 ? "yes" : "NO",
      ]),
      [true, true, true, true, true, true, true, true, true, true, true, true, false],
    ),
    "  deliveries/s = (2xx answers − 1) ÷ time from the buyer's first 2xx to its last; CPU in % of one core (replicas, PostgreSQL)",
    "  or of the whole machine (busy, others = processes outside the benchmark); per core-second = what the replica's CPU per",
    "  delivery allows with a core to itself (a replica's one thread is the limit when it nears 100%); clean = each lead",
    "  accepted once, signature valid, one attempt each, nothing open.",
    ...delivery.drains.flatMap((drain) => drain.problems.map((problem) => `  PROBLEM (${drain.replicas} replica(s), concurrency ${drain.concurrency}): ${problem}`)),
    "",
    `(b) Stored → accepted at a steady ${PACED_RATE} leads/s through the API for ${PACED_SECONDS} s (SQL: completed_at − created_at + the accepting attempt's latency_ms):`,
    table(LATENCY_HEADERS, [latencyCells(paced.latency)], [true, true, true, true, true, true, true]),
    `  ${fmt.int(paced.submitted)} leads answered 201 in ${paced.seconds.toFixed(1)} s; 'in outbox' = created_at → the accepting attempt's start, 'buyer answer' = its latency_ms.`,
    ...paced.problems.map((problem) => `  PROBLEM: ${problem}`),
    "",
    `(c) POST /api/leads at ${api.connections} connections: delivery off (no BUYERS_FILE), queued (each lead's delivery scheduled in its transaction, the worker`,
    `    sending nothing) and on (the worker sending as leads arrive); ${API_ROUNDS} interleaved rounds × ${API_SECONDS} s, order rotating`,
    table(
      ["round", "delivery", "leads/s", "p50 ms", "p99 ms", "errors", "srv µs CPU/lead", "srv CPU", "PG CPU", "others", "deliveries/s", "open at end (drain)"],
      rows,
      [true, false, true, true, true, true, true, true, true, true, true, true],
    ),
    `  mean leads/s: off ${fmt.int(api.off.meanLeadsPerSecond)} (p99 ≤ ${fmt.ms(api.off.maxP99Ms)} ms), queued ${fmt.int(api.queued.meanLeadsPerSecond)} (p99 ≤ ${fmt.ms(api.queued.maxP99Ms)} ms), on ${fmt.int(api.on.meanLeadsPerSecond)} (p99 ≤ ${fmt.ms(api.on.maxP99Ms)} ms)`,
    `  on ÷ off = ${api.ratio.toFixed(2)}×` +
      (api.cpuRatio === undefined ? "" : ` (by server CPU per lead ${api.cpuRatio.toFixed(2)}×: ${fmt.maybe(api.off.medianServerUsPerLead)} vs ${fmt.maybe(api.on.medianServerUsPerLead)} µs)`) +
      `; queued ÷ off = ${api.queuedRatio.toFixed(2)}× (${fmt.maybe(api.queued.medianServerUsPerLead)} µs server CPU per lead)`,
    "  The 'on' rounds' leads, stored → accepted while the API is loaded flat out (a queue forms whenever leads arrive faster than they are sent):",
    table(LATENCY_HEADERS, [latencyCells(api.latencyUnderLoad)], [true, true, true, true, true, true, true]),
    ...api.problems.map((problem) => `  PROBLEM: ${problem}`),
  ];
}

/** `--delivery-only`: the delivery part of the report and its verdicts. */
export function printDeliveryReport(delivery: DeliveryBench, verdicts: Verdict[]): void {
  process.stdout.write(`${[...deliveryReport(delivery), "", verdictTable(verdicts)].join("\n")}\n`);
}
