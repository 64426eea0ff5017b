import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { createTestApp, type TestApp } from "../support/app";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});

describe("health probes", () => {
  it("/healthz answers 200 while the process is alive", async () => {
    const response = await request(t.app).get("/healthz");
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: "ok" });
    expect(response.headers["cache-control"]).toBe("no-store");
  });

  it("/readyz answers 200 until shutdown begins, then 503, and responses ask clients to close", async () => {
    const probe = await createTestApp();
    expect((await request(probe.app).get("/readyz")).status).toBe(200);
    probe.lifecycle.beginShutdown();
    const ready = await request(probe.app).get("/readyz");
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ status: "shutting_down" });
    expect((await request(probe.app).get("/healthz")).status).toBe(200);
    const pageDuringDrain = await request(probe.app).get("/zipcode");
    expect(pageDuringDrain.status).toBe(200);
    expect(pageDuringDrain.headers.connection).toBe("close");
  });

  it("are left out of the access log so probes do not drown it", async () => {
    await request(t.app).get("/healthz");
    expect(t.logs.some((line) => (line.req as { url?: string } | undefined)?.url === "/healthz")).toBe(false);
  });
});

describe("malformed requests get 4xx, never 5xx", () => {
  it.each([
    ["bad percent-encoding in the path", "/%E0%A4%A"],
    ["a lone percent sign", "/zipcode%"],
    ["an encoded NUL", "/zip%00code"],
    ["path traversal", "/..%2f..%2fetc%2fpasswd"],
    ["traversal into the build", "/assets/..%2f..%2f..%2fpackage.json"],
    ["a dot-dot segment in files", "/assets/%2e%2e/%2e%2e/server/index.js"],
  ])("%s", async (_name, path) => {
    const response = await request(t.app).get(path);
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expect(response.text).not.toMatch(/"dependencies"|createApp|root:x:0/);
  });

  it("answers other methods on pages with 405 and the allowed ones", async () => {
    const response = await request(t.app).post("/zipcode").send("zip=12345");
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe("GET, HEAD");
  });
});

describe("against a real listening server", () => {
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    server = http.createServer(t.app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  function raw(requestText: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, "127.0.0.1", () => socket.end(requestText));
      let data = "";
      socket.setEncoding("latin1").on("data", (chunk: string) => (data += chunk));
      socket.on("end", () => resolve(data)).on("error", reject);
      socket.setTimeout(5_000, () => socket.destroy(new Error("timeout")));
    });
  }

  it("answers huge headers with 431 and keeps serving", async () => {
    const answer = await raw(`GET /zipcode HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\nConnection: close\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431/);
    const after = await raw("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect(after).toMatch(/^HTTP\/1\.1 200/);
  });

  it("answers a request line that is not HTTP with 400 and keeps serving", async () => {
    const answer = await raw("BLAH /\r\n\r\n");
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(await raw("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")).toMatch(/^HTTP\/1\.1 200/);
  });

  it("answers a raw unencoded space and control bytes in the target with 400", async () => {
    const answer = await raw("GET /go?zip=1\u0001 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
  });
});
