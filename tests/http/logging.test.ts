import { beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { createTestApp, type TestApp } from "../support/app";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ TRUST_PROXY: "1" });
});

function linesFor(requestId: string | undefined) {
  return t.logs.filter((line) => line.requestId === requestId);
}

describe("request ids", () => {
  it("generates one when none comes in, echoes it, and puts it on every line of the request", async () => {
    const response = await request(t.app).get("/zipcode?sid=a1");
    const id = response.headers["x-request-id"] as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const lines = linesFor(id);
    expect(lines.map((line) => line.event ?? line.msg)).toEqual(["campaign_hit", "request completed"]);
  });

  it("reuses a valid incoming X-Request-Id", async () => {
    const response = await request(t.app).get("/zipcode").set("X-Request-Id", "lb-7f3a9c21d4e5");
    expect(response.headers["x-request-id"]).toBe("lb-7f3a9c21d4e5");
    expect(linesFor("lb-7f3a9c21d4e5")).toHaveLength(1);
  });

  it("replaces an incoming id that is malformed or hostile", async () => {
    const response = await request(t.app).get("/zipcode").set("X-Request-Id", '"},"level":"fatal');
    expect(response.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("the access log", () => {
  it("writes one JSON object per line with level, time, method, url and status", async () => {
    const response = await request(t.app).get("/nope");
    const completed = linesFor(response.headers["x-request-id"]).find((line) => line.msg === "request completed")!;
    expect(completed).toMatchObject({ level: "info", req: { method: "GET", url: "/nope" }, res: { statusCode: 404 } });
    expect(typeof completed.time).toBe("string");
    for (const line of t.rawLogs().trim().split("\n")) expect(() => JSON.parse(line)).not.toThrow();
  });

  it("never writes cookies or credentials", async () => {
    await request(t.app)
      .get("/zipcode")
      .set("Cookie", "session=super-secret-cookie")
      .set("Authorization", "Bearer super-secret-token");
    expect(t.rawLogs()).not.toContain("super-secret");
  });

  it("shortens the visitor's IP address (from the balancer's X-Forwarded-For) instead of logging it", async () => {
    const response = await request(t.app).get("/zipcode").set("X-Forwarded-For", "203.0.113.77");
    const completed = linesFor(response.headers["x-request-id"]).find((line) => line.msg === "request completed")!;
    expect((completed.req as { ip: string }).ip).toBe("203.0.113.0");
    expect(t.rawLogs()).not.toContain("203.0.113.77");
  });
});

describe("campaign events", () => {
  it("logs campaign_hit with sid and tid when a page is requested with them", async () => {
    const response = await request(t.app).get("/zipcode?sid=aff-9&tid=click_42");
    const hit = linesFor(response.headers["x-request-id"]).find((line) => line.event === "campaign_hit");
    expect(hit).toMatchObject({ event: "campaign_hit", path: "/zipcode", campaign: { sid: "aff-9", tid: "click_42" } });
    expect(hit).not.toHaveProperty("rejected");
  });

  it("logs campaign_hit on the quote page too, with refused values and their reasons", async () => {
    const response = await request(t.app).get("/?zip=90210&sid=a1&tid=bad%20value");
    const hit = linesFor(response.headers["x-request-id"]).find((line) => line.event === "campaign_hit");
    expect(hit).toMatchObject({ path: "/", campaign: { sid: "a1" }, rejected: [{ param: "tid", reason: "bad_characters" }] });
  });

  it("does not log campaign_hit for pages without campaign ids, nor for 404s", async () => {
    const plain = await request(t.app).get("/zipcode?zip=12345");
    const missing = await request(t.app).get("/nope?sid=a1");
    expect(linesFor(plain.headers["x-request-id"]).some((line) => line.event === "campaign_hit")).toBe(false);
    expect(linesFor(missing.headers["x-request-id"]).some((line) => line.event === "campaign_hit")).toBe(false);
  });

  it("never lets query keys become top-level log keys", async () => {
    const response = await request(t.app).get("/zipcode?sid=a1&level=fatal&msg=pwned&event=fake&requestId=x&time=0");
    const hit = linesFor(response.headers["x-request-id"]).find((line) => line.event === "campaign_hit")!;
    expect(Object.keys(hit).sort()).toEqual(["campaign", "entry", "event", "hostname", "level", "msg", "path", "pid", "requestId", "time"]);
    expect(hit.level).toBe("info");
    expect(hit.msg).toBe("campaign hit");
  });

  it("cuts very long paths in events", async () => {
    const response = await request(t.app).get(`/${"x".repeat(3000)}`);
    const line = linesFor(response.headers["x-request-id"]).find((entry) => entry.event === "not_found")!;
    expect((line.path as string).length).toBeLessThanOrEqual(1025);
  });
});

describe("errors", () => {
  it("log 4xx client errors with the request id and show the visitor a reference, no stack", async () => {
    const response = await request(t.app).get("/%E0%A4%A");
    expect(response.status).toBe(400);
    expect(response.text).toContain(response.headers["x-request-id"]);
    expect(response.text).not.toMatch(/at .+\.(ts|js):\d+/);
    expect(linesFor(response.headers["x-request-id"]).some((line) => line.msg === "client error" && line.level === "warn")).toBe(true);
  });
});
