/**
 * The quote form's side of `npm run bench`: POST /api/leads under load against each store (the
 * embedded one and PostgreSQL), counting what was really stored afterwards, and the JavaScript
 * the framed form (rapidfire.html) downloads.
 *
 * Every request is a different visitor (own idempotency key, phone and email), so each is a
 * full insert of a lead and its consent record, never a duplicate short-cut. The anti-bot fill
 * time is 0 and the per-client rate limit is lifted: all load comes from one loopback address.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startProductionServer, type RunningServer } from "../../tools/production-server";
import { runLoad, type AutocannonRequest, type LoadResult } from "./bench-autocannon";
import { httpGet } from "../../tools/http-get";
import { measureJsWeight, type JsWeight } from "../../tools/js-weight";
import { openDatabase, type DatabaseOptions } from "../../server/db/database";
import { leadRepository } from "../../server/db/leads";
import { provideAdminUrl, createTestDatabase } from "../../tools/postgres";
import { leadBody, leadSessionFrom, type LeadSession } from "../../tools/lead-session";

export const LEAD_CONNECTIONS = 20;
export const LEAD_WARMUP_SECONDS = 2;
export const LEAD_SECONDS = 10;

export interface LeadBenchResult {
  store: "embedded" | "postgres";
  /** The LOG_LEVEL the server under load was started with. */
  logLevel: string;
  connections: number;
  seconds: number;
  responses: number;
  created: number;
  /** 201 answers over warm-up and measurement: every one must be a row. */
  createdIncludingWarmUp: number;
  /** Leads in the database after the run, counted with SQL. */
  stored: number;
  /** 201 answers per second of the measured run. */
  leadsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Socket errors, timeouts and any status other than 201. */
  errors: number;
  statusCounts: Record<string, number>;
}

/** GET /api/leads/session with fetch, as the form does when it loads. */
export async function openSession(origin: string): Promise<LeadSession> {
  const response = await fetch(`${origin}/api/leads/session`);
  if (!response.ok) throw new Error(`GET /api/leads/session answered ${response.status}`);
  return leadSessionFrom(response.headers.getSetCookie(), await response.json());
}

/** The load's shape: how many connections, for how long or how many requests. */
export interface LeadLoadShape {
  connections: number;
  duration?: number;
  amount?: number;
}

/** POST /api/leads under autocannon, each request a new visitor (sid "bench", the click id `nextTid` gives). */
export async function postLeads(server: RunningServer, shape: LeadLoadShape, nextTid: () => string): Promise<LoadResult> {
  const session = await openSession(server.origin);
  return runLoad({
    url: `${server.origin}/api/leads`,
    ...shape,
    timeout: 10,
    method: "POST",
    headers: { "content-type": "application/json", "x-csrf-token": session.csrfToken, cookie: session.cookie },
    requests: [
      {
        method: "POST",
        // A new visitor each time: own idempotency key, phone and email (tools/lead-session.ts).
        setupRequest: (request: AutocannonRequest) => ({ ...request, body: JSON.stringify(leadBody(session, { sid: "bench", tid: nextTid() })) }),
      },
    ],
  });
}

const loadLeads = (server: RunningServer, seconds: number, counter: { n: number }) =>
  postLeads(server, { connections: LEAD_CONNECTIONS, duration: seconds }, () => `t${(counter.n += 1)}`);

async function storedLeads(location: DatabaseOptions): Promise<number> {
  const db = await openDatabase(location);
  try {
    return (await leadRepository(db).counts()).leads;
  } finally {
    await db.close();
  }
}

async function benchStore(store: LeadBenchResult["store"], location: DatabaseOptions, log: (message: string) => void): Promise<LeadBenchResult> {
  const env: Record<string, string> = { LOG_LEVEL: "info", LEAD_RATE_LIMIT: "1000000", LEAD_MIN_FILL_MS: "0" };
  if (location.DATABASE_URL) env.DATABASE_URL = location.DATABASE_URL;
  else env.DATA_DIR = location.DATA_DIR;
  const server = await startProductionServer(env, { keepLogs: "problems" });
  const counter = { n: 0 };
  let result;
  let warmUpCreated: number;
  try {
    log(`leads (${store}): warm-up ${LEAD_WARMUP_SECONDS} s, then ${LEAD_SECONDS} s at ${LEAD_CONNECTIONS} connections…`);
    warmUpCreated = (await loadLeads(server, LEAD_WARMUP_SECONDS, counter)).statusCodeStats["201"]?.count ?? 0;
    result = await loadLeads(server, LEAD_SECONDS, counter);
  } finally {
    await server.stop(); // the embedded store can be opened only once the server has let go of it
  }
  const statusCounts = Object.fromEntries(Object.entries(result.statusCodeStats).map(([status, { count }]) => [status, count]));
  const responses = Object.values(statusCounts).reduce((sum, count) => sum + count, 0);
  const created = statusCounts["201"] ?? 0;
  const stored = await storedLeads(location);
  return {
    store,
    logLevel: server.logLevel,
    connections: LEAD_CONNECTIONS,
    seconds: result.duration,
    responses,
    created,
    createdIncludingWarmUp: created + warmUpCreated,
    stored,
    leadsPerSecond: result.duration > 0 ? created / result.duration : 0,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + (responses - created),
    statusCounts,
  };
}

export interface LeadBench {
  results: LeadBenchResult[];
  formJs: JsWeight;
}

export async function benchLeads(log: (message: string) => void): Promise<LeadBench> {
  const results: LeadBenchResult[] = [];
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "bench-leads-"));
  try {
    results.push(await benchStore("embedded", { DATA_DIR: dataDir }, log));
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
  log("leads (postgres): starting PostgreSQL (TEST_DATABASE_URL, or a throwaway cluster)…");
  const admin = await provideAdminUrl();
  try {
    const database = await createTestDatabase(admin.url);
    try {
      results.push(await benchStore("postgres", { DATABASE_URL: database.url, DATA_DIR: "unused" }, log));
    } finally {
      await database.drop();
    }
  } finally {
    await admin.stop();
  }

  log("measuring the quote form's JavaScript…");
  const server = await startProductionServer({}, { keepLogs: "problems" });
  try {
    const page = await httpGet(`${server.origin}/rapidfire.html`);
    return { results, formJs: await measureJsWeight(server.origin, "/rapidfire.html", page.body.toString("utf8")) };
  } finally {
    await server.stop();
  }
}
