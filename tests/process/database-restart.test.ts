/**
 * PostgreSQL restarted under a stream of quote requests (issue 10): the production server, on a
 * throwaway cluster of this file's own, answers 503 with Retry-After (never 500) while the
 * database is away and reconnects by itself; visitors who send the same request again (the same
 * idempotency key and session, as the form does) all get their reference, and every request is
 * stored exactly once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { createTestDatabase, startThrowawayCluster, type TestDatabase, type ThrowawayCluster } from "../../tools/postgres";
import { startProductionServer, type RunningServer } from "../../tools/production-server";
import { leadBody, leadSessionFrom, type LeadSession } from "../../tools/lead-session";
import { CSRF_HEADER } from "../../shared/routes";
import { until } from "../support/processes";

/** Visitors submitting at once, each one request after another. */
const VISITORS = 8;
/** How long PostgreSQL stays stopped in each restart (the first long, the second a quick bounce). */
const DOWN_MS = [4_000, 0];
/** A visitor's request that has not got through by then fails the test. */
const GIVE_UP_MS = 40_000;

interface Exchange {
  key: string;
  /** Every status this request was answered with, in order ("network" when fetch failed). */
  statuses: Array<number | "network">;
  retryAfter: Array<string | null>;
  /** The reference of its 201 or 409. */
  reference?: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let cluster: ThrowawayCluster;
let database: TestDatabase;
let server: RunningServer;

beforeAll(async () => {
  cluster = await startThrowawayCluster(); // our own: the shared test server is never restarted
  database = await createTestDatabase(cluster.url);
  server = await startProductionServer({
    DATABASE_URL: database.url,
    DATABASE_POOL_SIZE: "5",
    LEAD_MIN_FILL_MS: "0",
    LEAD_RATE_LIMIT: "100000",
    CSRF_SECRET: "database-restart-test-secret-0123456789abcdef",
  });
}, 90_000);

afterAll(async () => {
  await server?.stop();
  await cluster?.stop(); // removes the cluster and its database
});

async function openSession(): Promise<LeadSession> {
  const response = await fetch(`${server.origin}/api/leads/session`, { signal: AbortSignal.timeout(10_000) });
  expect(response.status).toBe(200);
  return leadSessionFrom(response.headers.getSetCookie(), await response.json());
}

/** One visitor's request, sent again on 503 (after its Retry-After) or no answer, until it is answered otherwise. */
async function submitUntilAnswered(session: LeadSession, body: Record<string, unknown>): Promise<Exchange> {
  const exchange: Exchange = { key: String(body.idempotencyKey), statuses: [], retryAfter: [] };
  const deadline = Date.now() + GIVE_UP_MS;
  while (Date.now() < deadline) {
    let response: Response;
    try {
      response = await fetch(`${server.origin}/api/leads`, {
        method: "POST",
        headers: { "content-type": "application/json", Cookie: session.cookie, [CSRF_HEADER]: session.csrfToken, "Sec-Fetch-Site": "same-origin" },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(15_000),
      });
    } catch {
      exchange.statuses.push("network");
      await sleep(1_000);
      continue;
    }
    exchange.statuses.push(response.status);
    const reply = (await response.json()) as { reference?: string; status?: string; error?: string };
    if (response.status !== 503) {
      exchange.reference = reply.reference;
      return exchange;
    }
    exchange.retryAfter.push(response.headers.get("retry-after"));
    await sleep(Number(response.headers.get("retry-after") ?? "2") * 1000);
  }
  return exchange;
}

describe("PostgreSQL restarted under a stream of quote requests", () => {
  it("answers 503 with Retry-After meanwhile, never 500, and stores every request exactly once", { timeout: 90_000 }, async () => {
    const exchanges: Exchange[] = [];
    let streaming = true;
    const visitor = async () => {
      while (streaming) {
        const session = await openSession(); // no database behind it: works while PostgreSQL is away
        exchanges.push(await submitUntilAnswered(session, leadBody(session)));
      }
    };
    const failures: string[] = [];
    const visitors = Array.from({ length: VISITORS }, () => visitor().catch((error: unknown) => failures.push(String(error))));

    // A stream first: some requests stored before PostgreSQL goes away.
    for (const until = Date.now() + 10_000; exchanges.length < 2 * VISITORS && Date.now() < until; ) await sleep(100);
    const restarts: Array<{ answeredBefore: number; downMs: number }> = [];
    for (const downMs of DOWN_MS) {
      restarts.push({ answeredBefore: exchanges.length, downMs });
      await cluster.restart(downMs);
      await sleep(2_500);
    }
    streaming = false;
    await Promise.all(visitors);
    expect(failures, "every visitor could open its session").toEqual([]);

    // Every request got a final answer: 201, or 409 when an earlier try had been stored.
    const statuses = exchanges.flatMap((exchange) => exchange.statuses);
    const unavailable = statuses.filter((status) => status === 503).length;
    const finals = exchanges.map((exchange) => exchange.statuses.at(-1));
    expect(statuses.filter((status) => status === 500), "no 500").toEqual([]);
    expect(statuses.filter((status) => status !== 201 && status !== 409 && status !== 503), "nothing but 201, 409 and 503").toEqual([]);
    expect(finals.every((status) => status === 201 || status === 409)).toBe(true);
    expect(unavailable, "the restarts were seen").toBeGreaterThan(0);
    expect(new Set(exchanges.flatMap((exchange) => exchange.retryAfter))).toEqual(new Set(["2"]));

    // Each idempotency key is stored exactly once, under the reference its visitor was given.
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    let stored: Array<{ key: string; reference: string; rows: number; consents: number }>;
    try {
      ({ rows: stored } = await client.query(
        `SELECT l.idempotency_key::text AS key, min(l.reference) AS reference, count(*)::int AS rows, count(c.id)::int AS consents
           FROM leads l LEFT JOIN lead_consents c ON c.lead_id = l.id
          GROUP BY l.idempotency_key`,
      ));
    } finally {
      await client.end();
    }
    const byKey = new Map(stored.map((row) => [row.key, row]));
    expect(stored).toHaveLength(exchanges.length);
    for (const exchange of exchanges) {
      expect(byKey.get(exchange.key), exchange.key).toEqual({ key: exchange.key, reference: exchange.reference, rows: 1, consents: 1 });
    }

    // The server stayed up, reconnected by itself, and logged each 503 as a warning with its request id.
    expect(server.child.exitCode).toBeNull();
    expect((await fetch(`${server.origin}/readyz`)).status).toBe(200);
    const session = await openSession();
    const after = await submitUntilAnswered(session, leadBody(session));
    expect(after.statuses).toEqual([201]);
    // Each outage is logged twice at warn, when met and when over, with the count of 503s between
    // (issue 41: a line at error per 503 before); the background worker tells its own outages.
    const own = (event: string) => server.logs.filter((line) => line.event === event && line.process !== "background");
    expect(await until(() => own("database_outage_ended").length === own("database_outage_started").length, 10_000)).toBe(true);
    const started = own("database_outage_started");
    const ended = own("database_outage_ended");
    expect(started.length).toBeGreaterThanOrEqual(1);
    expect(started.length).toBeLessThanOrEqual(DOWN_MS.length * 2);
    expect([...started, ...ended].every((line) => line.level === "warn")).toBe(true);
    expect(ended.reduce((sum, line) => sum + Number((line.met as Record<string, number>).api ?? 0), 0)).toBe(unavailable);
    expect(server.logs.filter((line) => line.msg === "request errored")).toEqual([]);
    expect(server.logs.filter((line) => line.event === "auction_error")).toEqual([]);
    expect(server.logs.filter((line) => line.msg === "request failed")).toEqual([]);

    const causes = new Map<string, number>();
    for (const line of started) {
      const err = line.err as { code?: string; message?: string } | undefined;
      const cause = err?.code ?? err?.message ?? "?";
      causes.set(cause, (causes.get(cause) ?? 0) + 1);
    }
    console.info(
      `database restart: ${exchanges.length} requests from ${VISITORS} visitors, ${restarts.length} restarts ` +
        `(${restarts.map((restart) => `${restart.downMs} ms down after ${restart.answeredBefore} answered`).join("; ")}), ` +
        `${unavailable} answers 503, ${finals.filter((status) => status === 409).length} answered 409 on a retry, ` +
        `${statuses.filter((status) => status === "network").length} without an answer, ${stored.length} leads stored; ` +
        `${started.length} outages logged (first causes: ${[...causes].map(([cause, count]) => `${cause} ×${count}`).join(", ")}), ${ended.map((line) => `${String(line.durationMs)} ms`).join(", ")}`,
    );
  });
});
