/**
 * Prometheus metrics (issue 34, item 1; server/metrics.ts, docs/metrics.md): scraped at GET
 * /metrics on the console's private listener without a session, never served on the public
 * port; requests counted by route pattern and status (an ad click's tid never becomes a label);
 * refused quote requests by reason; the process's memory and event-loop delay; the delivery
 * queue read from the database.
 */
import path from "node:path";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAdminApp } from "../../server/admin/app";
import { analyticsReports } from "../../server/admin/reports";
import { renderAdminFrom } from "../../server/admin/render-source";
import { loadProductionBuild } from "../../server/pages/render-source";
import { watchEventWriter, watchQueue } from "../../server/metrics";
import { createTestApp, type TestApp } from "../support/app";
import { captureLogs } from "../support/log-capture";
import { embeddedStore, type TestDatabase } from "../support/databases";
import { projectRoot } from "../../tools/production-server";
import { leadBody, openLeadSession, postLead } from "../../tools/lead-session";

/** One sample's value from the exposition text, or undefined when the series is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (wanted.every((pair) => line.includes(pair))) return Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return undefined;
}

describe("GET /metrics", () => {
  let site: TestApp;
  let db: TestDatabase;
  let admin: ReturnType<typeof createAdminApp>;
  const scrape = async () => {
    const response = await request(admin).get("/metrics");
    expect(response.status).toBe(200);
    return response.text;
  };

  beforeAll(async () => {
    site = await createTestApp();
    db = await embeddedStore().open();
    watchQueue(db.builder);
    const source = (await loadProductionBuild(path.join(projectRoot, "dist"))).source;
    admin = createAdminApp({
      config: { ADMIN_SESSION_HOURS: 12, REPORT_TIME_ZONE: "America/New_York", NODE_ENV: "production" },
      logger: captureLogs({ LOG_LEVEL: "warn", NODE_ENV: "production" }).logger,
      db,
      renderAdmin: renderAdminFrom(source),
      secret: "metrics-test-secret-of-at-least-32-characters",
      reports: analyticsReports,
    });
  });
  afterAll(async () => {
    await db?.close();
    await site?.services.close();
  });

  it("is served on the console's listener without a session, in Prometheus' text format, and not on the public port", async () => {
    const response = await request(admin).get("/metrics");
    expect(response.status).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(response.headers["cache-control"]).toBe("no-store");
    expect((await request(site.app).get("/metrics")).status).toBe(404);
  });

  it("counts requests by route pattern and status, never by an ad click's tid", async () => {
    const before = await scrape();
    const landing = { route: "/zipcode", method: "GET", status: "200" };
    const missing = { route: "not_found", method: "GET", status: "404" };
    await request(site.app).get("/zipcode?sid=a1&tid=CLICK-METRICS-1");
    await request(site.app).get("/zipcode?sid=a1&tid=CLICK-METRICS-2");
    await request(site.app).get("/no-such-page-7f3a");
    const after = await scrape();
    expect((sample(after, "http_requests_total", landing) ?? 0) - (sample(before, "http_requests_total", landing) ?? 0)).toBe(2);
    expect((sample(after, "http_requests_total", missing) ?? 0) - (sample(before, "http_requests_total", missing) ?? 0)).toBe(1);
    expect(sample(after, "http_request_duration_seconds_count", { route: "/zipcode", method: "GET" })).toBeGreaterThanOrEqual(2);
    expect(after).not.toContain("CLICK-METRICS");
    expect(after).not.toContain("no-such-page");
  });

  it("counts refused quote requests by reason", async () => {
    const reason = { reason: "stale_disclosure" };
    const before = sample(await scrape(), "leads_refused_total", reason) ?? 0;
    const session = await openLeadSession(site.app);
    // Agreed to a disclosure version that is not the one shown now: refused, 409.
    const refused = await postLead(site.app, session, leadBody(session, { consentVersion: 999 }));
    expect(refused.status).toBe(409);
    expect((sample(await scrape(), "leads_refused_total", reason) ?? 0) - before).toBe(1);
  });

  it("has the funnel events' writer: buffered, written, dropped and failed writes, as it reports them", async () => {
    watchEventWriter(() => ({ buffered: 7, written: 120, dropped: 3, failedWrites: 2 }));
    const text = await scrape();
    expect([sample(text, "analytics_events_buffered"), sample(text, "analytics_events_written_total"), sample(text, "analytics_events_dropped_total"), sample(text, "analytics_write_failures_total")]).toEqual([7, 120, 3, 2]);
  });

  it("has the process's memory and event-loop delay, and the delivery queue read from the database", async () => {
    const text = await scrape();
    expect(sample(text, "process_resident_memory_bytes")).toBeGreaterThan(10_000_000);
    expect(sample(text, "nodejs_eventloop_lag_p99_seconds")).toBeGreaterThanOrEqual(0);
    expect(sample(text, "delivery_queue_due")).toBe(0);
    expect(sample(text, "delivery_queue_oldest_due_seconds")).toBe(0);
    for (const name of ["leads_stored_total", "deliveries_total", "auctions_total", "auction_decision_seconds"]) expect(text).toContain(`# TYPE ${name} `);
  });
});
