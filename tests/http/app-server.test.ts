/**
 * The server the production process listens with (server/http/app-server.ts, decision 023): its
 * requests and responses are built as the app's own objects, so Express need not re-parent them,
 * and the site behaves exactly as through http.createServer(app).
 */
import { readFileSync } from "node:fs";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import express from "express";
import { appServerOptions, createAppServer } from "../../server/http/app-server";
import { createTestApp } from "../support/app";
import { BROWSER_USER_AGENT, httpGet } from "../../tools/http-get";
import { projectRoot } from "../../tools/production-server";

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function listen(server: http.Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The prototypes of the request and response as they reach the server, before Express sees them. */
async function prototypesOnArrival(server: http.Server, app: express.Express) {
  let seen: { request: boolean; response: boolean } | undefined;
  server.prependListener("request", (req: IncomingMessage, res: ServerResponse) => {
    seen = { request: Object.getPrototypeOf(req) === app.request, response: Object.getPrototypeOf(res) === app.response };
  });
  const origin = await listen(server);
  await httpGet(`${origin}/`);
  return seen;
}

function probeApp(): express.Express {
  const app = express();
  app.get("/", (req, res) => void res.json({ ip: req.ip, locals: typeof res.locals }));
  return app;
}

describe("createAppServer", () => {
  it("hands Express requests and responses that are already its own", async () => {
    const app = probeApp();
    expect(await prototypesOnArrival(createAppServer(app), app)).toEqual({ request: true, response: true });
  });

  it("differs from http.createServer(app), whose objects Express must re-parent per request", async () => {
    const app = probeApp();
    expect(await prototypesOnArrival(http.createServer(app), app)).toEqual({ request: false, response: false });
  });

  it("refuses prototypes that are not over Node's request and response", () => {
    const fake = { request: {}, response: Object.create(http.ServerResponse.prototype) as object } as unknown as express.Express;
    expect(() => appServerOptions(fake)).toThrow(/request does not inherit/);
  });

  it("serves the real site: a cached ad click carries its own ids, nonce and request id, and is logged with the client's address", async () => {
    const t = await createTestApp({ TRUST_PROXY: "loopback" });
    const origin = await listen(createAppServer(t.app));
    const headers = { "user-agent": BROWSER_USER_AGENT, "accept-encoding": "gzip, deflate, br", "x-forwarded-for": "203.0.113.77" };
    // The first click of this shape renders it for the cache; the next ones are answered from it.
    await httpGet(`${origin}/zipcode?sid=s1&tid=first`, 10_000, headers);
    await expect.poll(async () => (await httpGet(`${origin}/zipcode?sid=s1&tid=probe`, 10_000, headers)).headers["content-length"] !== undefined).toBe(true);
    const response = await httpGet(`${origin}/zipcode?sid=s1&tid=click42`, 10_000, { ...headers, "x-request-id": "lb-trace-0042" });
    expect(response.status).toBe(200);
    expect(response.headers["content-encoding"]).toBe("gzip");
    const html = gunzipSync(response.body).toString("utf8");
    const nonce = /'nonce-([^']+)'/.exec(String(response.headers["content-security-policy"]))![1]!;
    expect(html).toContain(`nonce="${nonce}"`);
    expect(html).toContain('value="click42"');
    expect(response.headers["x-request-id"]).toBe("lb-trace-0042");
    expect(response.headers["x-frame-options"]).toBe("SAMEORIGIN");
    const line = t.logs.find((entry) => entry.requestId === "lb-trace-0042" && entry.msg === "request completed");
    expect(line).toMatchObject({ req: { method: "GET", url: "/zipcode?sid=s1&tid=click42", ip: "203.0.113.0" }, res: { statusCode: 200 } });
    expect(t.events("campaign_hit").some((entry) => (entry.campaign as { tid?: string }).tid === "click42")).toBe(true);
  });

  it("answers bad input as before: a malformed address is a 400 page, not a crash", async () => {
    const t = await createTestApp();
    const origin = await listen(createAppServer(t.app));
    const response = await httpGet(`${origin}/%E0%A4%A`);
    expect(response.status).toBe(400);
    expect((await httpGet(`${origin}/zipcode`)).status).toBe(200);
  });

  it("is what the public server and the operations console listen with", () => {
    for (const file of ["server/index.ts", "server/admin/listener.ts"]) {
      const source = readFileSync(path.join(projectRoot, file), "utf8");
      expect(source, file).toMatch(/\bcreateAppServer\(/);
      expect(source, file).not.toMatch(/\bcreateServer\(/);
    }
  });
});
