/**
 * What `npm run bench` measures and how hard: the load settings, the page targets, the budgets
 * the report checks, and the command line (`--leads-only`, `--delivery-only`, `--help`).
 */
import { parseArgs } from "node:util";

export const CONNECTIONS = 50;
export const ROUNDS = 3;
export const ROUND_SECONDS = 5;
export const WARMUP_SECONDS = 2;
export const PAUSE_BETWEEN_RUNS_MS = 250;
/** Per-request timeout inside autocannon; a timeout counts as an error. */
export const REQUEST_TIMEOUT_SECONDS = 10;
/** Hard stop for the whole benchmark, whatever happens (pages, memory, leads and delivery take about 8 minutes). */
export const OVERALL_DEADLINE_MS = 20 * 60_000;
/** The page servers run as in production: one access-log line per request. */
export const BENCH_LOG_LEVEL = "info";
/** What `npm start` runs with when LOG_LEVEL is unset (server/config.ts). */
export const PRODUCTION_LOG_LEVEL = "info";

export const TARGETS_BUDGET = {
  ssrToStaticRatio: 0.8,
  p99Ms: 100,
  /** Issue 12's "100 KB" read as decimal kilobytes, the stricter reading (100 KiB would be 102,400 B). */
  landingJsGzipBytes: 100_000,
  leadsPerSecondOnPostgres: 300,
  /** Issue 12's "35 KB", decimal too. */
  formJsGzipBytes: 35_000,
  /** Issue 10: to a buyer answering in 50 ms, on PostgreSQL, one replica. */
  deliveriesPerSecond: 300,
  /** Issue 10: POST /api/leads with delivery on ÷ off. */
  leadApiDeliveryOnToOffRatio: 0.8,
  /** Issue 11: ad-click pages with funnel events stored ÷ not stored. */
  eventsOnToOffRatio: 0.9,
  /** Issue 12: ad traffic (phone, new tid, gzip accepted) ÷ the bare express.static baseline. */
  adTrafficToStaticRatio: 1.0,
  adTrafficP99Ms: 50,
} as const;

export type TargetId =
  | "ssr"
  | "ssrRender"
  | "ssrRenderNoEvents"
  | "staticInApp"
  | "static"
  | "staticQuote"
  | "staticPrivacy"
  | "staticNotFound"
  | "go"
  | "notFound"
  | "adLanding"
  | "adQuote"
  | "adPrivacy"
  | "adNotFound";

export interface Target {
  id: TargetId;
  label: string;
  /** Which server: the app, the app with ANALYTICS_EVENTS=off, or the static baseline. */
  server: "app" | "appNoEvents" | "baseline";
  path: string;
  expectedStatus: number;
  /** Sent as a phone browser does (its user agent, `Accept-Encoding: gzip, deflate, br`): ad traffic (issue 12). */
  phone?: boolean;
  /**
   * Ad traffic: the bare static target serving this page's own bytes (uncompressed), which the
   * issue compares it with. Its file is this target's page as the app answers it without
   * Accept-Encoding, captured before the load.
   */
  baseline?: { target: TargetId; file: string };
}

/** Where the app serves the landing page's bytes as a plain file, through its whole middleware stack. */
export const IN_APP_STATIC_DIR = "__bench__";
export const IN_APP_STATIC_PATH = `/${IN_APP_STATIC_DIR}/zipcode.html`;

export const TARGETS: Target[] = [
  { id: "ssr", label: "SSR /zipcode?sid=a1&tid=b2", server: "app", path: "/zipcode?sid=a1&tid=b2", expectedStatus: 200 },
  // autocannon replaces [<id>] with a new id per request: every request is a fresh React render
  // (a visitor with a unique click id), never a page-cache hit.
  { id: "ssrRender", label: "SSR /zipcode, unique tid each", server: "app", path: "/zipcode?sid=a1&tid=[<id>]", expectedStatus: 200 },
  // The same ad clicks on a server that stores no funnel events: what storing them costs (issue 11).
  { id: "ssrRenderNoEvents", label: "SSR /zipcode, unique tid, events off", server: "appNoEvents", path: "/zipcode?sid=a1&tid=[<id>]", expectedStatus: 200 },
  { id: "staticInApp", label: "static in app (same HTML)", server: "app", path: IN_APP_STATIC_PATH, expectedStatus: 200 },
  { id: "static", label: "static bare (same HTML)", server: "baseline", path: "/", expectedStatus: 200 },
  // Issue 12 compares each ad-click page with a bare static server sending that page's own bytes.
  { id: "staticQuote", label: "static bare (the quote page's HTML)", server: "baseline", path: "/quote.html", expectedStatus: 200 },
  { id: "staticPrivacy", label: "static bare (the privacy policy's HTML)", server: "baseline", path: "/privacy-policy.html", expectedStatus: 200 },
  { id: "staticNotFound", label: "static bare (the 404 page's HTML)", server: "baseline", path: "/not-found.html", expectedStatus: 200 },
  { id: "go", label: "/go?zip=90210&sid=a1&tid=b2", server: "app", path: "/go?zip=90210&sid=a1&tid=b2", expectedStatus: 303 },
  { id: "notFound", label: "404 /no-such-page", server: "app", path: "/no-such-page", expectedStatus: 404 },
  // Issue 12: ad clicks as phones send them, each with its own click id, gzip/br accepted.
  // The landing page's baseline is "static" (its index.html, the /zipcode page without ids, as before).
  { id: "adLanding", label: "ad click /zipcode, phone, new tid", server: "app", path: "/zipcode?sid=a1&tid=[<id>]", expectedStatus: 200, phone: true, baseline: { target: "static", file: "index.html" } },
  { id: "adQuote", label: "ad click /, phone, new tid", server: "app", path: "/?zip=90210&sid=a1&tid=[<id>]", expectedStatus: 200, phone: true, baseline: { target: "staticQuote", file: "quote.html" } },
  {
    id: "adPrivacy",
    label: "ad click /privacy-policy, phone, new tid",
    server: "app",
    path: "/privacy-policy?sid=a1&tid=[<id>]",
    expectedStatus: 200,
    phone: true,
    baseline: { target: "staticPrivacy", file: "privacy-policy.html" },
  },
  { id: "adNotFound", label: "ad click to a 404, phone, new tid", server: "app", path: "/old-offer?sid=a1&tid=[<id>]", expectedStatus: 404, phone: true, baseline: { target: "staticNotFound", file: "not-found.html" } },
];

