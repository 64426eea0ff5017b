/**
 * What visitors and ops see when rendering itself goes wrong: a plain 500 page with a
 * reference, never a stack trace, and a logged error with the request id.
 */
import { once } from "node:events";
import { connect, type AddressInfo } from "node:net";
import { createServer } from "node:http";
import { visitorSignal } from "../../server/pages/render";
import { describe, expect, it } from "vitest";
import request from "supertest";
import type { PipeableStream } from "react-dom/server";
import { createApp } from "../../server/app";
import { testServices } from "../support/services";
import { loadConfig } from "../../server/config";
import { captureLogs } from "../support/log-capture";
import { createLifecycle } from "../../server/lifecycle";
import type { RenderSource } from "../../server/pages/render-source";
import type { EntryServer, RenderCallbacks } from "../../shared/render-contract";
import { APP_MARKER, HEAD_MARKER } from "../../server/pages/template";

const TEMPLATE = `<html><head>${HEAD_MARKER}</head><body><div id="root">${APP_MARKER}</div></body></html>`;

function appWith(entry: EntryServer, env: Record<string, string> = {}, template: RenderSource["template"] = async () => TEMPLATE) {
  const config = loadConfig({ NODE_ENV: "production", ...env });
  const { logger, lines } = captureLogs(config);
  const source: RenderSource = { template, entry: async () => entry };
  const app = createApp({ config, logger, lifecycle: createLifecycle(), source, assets: [], ...testServices() });
  return { app, lines };
}

const documentPage = (render: (nonce: string, callbacks: RenderCallbacks) => PipeableStream): EntryServer => ({
  prepare: async () => ({ type: "document", status: 200, meta: { title: "t", description: "d" }, cacheable: true, render }),
});

describe("render failures", () => {
  it("answer 500 with a reference and no stack when the router throws", async () => {
    const { app, lines } = appWith({
      prepare: async () => {
        throw new Error("database exploded at secret/path.ts:12");
      },
    });
    const response = await request(app).get("/zipcode");
    expect(response.status).toBe(500);
    expect(response.text).toContain("Something went wrong");
    expect(response.text).toContain(response.headers["x-request-id"]);
    expect(response.text).not.toContain("exploded");
    expect(response.text).not.toContain("secret/path.ts");
    expect(lines.some((line) => line.level === "error" && line.requestId === response.headers["x-request-id"])).toBe(true);
  });

  it("answer 500 when React cannot render the shell", async () => {
    const { app } = appWith(
      documentPage((_nonce, callbacks) => {
        setImmediate(() => callbacks.onShellError?.(new Error("shell broke")));
        return { pipe: <T extends NodeJS.WritableStream>(destination: T) => destination, abort: () => {} };
      }),
    );
    const response = await request(app).get("/zipcode");
    expect(response.status).toBe(500);
    expect(response.text).not.toContain("shell broke");
  });

  it("abort a render that does not finish in RENDER_TIMEOUT_MS", async () => {
    let aborted = false;
    const { app, lines } = appWith(
      documentPage((_nonce, callbacks) => ({
        pipe: <T extends NodeJS.WritableStream>(destination: T) => destination,
        abort: (reason?: unknown) => {
          aborted = true;
          callbacks.onShellError?.(reason);
        },
      })),
      { RENDER_TIMEOUT_MS: "50" },
    );
    const response = await request(app).get("/zipcode").timeout(5_000);
    expect(aborted).toBe(true);
    expect(response.status).toBe(500);
    expect(lines.some((line) => line.event === "render_timeout")).toBe(true);
  });

  it("abort the render at once, not at its timeout, when the visitor left while the page was prepared", async () => {
    let aborts = 0;
    let releaseTemplate!: () => void;
    const templateReady = new Promise<void>((resolve) => (releaseTemplate = resolve));
    let templateAsked!: () => void;
    const asked = new Promise<void>((resolve) => (templateAsked = resolve));
    const { app, lines } = appWith(
      documentPage(() => ({ pipe: <T extends NodeJS.WritableStream>(destination: T) => destination, abort: () => void (aborts += 1) })),
      { RENDER_TIMEOUT_MS: "300" },
      async () => {
        templateAsked();
        await templateReady;
        return TEMPLATE;
      },
    );
    const server = app.listen(0, "127.0.0.1");
    try {
      await once(server, "listening");
      const { port } = server.address() as AddressInfo;
      const socket = connect(port, "127.0.0.1");
      socket.on("error", () => {});
      socket.write("GET /zipcode HTTP/1.1\r\nHost: localhost\r\n\r\n");
      await asked; // the server is between preparing the page and streaming it
      socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 100)); // the server sees the close
      releaseTemplate();
      await new Promise((resolve) => setTimeout(resolve, 600)); // past RENDER_TIMEOUT_MS
      expect(aborts).toBe(1);
      expect(lines.filter((line) => line.event === "render_timeout")).toEqual([]);
    } finally {
      server.close();
    }
  });

  it("refuse a route redirect that would leave the site", async () => {
    const { app } = appWith({ prepare: async () => ({ type: "redirect", status: 302, location: "//evil.example/" }) });
    const response = await request(app).get("/zipcode").redirects(0);
    expect(response.status).toBe(500);
    expect(response.headers.location).toBeUndefined();
  });

  it("follow a route redirect that stays on the site", async () => {
    const { app } = appWith({ prepare: async () => ({ type: "redirect", status: 302, location: "/zipcode?sid=a1" }) });
    const response = await request(app).get("/old").redirects(0);
    expect(response.status).toBe(302);
    expect(response.headers.location).toBe("/zipcode?sid=a1");
  });
});

describe("visitorSignal", () => {
  it("is aborted at once when the connection closed before the page handler ran", async () => {
    let resolve!: (aborted: boolean) => void;
    const abortedAtStart = new Promise<boolean>((done) => (resolve = done));
    const server = createServer((req, res) => {
      // The handler runs only after the visitor is gone, as when earlier middleware was slow.
      req.socket.once("close", () => setImmediate(() => resolve(visitorSignal(res).aborted)));
    });
    server.listen(0, "127.0.0.1");
    try {
      await once(server, "listening");
      const socket = connect((server.address() as AddressInfo).port, "127.0.0.1");
      socket.on("error", () => {});
      socket.write("GET /zipcode HTTP/1.1\r\nHost: localhost\r\n\r\n");
      setTimeout(() => socket.destroy(), 50);
      await expect(abortedAtStart).resolves.toBe(true);
    } finally {
      server.close();
    }
  });

  it("is aborted when the visitor leaves mid-response, and not after a complete one", async () => {
    const signals: AbortSignal[] = [];
    const server = createServer((_req, res) => {
      signals.push(visitorSignal(res));
      if (signals.length === 1) res.end("done");
      else res.write("partial");
    });
    server.listen(0, "127.0.0.1");
    try {
      await once(server, "listening");
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await fetch(`${origin}/complete`).then((response) => response.text());
      const controller = new AbortController();
      const partial = await fetch(`${origin}/partial`, { signal: controller.signal });
      await partial.body?.getReader().read();
      controller.abort();
      await expect.poll(() => signals[1]?.aborted).toBe(true);
      expect(signals[0]?.aborted).toBe(false);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
