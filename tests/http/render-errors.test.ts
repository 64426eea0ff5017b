/**
 * What visitors and ops see when rendering itself goes wrong: a plain 500 page with a
 * reference, never a stack trace, and a logged error with the request id.
 */
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import request from "supertest";
import type { PipeableStream } from "react-dom/server";
import { createApp } from "../../server/app";
import { testServices } from "../support/services";
import { loadConfig } from "../../server/config";
import { createLogger } from "../../server/logger";
import { createLifecycle } from "../../server/routes/health";
import type { RenderSource } from "../../server/render-source";
import type { EntryServer, RenderCallbacks } from "../../client/render-contract";
import { APP_MARKER, HEAD_MARKER } from "../../server/template";

const TEMPLATE = `<html><head>${HEAD_MARKER}</head><body><div id="root">${APP_MARKER}</div></body></html>`;

function appWith(entry: EntryServer, env: Record<string, string> = {}) {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      callback();
    },
  });
  const config = loadConfig({ NODE_ENV: "production", ...env });
  const source: RenderSource = { template: async () => TEMPLATE, entry: async () => entry };
  const app = createApp({ config, logger: createLogger(config, sink), lifecycle: createLifecycle(), source, assets: [], ...testServices() });
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
