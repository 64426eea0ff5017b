/**
 * Lead checks in the production server (issue 44): every provider switched on by configuration and
 * pointed at local fakes of their documented APIs (tools/check-fakes.ts), buyers with requirements
 * in the buyers file, leads sent through the quote form's API as the form's provider scripts would
 * carry them. The checks run in the background process, only for the buyers that require them,
 * once per lead (the phone cache is tested on both stores in tests/db/lead-checks.test.ts: a
 * repeat phone here is a duplicate, never sent); a failed requirement keeps the lead from that buyer
 * only; a certificate URL on another host is never called; the metrics count each provider.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProductionServer, type RunningServer } from "../../tools/production-server";
import { startBuyerStub, type BuyerStub } from "../../tools/buyer-stub";
import { startCheckFakes, type CheckFakes } from "../../tools/check-fakes";
import { leadBody, openLeadSession, postLead, type LeadSession } from "../../tools/lead-session";
import { freshDataDir } from "../support/databases";
import { signBody } from "../../server/delivery/signature";
import { until } from "../support/processes";

const SECRETS = { strict: "strict-secret-that-is-at-least-32-chars!", plain: "plain-secret-that-is-at-least-32-chars!!", landline: "landline-secret-that-is-at-least-32-chars" };
const token = () => randomUUID().toUpperCase();

describe("lead checks in the production server", { timeout: 120_000 }, () => {
  let stub: BuyerStub;
  let fakes: CheckFakes;
  let folder: string;
  let data: Awaited<ReturnType<typeof freshDataDir>>;
  let server: RunningServer;
  let session: LeadSession;

  async function send(fields: Record<string, unknown>): Promise<string> {
    const sent = await postLead(server.origin, session, leadBody(session, fields));
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    return (sent.body as { reference: string }).reference;
  }

  const failedFor = (reference: string, buyerId: string) => server.logs.find((line) => line.event === "lead_delivery_failed" && line.reference === reference && line.buyerId === buyerId);

  beforeAll(async () => {
    stub = await startBuyerStub({ buyers: SECRETS });
    fakes = await startCheckFakes();
    folder = mkdtempSync(path.join(os.tmpdir(), "lead-checks-"));
    data = await freshDataDir();
    const file = path.join(folder, "buyers.json");
    const buyer = (id: keyof typeof SECRETS, requirements?: object) => ({ id, name: `${id} Agency`, url: stub.url(id), secret: SECRETS[id], price: 10, ...(requirements ? { requirements } : {}) });
    writeFileSync(
      file,
      JSON.stringify({
        buyers: [buyer("strict", { trustedForm: "retained", leadid: "authentic", litigatorClean: true, noDnc: true, lineTypes: ["mobile"] }), buyer("plain"), buyer("landline", { lineTypes: ["landline"] })],
        sources: [],
      }),
    );
    server = await startProductionServer({ ...fakes.env, BUYERS_FILE: file, DATA_DIR: data.dir, CSRF_SECRET: "a-shared-csrf-secret-of-at-least-32-characters", LEAD_MIN_FILL_MS: "0", DELIVERY_POLL_MS: "100" }, { keepLogs: "all" });
    session = await openLeadSession(server.origin);
  });
  afterAll(async () => {
    await server?.stop();
    await stub?.stop();
    await fakes?.close();
    await data?.remove();
    rmSync(folder, { recursive: true, force: true });
  });

  it("runs each required check once, in the background, and sends the lead only to the buyers whose requirements it meets", async () => {
    const certUrl = fakes.certUrl();
    const reference = await send({ trustedFormCertUrl: certUrl, leadidToken: token() });
    const [strict] = await stub.waitForLeads("strict", 1, 20_000);
    expect((strict?.json as { reference: string }).reference).toBe(reference);
    expect(stub.received("plain").map((lead) => (lead.json as { reference: string }).reference)).toContain(reference);
    // The landline-only buyer is not sent a mobile's lead, and says why.
    expect(await until(() => failedFor(reference, "landline") !== undefined, 20_000)).toBe(true);
    expect(String(failedFor(reference, "landline")?.error)).toContain("requires a line type it takes; the answer was mobile");
    expect(stub.received("landline")).toHaveLength(0);

    // One call per provider and check for the lead, however many buyers needed it.
    expect(fakes.count("trustedform")).toBe(1);
    expect(fakes.count("jornaya")).toBe(1);
    expect(fakes.count("twilio")).toBe(1);
    expect(fakes.count("litigator")).toBe(2); // the litigator scrub and the DNC scrub
    // The certificate was retained at its own URL, with our reference and the lead's contact to match.
    const retain = fakes.requests.find((request) => request.provider === "trustedform")!;
    expect(`${fakes.origin}${retain.path}`).toBe(certUrl);
    expect(retain).toMatchObject({ method: "POST", credentialsOk: true, body: { retain: { reference } } });
    expect(JSON.stringify(retain.body)).toContain("match_lead");
    // Each answer is logged without the phone, the email, the URL or the token.
    const checkLines = server.logs.filter((line) => line.event === "lead_check" && line.reference === reference);
    expect(checkLines.map((line) => line.kind).sort()).toEqual(["dnc", "jornaya", "line_type", "litigator", "trustedform"]);
    expect(JSON.stringify(checkLines)).not.toContain(certUrl);
    expect(checkLines.every((line) => line.process === "background")).toBe(true);
  });

  it("counts each provider's calls, outcomes and latency in the metrics", async () => {
    const started = server.logs.find((line) => line.event === "admin_console_started");
    const text = await (await fetch(`http://127.0.0.1:${String(started?.port)}/metrics`)).text();
    expect(text).toMatch(/^lead_checks_total\{provider="twilio-lookup",kind="line_type",status="ok",outcome="mobile",cached="false",process="background"\} [1-9]/m);
    expect(text).toMatch(/^lead_checks_total\{provider="trustedform",kind="trustedform",status="ok",outcome="retained",cached="false",process="background"\} [1-9]/m);
    expect(text).toMatch(/^lead_checks_total\{provider="tcpa-litigator-list",kind="dnc",status="ok",outcome="clean",cached="false",process="background"\} [1-9]/m);
    expect(text).toMatch(/^lead_check_duration_seconds_count\{provider="jornaya-leadid",process="background"\} [1-9]/m);
  });

  it("never calls a certificate URL on another host, records it as a failed check, and still serves the visitor and the other buyers", async () => {
    const before = fakes.count("trustedform");
    const reference = await send({ trustedFormCertUrl: `http://127.0.0.1:1/${"ab".repeat(20)}`, leadidToken: token() });
    expect(await until(() => failedFor(reference, "strict") !== undefined, 20_000)).toBe(true);
    expect(String(failedFor(reference, "strict")?.error)).toMatch(/requires a retained TrustedForm certificate; the check failed \(foreign_host\)/);
    expect(fakes.count("trustedform")).toBe(before);
    expect(await until(() => stub.received("plain").some((lead) => (lead.json as { reference: string }).reference === reference), 20_000)).toBe(true);
  });

  it("holds the lead from a buyer whose provider is down, without losing it for the others", async () => {
    fakes.setMode("jornaya", "down");
    const reference = await send({ trustedFormCertUrl: fakes.certUrl(), leadidToken: token() });
    expect(await until(() => failedFor(reference, "strict") !== undefined, 20_000)).toBe(true);
    expect(String(failedFor(reference, "strict")?.error)).toMatch(/requires an authentic LeadiD; the check had no answer/);
    expect(await until(() => stub.received("plain").some((lead) => (lead.json as { reference: string }).reference === reference), 20_000)).toBe(true);
    fakes.setMode("jornaya", "success");
  });
});

describe("lead checks before a ping, and a buyer that waits for a check", { timeout: 120_000 }, () => {
  let fakes: CheckFakes;
  let folder: string;
  let data: Awaited<ReturnType<typeof freshDataDir>>;
  let buyers: http.Server;
  let server: RunningServer;
  let session: LeadSession;
  const pings: Record<string, number> = {};
  const posts: Record<string, string[]> = {};
  const secretOf = (id: string) => `${id}-secret-0123456789abcdef0123456789`;

  beforeAll(async () => {
    fakes = await startCheckFakes({ answers: { authentic: false } });
    folder = mkdtempSync(path.join(os.tmpdir(), "lead-checks-auction-"));
    data = await freshDataDir();
    // Two ping/post buyers bidding exclusive (the checked one higher) and a fixed-price one that waits for its scrub.
    buyers = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const [, kind, id] = /^\/(ping|post)\/([a-z-]+)$/.exec(request.url ?? "") ?? [];
        if (!kind || !id) return void response.writeHead(404).end();
        if (kind === "ping") {
          pings[id] = (pings[id] ?? 0) + 1;
          const answer = JSON.stringify({ bid: { price: id === "checked" ? 40 : 20, type: "exclusive", bidId: `${id}-1` } });
          return void response.writeHead(200, { "content-type": "application/json", "x-signature": signBody(secretOf(id), answer) }).end(answer);
        }
        (posts[id] ??= []).push((JSON.parse(Buffer.concat(chunks).toString("utf8")) as { reference: string }).reference);
        response.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => buyers.listen(0, "127.0.0.1", resolve));
    const origin = `http://127.0.0.1:${(buyers.address() as AddressInfo).port}`;
    const pingpost = (id: string, requirements?: object) => ({ id, name: `${id} Insurance`, mode: "pingpost", pingUrl: `${origin}/ping/${id}`, postUrl: `${origin}/post/${id}`, secret: secretOf(id), price: 0, saleTypes: ["exclusive"], ...(requirements ? { requirements } : {}) });
    const file = path.join(folder, "buyers.json");
    writeFileSync(file, JSON.stringify({ buyers: [pingpost("checked", { leadid: "authentic" }), pingpost("open")], sources: [] }));
    server = await startProductionServer({ ...fakes.env, BUYERS_FILE: file, DATA_DIR: data.dir, CSRF_SECRET: "a-shared-csrf-secret-of-at-least-32-characters", LEAD_MIN_FILL_MS: "0", DELIVERY_POLL_MS: "100" }, { keepLogs: "all" });
    session = await openLeadSession(server.origin);
  });
  afterAll(async () => {
    await server?.stop();
    buyers?.closeAllConnections();
    await new Promise((resolve) => buyers?.close(resolve));
    await fakes?.close();
    await data?.remove();
    rmSync(folder, { recursive: true, force: true });
  });

  it("does not ping a buyer whose LeadiD requirement the lead fails: the next bidder wins, and the reason is counted", async () => {
    const sent = await postLead(server.origin, session, leadBody(session, { trustedFormCertUrl: fakes.certUrl(), leadidToken: randomUUID().toUpperCase() }));
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    const reference = (sent.body as { reference: string }).reference;
    expect(await until(() => (posts.open ?? []).includes(reference), 20_000)).toBe(true);
    expect(pings.checked ?? 0).toBe(0);
    expect(posts.checked ?? []).toEqual([]);
    expect(fakes.count("jornaya")).toBe(1);
    // Authenticate is asked with the token alone: the ping stage never sends contact details.
    expect(JSON.stringify(fakes.requests.find((request) => request.provider === "jornaya"))).not.toContain("@");
    expect(server.logs.find((line) => line.event === "auction_decided" && line.reference === reference)).toMatchObject({ pinged: 1 });
    const started = server.logs.find((line) => line.event === "admin_console_started");
    const text = await (await fetch(`http://127.0.0.1:${String(started?.port)}/metrics`)).text();
    expect(text).toMatch(/^auction_pings_total\{outcome="not_sent",process="background"\} 1$/m);
    expect(text).toMatch(/^lead_checks_total\{provider="jornaya-leadid",kind="jornaya",status="failed",outcome="not_authentic",cached="false",process="background"\} 1$/m);
  });
});
