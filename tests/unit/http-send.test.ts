/**
 * The delivery worker's HTTP exchange (server/delivery/http-send.ts) against a real local server:
 * each kind of answer, a timeout, a refused connection, and what is never followed or kept.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outcomeOf, send } from "../../server/delivery/http-send";

let server: http.Server;
let origin: string;
const seen: { method?: string; body: string; headers: http.IncomingHttpHeaders }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      seen.push({ method: req.method, body, headers: req.headers });
      if (req.url === "/ok") return res.writeHead(200, { "content-type": "application/json" }).end('{"price": 20.5, "note": "call ana@example.com"}');
      if (req.url === "/busy") return res.writeHead(429, { "retry-after": "7" }).end("slow down");
      if (req.url === "/moved") return res.writeHead(302, { location: "/ok" }).end();
      if (req.url === "/big") return res.writeHead(200).end("x".repeat(100_000));
      if (req.url === "/slow") return setTimeout(() => res.writeHead(200).end("late"), 1_000);
      if (req.url === "/cut") {
        res.writeHead(200, { "content-length": "100" });
        res.write("partial");
        return setTimeout(() => res.destroy(), 20);
      }
      res.writeHead(400).end('{"reason": "duplicate"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("send", () => {
  it("POSTs the body with its length and headers, and reads a 2xx answer with its excerpt masked", async () => {
    const result = await send(`${origin}/ok`, { method: "POST", headers: { "content-type": "application/json", "idempotency-key": "LD-1:acme" }, body: '{"a":"é"}' }, 2_000);
    expect(result).toMatchObject({ outcome: "accepted", httpStatus: 200, body: '{"price": 20.5, "note": "call ana@example.com"}', retryAfter: null });
    expect(result.excerpt).not.toContain("ana@example.com");
    expect(seen.at(-1)).toMatchObject({ method: "POST", body: '{"a":"é"}', headers: { "content-length": "10", "idempotency-key": "LD-1:acme" } });
  });

  it("keeps Retry-After of a 429, refuses a redirect without following it, and cuts a long answer", async () => {
    expect(await send(`${origin}/busy`, { method: "GET", headers: {} }, 2_000)).toMatchObject({ outcome: "retry", httpStatus: 429, retryAfter: "7" });
    const before = seen.length;
    expect(await send(`${origin}/moved`, { method: "GET", headers: {} }, 2_000)).toMatchObject({ outcome: "rejected", httpStatus: 302 });
    expect(seen.length).toBe(before + 1);
    expect((await send(`${origin}/big`, { method: "GET", headers: {} }, 2_000)).body.length).toBe(16_384);
  });

  it("answers a timeout, a refused connection, an answer cut short and an unusable URL as outcomes, never by throwing", async () => {
    expect(await send(`${origin}/slow`, { method: "GET", headers: {} }, 200)).toMatchObject({ outcome: "timeout", httpStatus: null, excerpt: "no answer within 200 ms" });
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await send(`http://127.0.0.1:${port}/`, { method: "GET", headers: {} }, 2_000)).toMatchObject({ outcome: "network_error", excerpt: "ECONNREFUSED" });
    expect(await send(`${origin}/cut`, { method: "GET", headers: {} }, 2_000)).toMatchObject({ outcome: "network_error", httpStatus: null });
    expect(await send("ftp://127.0.0.1/", { method: "GET", headers: {} }, 2_000)).toMatchObject({ outcome: "network_error", excerpt: "unsupported protocol ftp:" });
    expect(await send("not a url", { method: "GET", headers: {} }, 2_000)).toMatchObject({ outcome: "network_error", excerpt: "invalid URL" });
  });

  it("maps statuses to outcomes", () => {
    expect([200, 204, 299, 408, 429, 500, 503, 400, 401, 404, 409, 302].map(outcomeOf)).toEqual([
      "accepted", "accepted", "accepted", "retry", "retry", "retry", "retry", "rejected", "rejected", "rejected", "rejected", "rejected",
    ]);
  });
});
