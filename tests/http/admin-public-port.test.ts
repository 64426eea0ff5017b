/**
 * The operations console is never on the public port: /admin and the console's own paths are the
 * site's plain 404 there, whatever the method, and nothing of the console answers.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app";

describe("the public port", () => {
  let site: TestApp;
  beforeAll(async () => {
    site = await createTestApp();
  });
  afterAll(() => site.services.close());

  it.each(["/admin", "/admin/", "/admin/sign-in", "/sign-in", "/sign-out", "/leads", "/buyers", "/journey?tid=t1", "/report.csv", "/privacy-requests", "/admin-assets/admin.css"])(
    "answers GET %s with the site's 404, not the console",
    async (url) => {
      const response = await request(site.app).get(url);
      expect(response.status).toBe(404);
      expect(response.headers["set-cookie"]?.toString() ?? "").not.toMatch(/qr_admin/);
      expect(response.text).not.toMatch(/Operations console|name="password"/i);
    },
  );

  it.each(["/sign-in", "/leads/retry", "/leads/return", "/privacy-requests/close"])("has no console action at POST %s", async (url) => {
    const response = await request(site.app).post(url).type("form").send({ name: "olivia", password: "olivia's long password" });
    expect([404, 405]).toContain(response.status);
    expect(response.headers["set-cookie"]?.toString() ?? "").not.toMatch(/qr_admin/);
  });
});
