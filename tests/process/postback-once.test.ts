/**
 * A conversion postback and a worker that dies mid-call (issue 41, part 3): the source got the
 * call, the background process was SIGKILLed before it could record the answer, and once the
 * claim's lease ran out the call was made again. Postbacks are at least once: the source can
 * count the event once only because both calls carry the same event id, in the URL's
 * {event_id} and as Idempotency-Key (docs/lead-delivery.md, "Conversion postbacks").
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../support/processes";
import { startProductionServer, type RunningServer } from "../../tools/production-server";
import { startBuyerStub, type BuyerStub } from "../../tools/buyer-stub";
import { leadBody, openLeadSession, postLead } from "../../tools/lead-session";
import { freshPostgresUrl, type FreshPostgres } from "../support/databases";
import { openDatabase } from "../../server/db/database";
import { deliveryRepository } from "../../server/db/deliveries";

const SECRET = "acme-secret-that-is-at-least-32-chars!!";

describe("a conversion postback whose worker is killed between the call and its record", { timeout: 120_000 }, () => {
  let stub: BuyerStub;
  let postgres: FreshPostgres;
  let folder: string;
  let server: RunningServer;
  const backgroundPid = () => Number(server.logs.filter((line) => line.event === "background_started").at(-1)?.pid);

  beforeAll(async () => {
    stub = await startBuyerStub({ buyers: { acme: SECRET } });
    postgres = await freshPostgresUrl();
    folder = mkdtempSync(path.join(os.tmpdir(), "postback-once-"));
    const file = path.join(folder, "buyers.json");
    writeFileSync(
      file,
      JSON.stringify({
        buyers: [{ id: "acme", name: "Acme Insurance Agency", url: stub.url("acme"), secret: SECRET, price: 18.5 }],
        // The lead form's sid and tid (tools/lead-session.ts): a1, b2.
        sources: [{ sid: "a1", payout: 6, postbackUrl: stub.postbackUrl("tid={tid}&payout={payout}&status={status}&event_id={event_id}") }],
      }),
    );
    server = await startProductionServer({
      DATABASE_URL: postgres.url,
      BUYERS_FILE: file,
      CSRF_SECRET: "a-shared-csrf-secret-of-at-least-32-characters",
      LEAD_MIN_FILL_MS: "0",
      LEAD_RATE_LIMIT: "100000",
      // The stub listens on loopback, which production refuses unless named (server/delivery/outbound.ts).
      OUTBOUND_ALLOW: "127.0.0.1",
    });
  });
  afterAll(async () => {
    await server?.stop();
    await stub?.stop();
    await postgres?.drop();
    rmSync(folder, { recursive: true, force: true });
  });

  it("calls the source again with the same event id, in the URL and as Idempotency-Key, and records it accepted once", async () => {
    // The source receives the call, but its answer never reaches the worker: killed first.
    stub.scriptPostbacks(["hang"]);
    const session = await openLeadSession(server.origin);
    const response = await postLead(server.origin, session, leadBody(session));
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const reference = (response.body as { reference: string }).reference;

    const [first] = await stub.waitForPostbacks(1, 30_000);
    const killed = backgroundPid();
    process.kill(killed, "SIGKILL");
    expect(await until(() => backgroundPid() !== killed, 20_000)).toBe(true);

    // Once the claim's lease runs out (a postback's: its 5 s timeout + 10 s), the new worker calls again.
    const [, again] = await stub.waitForPostbacks(2, 60_000);
    expect(first?.query).toMatchObject({ tid: "b2", payout: "6.00", status: "sold" });
    const eventId = first?.query.event_id;
    expect(eventId).toMatch(/^pb_[0-9a-f]{32}$/);
    expect(first?.idempotencyKey).toBe(eventId);
    expect(again?.query).toEqual(first?.query);
    expect(again?.idempotencyKey).toBe(eventId);
    expect(again?.repeat).toBe(true);
    expect(JSON.stringify([first?.url, again?.url])).not.toContain(reference);

    // Recorded once, accepted at the second attempt; the killed attempt left no record.
    const sent = () => server.logs.filter((line) => line.event === "postback_sent" && line.reference === reference);
    expect(await until(() => sent().length > 0, 10_000)).toBe(true);
    await sleep(1_500); // time for a (wrong) third call
    expect(stub.postbacks()).toHaveLength(2);
    expect(sent()).toEqual([expect.objectContaining({ process: "background", sid: "a1", status: "sold", eventId, attempt: 2, httpStatus: 200 })]);
    const db = await openDatabase({ DATABASE_URL: postgres.url, DATA_DIR: "unused" });
    try {
      const deliveries = deliveryRepository(db);
      const postbacks = await deliveries.list({ reference, kind: "postback" });
      expect(postbacks.map((row) => [row.target, row.status, row.attempts])).toEqual([["a1", "accepted", 2]]);
      expect((await deliveries.attempts(postbacks[0]!.id)).map((attempt) => [attempt.outcome, attempt.httpStatus])).toEqual([["accepted", 200]]);
    } finally {
      await db.close();
    }
  });
});
