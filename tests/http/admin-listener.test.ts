/**
 * The console's own listener (server/admin/listener.ts) and the sign-in rate limit: ADMIN_PORT=0
 * takes a free port and says which; "off" starts nothing; a client over its sign-in budget is
 * refused with 429 before any password is checked.
 */
import http from "node:http";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAdminConsole } from "../../server/admin/listener";
import { createAdminApp } from "../../server/admin/app";
import type { AdminReports } from "../../server/admin/reports";
import { analyticsReports } from "../../server/admin/reports";
import { loadConfig } from "../../server/config";
import type { AdminView, RenderAdmin } from "../../shared/admin-views";
import { embeddedStore, type TestDatabase } from "../support/databases";
import { captureLogs } from "../support/log-capture";

/** A stand-in renderer: the view as JSON, enough to see which page and status were chosen. */
const views: AdminView[] = [];
const renderAdmin: RenderAdmin = (view) => {
  views.push(view);
  return `<!doctype html><pre>${JSON.stringify(view.page)}</pre><input name="_csrf" value="${"csrfToken" in view ? view.csrfToken : ""}">`;
};

describe("the console's listener", () => {
  let db: TestDatabase;
  const { logger, lines: logs } = captureLogs();
  const reports: AdminReports = analyticsReports;

  beforeAll(async () => {
    db = await embeddedStore().open();
  });
  afterAll(() => db.close());

  it("listens on ADMIN_HOST with a free port for ADMIN_PORT=0 and logs the real one", async () => {
    const config = loadConfig({ ADMIN_HOST: "127.0.0.1", ADMIN_PORT: "0" });
    const console = await startAdminConsole(config, { logger, db, renderAdmin: async () => renderAdmin, secret: "listener-test-secret-listener-test-secret", reports });
    try {
      expect(console!.port).toBeGreaterThan(0);
      expect(logs.find((line) => line.event === "admin_console_started")).toMatchObject({ host: "127.0.0.1", port: console!.port });
      const status = await new Promise<number | undefined>((resolve, reject) => {
        http.get({ host: "127.0.0.1", port: console!.port, path: "/sign-in" }, (response) => {
          response.resume();
          resolve(response.statusCode);
        }).on("error", reject);
      });
      expect(status).toBe(200);
    } finally {
      await console?.close();
    }
  });

  it("starts nothing for ADMIN_PORT=off", async () => {
    const config = loadConfig({ ADMIN_PORT: "off" });
    expect(await startAdminConsole(config, { logger, db, renderAdmin: async () => renderAdmin, secret: "listener-test-secret-listener-test-secret", reports })).toBeUndefined();
    expect(logs.some((line) => line.event === "admin_console_off")).toBe(true);
  });

  it("refuses a client over its sign-in budget with 429 and the sign-in page", async () => {
    const app = createAdminApp({ config: { ADMIN_SESSION_HOURS: 12, REPORT_TIME_ZONE: "UTC", NODE_ENV: "production" }, logger, db, renderAdmin: async () => renderAdmin, secret: "listener-test-secret-listener-test-secret", reports, signInLimit: 2 });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await request(app).post("/sign-in").type("form").send({ name: "nobody", password: "wrong password here" })).status);
    // Two refused for their missing CSRF token (403), then the budget is spent.
    expect(statuses).toEqual([403, 403, 429]);
    expect(views.at(-1)).toMatchObject({ page: "sign-in", error: expect.stringMatching(/Too many sign-in attempts/) });
    expect(logs.some((line) => line.event === "admin_sign_in_rate_limited")).toBe(true);
  });

  it("answers an unreadable form with a plain 4xx, not a 500", async () => {
    const app = createAdminApp({ config: { ADMIN_SESSION_HOURS: 12, REPORT_TIME_ZONE: "UTC", NODE_ENV: "production" }, logger, db, renderAdmin: async () => renderAdmin, secret: "listener-test-secret-listener-test-secret", reports });
    const response = await request(app).post("/sign-in").type("form").send(`name=${"x".repeat(20_000)}`);
    expect(response.status).toBe(413);
  });
});
