/**
 * The auction as production runs it (issue 16, "done when"): the built server with a BUYERS_FILE of
 * three ping/post buyers on loopback (one bidding exclusive, two shared), a lead sent through the
 * quote form's API, and the lead sold to the right buyers at the right prices, each post carrying
 * the buyer's bid id, the losing bidder never receiving a contact detail. Both workers wake when
 * the lead is stored: their polls are set to ten minutes, so only the wiring can make it happen.
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

const BIDS: Record<string, { price: number; type: "exclusive" | "shared" }> = {
  solo: { price: 20, type: "exclusive" },
  "pair-a": { price: 12, type: "shared" },
  "pair-b": { price: 11, type: "shared" },
};
const secretOf = (id: string) => `${id}-secret-0123456789abcdef0123456789`;

describe("the auction in the production server", { timeout: 120_000 }, () => {
  let postgres: FreshPostgres;
  let folder: string;
  let buyers: http.Server;
  let server: RunningServer | undefined;
  const pings: Record<string, string[]> = {};
  const posts: Record<string, { body: string; signature: string }[]> = {};

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
        (posts[id] ??= []).push({ body, signature: String(request.headers["x-signature"]) });
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
    server = await startProductionServer(
      { DATABASE_URL: postgres.url, BUYERS_FILE: file, CSRF_SECRET: "an-auction-test-csrf-secret-of-32-characters-or-more", LEAD_MIN_FILL_MS: "0", DELIVERY_POLL_MS: "600000", PUBLIC_BASE_URL: "http://127.0.0.1:9" },
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
    const reference = (response.body as { reference: string }).reference;

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
    const email = String((body as Record<string, unknown>).email);
    expect(pings.solo![0]).not.toContain(email);
    expect(pings.solo![0]).not.toContain(reference);
    const decided = server!.logs.find((line) => line.event === "auction_decided");
    expect(decided).toMatchObject({ reference, pinged: 3, bids: 3, saleType: "shared" });
  });
});
