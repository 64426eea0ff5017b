/**
 * The auction as production runs it (issue 16, "done when"): the built server with a BUYERS_FILE of
 * three ping/post buyers on loopback (one bidding exclusive, two shared), a lead sent through the
 * quote form's API, and the lead sold to the right buyers at the right prices, each post carrying
 * the buyer's bid id, the losing bidder never receiving a contact detail. Both workers wake when
 * the lead is stored: their polls are set to ten minutes, so only the wiring can make it happen.
 * Then the sale shows in the analysts' report (bids, average bid, revenue per lead, the per-buyer
 * view) and on the lead's page in the operations console (each bid, the winners), and the visitor's "stop calls and texts" request on the privacy page reaches each buyer
 * that holds the lead as a signed consent.revoked webhook (and not the buyer that lost).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProductionServer, type RunningServer } from "../../tools/production-server";
import { leadBody, openLeadSession, postLead } from "../../tools/lead-session";
import { signBody, verifySignature } from "../../server/delivery/signature";
import { freshPostgresUrl, type FreshPostgres } from "../support/databases";
import { run as runReport } from "../../server/cli/report";
import { CSRF_HEADER } from "../../shared/routes";
import pg from "pg";
import { addConsoleUser, signedInConsole } from "../support/console-session";

const BIDS: Record<string, { price: number; type: "exclusive" | "shared" }> = {
  solo: { price: 20, type: "exclusive" },
  "pair-a": { price: 12, type: "shared" },
  "pair-b": { price: 11, type: "shared" },
};
const secretOf = (id: string) => `${id}-secret-0123456789abcdef0123456789`;
const OPS = { name: "olivia", password: "a-long-enough-console-password-42" };

describe("the auction in the production server", { timeout: 120_000 }, () => {
  let postgres: FreshPostgres;
  let folder: string;
  let buyers: http.Server;
  let server: RunningServer | undefined;
  const pings: Record<string, string[]> = {};
  const posts: Record<string, { body: string; signature: string; event: string | undefined }[]> = {};
  let reference = "";
  let email = "";

  beforeAll(async () => {
    postgres = await freshPostgresUrl();
    folder = mkdtempSync(path.join(os.tmpdir(), "auction-process-"));
    buyers = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        const [, kind, id] = /^\/(ping|post)\/([a-z-]+)$/.exec(request.url ?? "") ?? [];
        if (!kind || !id || !BIDS[id]) return void response.writeHead(404).end();
        if (kind === "ping") {
          (pings[id] ??= []).push(body);
          const answer = JSON.stringify({ bid: { ...BIDS[id], bidId: `${id}-7` } });
          return void response.writeHead(200, { "content-type": "application/json", "x-signature": signBody(secretOf(id), answer) }).end(answer);
        }
        (posts[id] ??= []).push({ body, signature: String(request.headers["x-signature"]), event: request.headers["x-event"] as string | undefined });
        response.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => buyers.listen(0, "127.0.0.1", resolve));
    const origin = `http://127.0.0.1:${(buyers.address() as AddressInfo).port}`;
    const file = path.join(folder, "buyers.json");
    writeFileSync(
      file,
      JSON.stringify({
        buyers: Object.keys(BIDS).map((id) => ({ id, name: `${id} Insurance`, mode: "pingpost", pingUrl: `${origin}/ping/${id}`, postUrl: `${origin}/post/${id}`, secret: secretOf(id), price: 0, saleTypes: ["exclusive", "shared"] })),
      }),
    );
    addConsoleUser(postgres.url, OPS, "ops");
    server = await startProductionServer(
      // Report days in UTC, as the report below reads them (the default, New York, stores an event
      // at 00:15 UTC under the day before).
      { DATABASE_URL: postgres.url, BUYERS_FILE: file, CSRF_SECRET: "an-auction-test-csrf-secret-of-32-characters-or-more", LEAD_MIN_FILL_MS: "0", DELIVERY_POLL_MS: "600000", PUBLIC_BASE_URL: "http://127.0.0.1:9", ADMIN_HOST: "127.0.0.1", ADMIN_PORT: "0", REPORT_TIME_ZONE: "UTC" },
      { keepLogs: "all" },
    );
  });

  afterAll(async () => {
    await server?.stop();
    buyers?.closeAllConnections();
    await new Promise((resolve) => buyers?.close(resolve));
    await postgres?.drop();
    rmSync(folder, { recursive: true, force: true });
  });

  it("sells a lead from the form to the two shared bidders (12 + 11 beat 20 exclusive), each post with its bid id", async () => {
    const session = await openLeadSession(server!.origin);
    const body = leadBody(session);
    const response = await postLead(server!.origin, session, body);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    reference = (response.body as { reference: string }).reference;
    email = String((body as Record<string, unknown>).email);

    const deadline = Date.now() + 30_000;
    while ((posts["pair-a"]?.length ?? 0) + (posts["pair-b"]?.length ?? 0) < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(Object.keys(pings).sort()).toEqual(["pair-a", "pair-b", "solo"]);
    expect(posts.solo).toBeUndefined();
    for (const id of ["pair-a", "pair-b"] as const) {
      expect(posts[id], id).toHaveLength(1);
      const post = posts[id]![0]!;
      expect(verifySignature(secretOf(id), post.signature, post.body)).toBe("ok");
      expect(JSON.parse(post.body)).toMatchObject({ reference, sale: true, price: BIDS[id]!.price, auction: { saleType: "shared", bidId: `${id}-7` } });
    }
    // The losing bidder saw the lead's facts, never who it is.
    expect(pings.solo![0]).not.toContain(email);
    expect(pings.solo![0]).not.toContain(reference);
    const decided = server!.logs.find((line) => line.event === "auction_decided");
    expect(decided).toMatchObject({ reference, pinged: 3, bids: 3, saleType: "shared" });
    // The auction and the deliveries ran on connections of their own, never the requests' pool.
    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    try {
      const pools = await client.query<{ application_name: string }>("SELECT DISTINCT application_name FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'quote-site%' ORDER BY 1");
      expect(pools.rows.map((row) => row.application_name)).toEqual(["quote-site", "quote-site-background"]);
    } finally {
      await client.end();
    }
  });

  it("shows the sale in the report: three bids averaging 14.33, 23.00 per lead, and each buyer's pings, bids and wins", async () => {
    const env = { DATABASE_URL: postgres.url, REPORT_TIME_ZONE: "UTC" };
    // From yesterday: the sale may have been stored just before midnight.
    const since = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const read = async (argv: string[]) => {
      let text = "";
      await runReport([...argv, "--since", since, "--format", "json"], (chunk) => (text += chunk), env);
      return JSON.parse(text) as { rows?: Record<string, unknown>[]; buyers?: Record<string, unknown>[] };
    };
    // The events are written in batches after the fact: wait for the sales to be counted.
    const deadline = Date.now() + 20_000;
    let buyers = (await read(["buyers"])).buyers ?? [];
    while (buyers.filter((row) => row.wins === 1).length < 2 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      buyers = (await read(["buyers"])).buyers ?? [];
    }
    expect(buyers).toEqual([
      { buyer: "pair-a", pings: 1, bids: 1, avg_bid: 12, wins: 1, win_rate: 1, returned: 0, revenue: 12 },
      { buyer: "pair-b", pings: 1, bids: 1, avg_bid: 11, wins: 1, win_rate: 1, returned: 0, revenue: 11 },
      { buyer: "solo", pings: 1, bids: 1, avg_bid: 20, wins: 0, win_rate: 0, returned: 0, revenue: 0 },
    ]);
    // The lead's own event is the server's to write, the sales the background worker's: each in its own batch.
    let { rows } = await read(["--by", "sid"]);
    while (rows?.[0]?.leads !== 1 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      ({ rows } = await read(["--by", "sid"]));
    }
    expect(rows).toEqual([expect.objectContaining({ sid: "a1", leads: 1, sold: 2, revenue: 23, bids: 3, avg_bid: 14.33, revenue_per_lead: 23 })]);
  });

  it("shows the lead's auction in the operations console: each buyer's bid, and the two winners", async () => {
    const opsConsole = await signedInConsole(server!, OPS);
    const page = await opsConsole.get(`/leads?${new URLSearchParams({ reference })}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const auction = html.slice(html.indexOf('<h2 id="auction">'));
    const rows = [...auction.matchAll(/<tr><th scope="row">([a-z-]+)<\/th><td>([^<]*)<\/td><td>([^<]*)<\/td><td>([^<]*)<\/td><td>([^<]*)<\/td><td>[^<]*<\/td><td>(Yes|No)<\/td><\/tr>/g)].map((match) => match.slice(1));
    expect(rows.sort()).toEqual([
      ["pair-a", "bid", "$12.00", "shared", "pair-a-7", "Yes"],
      ["pair-b", "bid", "$11.00", "shared", "pair-b-7", "Yes"],
      ["solo", "bid", "$20.00", "exclusive", "solo-7", "No"],
    ]);
    expect(auction).toMatch(/sold(<!-- -->)?, (<!-- -->)?shared/);
  });

  it("sends a signed consent.revoked webhook to each buyer holding the lead when the visitor asks to stop calls on the privacy page", async () => {
    const page = await fetch(`${server!.origin}/do-not-sell?request=revoke_consent`);
    const html = await page.text();
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1] ?? "";
    const cookie = page.headers.getSetCookie().map((line) => line.split(";")[0]).join("; ");
    const submitted = await fetch(`${server!.origin}/api/privacy-requests`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie, [CSRF_HEADER]: field("_csrf") },
      body: JSON.stringify({ submissionId: field("submissionId"), requestType: "revoke_consent", email }),
    });
    expect(submitted.status, await submitted.clone().text()).toBe(201);

    const revocations = (id: string) => (posts[id] ?? []).filter((post) => post.event === "consent.revoked");
    const deadline = Date.now() + 30_000;
    while (revocations("pair-a").length + revocations("pair-b").length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    for (const id of ["pair-a", "pair-b"] as const) {
      expect(revocations(id), id).toHaveLength(1);
      const webhook = revocations(id)[0]!;
      expect(verifySignature(secretOf(id), webhook.signature, webhook.body)).toBe("ok");
      expect(JSON.parse(webhook.body)).toMatchObject({ event: "consent.revoked", reference });
    }
    // The buyer that lost the auction never had the lead: it is told nothing.
    expect(posts.solo).toBeUndefined();
  });
});
