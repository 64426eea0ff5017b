/**
 * The matches step's API (issue 13): GET /api/leads/:reference/matches?token=… lists the buyers
 * that accepted the lead, with the phone their configuration gives, and says when no delivery is
 * still on its way. Only the token the store's answer gave reads it; a wrong token and an unknown
 * lead get the same 404.
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

async function newLead(): Promise<{ reference: string; token: string }> {
  const session = await openLeadSession(t.app);
  const response = await postLead(t.app, session, leadBody(session));
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  const { reference, matchesToken } = response.body as { reference: string; matchesToken: string };
  return { reference, token: matchesToken };
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
