/**
 * The one pipeline in front of every JSON endpoint (server/api/): each POST endpoint refuses the
 * same mistakes with the same status, in the same envelope `{ status: "error", error }`, with
 * no-store; unknown /api addresses are a JSON 404 in it too. Per-endpoint values: body size
 * limits and per-client budgets.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { createTestApp, type TestApp } from "../support/app";

type Response = Awaited<ReturnType<ReturnType<typeof request>["get"]>>;

const ENDPOINTS = [
  { path: "/api/leads", bodyLimit: 16 * 1024, budget: "LEAD_RATE_LIMIT", event: "lead_rate_limited", csrf: true },
  // The beacon carries no CSRF token (sent before the form's session exists; it stores nothing).
  { path: "/api/events", bodyLimit: 2 * 1024, budget: "EVENTS_RATE_LIMIT", event: "events_rate_limited", csrf: false },
  { path: "/api/privacy-requests", bodyLimit: 8 * 1024, budget: "PRIVACY_RATE_LIMIT", event: "privacy_request_rate_limited", csrf: true },
] as const;

const MESSAGES = {
  csrf: "Your session has expired. Reload the page and send the form again.",
  crossSite: "This form has expired. Please go back, reload the page and send it again.",
  type: "Send the request as application/json.",
  malformed: "The request body is not valid JSON.",
  tooLarge: "That request was too large.",
  notFound: "No such API endpoint.",
  rateLimited: "Too many requests from your connection. Please wait a few minutes and try again.",
};

/** The one error envelope: exactly these two fields, JSON, never cached. */
function expectEnvelope(response: Response, status: number, error: string): void {
  expect(response.status).toBe(status);
  expect(response.headers["content-type"]).toMatch(/^application\/json/);
  expect(response.headers["cache-control"]).toBe("no-store");
  expect(response.body).toEqual({ status: "error", error });
}

/** A JSON object of exactly `bytes` bytes. */
const jsonOfSize = (bytes: number) => JSON.stringify({ pad: "x".repeat(bytes - '{"pad":""}'.length) });

let t: TestApp;
/** A visitor's CSRF cookie and token (one CSRF protection for every endpoint). */
let visitor: { cookie: string; token: string };

beforeAll(async () => {
  t = await createTestApp({ LEAD_RATE_LIMIT: "1000", EVENTS_RATE_LIMIT: "1000", PRIVACY_RATE_LIMIT: "1000" });
  const session = await request(t.app).get("/api/leads/session");
  visitor = {
    cookie: String((session.headers["set-cookie"] as unknown as string[])[0]).split(";")[0]!,
    token: (session.body as { csrfToken: string }).csrfToken,
  };
});
afterAll(async () => {
  await t.services.close();
});

const post = (path: string, headers: Record<string, string> = {}) =>
  request(t.app).post(path).set({ Cookie: visitor.cookie, "X-CSRF-Token": visitor.token, ...headers });

describe.each(ENDPOINTS.filter((endpoint) => endpoint.csrf))("POST $path", ({ path }) => {
  it("refuses a missing or forged CSRF token with 403", async () => {
    expectEnvelope(await request(t.app).post(path).set("Cookie", visitor.cookie).send({}), 403, MESSAGES.csrf);
    expectEnvelope(await post(path, { "X-CSRF-Token": "forged" }).send({}), 403, MESSAGES.csrf);
    expectEnvelope(await request(t.app).post(path).set("X-CSRF-Token", visitor.token).send({}), 403, MESSAGES.csrf);
    expect(t.events("csrf_rejected").at(-1)).toMatchObject({ level: "warn", path });
  });
});

