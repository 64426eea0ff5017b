/**
 * Delivery with real processes: two production servers (two replicas) on one PostgreSQL, a local
 * HTTP server playing the buyers, leads submitted over HTTP. Each buyer receives each lead once,
 * daily caps hold across the replicas, and a replica killed (SIGKILL) in the middle of a send
 * leaves nothing lost: another sends it again with the same Idempotency-Key once the lease ends.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import getPort from "get-port";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProductionServer, type RunningServer } from "../../tools/production-server";
import { startBuyerStub, type BuyerStub } from "../../tools/buyer-stub";
import { leadBody, openLeadSession, postLead } from "../../tools/lead-session";
import { freshPostgresUrl, type FreshPostgres } from "../support/databases";
import { run as importBuyers } from "../../server/cli/buyers";

const SECRETS = { acme: "acme-secret-that-is-at-least-32-chars!!", capped: "capped-secret-that-is-at-least-32-chars" };
const CSRF_SECRET = "a-shared-csrf-secret-of-at-least-32-characters";

describe("delivery across replicas", { timeout: 180_000 }, () => {
  let stub: BuyerStub;
  let postgres: FreshPostgres;
  let folder: string;
  const servers: RunningServer[] = [];

  function writeBuyers(buyers: object[]): string {
    const file = path.join(folder, `buyers-${servers.length}-${Date.now()}.json`);
    writeFileSync(file, JSON.stringify({ buyers, sources: [] }));
    return file;
  }

  /** The first replica imports the file at start-up (an empty database); a later file is applied as ops would, with `npm run buyers -- import`. */
  let imported = false;
  async function start(buyersFile: string, env: Record<string, string> = {}): Promise<RunningServer> {
    if (imported) await importBuyers(["import", buyersFile], () => {}, { DATABASE_URL: postgres.url, LOG_LEVEL: "warn", OUTBOUND_ALLOW: "127.0.0.1" });
    imported = true;
    // A known port, so the consent certificate links the buyers get point at this replica.
    const port = await getPort({ host: "127.0.0.1" });
    const server = await startProductionServer({
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      DATABASE_URL: postgres.url,
      BUYERS_FILE: buyersFile,
      CSRF_SECRET,
      LEAD_MIN_FILL_MS: "0",
      LEAD_RATE_LIMIT: "100000",
      ...env,
    }, { keepLogs: "problems" });
    servers.push(server);
    return server;
  }

  async function submit(server: RunningServer, count: number): Promise<string[]> {
    const session = await openLeadSession(server.origin);
    const references = await Promise.all(
      Array.from({ length: count }, async () => {
        const response = await postLead(server.origin, session, leadBody(session));
        expect(response.status, JSON.stringify(response.body)).toBe(201);
        return (response.body as { reference: string }).reference;
      }),
    );
    return references;
  }

  beforeAll(async () => {
    stub = await startBuyerStub({ buyers: SECRETS });
    postgres = await freshPostgresUrl();
    folder = mkdtempSync(path.join(os.tmpdir(), "delivery-process-"));
  });
  afterAll(async () => {
    await Promise.allSettled(servers.map((server) => server.stop()));
    await stub?.stop();
    await postgres?.drop();
    rmSync(folder, { recursive: true, force: true });
  });

  it("300 leads through two replicas: each buyer gets each lead exactly once, and a daily cap of 40 holds across both", async () => {
    const file = writeBuyers([
      { id: "acme", name: "Acme Insurance Agency", url: stub.url("acme"), secret: SECRETS.acme, price: 18.5 },
      { id: "capped", name: "Capped Auto Group", url: stub.url("capped"), secret: SECRETS.capped, price: 9, dailyCap: 40 },
    ]);
    const [first, second] = [await start(file), await start(file)];
    const references = (await Promise.all([submit(first!, 150), submit(second!, 150)])).flat();
    expect(new Set(references).size).toBe(300);

    const acme = await stub.waitForLeads("acme", 300, 90_000);
    expect(acme.every((lead) => lead.signature === "ok" && !lead.repeat)).toBe(true);
    expect(new Set(acme.map((lead) => lead.reference))).toEqual(new Set(references));
    const capped = await stub.waitForLeads("capped", 40, 90_000);
    // Give the replicas time to (wrongly) send more than the cap.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(stub.received("capped")).toHaveLength(40);
    expect(new Set(capped.map((lead) => lead.reference)).size).toBe(40);
    expect(stub.received("acme")).toHaveLength(300);

    // Each lead carries its consent certificate: the buyer who got it can open it, another cannot.
    const sample = acme[0]!.json as { reference: string; consent: { certificateUrl: string } };
    const certificate = await fetch(sample.consent.certificateUrl);
    expect(certificate.status).toBe(200);
    expect(await certificate.text()).toContain(sample.reference);
    const forged = new URL(sample.consent.certificateUrl);
    forged.searchParams.set("b", "capped");
    expect((await fetch(forged)).status).toBe(404);
    await Promise.all(servers.splice(0).map((server) => server.stop()));
  });

  it("a replica killed mid-send: the lead is sent again by the next replica, with the same Idempotency-Key", async () => {
    stub.reset();
    const file = writeBuyers([{ id: "acme", name: "Acme Insurance Agency", url: stub.url("acme"), secret: SECRETS.acme, price: 18.5, timeoutMs: 1_000 }]);
    stub.script("acme", ["hang"]);
    const doomed = await start(file);
    const [reference] = await submit(doomed, 1);
    await stub.waitForLeads("acme", 1, 20_000);
    doomed.child.kill("SIGKILL");
    expect((await doomed.exited).signal).toBe("SIGKILL");

    await start(file);
    const [hung, resent] = await stub.waitForLeads("acme", 2, 60_000);
    expect(hung?.reference).toBe(reference);
    expect(resent?.reference).toBe(reference);
    expect(resent?.idempotencyKey).toBe(hung?.idempotencyKey);
    expect(resent?.repeat).toBe(true);
    expect(resent?.signature).toBe("ok");
    // Sent once more, and no more.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(stub.received("acme")).toHaveLength(2);
  });

  it("a lead stored by a replica is sent by that replica at once, not at its worker's next poll", async () => {
    await Promise.all(servers.splice(0).map((server) => server.stop())); // no other replica may send it
    stub.reset();
    const file = writeBuyers([{ id: "acme", name: "Acme Insurance Agency", url: stub.url("acme"), secret: SECRETS.acme, price: 18.5 }]);
    const replica = await start(file, { DELIVERY_POLL_MS: "600000" }); // an idle worker that looks every 10 minutes
    const [reference] = await submit(replica, 1);
    const [received] = await stub.waitForLeads("acme", 1, 20_000);
    expect((received?.json as { reference: string }).reference).toBe(reference);
  });
});
