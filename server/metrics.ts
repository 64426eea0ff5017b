/**
 * Prometheus metrics (issue 34, item 1; the names and labels: docs/metrics.md), served at
 * GET /metrics on the operations console's private listener, never on the public port. One
 * registry per process (prom-client): the process's own (memory, CPU, event-loop delay, GC), HTTP
 * requests by route and status, and the business: leads stored, refused by reason and duplicated,
 * deliveries by buyer and outcome, auctions and their time to a decision, and, read from the
 * database when scraped, the delivery queue's depth and its oldest due delivery's age. Label
 * values are bounded: a route pattern (never a path with ids), a status, a reason from a fixed
 * list, a configured buyer's id; never a tid, a lead reference or an address.
 */
import type { RequestHandler } from "express";
import { AggregatorRegistry, collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type MetricObjectWithValues, type MetricValue } from "prom-client";
import { sql } from "kysely";
import type { Builder } from "./db/database";
import { paths } from "../shared/routes";

export const registry = new Registry();
collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });

export type MetricsJson = MetricObjectWithValues<MetricValue<string>>[];

/** Other processes' metrics, read at each scrape: the background worker's (server/workers/). */
const sources = new Set<() => Promise<MetricsJson>>();

export function addMetricsSource(source: () => Promise<MetricsJson>): () => void {
  sources.add(source);
  return () => sources.delete(source);
}

/**
 * GET /metrics' text: this process's registry, and the other processes' (their series carry a
 * `process` label of their own, so none is summed with this one's). A source that does not
 * answer is left out of that scrape.
 */
export async function metricsText(): Promise<string> {
  if (sources.size === 0) return registry.metrics();
  const others = await Promise.all([...sources].map((source) => source().catch((): MetricsJson => [])));
  return AggregatorRegistry.aggregate([await registry.getMetricsAsJSON(), ...others]).metrics();
}

const httpRequests = new Counter({ name: "http_requests_total", help: "HTTP requests answered, by route pattern, method and status.", labelNames: ["route", "method", "status"] as const, registers: [registry] });
const httpDuration = new Histogram({
  name: "http_request_duration_seconds",
  help: "Time from a request's arrival to its response's end, by route pattern.",
  labelNames: ["route", "method"] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});
export const leadsStored = new Counter({ name: "leads_stored_total", help: "Quote requests stored.", labelNames: ["duplicate"] as const, registers: [registry] });
export const leadsRefused = new Counter({ name: "leads_refused_total", help: "Quote requests refused, by reason.", labelNames: ["reason"] as const, registers: [registry] });
export const deliveryOutcomes = new Counter({
  name: "deliveries_total",
  help: "Delivery attempts' ends, by kind (buyer, postback, revocation), target buyer (postbacks: source) and outcome (accepted, rejected, retry, failed).",
  labelNames: ["kind", "buyer", "outcome"] as const,
  registers: [registry],
});
export const auctionsEnded = new Counter({ name: "auctions_total", help: "Auctions ended, by outcome (decided, unsold).", labelNames: ["outcome"] as const, registers: [registry] });
export const auctionBids = new Counter({ name: "auction_pings_total", help: "Each buyer's answer in an auction's round, by outcome (bid, no_bid, late, timeout, network_error, http_error, malformed, unsigned, wrong_type, below_floor, not_sent (a ping spec needs a value the lead lacks); standing for a fixed-price buyer).", labelNames: ["outcome"] as const, registers: [registry] });
export const auctionDecision = new Histogram({
  name: "auction_decision_seconds",
  help: "From an auction's start to its decision (its ping round and settlement).",
  buckets: [0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 5],
  registers: [registry],
});

/** Lead checks (issue 44, server/checks/): each answer by provider, kind, status and outcome; `cached` answers cost no call. */
export const leadChecksTotal = new Counter({
  name: "lead_checks_total",
  help: "Lead checks answered, by provider, kind, status (ok, failed, unavailable), outcome (retained, authentic, clean, listed, dnc_match, a line type, timeout, down, …) and whether the answer came from the phone cache (cached=true: no provider call).",
  labelNames: ["provider", "kind", "status", "outcome", "cached"] as const,
  registers: [registry],
});
export const leadCheckDuration = new Histogram({
  name: "lead_check_duration_seconds",
  help: "A provider call's time, by provider (cached answers are not observed).",
  labelNames: ["provider"] as const,
  buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5],
  registers: [registry],
});

