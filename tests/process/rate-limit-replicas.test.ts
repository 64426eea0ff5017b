/**
 * Two replicas, one PostgreSQL (issue 12, "Scale past one replica"): a client's budget is spent
 * wherever its requests land, so requests alternating between two production servers are refused
 * once the shared limit is reached, not at twice it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProductionServer, type RunningServer } from "../../tools/production-server";
import { freshPostgresUrl, type FreshPostgres } from "../support/databases";

const EVENTS_LIMIT = 4;

let database: FreshPostgres;
const servers: RunningServer[] = [];

beforeAll(async () => {
  database = await freshPostgresUrl();
  const env = {
    DATABASE_URL: database.url,
    EVENTS_RATE_LIMIT: String(EVENTS_LIMIT),
    // Replicas share the secret (it also keys the stored hash of the client's address).
    CSRF_SECRET: "rate-limit-replicas-test-secret-0123456789abcdef",
  };
  // One after the other: the first applies the migrations.
  servers.push(await startProductionServer(env));
  servers.push(await startProductionServer(env));
}, 90_000);

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  await database?.drop();
});

function beacon(server: RunningServer, step: number): Promise<Response> {
  return fetch(`${server.origin}/api/events`, {
    method: "POST",
    headers: { "content-type": "application/json", "Sec-Fetch-Site": "same-origin" },
    body: JSON.stringify({ event: "form_step_completed", step, sid: "rl1", tid: "clk-replicas", vid: "v-replicas", ms: 9_000 }),
    signal: AbortSignal.timeout(10_000),
  });
}

describe("the events budget across two replicas", () => {
  it("refuses the client once the shared limit is reached, whichever replica answers", async () => {
    const answered: number[] = [];
    for (let i = 0; i < EVENTS_LIMIT + 3; i += 1) answered.push((await beacon(servers[i % 2]!, (i % 3) + 1)).status);
    expect(answered).toEqual([...Array<number>(EVENTS_LIMIT).fill(204), 429, 429, 429]);
    // Each replica refused some, and said so in its log.
    for (const server of servers) expect(server.logs.some((line) => line.event === "events_rate_limited")).toBe(true);
    // Nothing fell back to letting requests through unlimited.
    expect(servers.flatMap((server) => server.logs).filter((line) => line.event === "rate_limit_store_unavailable")).toEqual([]);
  });
});