describe.each(ENDPOINTS)("POST $path", ({ path, bodyLimit, csrf }) => {
  it.each([
    ["text/plain", '{"event":"form_started"}'],
    ["application/x-www-form-urlencoded", "event=form_started"],
    ["multipart/form-data; boundary=x", '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n--x--\r\n'],
  ])("refuses a %s body with 415", async (type, payload) => {
    expectEnvelope(await post(path, { "Content-Type": type }).send(payload), 415, MESSAGES.type);
  });

  it("refuses a request without a body type with 415", async () => {
    expectEnvelope(await post(path), 415, MESSAGES.type);
  });

  it("refuses malformed JSON with 400", async () => {
    expectEnvelope(await post(path, { "Content-Type": "application/json" }).send('{"event": "form_started"'), 400, MESSAGES.malformed);
  });

  it(`refuses a body over ${bodyLimit / 1024} KB with 413, and parses one of exactly that size`, async () => {
    expectEnvelope(await post(path, { "Content-Type": "application/json" }).send(jsonOfSize(bodyLimit + 1)), 413, MESSAGES.tooLarge);
    // At the limit the body is parsed, and the next step answers: the CSRF check (no token sent),
    // or for the beacon its schema (no such event).
    const atLimit = await request(t.app).post(path).set({ Cookie: visitor.cookie, "Content-Type": "application/json" }).send(jsonOfSize(bodyLimit));
    expectEnvelope(atLimit, csrf ? 403 : 400, csrf ? MESSAGES.csrf : "Unknown or malformed event.");
  });

  it.each([
    ["Sec-Fetch-Site: cross-site", { "Sec-Fetch-Site": "cross-site" }],
    ["a foreign Origin", { Origin: "https://evil.example" }],
    ["Origin: null", { Origin: "null" }],
  ])("refuses a cross-site call (%s) with 403, even with a valid token", async (_name, headers) => {
    expectEnvelope(await post(path, headers).send({}), 403, MESSAGES.crossSite);
    expect(t.events("cross_origin_refused").at(-1)).toMatchObject({ level: "warn", path });
  });
});

describe("the funnel beacon", () => {
  it("needs no CSRF token: it is sent before the form's session exists, and stores nothing", async () => {
    const response = await request(t.app).post("/api/events").set("Sec-Fetch-Site", "same-origin").send({ event: "form_started" });
    expect(response.status).toBe(204);
  });
});

describe("unknown API addresses", () => {
  it.each([
    ["GET", "/api"],
    ["GET", "/api/no-such-endpoint"],
    ["POST", "/api/no-such-endpoint"],
    ["PUT", "/api/leads"],
    ["GET", "/api/leads"],
    ["POST", "/api/leads/session"],
    ["DELETE", "/api/privacy-requests"],
    ["GET", "/api/zip-codes"],
  ] as const)("%s %s is a JSON 404 in the envelope, logged as not_found", async (method, path) => {
    const response = await request(t.app)[method === "GET" ? "get" : method === "POST" ? "post" : method === "PUT" ? "put" : "delete"](path);
    expectEnvelope(response, 404, MESSAGES.notFound);
    expect(t.events("not_found").some((line) => line.requestId === response.headers["x-request-id"] && line.path === path)).toBe(true);
  });
});

describe("per-client budgets", () => {
  it.each(ENDPOINTS)("$path answers 429 in the envelope once its budget ($budget) is spent, and spends no other", async ({ path, budget, event }) => {
    const limited = await createTestApp({ [budget]: "2" });
    try {
      // Requests count before any parsing, so refused ones (here: the wrong type) spend the budget too.
      const spend = (target: string) => request(limited.app).post(target).set("Content-Type", "text/plain").send("x");
      expect((await spend(path)).status).toBe(415);
      expect((await spend(path)).status).toBe(415);
      const refused = await spend(path);
      expectEnvelope(refused, 429, MESSAGES.rateLimited);
      // Standard headers tell the client its budget and window (draft-8: q=limit, w=seconds).
      expect(refused.headers["ratelimit-policy"]).toMatch(/\bq=2\b.*\bw=600\b/);
      expect(refused.headers["ratelimit"]).toMatch(/\br=0\b/);
      expect(limited.events(event)).toHaveLength(1);
      for (const other of ENDPOINTS.filter((entry) => entry.path !== path)) expect((await spend(other.path)).status, other.path).toBe(415);
    } finally {
      await limited.services.close();
    }
  });
});

describe("the privacy budget", () => {
  it("is one per client across the JSON API and the no-JavaScript form", async () => {
    const limited = await createTestApp({ PRIVACY_RATE_LIMIT: "2" });
    try {
      expect((await request(limited.app).post("/do-not-sell").type("form").send({ _csrf: "x" })).status).toBe(403);
      expect((await request(limited.app).post("/api/privacy-requests").send({})).status).toBe(403);
      expectEnvelope(await request(limited.app).post("/api/privacy-requests").send({}), 429, MESSAGES.rateLimited);
      const form = await request(limited.app).post("/do-not-sell").type("form").send({ _csrf: "x" });
      expect(form.status).toBe(429);
      expect(form.headers["content-type"]).toMatch(/^text\/html/);
      expect(form.text).toContain("Too many requests");
      expect(form.text).toContain('href="/do-not-sell"');
    } finally {
      await limited.services.close();
    }
  });
});
