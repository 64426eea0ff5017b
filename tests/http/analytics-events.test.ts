/**
 * The funnel events the site stores for the report (server/events.ts → server/analytics/), from
 * real requests against the real app, on both stores: the ad click with its new visit id, the ZIP,
 * the quote page, the form's beacons, the quote request — with the bot flag and GPC, and never
 * the ZIP, a contact detail or an IP address.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { createTestApp, type TestApp } from "../support/app";
import { allStores } from "../support/databases";
import { leadBody, openLeadSession, postLead } from "../../tools/lead-session";

interface StoredEvent {
  name: string;
  sid: string | null;
  tid: string | null;
  visit_id: string | null;
  bot: boolean;
  gpc: boolean;
  path: string | null;
  step: number | null;
  lead_reference: string | null;
  detail: string | null;
}

const PHONE_UA = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1";
const CRAWLER_UA = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

describe.each(allStores())("stored funnel events ($kind)", (store) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ EVENTS_RATE_LIMIT: "100000", LEAD_RATE_LIMIT: "100000" }, { store, analytics: true });
    await t.services.db(); // opened here, within the hook's time, not the first test's
  });
  afterAll(async () => {
    await t.analytics?.stop();
    await t.services.close();
  });

  async function eventsOf(tid: string): Promise<StoredEvent[]> {
    await t.analytics!.flush();
    const db = await t.services.db();
    const { rows } = await db.query<StoredEvent>(
      "SELECT name, sid, tid, visit_id, bot, gpc, path, step, lead_reference, detail FROM analytics_events WHERE tid = $1 ORDER BY id",
      [tid],
    );
    return rows;
  }

  it("stores a visitor's path from the ad click to the quote request, joined by one visit id", async () => {
    const agent = request(t.app);
    const landing = await agent.get("/zipcode?sid=a1&tid=clk-path").set("User-Agent", PHONE_UA);
    expect(landing.status).toBe(200);
    const vid = /name="vid" value="([^"]+)"/.exec(landing.text)?.[1];
    expect(vid).toMatch(/^[0-9a-f-]{36}$/);

    const go = await agent.get(`/go?zip=90210&sid=a1&tid=clk-path&vid=${vid}`).set("User-Agent", PHONE_UA);
    expect(go.status).toBe(303);
    expect(go.headers.location).toContain(`vid=${vid}`);
    const quote = await agent.get(go.headers.location as string).set("User-Agent", PHONE_UA);
    expect(quote.status).toBe(200);
    for (const [event, step] of [["form_started", undefined], ["form_step_completed", 1]] as const) {
      const beacon = await agent
        .post("/api/events")
        .set({ "Sec-Fetch-Site": "same-origin", "User-Agent": PHONE_UA })
        .send({ event, ...(step ? { step, screen: "vehicle" } : {}), sid: "a1", tid: "clk-path", vid, ms: 15_000 });
      expect(beacon.status).toBe(204);
    }
    const session = await openLeadSession(t.app);
    const lead = await postLead(t.app, session, leadBody(session, { sid: "a1", tid: "clk-path", vid }), { "User-Agent": PHONE_UA });
    expect(lead.status).toBe(201);

    const stored = await eventsOf("clk-path");
    expect(stored.map((event) => event.name)).toEqual(["campaign_hit", "zip_submitted", "quote_page_view", "form_started", "form_step_completed", "lead_submitted"]);
    expect(new Set(stored.map((event) => event.visit_id))).toEqual(new Set([vid]));
    expect(stored.every((event) => event.sid === "a1" && !event.bot && !event.gpc)).toBe(true);
    expect(stored[1]).toMatchObject({ path: "/go", detail: "accepted" });
    // The screen completed, for the drop-off by screen (docs/analytics.md).
    expect(stored[4]).toMatchObject({ step: 1, detail: "vehicle" });
    expect(stored[5]!.lead_reference).toBe((lead.body as { reference: string }).reference);
    // Nothing personal: the ZIP, the contact details and the address are in no column.
    const db = await t.services.db();
    const { rows } = await db.query<Record<string, unknown>>("SELECT * FROM analytics_events WHERE tid = 'clk-path'");
    const text = JSON.stringify(rows);
    expect(text).not.toContain("90210");
    expect(text).not.toContain("@");
    expect(text).not.toContain("127.0.0.1");
  });

  it("counts a page as the ad click only when it starts the visit (no visit id in its address yet)", async () => {
    const first = await request(t.app).get("/?zip=90210&sid=a2&tid=clk-entry");
    const vid = /vid=([0-9a-f-]{36})/.exec(first.text)?.[1];
    expect(vid).toBeDefined();
    await request(t.app).get(`/?zip=90210&sid=a2&tid=clk-entry&vid=${vid}`);
    const stored = await eventsOf("clk-entry");
    expect(stored.map((event) => event.name)).toEqual(["campaign_hit", "quote_page_view", "quote_page_view"]);
    expect(stored.every((event) => event.visit_id === vid)).toBe(true);
  });

  it("flags crawlers and sub-second form steps as bots, and records GPC", async () => {
    await request(t.app).get("/zipcode?sid=a3&tid=clk-bot").set("User-Agent", CRAWLER_UA);
    await request(t.app)
      .post("/api/events")
      .set({ "Sec-Fetch-Site": "same-origin", "User-Agent": PHONE_UA, "Sec-GPC": "1" })
      .send({ event: "form_step_completed", step: 1, sid: "a3", tid: "clk-bot", vid: "v-fast", ms: 300 });
    await request(t.app)
      .post("/api/events")
      .set({ "Sec-Fetch-Site": "same-origin", "User-Agent": PHONE_UA, "Sec-GPC": "1" })
      .send({ event: "form_step_completed", step: 2, sid: "a3", tid: "clk-bot", vid: "v-fast", ms: 9_000 });
    const stored = await eventsOf("clk-bot");
    expect(stored.map((event) => [event.name, event.bot, event.gpc])).toEqual([
      ["campaign_hit", true, false],
      ["form_step_completed", true, true],
      ["form_step_completed", false, true],
    ]);
  });

  it("stores a refused quote request with its reason, a filled honeypot as a bot's", async () => {
    const session = await openLeadSession(t.app);
    const refused = await postLead(t.app, session, leadBody(session, { sid: "a4", tid: "clk-honey", website: "http://spam.example" }));
    expect(refused.status).toBeGreaterThanOrEqual(400);
    const stored = await eventsOf("clk-honey");
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ name: "lead_refused", sid: "a4", bot: true, detail: "honeypot" });
  });
});
