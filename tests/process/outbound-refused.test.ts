/**
 * The outbound policy holds when connecting, not only when saving (issue 41, part 1): a buyer
 * whose address was accepted before (here: while OUTBOUND_ALLOW named the stub's loopback address,
 * as an address saved before the rule would be) is never connected to once the production server
 * runs without the exception. The attempt is logged with the buyer's id and never with the lead;
 * the delivery stays queued, so nothing is lost if ops name the host again or mend the address.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProductionServer, type RunningServer } from "../../tools/production-server";
import { startBuyerStub, type BuyerStub } from "../../tools/buyer-stub";
import { leadBody, openLeadSession, postLead } from "../../tools/lead-session";
import { freshDataDir } from "../support/databases";
import { until } from "../support/processes";

const SECRET = "inside-secret-that-is-at-least-32-chars!";

describe("an internal buyer address met when connecting", { timeout: 120_000 }, () => {
  let stub: BuyerStub;
  let folder: string;
  let data: Awaited<ReturnType<typeof freshDataDir>>;
  const servers: RunningServer[] = [];

  beforeAll(async () => {
    stub = await startBuyerStub({ buyers: { inside: SECRET } });
    folder = mkdtempSync(path.join(os.tmpdir(), "outbound-refused-"));
    data = await freshDataDir();
  });
  afterAll(async () => {
    await Promise.allSettled(servers.map((server) => server.stop()));
    await stub?.stop();
    await data?.remove();
    rmSync(folder, { recursive: true, force: true });
  });

  it("is refused on every attempt, logged with the buyer's id, and the lead is kept to send", async () => {
    const file = path.join(folder, "buyers.json");
    writeFileSync(file, JSON.stringify({ buyers: [{ id: "inside", name: "Inside Agency", url: stub.url("inside"), secret: SECRET, price: 10 }], sources: [] }));
    const common = { DATA_DIR: data.dir, CSRF_SECRET: "a-shared-csrf-secret-of-at-least-32-characters", LEAD_MIN_FILL_MS: "0", DELIVERY_POLL_MS: "100" };
    // Saved while the loopback address was an allowed exception.
    const first = await startProductionServer({ ...common, BUYERS_FILE: file, OUTBOUND_ALLOW: "127.0.0.1" }, { keepLogs: "all" });
    servers.push(first);
    expect(first.logs.find((line) => line.event === "outbound_allowlist")).toMatchObject({ level: "warn", allow: ["127.0.0.1"] });
    await first.stop();

    const server = await startProductionServer({ ...common, OUTBOUND_ALLOW: "" }, { keepLogs: "all" });
    servers.push(server);
    const session = await openLeadSession(server.origin);
    const email = `refused-${Date.now()}@example.com`;
    const sent = await postLead(server.origin, session, leadBody(session, { email }));
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    const reference = (sent.body as { reference: string }).reference;

    expect(await until(() => server.logs.some((line) => line.event === "outbound_refused"), 30_000)).toBe(true);
    const refusal = server.logs.find((line) => line.event === "outbound_refused")!;
    expect(refusal).toMatchObject({ level: "warn", buyer: "inside", host: "127.0.0.1" });
    expect(String(refusal.reason)).toMatch(/https:\/\/|loopback/);
    expect(stub.received("inside")).toHaveLength(0);
    // The lead itself is never in a log line about it.
    expect(server.logs.filter((line) => JSON.stringify(line).includes(email))).toEqual([]);
    expect(JSON.stringify(server.logs.filter((line) => line.reference === reference || line.leadReference === reference))).not.toContain(email);
  });
});