/** A request's route as a bounded label: the pattern it matched, else the kind of address. */
const PAGES = new Set<string>([paths.landing, paths.quote, paths.privacy, paths.terms, paths.go, paths.healthz, paths.readyz, "/rapidfire.html"]);
export function routeLabel(pattern: string | undefined, path: string, status: number): string {
  if (status === 404) return "not_found";
  // A catch-all (the pages' renderer, "/{*splat}") says nothing: the page's own path does.
  if (pattern && !pattern.includes("*")) return pattern;
  if (PAGES.has(path)) return path;
  if (path.startsWith("/assets/")) return "/assets/*";
  return "other";
}

/** Counts every request and its time, once its response ends (or its client leaves). */
export function metricsMiddleware(): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    const done = () => {
      res.removeListener("finish", done);
      res.removeListener("close", done);
      const route = req.route as { path?: unknown } | undefined;
      const pattern = typeof route?.path === "string" ? `${req.baseUrl}${route.path}` : undefined;
      const path = (req.originalUrl ?? req.url).split("?")[0] ?? "";
      const label = routeLabel(pattern, path, res.statusCode);
      httpRequests.inc({ route: label, method: req.method, status: String(res.statusCode) });
      httpDuration.observe({ route: label, method: req.method }, Number(process.hrtime.bigint() - started) / 1e9);
    };
    res.on("finish", done);
    res.on("close", done);
    next();
  };
}

/**
 * Gauges read when scraped: the delivery queue (pending deliveries due now, and how long the
 * oldest has been due), and the database pool's connections when `pool` tells them. A scrape
 * while the database is down leaves the queue gauges at their last value.
 */
export function watchQueue(db: Builder, pool?: () => { total: number; idle: number; waiting: number }): void {
  registry.removeSingleMetric("delivery_queue_due");
  registry.removeSingleMetric("delivery_queue_oldest_due_seconds");
  registry.removeSingleMetric("db_pool_connections");
  const oldest = new Gauge({ name: "delivery_queue_oldest_due_seconds", help: "How long the oldest pending delivery has been due.", registers: [registry] });
  new Gauge({
    name: "delivery_queue_due",
    help: "Pending deliveries due now (buyers, postbacks, revocations).",
    registers: [registry],
    async collect() {
      try {
        const row = await db
          .selectFrom("deliveries")
          .select([sql<string>`count(*)`.as("due"), sql<string | null>`extract(epoch from now() - min(next_attempt_at))`.as("oldest")])
          .where("status", "=", "pending")
          .where("nextAttemptAt", "<=", sql<Date>`now()`)
          .executeTakeFirst();
        this.set(Number(row?.due ?? 0));
        oldest.set(Math.max(0, Number(row?.oldest ?? 0)));
      } catch {
        // The database is away: the last values stand (its errors are logged by the requests that meet them).
      }
    },
  });
  if (pool) {
    new Gauge({
      name: "db_pool_connections",
      help: "The request pool's PostgreSQL connections, by state (in_use, idle, waiting: requests queued for one).",
      labelNames: ["state"] as const,
      registers: [registry],
      collect() {
        const stats = pool();
        this.set({ state: "in_use" }, stats.total - stats.idle);
        this.set({ state: "idle" }, stats.idle);
        this.set({ state: "waiting" }, stats.waiting);
      },
    });
  }
}

/**
 * The funnel events' writer (server/analytics/writer.ts), read when scraped: events waiting in
 * memory, and totals written, dropped (its buffer full while the database was away) and failed
 * batch writes. Counters in Prometheus' sense: they only grow for the life of the process.
 */
export function watchEventWriter(stats: () => { buffered: number; written: number; dropped: number; failedWrites: number }): void {
  for (const name of ["analytics_events_buffered", "analytics_events_written_total", "analytics_events_dropped_total", "analytics_write_failures_total"]) registry.removeSingleMetric(name);
  new Gauge({ name: "analytics_events_buffered", help: "Funnel events waiting in memory to be written.", registers: [registry], collect() { this.set(stats().buffered); } });
  new Counter({ name: "analytics_events_written_total", help: "Funnel events written to the database.", registers: [registry], collect() { this.reset(); this.inc(stats().written); } });
  new Counter({ name: "analytics_events_dropped_total", help: "Funnel events dropped: the buffer was full while the database was away.", registers: [registry], collect() { this.reset(); this.inc(stats().dropped); } });
  new Counter({ name: "analytics_write_failures_total", help: "Batch writes of funnel events that failed (their events were kept and tried again).", registers: [registry], collect() { this.reset(); this.inc(stats().failedWrites); } });
}