/** What a phone browser sends with an ad click. */
export const PHONE_HEADERS = {
  "user-agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
  accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
  "accept-encoding": "gzip, deflate, br",
} as const;

export const USAGE = `usage: npm run bench [-- --pages-only | --rss-only | --leads-only | --delivery-only [--delivery-concurrency N,N…] | --experiment-only | --help]

  (no option)      the whole benchmark: page throughput against static baselines, the landing
                   page's JavaScript, POST /api/leads on both stores, then lead delivery on
                   PostgreSQL (about 8 minutes); writes bench-results/latest.json
  --pages-only     just the pages against the static baselines (ad traffic included; about 5 minutes)
  --rss-only       just the memory run: 100,000 ad clicks on PostgreSQL, then on the embedded store; the server's RSS and its database's beside it (about 4 minutes)
  --leads-only     just POST /api/leads on both stores and the quote form's JavaScript
  --delivery-only  just lead delivery (deliveries/s, stored → accepted latency, the lead API with
                   delivery on vs off; about 2 minutes); puts its figures into
                   bench-results/latest.json, keeping the rest of the file
  --delivery-concurrency N,N…
                   drain the delivery backlog once per DELIVERY_CONCURRENCY value listed (to see
                   where the rate stops growing); default: the server's own setting
  --experiment-only
                   just the landing page's ad clicks with an A/B experiment running vs without
                   (issue 45: new visitors, each minted an id and an exposure, and a returning one;
                   about 2 minutes)
  --help           this text
`;

export type BenchMode = "all" | "pages-only" | "rss-only" | "leads-only" | "delivery-only" | "experiment-only" | "help";

export interface BenchArgs {
  mode: BenchMode;
  /** DELIVERY_CONCURRENCY values for the backlog drain; [undefined] = the server's own setting. */
  deliveryConcurrencies: Array<number | undefined>;
}

/** What the command line asks for; throws with the usage on anything else. */
export function parseBenchArgs(argv: string[]): BenchArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        "pages-only": { type: "boolean" },
        "rss-only": { type: "boolean" },
        "leads-only": { type: "boolean" },
        "delivery-only": { type: "boolean" },
        "experiment-only": { type: "boolean" },
        "delivery-concurrency": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }));
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${USAGE}`, { cause: error });
  }
  let deliveryConcurrencies: Array<number | undefined> = [undefined];
  if (values["delivery-concurrency"] !== undefined) {
    const list = values["delivery-concurrency"].split(",").map((item) => Number(item.trim()));
    if (list.length === 0 || list.some((value) => !Number.isInteger(value) || value < 1 || value > 1_000)) {
      throw new Error(`--delivery-concurrency takes whole numbers from 1 to 1000, comma-separated\n${USAGE}`);
    }
    deliveryConcurrencies = list;
  }
  if ([values["pages-only"], values["rss-only"], values["leads-only"], values["delivery-only"], values["experiment-only"]].filter(Boolean).length > 1) {
    throw new Error(`--pages-only, --rss-only, --leads-only, --delivery-only and --experiment-only exclude each other\n${USAGE}`);
  }
  const mode: BenchMode = values.help
    ? "help"
    : values["pages-only"]
      ? "pages-only"
      : values["rss-only"]
        ? "rss-only"
        : values["leads-only"]
          ? "leads-only"
          : values["delivery-only"]
            ? "delivery-only"
            : values["experiment-only"]
              ? "experiment-only"
              : "all";
  return { mode, deliveryConcurrencies };
}
