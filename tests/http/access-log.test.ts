/**
 * The access log middleware (server/logger.ts, createHttpLogger) on a small app of its own: the
 * lines it writes for a 5xx, for a visitor who leaves before the response ends, and for probes.
 * The line of an ordinary page is checked on the real app in logging.test.ts.
 */
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpLogger } from "../../server/logger";
import { captureLogs } from "../support/log-capture";

type Line = Record<string, unknown>;
const { logger, lines } = captureLogs();

/** Resolves when the request's access line (any of the three messages) has been written. */
async function accessLine(requestId: string): Promise<Line> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const line = lines.find((entry) => entry.requestId === requestId && typeof entry.responseTime === "number");
    if (line) return line;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no access line for ${requestId}`);
}

const app = express();
app.use(createHttpLogger(logger));
app.get("/healthz", (_req, res) => void res.send("ok"));
app.get("/boom", (req, res) => {
  req.log.error({ event: "example_failure" }, "something broke");
  res.status(500).send("broken");
});
app.get("/not-now", (_req, res) => {
  res.status(503).send("unavailable");
});
/** Sends its headers and part of a body, then never ends: the visitor gives up. */
app.get("/slow", (_req, res) => {
  res.status(200).setHeader("Content-Type", "text/plain");
  res.write("partial");
});
app.get("/page", (_req, res) => void res.send("page"));

let server: http.Server;
let origin: string;
beforeAll(async () => {
  server = http.createServer(app).listen(0, "127.0.0.1");
  await once(server, "listening");
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("the access log middleware", () => {
  it("writes one line for a page: request id, method, url, status, response time", async () => {
    const response = await request(app).get("/page?tid=CLK1").set("User-Agent", "TestPhone/1.0");
    const id = response.headers["x-request-id"] as string;
    const line = await accessLine(id);
    expect(line).toMatchObject({ level: "info", msg: "request completed", requestId: id, req: { method: "GET", url: "/page?tid=CLK1", userAgent: "TestPhone/1.0" }, res: { statusCode: 200 } });
    expect(Object.keys(line.req as object).sort()).toEqual(["ip", "method", "url", "userAgent"]);
    expect(lines.filter((entry) => entry.requestId === id)).toHaveLength(1);
  });

  it("writes a 5xx at error level with the status as its error, after the handler's own line with the same id", async () => {
    const response = await request(app).get("/boom");
    const id = response.headers["x-request-id"] as string;
    const line = await accessLine(id);
    expect(line).toMatchObject({ level: "error", msg: "request errored", res: { statusCode: 500 }, err: { message: "failed with status code 500" } });
    expect(lines.filter((entry) => entry.requestId === id).map((entry) => entry.msg)).toEqual(["something broke", "request errored"]);
  });

  it("writes a 503 (not now: the database is briefly away, or the process drains) at info, its cause being logged once per outage", async () => {
    const response = await request(app).get("/not-now");
    const line = await accessLine(response.headers["x-request-id"] as string);
    expect(line).toMatchObject({ level: "info", msg: "request answered 503", res: { statusCode: 503 } });
    expect(line).not.toHaveProperty("err");
  });

  it("says so when the visitor leaves before the response is complete", async () => {
    const id = "abort-test-0001";
    const outgoing = http.get(`${origin}/slow`, { headers: { "X-Request-Id": id } });
    const [incoming] = (await once(outgoing, "response")) as [http.IncomingMessage];
    await once(incoming, "data");
    outgoing.on("error", () => undefined);
    outgoing.destroy();
    const line = await accessLine(id);
    expect(line).toMatchObject({ level: "info", msg: "request aborted", res: { statusCode: 200 } });
  });

  it("leaves the balancer's probes out of the log, but still gives them a request id", async () => {
    const response = await request(app).get("/healthz");
    expect(response.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    await request(app).get("/page");
    expect(lines.some((entry) => (entry.req as { url?: string } | undefined)?.url === "/healthz")).toBe(false);
  });
});
