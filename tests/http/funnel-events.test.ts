/**
 * The analysts' funnel from the server's side: the quote page view (`/`), the form's beacon
 * (POST /api/events: form_started, form_step_completed), and the two small APIs the form calls
 * first (its session, the ZIP lookup). Events are log lines with sid/tid/vid and the request id.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { createTestApp, type LogLine, type TestApp } from "../support/app";
import { CONSENT_DISCLOSURE } from "../../shared/consent-disclosure";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ EVENTS_RATE_LIMIT: "100000" });
});
afterAll(async () => {
  await t.services.close();
});

const linesFor = (app: { logs: LogLine[] }, id: unknown) => app.logs.filter((line) => line.requestId === id);

function beacon(body: unknown, headers: Record<string, string> = {}, target = t.app) {
  return request(target)
    .post("/api/events")
    .set({ "Sec-Fetch-Site": "same-origin", ...headers })
    .send(body as object);
}

describe("POST /api/events", () => {
  it("answers form_started with 204 and logs it with the campaign, the ZIP and the request id", async () => {
    const response = await beacon({ event: "form_started", zip: "90210", sid: "a1", tid: "b2" });
    expect(response.status).toBe(204);
    expect(response.text ?? "").toBe("");
    expect(response.headers["cache-control"]).toBe("no-store");
    const id = response.headers["x-request-id"] as string;
    const lines = linesFor(t, id).filter((line) => line.event === "form_started");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: "info", event: "form_started", zip: "90210", campaign: { sid: "a1", tid: "b2" }, requestId: id });
    expect(lines[0]).not.toHaveProperty("step");
  });

  it.each([1, 2, 3])("answers form_step_completed for step %i with 204 and logs the step", async (step) => {
    const response = await beacon({ event: "form_step_completed", step, sid: "a1", tid: "b2" });
    expect(response.status).toBe(204);
    const line = linesFor(t, response.headers["x-request-id"]).find((entry) => entry.event === "form_step_completed");
    expect(line).toMatchObject({ step, campaign: { sid: "a1", tid: "b2" }, requestId: response.headers["x-request-id"] });
  });

  it("logs the screen completed (issue 13), so analysts see where visitors stop", async () => {
    const response = await beacon({ event: "form_step_completed", step: 2, screen: "driver-history", sid: "a1" });
    expect(response.status).toBe(204);
    expect(linesFor(t, response.headers["x-request-id"]).find((entry) => entry.event === "form_step_completed")).toMatchObject({ step: 2, screen: "driver-history" });
  });

  it("logs the visit id and the time since the form opened", async () => {
    const vid = "4c8e1f2a-9b3d-4e5f-8a7b-6c5d4e3f2a1b";
    const response = await beacon({ event: "form_step_completed", step: 2, sid: "a1", vid, ms: 48_250 });
    expect(response.status).toBe(204);
    const line = linesFor(t, response.headers["x-request-id"]).find((entry) => entry.event === "form_step_completed");
    expect(line).toMatchObject({ step: 2, ms: 48_250, campaign: { sid: "a1", vid } });
    expect(line).not.toHaveProperty("bot");
  });

  it("flags a step completed within a second of the form opening as a bot, and a form start never", async () => {
    const fast = await beacon({ event: "form_step_completed", step: 1, vid: "v-1", ms: 640 });
    expect(fast.status).toBe(204);
    expect(linesFor(t, fast.headers["x-request-id"]).find((entry) => entry.event === "form_step_completed")).toMatchObject({ ms: 640, bot: true });
    const start = await beacon({ event: "form_started", vid: "v-1", ms: 0 });
    expect(linesFor(t, start.headers["x-request-id"]).find((entry) => entry.event === "form_started")).not.toHaveProperty("bot");
  });

  it("logs an empty campaign when the visitor came without sid and tid", async () => {
    const response = await beacon({ event: "form_started" });
    expect(response.status).toBe(204);
    const line = linesFor(t, response.headers["x-request-id"]).find((entry) => entry.event === "form_started");
    expect(line?.campaign).toEqual({});
    expect(line).not.toHaveProperty("zip");
  });

  it("never lets a beacon's own keys into the log line", async () => {
    const response = await beacon({ event: "form_started", sid: "a1", level: "fatal", msg: "pwned", requestId: "forged", reference: "LD-AAAA-AAAA" });
    expect(response.status).toBe(204);
    const line = linesFor(t, response.headers["x-request-id"]).find((entry) => entry.event === "form_started")!;
    expect(line).toMatchObject({ level: "info", msg: "form started", requestId: response.headers["x-request-id"] });
    expect(line).not.toHaveProperty("reference");
  });

  it.each([
    ["an unknown event", { event: "form_abandoned" }],
    ["a server-side event name (lead_submitted)", { event: "lead_submitted" }],
    ["a server-side event name (quote_page_view)", { event: "quote_page_view" }],
    ["an event in another case", { event: "FORM_STARTED" }],
    ["no event", { step: 1 }],
    ["an event that is not text", { event: 1 }],
    ["form_step_completed without a step", { event: "form_step_completed" }],
    ["step 0", { event: "form_step_completed", step: 0 }],
    ["step 4", { event: "form_step_completed", step: 4 }],
    ["step -1", { event: "form_step_completed", step: -1 }],
    ["a fractional step", { event: "form_step_completed", step: 1.5 }],
    ["a step as text", { event: "form_step_completed", step: "2" }],
    ["a step as null", { event: "form_step_completed", step: null }],
    ["form_started with a step", { event: "form_started", step: 1 }],
    ["form_started with a screen", { event: "form_started", screen: "vehicle" }],
    ["an unknown screen", { event: "form_step_completed", step: 1, screen: "payment" }],
    ["a screen as a number", { event: "form_step_completed", step: 1, screen: 3 }],
    ["a malformed ZIP", { event: "form_started", zip: "9021" }],
    ["a ZIP as a number", { event: "form_started", zip: 90210 }],
    ["a sid with markup", { event: "form_started", sid: "<script>" }],
    ["a sid that is too long", { event: "form_started", sid: "a".repeat(65) }],
    ["a tid that is an object", { event: "form_started", tid: { $ne: "" } }],
    ["a tid that is an array", { event: "form_started", tid: ["a", "b"] }],
    ["a vid with markup", { event: "form_started", vid: "<b>" }],
    ["a vid that is too long", { event: "form_started", vid: "v".repeat(65) }],
    ["a negative ms", { event: "form_started", ms: -1 }],
    ["a fractional ms", { event: "form_started", ms: 12.5 }],
    ["ms as text", { event: "form_started", ms: "1200" }],
    ["an ms beyond safe integers", { event: "form_started", ms: 2 ** 60 }],
    ["an array", [{ event: "form_started" }]],
    ["null", null],
  ])("refuses %s with 400 and logs no event", async (_name, body) => {
    const response = await request(t.app)
      .post("/api/events")
      .set({ "Content-Type": "application/json", "Sec-Fetch-Site": "same-origin" })
      .send(JSON.stringify(body));
    expect(response.status).toBe(400);
    expect(response.headers["content-type"]).toMatch(/^application\/json/);
    expect(response.body).toEqual({ status: "error", error: expect.any(String) });
    const events = linesFor(t, response.headers["x-request-id"]).map((line) => line.event);
    expect(events).not.toContain("form_started");
    expect(events).not.toContain("form_step_completed");
  });

  it("refuses malformed JSON with 400 in JSON", async () => {
    const response = await request(t.app).post("/api/events").set("Content-Type", "application/json").send('{"event": "form_started"');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ status: "error", error: "The request body is not valid JSON." });
  });

  it.each([
    ["text/plain", JSON.stringify({ event: "form_started" })],
    ["application/x-www-form-urlencoded", "event=form_started"],
  ])("refuses a %s body with 415", async (type, payload) => {
    const response = await request(t.app).post("/api/events").set("Content-Type", type).send(payload);
    expect(response.status).toBe(415);
    expect(response.body).toEqual({ status: "error", error: "Send the request as application/json." });
    expect(linesFor(t, response.headers["x-request-id"]).some((line) => line.event === "form_started")).toBe(false);
  });

  it("refuses a body over 2 KB with 413", async () => {
    const response = await beacon({ event: "form_started", padding: "x".repeat(3000) });
    expect(response.status).toBe(413);
    expect(response.body).toEqual({ status: "error", error: expect.any(String) });
  });

  it("refuses cross-site calls with 403", async () => {
    const crossSite = await beacon({ event: "form_started" }, { "Sec-Fetch-Site": "cross-site" });
    expect(crossSite.status).toBe(403);
    const foreign = await request(t.app).post("/api/events").set("Origin", "https://evil.example").send({ event: "form_started" });
    expect(foreign.status).toBe(403);
    for (const response of [crossSite, foreign]) {
      expect(linesFor(t, response.headers["x-request-id"]).some((line) => line.event === "form_started")).toBe(false);
    }
  });

  it("only accepts POST (GET is a 404 and logs no event)", async () => {
    const response = await request(t.app).get("/api/events?event=form_started");
    expect(response.status).toBe(404);
    expect(t.events("form_started").some((line) => line.requestId === response.headers["x-request-id"])).toBe(false);
  });

  it.each([
    ["GET", "/api/events"],
    ["POST", "/api/no-such-endpoint"],
    ["DELETE", "/api/leads"],
  ] as const)("answers %s %s with a JSON 404, not the not-found page, and logs not_found", async (method, path) => {
    const response = await request(t.app)[method === "GET" ? "get" : method === "POST" ? "post" : "delete"](path);
    expect(response.status).toBe(404);
    expect(response.headers["content-type"]).toMatch(/application\/json/);
    expect(response.body).toEqual({ status: "error", error: "No such API endpoint." });
    expect(t.events("not_found").some((line) => line.requestId === response.headers["x-request-id"] && line.path === path)).toBe(true);
  });

  describe("rate limit", () => {
    let limited: TestApp;
    beforeAll(async () => {
      limited = await createTestApp({ EVENTS_RATE_LIMIT: "3" });
    });
    afterAll(async () => {
      await limited.services.close();
    });

    it("answers with 429 once EVENTS_RATE_LIMIT beacons were sent, and logs no event for it", async () => {
      for (let i = 0; i < 3; i += 1) expect((await beacon({ event: "form_started" }, {}, limited.app)).status).toBe(204);
      const fourth = await beacon({ event: "form_step_completed", step: 1 }, {}, limited.app);
      expect(fourth.status).toBe(429);
      expect(fourth.headers["cache-control"]).toBe("no-store");
      expect(limited.events("form_started")).toHaveLength(3);
      expect(limited.events("form_step_completed")).toHaveLength(0);
      expect(limited.events("events_rate_limited")).toHaveLength(1);
      // The quote requests have their own budget.
      expect((await request(limited.app).get("/api/leads/session")).status).toBe(200);
    });
  });
});

describe("quote_page_view", () => {
  it("is logged for every view of / with the campaign, the ZIP and the request id, also when served from the page cache", async () => {
    const counting = await createTestApp();
    try {
      const first = await request(counting.app).get("/?zip=90210&sid=a1&tid=b2");
      // The visitor's own render, then the page's shape rendered once for the cache.
      await expect.poll(() => counting.renders()).toBe(2);
      const second = await request(counting.app).get("/?zip=90210&sid=a1&tid=b2");
      expect(first.status).toBe(200);
      expect(second.status).toBe(200);
      expect(counting.renders()).toBe(2); // the second came from the cache
      const views = counting.logs.filter((line) => line.event === "quote_page_view");
      expect(views).toHaveLength(2);
      for (const [index, response] of [first, second].entries()) {
        expect(views[index]).toMatchObject({
          level: "info",
          event: "quote_page_view",
          path: "/",
          zip: "90210",
          campaign: { sid: "a1", tid: "b2" },
          requestId: response.headers["x-request-id"],
        });
      }
    } finally {
      await counting.services.close();
    }
  });

  it("is logged without campaign ids too, and keeps only valid ones", async () => {
    const plain = await request(t.app).get("/?zip=10001");
    const view = linesFor(t, plain.headers["x-request-id"]).find((line) => line.event === "quote_page_view");
    expect(view).toMatchObject({ path: "/", zip: "10001", campaign: {} });
    const bad = await request(t.app).get("/?zip=90210&sid=a1&tid=bad%20value");
    expect(linesFor(t, bad.headers["x-request-id"]).find((line) => line.event === "quote_page_view")).toMatchObject({ campaign: { sid: "a1" } });
  });

  it("is not logged for the landing page, other pages, files or the APIs", async () => {
    const before = t.events("quote_page_view").length;
    const landing = await request(t.app).get("/zipcode?zip=90210&sid=a1&tid=b2");
    expect(landing.status).toBe(200);
    expect(linesFor(t, landing.headers["x-request-id"]).some((line) => line.event === "campaign_hit")).toBe(true);
    await request(t.app).get("/terms-of-use?sid=a1");
    await request(t.app).get("/rapidfire.html?zip=90210&sid=a1&tid=b2");
    await request(t.app).get("/api/leads/session");
    await request(t.app).get("/nope?sid=a1");
    await request(t.app).head("/?sid=a1");
    expect(t.events("quote_page_view")).toHaveLength(before);
  });
});

describe("GET /api/leads/session", () => {
  it("gives a CSRF token and cookie, a signed form token and the consent disclosure to show, nothing else, never cached", async () => {
    const response = await request(t.app).get("/api/leads/session");
    expect(response.status).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^application\/json/);
    expect(response.headers["cache-control"]).toBe("no-store");
    expect(response.body).toEqual({
      csrfToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      formToken: expect.stringMatching(/^[0-9a-z]{1,12}\.[A-Za-z0-9_-]{43}$/),
      // The stored version and exact text the form shows beside the consent box (decision 010).
      disclosure: { version: CONSENT_DISCLOSURE.version, parts: CONSENT_DISCLOSURE.parts },
    });
    const setCookie = String(response.headers["set-cookie"]);
    expect(setCookie).toMatch(/^qr_csrf=[A-Za-z0-9_-]{24}; Path=\/; HttpOnly; SameSite=Strict$/);
    // The form token carries the time it was issued.
    const issuedAt = parseInt((response.body as { formToken: string }).formToken.split(".")[0]!, 36);
    expect(Math.abs(Date.now() - issuedAt)).toBeLessThan(10_000);
  });

  it("keeps a visitor's cookie and token (Sec-GPC is read where a lead is stored, not reported here)", async () => {
    const first = await request(t.app).get("/api/leads/session");
    const cookie = String((first.headers["set-cookie"] as unknown as string[])[0]).split(";")[0]!;
    const again = await request(t.app).get("/api/leads/session").set({ Cookie: cookie, "Sec-GPC": "1" });
    expect(again.headers["set-cookie"]).toBeUndefined();
    expect((again.body as { csrfToken: string }).csrfToken).toBe((first.body as { csrfToken: string }).csrfToken);
    expect(again.body).not.toHaveProperty("gpc");
  });
});

describe("GET /api/zip-codes/:zip", () => {
  it("answers a known ZIP with its city and state, cacheable for a day", async () => {
    const response = await request(t.app).get("/api/zip-codes/90210");
    expect(response.status).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^application\/json/);
    expect(response.body).toEqual({ zip: "90210", city: "Beverly Hills", state: "CA" });
    expect(response.headers["cache-control"]).toBe("public, max-age=86400");
    const newYork = await request(t.app).get("/api/zip-codes/10001");
    expect(newYork.body).toEqual({ zip: "10001", city: "New York", state: "NY" });
  });

  it("answers an unknown ZIP with 404 (also cacheable)", async () => {
    const response = await request(t.app).get("/api/zip-codes/99999");
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ status: "error", error: expect.stringContaining("99999") });
    expect(response.headers["cache-control"]).toBe("public, max-age=86400");
  });

  it.each(["9021", "902100", "abcde", "9021%20", "%3Cscript%3E"])("answers %s with 400", async (zip) => {
    const response = await request(t.app).get(`/api/zip-codes/${zip}`);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ status: "error", error: "A ZIP code is exactly 5 digits." });
    expect(response.headers["cache-control"]).not.toBe("public, max-age=86400");
  });
});
