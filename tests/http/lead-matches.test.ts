/**
 * The matches step's API (issue 13): GET /api/leads/:reference/matches?token=… lists the buyers
 * that accepted the lead, with the phone their configuration gives, and says when no delivery is
 * still on its way. Only the token the store's answer gave reads it; a wrong token and an unknown
 * lead get the same 404. A duplicate (sent to no buyer itself) answers with the earlier request's
 * matches, the request it is linked to (issue 42).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app";
import { leadBody, openLeadSession, postLead } from "../../tools/lead-session";

const SECRET = "s".repeat(40);
const BUYERS = {
  buyers: [
    { id: "summit", name: "Summit Auto Insurance", phone: "(415) 555-0101", url: "http://127.0.0.1:9/summit", secret: SECRET, price: 18.5 },
    { id: "harbor", name: "Harbor Insurance Agency", url: "http://127.0.0.1:9/harbor", secret: SECRET, price: 12 },
    { id: "cedar", name: "Cedar Insurance Group", url: "http://127.0.0.1:9/cedar", secret: SECRET, price: 9 },
  ],
};

let t: TestApp;
beforeAll(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "matches-"));
  const file = path.join(dir, "buyers.json");
  writeFileSync(file, JSON.stringify(BUYERS));
  t = await createTestApp({ LEAD_RATE_LIMIT: "100000" }, { buyersFile: file });
});
afterAll(async () => {
  await t.services.close();
});

async function newLead(contact: Record<string, unknown> = {}): Promise<{ reference: string; token: string; duplicate: boolean; body: Record<string, unknown> }> {
  const session = await openLeadSession(t.app);
  const body = leadBody(session, contact);
  const response = await postLead(t.app, session, body);
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  const { reference, matchesToken, duplicate } = response.body as { reference: string; matchesToken: string; duplicate: boolean };
  return { reference, token: matchesToken, duplicate, body };
}

const matchesOf = (reference: string, token: string) => request(t.app).get(`/api/leads/${reference}/matches`).query({ token });

async function finish(reference: string, target: string, status: "accepted" | "rejected"): Promise<void> {
  const db = await t.services.db();
  await db.query("UPDATE deliveries SET status = $1, completed_at = now() WHERE lead_reference = $2 AND target = $3", [status, reference, target]);
}

describe("GET /api/leads/:reference/matches", () => {
  it("names no one while the deliveries are on their way, then the buyers that accepted, with their phone when configured", async () => {
    const { reference, token } = await newLead();
    const waiting = await matchesOf(reference, token);
    expect(waiting.status).toBe(200);
    expect(waiting.headers["cache-control"]).toBe("no-store");
    expect(waiting.body).toEqual({ settled: false, matches: [] });

    await finish(reference, "summit", "accepted");
    await finish(reference, "harbor", "accepted");
    await finish(reference, "cedar", "rejected");
    expect((await matchesOf(reference, token)).body).toEqual({
      settled: true,
      matches: [{ name: "Summit Auto Insurance", phone: "+14155550101" }, { name: "Harbor Insurance Agency" }],
    });
  });

  it("says so honestly when every buyer said no: settled, nobody named", async () => {
    const { reference, token } = await newLead();
    for (const buyer of ["summit", "harbor", "cedar"]) await finish(reference, buyer, "rejected");
    expect((await matchesOf(reference, token)).body).toEqual({ settled: true, matches: [] });
  });

  it("answers a duplicate with the matches of the earlier request it is linked to: who has it, or that no one took it", async () => {
    const taken = await newLead();
    const again = await newLead({ email: taken.body.email, phone: taken.body.phone });
    expect(again.duplicate).toBe(true);
    // The earlier request's deliveries are still on their way: so is the duplicate's answer.
    expect((await matchesOf(again.reference, again.token)).body).toEqual({ settled: false, matches: [] });
    await finish(taken.reference, "summit", "accepted");
    await finish(taken.reference, "harbor", "rejected");
    await finish(taken.reference, "cedar", "rejected");
    expect((await matchesOf(again.reference, again.token)).body).toEqual({ settled: true, matches: [{ name: "Summit Auto Insurance", phone: "+14155550101" }] });

    const refused = await newLead();
    for (const buyer of ["summit", "harbor", "cedar"]) await finish(refused.reference, buyer, "rejected");
    const repeat = await newLead({ email: refused.body.email, phone: refused.body.phone });
    expect(repeat.duplicate).toBe(true);
    expect((await matchesOf(repeat.reference, repeat.token)).body).toEqual({ settled: true, matches: [] });
    // The duplicate's own token reads it; the earlier request's does not.
    expect((await matchesOf(repeat.reference, refused.token)).status).toBe(404);
  });

  it("answers a wrong or missing token and an unknown lead with the same 404, and a malformed reference with 422", async () => {
    const { reference, token } = await newLead();
    const other = await newLead();
    for (const response of [await matchesOf(reference, other.token), await request(t.app).get(`/api/leads/${reference}/matches`), await matchesOf("LD-ZZZZ-ZZZZ", token), await matchesOf(reference, `${token}x`)]) {
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ status: "error", error: "No such quote request." });
    }
    const malformed = await matchesOf("nope", token);
    expect(malformed.status).toBe(422);
  });
});

describe("GET /api/leads/:reference/matches for a lead sold by auction", () => {
  let auctioned: TestApp;
  beforeAll(async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "matches-auction-"));
    const file = path.join(dir, "buyers.json");
    writeFileSync(file, JSON.stringify({ buyers: [{ id: "bidder", name: "Bidder Insurance", mode: "pingpost", url: "http://127.0.0.1:9/post", pingUrl: "http://127.0.0.1:9/ping", secret: SECRET, price: 0, saleTypes: ["exclusive"] }] }));
    auctioned = await createTestApp({ LEAD_RATE_LIMIT: "100000" }, { buyersFile: file });
  });
  afterAll(async () => {
    await auctioned.services.close();
  });

  it("is not settled while its auction runs (no post is queued yet), and says no one took it once the auction ends unsold", async () => {
    const session = await openLeadSession(auctioned.app);
    const response = await postLead(auctioned.app, session, leadBody(session));
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const { reference, matchesToken } = response.body as { reference: string; matchesToken: string };
    const read = () => request(auctioned.app).get(`/api/leads/${reference}/matches`).query({ token: matchesToken });
    const db = await auctioned.services.db();
    const { rows } = await db.query<{ status: string }>("SELECT status FROM auctions WHERE lead_reference = $1", [reference]);
    expect(rows.map((row) => row.status)).toEqual(["pending"]);
    // Before, no delivery yet read as "settled, nobody": "None of our partners could take your request".
    expect((await read()).body).toEqual({ settled: false, matches: [] });
    await db.query("UPDATE auctions SET status = 'unsold' WHERE lead_reference = $1", [reference]);
    expect((await read()).body).toEqual({ settled: true, matches: [] });
  });
});
