/**
 * A typed door to autocannon's programmatic API (the package ships no types and the project has
 * no @types/autocannon). Only the options and result fields the benchmark uses are described.
 */
import { createRequire } from "node:module";

export interface LoadOptions {
  url: string;
  connections: number;
  /** Seconds (`amount`, when given, wins). */
  duration?: number;
  /** Stop after this many requests have been answered, however long it takes. */
  amount?: number;
  /** Requests per second from all connections together (default: as fast as answers come). */
  overallRate?: number;
  /** Seconds before one request counts as a timeout (and an error). */
  timeout: number;
  headers?: Record<string, string>;
  /** Replace `[<id>]` in the URL with a new id for every request. */
  idReplacement?: boolean;
  method?: "GET" | "POST";
  /** Per-request shaping: autocannon calls setupRequest before each request (e.g. a unique body). */
  requests?: Array<{ method?: "GET" | "POST"; setupRequest?: (request: AutocannonRequest) => AutocannonRequest }>;
}

export interface AutocannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
}

interface Histogram {
  average: number;
  mean: number;
  stddev: number;
  min: number;
  max: number;
  p50: number;
  p90: number;
  p99: number;
  total?: number;
}

/** The parts of autocannon's result object read here (see autocannon/lib/aggregateResult.js). */
export interface LoadResult {
  /** Seconds the run actually took. */
  duration: number;
  /** Socket errors and timeouts (timeouts are counted in both). */
  errors: number;
  timeouts: number;
  resets: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
  /** Milliseconds, recorded at 1 ms resolution. */
  latency: Histogram & { totalCount: number };
  /** Requests per one-second sample; `total` is every completed request. */
  requests: Histogram & { total: number; sent: number };
  /** Bytes per one-second sample; `total` is every byte received. */
  throughput: Histogram & { total: number };
}

export interface LoadRun extends PromiseLike<LoadResult> {
  stop(): void;
}

interface Tracker {
  then: PromiseLike<LoadResult>["then"];
  stop(): void;
}

type Autocannon = (options: LoadOptions & { renderProgressBar?: boolean; renderResultsTable?: boolean }) => Tracker;

const require = createRequire(import.meta.url);
// autocannon is CommonJS without type declarations: `require` gives `any`, narrowed right here.
const autocannon = require("autocannon") as Autocannon;

/** Starts one load run; it stops by itself after `duration` seconds, or earlier on stop(). */
export function runLoad(options: LoadOptions): LoadRun {
  const tracker = autocannon({ ...options, renderProgressBar: false, renderResultsTable: false });
  return {
    then: (onFulfilled, onRejected) => tracker.then(onFulfilled, onRejected),
    stop: () => tracker.stop(),
  };
}
