/**
 * The operations console's server (server/admin/), against both stores, through the real app and
 * the real React renderer: sign-in, sessions, lockout, CSRF, roles, the pages' data and the ops
 * actions. Views given to renderAdmin are captured too, so the numbers can be checked exactly.
 */
import path from "node:path";
import request from "supertest";
import { parse as parseHtml } from "node-html-parser";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createAdminApp } from "../../server/admin/app";
import { analyticsReports } from "../../server/admin/reports";
import { renderAdminFrom } from "../../server/admin/render-source";
import { adminUserRepository } from "../../server/admin/users";
import { hashPassword } from "../../server/admin/passwords";
import { SIGN_IN_REFUSED } from "../../server/admin/sign-in-routes";
import { tokenDigest } from "../../server/admin/sessions";
import { loadProductionBuild } from "../../server/pages/render-source";
import { loadBuyersFile } from "../../server/delivery/buyers";
import { registerDisclosure } from "../../server/consent/disclosures";
import { disclosureFor } from "../../server/leads/disclosure";
import { leadRepository } from "../../server/db/leads";
import { leadStore } from "../../server/leads/store";
import { deliveryRepository, type Completion } from "../../server/db/deliveries";
import { privacyRequestRepository } from "../../server/db/privacy-requests";
import { auctionRepository } from "../../server/auction/auctions";
import { insertEvents } from "../../server/analytics/store";
import { REPORT_COLUMNS, REQUEST_STORED } from "../../shared/analytics";
import { SCREEN_IDS } from "../../shared/lead/fields";
import type { AdminView, BuyersView, JourneyView, LeadsView, PrivacyView, ReportView } from "../../shared/admin-views";
import { projectRoot } from "../../tools/production-server";
import { sampleDrivers, sampleNewLead } from "../../tools/lead-session";
import { allStores, type TestDatabase } from "../support/databases";
import type { LogLine } from "../support/app";
import { captureLogs } from "../support/log-capture";
import { capturingRenderAdmin, cookieHeader, csrfOf, jar, remember, type Agent, addUsers } from "../support/admin-agent";
import { compiledPolicy, cookieOf, policyTable } from "../support/privacy-policy";
import { fixedSettings } from "../support/settings";

const SECRET = "console-test-secret-console-test-secret";
const ZONE = "America/New_York";
const OPS = { name: "olivia", password: "olivia's long password" };
const ANALYST = { name: "andy", password: "andy's long password!" };
const BUYERS = loadBuyersFile(path.join(projectRoot, "deploy", "buyers.example.json"));


describe.each(allStores())("the operations console ($kind)", (store) => {
  let db: TestDatabase;
  let app: ReturnType<typeof createAdminApp>;
  let logs: LogLine[] = [];
  let rawLogs: string[] = [];
  const views: AdminView[] = [];
  let offsetMs = 0;
  let nudges = 0;
  const now = () => new Date(Date.now() + offsetMs);
  const events = (name: string) => logs.filter((line) => line.event === name);
  const lastView = <V extends AdminView>(page: V["page"]): V => {
    const view = [...views].reverse().find((candidate) => candidate.page === page);
    if (!view) throw new Error(`no ${page} view rendered`);
    return view as V;
  };

  async function get(agent: Agent, url: string) {
    const response = await request(app).get(url).set("Cookie", cookieHeader(agent));
    remember(agent, response);
    return response;
  }
  async function post(agent: Agent, url: string, form: Record<string, string>) {
    const response = await request(app).post(url).set("Cookie", cookieHeader(agent)).type("form").send(form);
    remember(agent, response);
    return response;
  }
  async function signInAttempt(agent: Agent, name: string, password: string, next?: string) {
    const page = await get(agent, "/sign-in");
    return post(agent, "/sign-in", { name, password, _csrf: csrfOf(page.text), ...(next ? { next } : {}) });
  }
  /** Signs in and returns the agent with its session, and the session's CSRF token. */
  async function signedIn(user: { name: string; password: string }): Promise<{ agent: Agent; csrf: string }> {
    const agent = jar();
    const response = await signInAttempt(agent, user.name, user.password);
    expect(response.status).toBe(303);
    const page = await get(agent, "/buyers");
    expect(page.status).toBe(200);
    return { agent, csrf: csrfOf(page.text) };
  }

  /** A lead (from source fb01 unless `input` says) with a delivery to each buyer `answers` names, answered as it says. */
  async function leadWithDeliveries(
    answers: Record<string, Omit<Completion, "attemptedAt" | "latencyMs" | "excerpt">>,
    input: ReturnType<typeof sampleNewLead> = sampleNewLead({ sid: "fb01", tid: `click-${Math.random().toString(36).slice(2)}` }),
  ): Promise<string> {
    const result = await leadStore(leadRepository(db)).create(input, (lead) => ({
      deliveries: Object.keys(answers).map((buyerId) => ({ kind: "buyer" as const, target: buyerId, idempotencyKey: `${lead.reference}:${buyerId}`, sale: true, price: 18.5, url: null, capDay: null })),
    }));
    if (!result.created) throw new Error("expected a new lead");
    const repository = deliveryRepository(db);
    for (const delivery of await repository.claimDue(100, 60_000, new Date(Date.now() + 1_000))) {
      const answer = answers[delivery.target];
      if (delivery.leadReference === result.reference && answer) await repository.complete(delivery, { latencyMs: 40, excerpt: "answer", attemptedAt: new Date(), ...answer });
    }
    return result.reference;
  }

  beforeAll(async () => {
    db = await store.open();
    await registerDisclosure(db.builder, disclosureFor(undefined));
    await addUsers(db, [{ ...OPS, role: "ops" }, { ...ANALYST, role: "analyst" }]);
    const captured = captureLogs({ LOG_LEVEL: "debug", NODE_ENV: "production" });
    const logger = captured.logger;
    logs = captured.lines;
    rawLogs = captured.raw;
    const capturing = capturingRenderAdmin(renderAdminFrom((await loadProductionBuild(path.join(projectRoot, "dist"))).source), views);
    app = createAdminApp({
      config: { ADMIN_SESSION_HOURS: 12, REPORT_TIME_ZONE: ZONE, NODE_ENV: "production" },
      logger,
      db,
      renderAdmin: capturing,
      secret: SECRET,
      reports: analyticsReports,
      settings: fixedSettings(BUYERS),
      nudge: () => (nudges += 1),
      now,
    });
  });
  afterAll(() => db.close());
  beforeEach(() => {
    offsetMs = 0;
  });

  describe("signing in", () => {
    it("sends a visitor without a session to the sign-in page, remembering where they were going", async () => {
      for (const page of ["/", "/journey?tid=t1", "/buyers", "/leads", "/privacy-requests", "/report.csv"]) {
        const response = await get(jar(), page);
        expect(response.status, page).toBe(303);
        expect(response.headers.location).toBe(`/sign-in?${new URLSearchParams({ next: page }).toString()}`);
      }
      const action = await post(jar(), "/leads/retry", { reference: "LD-AAAA-AAAA" });
      expect(action.status).toBe(303);
      expect(action.headers.location).toBe("/sign-in?next=%2F");
    });

    it("serves the sign-in page with its own CSRF token and the console's strict headers", async () => {
      const response = await get(jar(), "/sign-in?next=%2Fbuyers");
      expect(response.status).toBe(200);
      expect(csrfOf(response.text)).toMatch(/^[A-Za-z0-9_-]{40,}$/);
      expect(response.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
      // No script at all; the one stylesheet only by this response's nonce, which the page's <style> carries.
      const csp = String(response.headers["content-security-policy"]);
      expect(csp).toContain("script-src 'none'");
      const nonce = /style-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
      expect(nonce).toBeDefined();
      expect(csp).not.toContain("unsafe-inline");
      if (response.text.includes("<style")) expect(response.text).toContain(`<style nonce="${nonce}"`);
      expect(response.headers["x-frame-options"]).toBe("DENY");
      expect(response.headers["cache-control"]).toBe("no-store");
      expect(response.headers["x-robots-tag"]).toMatch(/noindex/);
      expect(response.headers["referrer-policy"]).toBe("no-referrer");
      expect(lastView("sign-in")).toMatchObject({ next: "/buyers" });
    });

    it("refuses a wrong password and an unknown name with the same message", async () => {
      const wrong = await signInAttempt(jar(), OPS.name, "not the password at all");
      const unknown = await signInAttempt(jar(), "nobody", "not the password at all");
      for (const response of [wrong, unknown]) {
        expect(response.status).toBe(401);
        expect(response.headers["set-cookie"]?.toString() ?? "").not.toContain("qr_admin=");
        expect(parseHtml(response.text).textContent).toContain(SIGN_IN_REFUSED);
      }
      expect(events("admin_sign_in").slice(-2).map((line) => [line.user, line.outcome])).toEqual([
        [OPS.name, "wrong_password"],
        ["nobody", "unknown_user"],
      ]);
      expect(rawLogs.join("")).not.toContain("not the password at all");
      // The failure was counted; a success resets it.
      expect((await adminUserRepository(db).findByName(OPS.name))!.failedAttempts).toBe(1);
    });

    it("refuses a sign-in without the form's CSRF token, or with a wrong one (403)", async () => {
      const agent = jar();
      await get(agent, "/sign-in");
      const missing = await post(agent, "/sign-in", { name: OPS.name, password: OPS.password });
      const wrong = await post(agent, "/sign-in", { name: OPS.name, password: OPS.password, _csrf: "forged-token-forged-token-forged-token-forged" });
      for (const response of [missing, wrong]) {
        expect(response.status).toBe(403);
        expect(agent.cookies.has("qr_admin")).toBe(false);
      }
    });

    it("signs in: an HttpOnly, SameSite=Strict session cookie whose token is stored only as a SHA-256", async () => {
      const agent = jar();
      const response = await signInAttempt(agent, OPS.name, OPS.password, "/journey?tid=t1");
      expect(response.status).toBe(303);
      expect(response.headers.location).toBe("/journey?tid=t1");
      const line = ((response.headers["set-cookie"] as unknown as string[]) ?? []).find((cookie) => cookie.startsWith("qr_admin="))!;
      expect(line).toMatch(/HttpOnly/i);
      expect(line).toMatch(/SameSite=Strict/i);
      expect(line).toMatch(/Path=\//);
      // Plain http (an SSH tunnel): Secure would stop the browser sending it back.
      expect(line).not.toMatch(/Secure/i);
      const token = agent.cookies.get("qr_admin")!;
      const rows = await db.builder.selectFrom("adminSessions").select(["tokenSha256", "csrfToken"]).execute();
      expect(rows.map((row) => row.tokenSha256)).toContain(tokenDigest(token));
      expect(JSON.stringify(rows)).not.toContain(token);
      expect(events("admin_sign_in").at(-1)).toMatchObject({ user: OPS.name, role: "ops", outcome: "signed_in" });
      expect(rawLogs.join("")).not.toContain(token);
      expect((await adminUserRepository(db).findByName(OPS.name))!.failedAttempts).toBe(0);
    });

    it("sets the cookies the privacy policy lists for staff, with the lifetimes it states", async () => {
      const rows = policyTable(await compiledPolicy(), "Cookies and similar technologies the Site uses");
      const agent = jar();
      const page = await get(agent, "/sign-in");
      const signIn = await post(agent, "/sign-in", { name: OPS.name, password: OPS.password, _csrf: csrfOf(page.text) });
      const buyers = await get(agent, "/buyers");
      const retry = await post(agent, "/leads/retry", { reference: "LD-0000-0000", _csrf: csrfOf(buyers.text) });
      const cookies = [page, signIn, retry].flatMap((response) => ((response.headers["set-cookie"] as unknown as string[] | undefined) ?? []).map(cookieOf));
      expect(new Set(cookies.map((cookie) => cookie.name))).toEqual(new Set(["qr_csrf", "qr_admin", "qr_admin_flash"]));
      for (const cookie of cookies) {
        expect(rows.get(cookie.name), cookie.name).toBeDefined();
        expect(cookie, cookie.name).toMatchObject({ httpOnly: true, sameSite: "strict" });
      }
      const session = cookies.find((cookie) => cookie.name === "qr_admin")!;
      expect([session.maxAge, session.expires]).toEqual([undefined, false]);
      expect(rows.get("qr_admin")?.["How long it lasts"]).toMatch(/^Until the browser closes; the sign-in itself ends after 12 hours without use/);
      const flash = cookies.find((cookie) => cookie.name === "qr_admin_flash")!;
      expect(flash.maxAge).toBe(60);
      expect(rows.get("qr_admin_flash")?.["How long it lasts"]).toMatch(/^60 seconds/);
    });

    it("never redirects outside the console after signing in", async () => {
      const response = await signInAttempt(jar(), OPS.name, OPS.password, "https://evil.example/");
      expect(response.status).toBe(303);
      expect(response.headers.location).toBe("/");
    });

    it("locks a user out after 5 failures in a row, even for the right password, until 15 minutes pass", async () => {
      await adminUserRepository(db).create({ name: "locky", role: "analyst", passwordHash: await hashPassword("locky's long password") });
      for (let i = 0; i < 5; i += 1) expect((await signInAttempt(jar(), "locky", `wrong password ${i}`)).status).toBe(401);
      const locked = await signInAttempt(jar(), "locky", "locky's long password");
      expect(locked.status).toBe(401);
      expect(parseHtml(locked.text).textContent).toContain(SIGN_IN_REFUSED);
      expect(events("admin_sign_in").at(-1)).toMatchObject({ user: "locky", outcome: "locked" });
      offsetMs = 14 * 60_000;
      expect((await signInAttempt(jar(), "locky", "locky's long password")).status).toBe(401);
      offsetMs = 16 * 60_000;
      expect((await signInAttempt(jar(), "locky", "locky's long password")).status).toBe(303);
    });

    it("signs out: the session row is deleted and the old cookie no longer works", async () => {
      const { agent, csrf } = await signedIn(OPS);
      const oldCookie = cookieHeader(agent);
      const refused = await post(agent, "/sign-out", {});
      expect(refused.status).toBe(403);
      const response = await post(agent, "/sign-out", { _csrf: csrf });
      expect(response.status).toBe(303);
      expect(response.headers.location).toBe("/sign-in");
      expect(agent.cookies.has("qr_admin")).toBe(false);
      expect(events("admin_sign_out").at(-1)).toMatchObject({ user: OPS.name });
      const again = await request(app).get("/buyers").set("Cookie", oldCookie);
      expect(again.status).toBe(303);
      const signInPage = await get(agent, "/sign-in");
      expect(lastView("sign-in").flash).toEqual({ kind: "success", text: "You are signed out." });
      expect(signInPage.status).toBe(200);
    });

    it("ends a session when it has not been used for ADMIN_SESSION_HOURS", async () => {
      const { agent } = await signedIn(ANALYST);
      offsetMs = 13 * 3_600_000;
      expect((await get(agent, "/buyers")).status).toBe(303);
    });

    it("ends the sessions of a disabled user at once", async () => {
      await adminUserRepository(db).create({ name: "dora", role: "ops", passwordHash: await hashPassword("dora's long password") });
      const { agent } = await signedIn({ name: "dora", password: "dora's long password" });
      await adminUserRepository(db).setDisabled("dora", true);
      expect((await get(agent, "/buyers")).status).toBe(303);
      expect((await signInAttempt(jar(), "dora", "dora's long password")).status).toBe(401);
    });
  });

  describe("roles", () => {
    it("lets an analyst see the report, journey, buyers and leads, and answers 403 for the leads CSV, privacy requests and every action", async () => {
      const { agent, csrf } = await signedIn(ANALYST);
      for (const page of ["/", "/journey", "/buyers", "/leads"]) expect((await get(agent, page)).status, page).toBe(200);
      expect((await get(agent, "/report.csv")).status).toBe(200);
      for (const page of ["/leads.csv", "/privacy-requests"]) {
        const response = await get(agent, page);
        expect(response.status, page).toBe(403);
        expect(lastView("error")).toMatchObject({ status: 403 });
      }
      const reference = await leadWithDeliveries({ harbor: { outcome: "retry", httpStatus: 503, status: "failed", error: "HTTP 503" } });
      const actions: [string, Record<string, string>][] = [
        ["/leads/retry", { reference }],
        ["/leads/return", { reference, buyer: "harbor", reason: "bad number" }],
        ["/privacy-requests/close", { reference: "PR-AAAA-AAAA", outcome: "completed", note: "" }],
      ];
      for (const [url, form] of actions) expect((await post(agent, url, { ...form, _csrf: csrf })).status, url).toBe(403);
      expect((await deliveryRepository(db).list({ reference }))[0]!.status).toBe("failed");
      expect(events("admin_forbidden").at(-1)).toMatchObject({ user: ANALYST.name, role: "analyst" });
    });
  });

  describe("ops actions", () => {
    let ops: { agent: Agent; csrf: string };
    beforeAll(async () => {
      ops = await signedIn(OPS);
    });

    it("refuses an action without the session's CSRF token, or with another's (403)", async () => {
      const reference = await leadWithDeliveries({ harbor: { outcome: "retry", httpStatus: 503, status: "failed", error: "HTTP 503" } });
      const other = await signedIn(OPS);
      expect((await post(ops.agent, "/leads/retry", { reference })).status).toBe(403);
      expect((await post(ops.agent, "/leads/retry", { reference, _csrf: other.csrf })).status).toBe(403);
      expect((await deliveryRepository(db).list({ reference }))[0]!.status).toBe("failed");
      expect(events("csrf_rejected").at(-1)).toMatchObject({ user: OPS.name });
    });

    it("shows a lead's facts without contact details, its deliveries and their tries", async () => {
      const reference = await leadWithDeliveries({ summit: { outcome: "accepted", httpStatus: 200, status: "accepted", price: 18.5 }, harbor: { outcome: "retry", httpStatus: 503, status: "failed", error: "HTTP 503" } });
      const lead = await leadRepository(db).findByReference(reference);
      const response = await get(ops.agent, `/leads?reference=${reference.toLowerCase()}`);
      expect(response.status).toBe(200);
      const view = lastView<LeadsView>("leads");
      expect(view.lead).toMatchObject({ reference, sid: "fb01", state: "CA", duplicateOf: null });
      expect(view.deliveries.map((d) => [d.target, d.status, d.canRetry, d.canReturn, d.attempts.length])).toEqual([
        ["summit", "accepted", false, true, 1],
        ["harbor", "failed", true, false, 1],
      ]);
      expect(response.text).not.toContain(lead!.email);
      expect(response.text).not.toContain(lead!.phone);
      expect(view.failed.map((row) => row.reference)).toContain(reference);
      // The quote: every vehicle and driver and the insurance facts, with no name, birth date or VIN.
      expect(view.lead?.quote.vehicles).toEqual(["2019 Toyota Camry · Own it · Commuting to work or school · 10,000 – 15,000 miles", "2003 Honda Accord · VIN given · Financing it · Personal use and errands · Under 5,000 miles"]);
      expect(view.lead?.quote.drivers).toHaveLength(2);
      expect(view.lead?.quote.drivers[1]).toMatch(/^Spouse, age \d+ · Married · Valid US driver's license · first licensed at 17 · accidents: 1 · tickets: None · claims: 1 · DUI: no · SR-22: no$/);
      expect(view.lead?.quote.insurance).toBe("Insured now (GEICO) · continuously 1 to 3 years · wants standard coverage · I own my home");
      // The quote's words hold no name; no birth date or VIN anywhere on the page.
      expect(JSON.stringify(view.lead?.quote)).not.toContain("O'Brien");
      for (const secret of ["1990-04-15", "1HGCM82633A004352"]) expect(response.text).not.toContain(secret);
      expect(response.text).toContain("2019 Toyota Camry");
    });

    describe("a visitor who calls with a reference (issue 42, item 9)", () => {
      let reference: string;
      let lead: { phone: string; email: string };
      beforeAll(async () => {
        const input = sampleNewLead({ sid: "fb01", tid: "caller-click", lead: { zip: "90210", drivers: sampleDrivers({ firstName: "Renée", lastName: "Callahan" }) } });
        reference = await leadWithDeliveries({}, input);
        lead = { phone: input.lead.phone, email: input.lead.email };
      });
      const digits = (phone: string) => phone.replace(/^\+1/, "");
      const formatted = (phone: string) => `(${digits(phone).slice(0, 3)}) ${digits(phone).slice(3, 6)}-${digits(phone).slice(6)}`;

      it("shows ops the caller's name, ZIP and city, and the phone and email masked", async () => {
        const response = await get(ops.agent, `/leads?reference=${reference}`);
        expect(response.status).toBe(200);
        const view = lastView<LeadsView>("leads");
        expect(view.lead?.contact).toEqual({ name: "Renée Callahan", zip: "90210", city: "Beverly Hills", phone: `(•••) •••-${lead.phone.slice(-4)}`, email: `${lead.email[0]}•••@example.com` });
        const section = parseHtml(response.text).querySelector("section.caller");
        const text = section?.text ?? "";
        for (const shown of ["Renée Callahan", "90210", "Beverly Hills", `(•••) •••-${lead.phone.slice(-4)}`]) expect(text).toContain(shown);
        expect(response.text).not.toContain(lead.email);
        expect(response.text).not.toContain(formatted(lead.phone));
        expect(response.text).not.toContain(digits(lead.phone));
        const form = section?.querySelector('form[method="post"][action="/leads/contact"]');
        expect(form?.querySelector('input[name="reference"]')?.getAttribute("value")).toBe(reference);
        expect(form?.querySelector("button")?.text.trim()).toBe("Show phone and email");
      });

      it("shows the phone and email on a POST (never in an address or cookie), logged as admin_action", async () => {
        const before = logs.length;
        const response = await post(ops.agent, "/leads/contact", { reference: reference.toLowerCase(), _csrf: ops.csrf });
        expect(response.status).toBe(200);
        expect(response.headers["cache-control"]).toBe("no-store");
        expect(response.headers["set-cookie"]?.toString() ?? "").not.toContain(lead.email);
        const view = lastView<LeadsView>("leads");
        expect(view.lead?.contact).toMatchObject({ name: "Renée Callahan", revealed: { phone: formatted(lead.phone), email: lead.email } });
        const section = parseHtml(response.text).querySelector("section.caller");
        expect(section?.text).toContain(formatted(lead.phone));
        expect(section?.text).toContain(lead.email);
        expect(section?.querySelector(`a[href="tel:${lead.phone}"]`)).not.toBeNull();
        expect(section?.querySelector("form")).toBeNull();
        const line = logs.slice(before).find((entry) => entry.event === "admin_action");
        expect(line).toMatchObject({ user: OPS.name, action: "show_contact", target: reference, outcome: "done" });
        expect(rawLogs.join("")).not.toContain(lead.email);
        expect(rawLogs.join("")).not.toContain(digits(lead.phone));
        // No such lead, or no reference: refused with the page, nothing shown, logged.
        const unknown = await post(ops.agent, "/leads/contact", { reference: "LD-ZZZZ-ZZZZ", _csrf: ops.csrf });
        expect(unknown.status).toBe(404);
        expect(events("admin_action").at(-1)).toMatchObject({ action: "show_contact", target: "LD-ZZZZ-ZZZZ", outcome: "nothing_to_do" });
        const bad = await post(ops.agent, "/leads/contact", { reference: "nope", _csrf: ops.csrf });
        expect(bad.status).toBe(422);
        expect(events("admin_action").at(-1)).toMatchObject({ action: "show_contact", outcome: "invalid" });
        // Without the session's CSRF token: refused.
        expect((await post(ops.agent, "/leads/contact", { reference })).status).toBe(403);
      });

      it("gives analysts neither the caller's details, masked or not, nor the way to show them", async () => {
        const analyst = await signedIn(ANALYST);
        const response = await get(analyst.agent, `/leads?reference=${reference}`);
        expect(response.status).toBe(200);
        const view = lastView<LeadsView>("leads");
        expect(view.lead).toBeDefined();
        expect(view.lead).not.toHaveProperty("contact");
        for (const hidden of ["Renée", "Callahan", "•••", lead.email, digits(lead.phone).slice(-4) + "<"]) expect(response.text).not.toContain(hidden);
        expect(parseHtml(response.text).querySelector('form[action="/leads/contact"]')).toBeNull();
        const refused = await post(analyst.agent, "/leads/contact", { reference, _csrf: analyst.csrf });
        expect(refused.status).toBe(403);
        expect(refused.text).not.toContain(lead.email);
        expect(refused.text).not.toContain("Callahan");
        expect(events("admin_forbidden").at(-1)).toMatchObject({ user: ANALYST.name, role: "analyst", path: "/leads/contact" });
      });
    });

    it("shows one lead's auction: how it ended, every buyer's ping and bid, the winner marked", async () => {
      const created = await leadStore(leadRepository(db)).create(sampleNewLead({ sid: "fb01", tid: "auction-click" }), () => ({ auction: { pingId: "console-ping", test: false, floor: 5 } }));
      if (!created.created) throw new Error("expected a new lead");
      const auctions = auctionRepository(db);
      const auction = (await auctions.find(created.reference))!;
      await db.query("UPDATE auctions SET status = 'pinging' WHERE id = $1", [auction.id]);
      await auctions.recordPings(auction.id, [
        { buyerId: "summit", outcome: "bid", latencyMs: 84, httpStatus: 200, detail: null, bid: { buyerId: "summit", price: 31.5, type: "exclusive", bidId: "S-9", priority: 0, answeredAfterMs: 84 } },
        { buyerId: "harbor", outcome: "unsigned", latencyMs: 40, httpStatus: 200, detail: "X-Signature missing", bid: null },
      ], new Date());
      expect((await auctions.settle(auction.id, { buyers: BUYERS, now: new Date(), saleAllowed: true })).outcome).toBe("decided");
      const response = await get(ops.agent, `/leads?reference=${created.reference}`);
      expect(response.status).toBe(200);
      const view = lastView<LeadsView>("leads");
      expect(view.auction).toMatchObject({ status: "decided", saleType: "exclusive", floor: 5, test: false });
      expect(view.auction?.pings.map((ping) => [ping.buyerId, ping.outcome, ping.price, ping.bidId, ping.won])).toEqual([
        ["summit", "bid", 31.5, "S-9", true],
        ["harbor", "unsigned", null, null, false],
      ]);
      const table = parseHtml(response.text).querySelectorAll("table").find((candidate) => candidate.querySelector("caption")?.text === "Pings and bids");
      expect(table?.querySelectorAll("tbody tr").map((row) => row.querySelectorAll("th, td").map((cell) => cell.text))).toEqual([
        ["summit", "bid", "$31.50", "exclusive", "S-9", "84 ms", "Yes"],
        ["harbor", "unsigned: X-Signature missing", "—", "—", "—", "40 ms", "No"],
      ]);
    });

    it("retries a failed delivery: back to pending, the worker woken, the action logged with the user", async () => {
      const reference = await leadWithDeliveries({ harbor: { outcome: "retry", httpStatus: 503, status: "failed", error: "HTTP 503" } });
      const before = nudges;
      const response = await post(ops.agent, "/leads/retry", { reference, buyer: "harbor", _csrf: ops.csrf });
      expect(response.status).toBe(303);
      expect(response.headers.location).toBe(`/leads?reference=${reference}`);
      expect((await deliveryRepository(db).list({ reference }))[0]).toMatchObject({ status: "pending", attempts: 0, lastError: null });
      expect(nudges).toBe(before + 1);
      expect(events("admin_action").at(-1)).toMatchObject({ user: OPS.name, action: "retry", target: reference, outcome: "done", queued: 1 });
      await get(ops.agent, response.headers.location!);
      expect(lastView<LeadsView>("leads").flash).toMatchObject({ kind: "success" });
      // Nothing failed is left to retry.
      await post(ops.agent, "/leads/retry", { reference, _csrf: ops.csrf });
      expect(events("admin_action").at(-1)).toMatchObject({ action: "retry", outcome: "nothing_to_do" });
    });

    it("refuses a retry of something that is no lead reference with a 422", async () => {
      const response = await post(ops.agent, "/leads/retry", { reference: "not-a-reference", _csrf: ops.csrf });
      expect(response.status).toBe(422);
      expect(lastView<LeadsView>("leads").flash).toMatchObject({ kind: "error" });
    });

    it("returns a sold lead: the sale is reversed", async () => {
      const reference = await leadWithDeliveries({ summit: { outcome: "accepted", httpStatus: 200, status: "accepted", price: 18.5 } });
      const missingReason = await post(ops.agent, "/leads/return", { reference, buyer: "summit", reason: " ", _csrf: ops.csrf });
      expect(missingReason.status).toBe(422);
      const response = await post(ops.agent, "/leads/return", { reference, buyer: "summit", reason: "wrong number", _csrf: ops.csrf });
      expect(response.status).toBe(303);
      const [delivery] = await deliveryRepository(db).list({ reference });
      expect(delivery).toMatchObject({ status: "returned", reason: "wrong number" });
      expect(events("admin_action").at(-1)).toMatchObject({ user: OPS.name, action: "return", target: reference, outcome: "done", buyer: "summit" });
      await get(ops.agent, response.headers.location!);
      expect(lastView<LeadsView>("leads").flash).toEqual({ kind: "success", text: `Returned ${reference} from summit: $18.50 reversed.` });
    });

    it("shows privacy requests by legal deadline with overdue ones flagged, and completes or denies them", async () => {
      const repository = privacyRequestRepository(db);
      const make = async (dueInDays: number) => {
        const created = await repository.create({ requestType: "deletion", email: `p${Math.random()}@example.com`, submissionId: crypto.randomUUID(), gpc: false, receivedAt: new Date(Date.now() - 50 * 86_400_000), dueAt: new Date(Date.now() + dueInDays * 86_400_000 + 3_600_000) });
        if (!created.created) throw new Error("expected a request");
        return created.reference;
      };
      const later = await make(10);
      const overdue = await make(-3);
      expect((await get(ops.agent, "/privacy-requests")).status).toBe(200);
      const open = lastView<PrivacyView>("privacy").requests.filter((row) => row.status === "received");
      expect(open.map((row) => [row.reference, row.overdue, row.daysLeft])).toEqual([
        [overdue, true, -3],
        [later, false, 10],
      ]);

      const denyWithoutNote = await post(ops.agent, "/privacy-requests/close", { reference: overdue, outcome: "denied", note: "", _csrf: ops.csrf });
      expect(denyWithoutNote.status).toBe(422);
      expect((await repository.findByReference(overdue))!.status).toBe("received");
      expect((await post(ops.agent, "/privacy-requests/close", { reference: overdue, outcome: "maybe", _csrf: ops.csrf })).status).toBe(422);

      const deny = await post(ops.agent, "/privacy-requests/close", { reference: overdue, outcome: "denied", note: "could not verify identity", _csrf: ops.csrf });
      expect(deny.status).toBe(303);
      expect(deny.headers.location).toBe("/privacy-requests");
      expect(await repository.findByReference(overdue)).toMatchObject({ status: "denied", resolutionNote: "could not verify identity" });
      const complete = await post(ops.agent, "/privacy-requests/close", { reference: later, outcome: "completed", note: "", _csrf: ops.csrf });
      expect(complete.status).toBe(303);
      expect(await repository.findByReference(later)).toMatchObject({ status: "completed", resolutionNote: null });
      expect(events("admin_action").at(-1)).toMatchObject({ user: OPS.name, action: "close_privacy_request", target: later, outcome: "done", status: "completed" });
      await get(ops.agent, "/privacy-requests");
      const view = lastView<PrivacyView>("privacy");
      expect(view.flash).toMatchObject({ kind: "success" });
      expect(view.requests.find((row) => row.reference === later)).toMatchObject({ status: "completed", overdue: false });
    });

    it("shows each buyer's day against its cap, acceptance rate, revenue and failures", async () => {
      const before = lastViewOrNone();
      await leadWithDeliveries({ summit: { outcome: "rejected", httpStatus: 200, status: "rejected", reason: "not in area" } });
      expect((await get(ops.agent, "/buyers")).status).toBe(200);
      const view = lastView<BuyersView>("buyers");
      expect(view === before).toBe(false);
      expect(view.configured).toBe(true);
      const summit = view.buyers.find((buyer) => buyer.id === "summit")!;
      const rows = await deliveryRepository(db).list({ kind: "buyer" });
      const ofSummit = rows.filter((row) => row.target === "summit");
      const accepted = ofSummit.filter((row) => row.status === "accepted" || row.status === "returned").length;
      const rejected = ofSummit.filter((row) => row.status === "rejected").length;
      expect(summit).toMatchObject({ name: expect.any(String), dailyCap: 200, acceptanceRate: accepted / (accepted + rejected), failed: 0 });
      expect(summit.revenue30d).toBe(ofSummit.filter((row) => row.status === "accepted").reduce((sum, row) => sum + (row.price ?? 0), 0));
      const harbor = view.buyers.find((buyer) => buyer.id === "harbor")!;
      expect(harbor.failed).toBe(rows.filter((row) => row.target === "harbor" && row.status === "failed").length);
      expect(harbor.dailyCap).toBeNull();
    });

    function lastViewOrNone(): AdminView | undefined {
      return views.at(-1);
    }
  });

  describe("the leads list", () => {
    let ops: { agent: Agent; csrf: string };
    let analyst: { agent: Agent; csrf: string };
    /** Leads of source ll01 (no other test uses it), oldest first. */
    const seeded: { reference: string; phone: string; email: string }[] = [];

    /** A lead of ll01, received `minutesAgo` before now, delivered to the buyers as `answers` says. */
    async function listLead(minutesAgo: number, answers: Record<string, Omit<Completion, "attemptedAt" | "latencyMs" | "excerpt">> = {}, overrides: Parameters<typeof sampleNewLead>[0] = {}) {
      const input = sampleNewLead({ sid: "ll01", receivedAt: new Date(Date.now() - minutesAgo * 60_000), ...overrides });
      const reference = await leadWithDeliveries(answers, input);
      seeded.push({ reference, phone: input.lead.phone, email: input.lead.email });
      return seeded.at(-1)!;
    }

    beforeAll(async () => {
      ops = await signedIn(OPS);
      analyst = await signedIn(ANALYST);
      await listLead(30, { summit: { outcome: "accepted", httpStatus: 200, status: "accepted", price: 18.5 } });
      await listLead(20, { harbor: { outcome: "rejected", httpStatus: 200, status: "rejected" } }, { location: { city: "Austin", state: "TX" } });
      // A formula where a spreadsheet would run it: the CSV must defuse it.
      await listLead(10, {}, { lead: { drivers: sampleDrivers({ lastName: '=HYPERLINK("http://evil.example")' }) } });
      // Eight days ago: outside the default week.
      await listLead(8 * 24 * 60);
    });

    it("lists the last 7 days' leads newest first, with status, buyers and price, and masked contact details for ops", async () => {
      const response = await get(ops.agent, "/leads?sid=ll01");
      expect(response.status).toBe(200);
      const list = lastView<LeadsView>("leads").list!;
      expect(list.rows.map((row) => row.reference)).toEqual([seeded[2]!.reference, seeded[1]!.reference, seeded[0]!.reference]);
      expect(list.total).toBe(3);
      expect(list.rows.map((row) => [row.status, row.purchases.map((purchase) => purchase.buyer), row.price, row.state])).toEqual([
        ["unsold", [], null, "CA"],
        ["unsold", [], null, "TX"],
        ["sold", ["summit"], 18.5, "CA"],
      ]);
      const first = seeded[0]!;
      expect(list.rows[2]!.contact).toEqual({ phone: `(•••) •••-${first.phone.slice(-4)}`, email: `${first.email[0]}•••@${first.email.split("@")[1]}` });
      expect(response.text).not.toContain(first.email);
      expect(response.text).not.toContain(first.phone);
      const html = parseHtml(response.text);
      expect(html.querySelector(`a[href="/leads?reference=${first.reference}"]`)).not.toBeNull();
      expect(html.querySelector('a[download]')?.getAttribute("href")).toBe(`/leads.csv?${new URLSearchParams({ since: list.query.since!, until: list.query.until!, sid: "ll01" }).toString()}`);
      for (const id of ["leads-find", "leads-since", "leads-until", "leads-sid", "leads-state", "leads-status", "leads-buyer"]) expect(html.querySelector(`label[for="${id}"]`), id).not.toBeNull();
      expect(html.querySelectorAll(".lead-list thead th").map((th) => th.getAttribute("scope"))).toEqual(Array(8).fill("col"));
    });

    it("defaults to the last 7 days of REPORT_TIME_ZONE and takes a range, a state, a status and a buyer", async () => {
      await get(ops.agent, "/leads");
      const { query } = lastView<LeadsView>("leads").list!;
      const today = new Intl.DateTimeFormat("en-CA", { timeZone: ZONE }).format(new Date());
      expect(query.until! > today && query.since! < today).toBe(true);
      const since = new Date(Date.now() - 9 * 86_400_000).toISOString().slice(0, 10);
      await get(ops.agent, `/leads?sid=ll01&since=${since}&until=${query.until!}`);
      expect(lastView<LeadsView>("leads").list!.total).toBe(4);
      await get(ops.agent, "/leads?sid=ll01&state=tx");
      expect(lastView<LeadsView>("leads").list!.rows.map((row) => row.reference)).toEqual([seeded[1]!.reference]);
      await get(ops.agent, "/leads?sid=ll01&status=sold&buyer=summit");
      expect(lastView<LeadsView>("leads").list!.rows.map((row) => row.reference)).toEqual([seeded[0]!.reference]);
      await get(ops.agent, "/leads?sid=ll01&buyer=harbor");
      expect(lastView<LeadsView>("leads").list!.rows).toEqual([]);
    });

    it("finds a lead by phone as typed, by email in any case, and goes to a lead by its reference", async () => {
      const lead = seeded[1]!;
      const digits = lead.phone.slice(2);
      await get(ops.agent, `/leads?${new URLSearchParams({ find: `(${digits.slice(0, 3)}) ${digits.slice(3, 6)}-${digits.slice(6)}` }).toString()}`);
      expect(lastView<LeadsView>("leads").list!.rows.map((row) => row.reference)).toEqual([lead.reference]);
      await get(ops.agent, `/leads?${new URLSearchParams({ find: ` ${seeded[3]!.email.toUpperCase()} ` }).toString()}`);
      // A contact search without days looks through every lead kept: this one is 8 days old.
      expect(lastView<LeadsView>("leads").list!.rows.map((row) => row.reference)).toEqual([seeded[3]!.reference]);
      const exported = await get(ops.agent, `/leads.csv?${new URLSearchParams({ find: seeded[3]!.email }).toString()}`);
      expect(exported.text).toContain(seeded[3]!.reference);
      expect(events("admin_leads_export").at(-1)).toMatchObject({ rows: 1, search: "email" });
      // What was searched for stays out of the logs: the access log's URL and the export's line.
      expect(rawLogs.join("\n")).toContain("find=%5Bredacted%5D");
      for (const secret of [seeded[3]!.email, encodeURIComponent(seeded[3]!.email), lead.phone, digits.slice(3), `${digits.slice(3, 6)}-${digits.slice(6)}`]) expect(rawLogs.join("\n")).not.toContain(secret);
      const byReference = await get(analyst.agent, `/leads?find=${lead.reference.toLowerCase()}`);
      expect(byReference.status).toBe(303);
      expect(byReference.headers.location).toBe(`/leads?reference=${lead.reference}`);
    });

    it("shows analysts the list and a lead without any contact details, and refuses their contact search with 403", async () => {
      const response = await get(analyst.agent, "/leads?sid=ll01");
      expect(response.status).toBe(200);
      const list = lastView<LeadsView>("leads").list!;
      expect(list.rows).toHaveLength(3);
      expect(list.contacts).toBe(false);
      expect(list.csv).toBeUndefined();
      for (const row of list.rows) expect(row).not.toHaveProperty("contact");
      expect(response.text).not.toContain("•••");
      expect(response.text).not.toContain("Download CSV");
      for (const lead of seeded) {
        expect(response.text).not.toContain(lead.email);
        expect(response.text).not.toContain(lead.phone.slice(-4) + "<");
      }
      const detail = await get(analyst.agent, `/leads?reference=${seeded[0]!.reference}`);
      expect(detail.status).toBe(200);
      expect(detail.text).not.toContain(seeded[0]!.email);
      expect(parseHtml(detail.text).querySelector('form[method="post"][action="/leads/return"]')).toBeNull();
      for (const find of [seeded[0]!.phone, seeded[0]!.email]) {
        const refused = await get(analyst.agent, `/leads?${new URLSearchParams({ find }).toString()}`);
        expect(refused.status).toBe(403);
        expect(refused.text).toContain("Only ops can search leads by phone number or email address.");
        expect(lastView<LeadsView>("leads").list).toBeUndefined();
      }
      expect(events("admin_forbidden").at(-1)).toMatchObject({ user: ANALYST.name, role: "analyst", path: "/leads" });
      expect((await get(analyst.agent, "/leads.csv?sid=ll01")).status).toBe(403);
    });

    it("shows a buyer's own words (its error, its answer's excerpt) to ops only: a buyer may write a person's contact into them", async () => {
      const words = "HTTP 503: phone 4155550134 already listed";
      const lead = await listLead(1, { harbor: { outcome: "retry", httpStatus: 503, status: "failed", error: words } }, { sid: "ll09" });
      await get(ops.agent, `/leads?reference=${lead.reference}`);
      const forOps = lastView<LeadsView>("leads");
      expect(forOps.deliveries[0]).toMatchObject({ lastError: words });
      expect(forOps.deliveries[0]!.attempts[0]!.excerpt).toBe("answer");
      expect(forOps.failed.find((row) => row.reference === lead.reference)?.lastError).toBe(words);
      const page = await get(analyst.agent, `/leads?reference=${lead.reference}`);
      expect(page.status).toBe(200);
      const forAnalyst = lastView<LeadsView>("leads");
      expect(forAnalyst.deliveries[0]).toMatchObject({ target: "harbor", status: "failed", lastError: null });
      expect(forAnalyst.deliveries[0]!.attempts.map((attempt) => attempt.excerpt)).toEqual([null]);
      expect(forAnalyst.failed.find((row) => row.reference === lead.reference)?.lastError).toBeNull();
      expect(page.text).not.toContain("4155550134");
      await get(analyst.agent, "/leads?sid=ll09");
      expect(lastView<LeadsView>("leads").failed.every((row) => row.lastError === null)).toBe(true);
    });

    it("answers bad filters with the form and each problem named (400), never a 500", async () => {
      const cases: [string, RegExp][] = [
        ["since=2026-02-30", /From must be a date/],
        ["since=2026-11-08&until=2026-11-01", /Until must be after From/],
        ["status=lost", /Status must be one of sold, unsold, returned, test/],
        ["status=sold&status=unsold", /Status was given more than once/],
        ["buyer=nobody", /There is no buyer nobody/],
        ["state=ZZ", /two-letter US state/],
        ["sid=%3Cscript%3E", /Source must be a sid/],
        ["find=12345", /Search for a lead reference/],
        ["find=not%40mail", /not an email address/],
        ["after=%27%20OR%201%3D1", /The page asked for/],
        ["after=LD-AAAA-AAAA", /No lead LD-AAAA-AAAA to continue from/],
      ];
      for (const [search, message] of cases) {
        const response = await get(ops.agent, `/leads?${search}`);
        expect(response.status, search).toBe(400);
        expect(parseHtml(response.text).querySelector('[role="alert"]')?.text, search).toMatch(message);
        expect(response.text).not.toContain("<script>");
      }
      expect((await get(ops.agent, "/leads.csv?status=lost")).status).toBe(400);
    });

    it("pages 50 at a time, newest first, by keyset: the older page continues after the last lead shown", async () => {
      const many: string[] = [];
      for (let i = 0; i < 52; i += 1) {
        const result = await leadStore(leadRepository(db)).create(sampleNewLead({ sid: "pg01", receivedAt: new Date(Date.now() - (i + 1) * 60_000) }));
        if (result.created) many.push(result.reference);
      }
      const first = await get(ops.agent, "/leads?sid=pg01");
      const page1 = lastView<LeadsView>("leads").list!;
      expect(page1.rows.map((row) => row.reference)).toEqual(many.slice(0, 50));
      expect(page1.total).toBe(52);
      const older = parseHtml(first.text).querySelector('nav[aria-label="Pages of leads"] a:last-child')?.getAttribute("href");
      expect(older).toContain(`after=${many[49]}`);
      const second = await get(ops.agent, older!);
      expect(second.status).toBe(200);
      const page2 = lastView<LeadsView>("leads").list!;
      expect(page2.rows.map((row) => row.reference)).toEqual(many.slice(50));
      expect(page2.older).toBeUndefined();
      expect(page2.paged).toBe(true);
    });

    it("downloads the filtered list as the export's CSV for ops, formulas defused, and logs who took it", async () => {
      const response = await get(ops.agent, "/leads.csv?sid=ll01");
      expect(response.status).toBe(200);
      expect(response.headers["content-type"]).toBe("text/csv; charset=utf-8");
      expect(response.headers["content-disposition"]).toMatch(/^attachment; filename="?leads-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv"?$/);
      const lines = response.text.trimEnd().split("\r\n");
      const header = lines[0]!.split(",");
      expect(header.slice(0, 5)).toEqual(["reference", "received_at", "duplicate_of", "sid", "tid"]);
      expect(header.slice(-4)).toEqual(["status", "bought_by", "returned_by", "price"]);
      expect(header).toContain("email");
      expect(lines).toHaveLength(4);
      expect(lines[1]).toContain(seeded[2]!.reference);
      expect(lines[3]).toContain(seeded[0]!.email);
      expect(lines[3]!.endsWith(",sold,summit,,18.50")).toBe(true);
      expect(lines[1]).toContain(`"'=HYPERLINK(""http://evil.example"")"`);
      expect(events("admin_leads_export").at(-1)).toMatchObject({ user: OPS.name, rows: 3, query: { sid: "ll01" } });
      expect(rawLogs.join("\n")).not.toContain(seeded[0]!.email);
    });
  });

  describe("the report", () => {
    let ops: { agent: Agent; csrf: string };
    beforeAll(async () => {
      ops = await signedIn(ANALYST);
      // Distinct minutes, so the journey's order is the order of the seed.
      const at = (hour: number, minute = 0) => new Date(`2026-11-03T${String(hour).padStart(2, "0")}:${String(minute).padStart(2, "0")}:00Z`);
      await insertEvents(
        db,
        [
          { name: "campaign_hit", at: at(14, 0), sid: "a1", tid: "t1", visitId: "v1" },
          { name: "campaign_hit", at: at(15, 5), sid: "a1", tid: "t1", visitId: "v1" },
          { name: "campaign_hit", at: at(15, 6), sid: "a1", tid: "t2", visitId: "v2" },
          { name: "campaign_hit", at: at(16, 7), sid: "a1", tid: "tb", visitId: "vb", bot: true },
          { name: "zip_submitted", at: at(14, 1), sid: "a1", tid: "t1", visitId: "v1", detail: "accepted" },
          { name: "quote_page_view", at: at(14, 2), sid: "a1", tid: "t1", visitId: "v1" },
          { name: "form_started", at: at(14, 3), sid: "a1", tid: "t1", visitId: "v1" },
          { name: "lead_submitted", at: at(15, 10), sid: "a1", tid: "t1", visitId: "v1", leadReference: "LD-AAAA-AAAA" },
          { name: "buyer_pinged", at: at(15, 11), sid: "a1", tid: "t1", visitId: "v1", leadReference: "LD-AAAA-AAAA", target: "summit", detail: "bid", bid: 18.5 },
          { name: "buyer_pinged", at: at(15, 11), sid: "a1", tid: "t1", visitId: "v1", leadReference: "LD-AAAA-AAAA", target: "harbor", detail: "timeout" },
          { name: "lead_sold", at: at(16, 0), sid: "a1", tid: "t1", visitId: "v1", leadReference: "LD-AAAA-AAAA", target: "summit", revenue: 18.5, payout: 6 },
          { name: "campaign_hit", at: at(17, 0), sid: "b2", tid: "u1", visitId: "w1" },
        ],
        ZONE,
      );
    });

    it("shows the seeded events' exact numbers, bots excluded, with funnel and trend", async () => {
      const response = await get(ops.agent, "/?since=2026-11-01&until=2026-11-08&by=sid");
      expect(response.status).toBe(200);
      const view = lastView<ReportView>("report");
      expect(view.errors).toBeUndefined();
      expect(view.query).toEqual({ since: "2026-11-01", until: "2026-11-08", by: "sid", bots: false });
      expect(view.rows).toEqual([
        { date: null, sid: "a1", clicks: 3, unique_clicks: 2, zip_submits: 1, quote_views: 1, form_starts: 1, leads: 1, duplicates: 0, sold: 1, returned: 0, revenue: 18.5, payout: 6, profit: 12.5, cr: 0.5, epc: 9.25, bids: 1, bid_total: 18.5, avg_bid: 18.5, revenue_per_lead: 18.5 },
        { date: null, sid: "b2", clicks: 1, unique_clicks: 1, zip_submits: 0, quote_views: 0, form_starts: 0, leads: 0, duplicates: 0, sold: 0, returned: 0, revenue: 0, payout: 0, profit: 0, cr: 0, epc: 0, bids: 0, bid_total: 0, avg_bid: 0, revenue_per_lead: 0 },
      ]);
      expect(view.buyers).toEqual([
        { buyer: "summit", pings: 1, bids: 1, avg_bid: 18.5, wins: 1, win_rate: 1, returned: 0, revenue: 18.5 },
        { buyer: "harbor", pings: 1, bids: 0, avg_bid: 0, wins: 0, win_rate: null, returned: 0, revenue: 0 },
      ]);
      expect(view.totals).toMatchObject({ clicks: 4, unique_clicks: 3, leads: 1, revenue: 18.5 });
      expect(view.funnel.map((stage) => stage.count)).toEqual([4, 3, 1, 1, 1, 1, 1]);
      expect(view.trend.find((series) => series.sid === "a1")!.points.find((point) => point.date === "2026-11-03")).toEqual({ date: "2026-11-03", clicks: 3, leads: 1, revenue: 18.5 });
      // The page shows them: the sids and the revenue, and a chart.
      const text = parseHtml(response.text).textContent;
      expect(text).toContain("a1");
      expect(text).toContain("b2");
      expect(text).toContain("18.50");
      expect(response.text).toContain("<svg");
    });

    it("includes bots when asked", async () => {
      await get(ops.agent, "/?since=2026-11-01&until=2026-11-08&by=sid&bots=1&sid=a1");
      const view = lastView<ReportView>("report");
      expect(view.rows.map((row) => [row.sid, row.clicks, row.unique_clicks])).toEqual([["a1", 4, 3]]);
    });

    it("says how much bot traffic it leaves out, with a link that shows it (issue 42, item 6)", async () => {
      const response = await get(ops.agent, "/?since=2026-11-01&until=2026-11-08&by=sid");
      const view = lastView<ReportView>("report");
      expect(view.botsLeftOut).toEqual({ clicks: 1, leads: 0, events: 1 });
      const note = parseHtml(response.text).querySelector(".bots-left-out");
      expect(note?.text.replace(/\s+/g, " ").trim()).toBe("1 click from bots left out: show them");
      expect(note?.querySelector("a")?.getAttribute("href")).toBe("/?since=2026-11-01&until=2026-11-08&by=sid&bots=1");
      // Shown: nothing is left out, so nothing is said.
      const shown = await get(ops.agent, "/?since=2026-11-01&until=2026-11-08&by=sid&bots=1");
      expect(lastView<ReportView>("report").botsLeftOut).toBeUndefined();
      expect(parseHtml(shown.text).querySelector(".bots-left-out")).toBeNull();
    });

    it("does not say 'No events' when a range's only traffic was a bot's: it says what was left out", async () => {
      // A headless browser's visit, its lead included: the report's defaults leave all of it out.
      const at = (minute: number) => new Date(Date.parse("2026-09-10T15:00:00Z") + minute * 60_000);
      await insertEvents(
        db,
        [
          { name: "campaign_hit", at: at(0), sid: "hb1", tid: "hb-t1", visitId: "hb-v1", bot: true },
          { name: "zip_submitted", at: at(1), sid: "hb1", tid: "hb-t1", visitId: "hb-v1", bot: true, detail: "accepted" },
          { name: "lead_submitted", at: at(2), sid: "hb1", tid: "hb-t1", visitId: "hb-v1", bot: true, leadReference: "LD-HBHB-0001" },
        ],
        ZONE,
      );
      const response = await get(ops.agent, "/?since=2026-09-10&until=2026-09-11&by=day,sid");
      const view = lastView<ReportView>("report");
      expect(view.rows).toEqual([]);
      expect(view.botsLeftOut).toEqual({ clicks: 1, leads: 1, events: 3 });
      const page = parseHtml(response.text);
      expect(page.querySelector(".report-table tbody")?.text.trim()).toBe("Nothing from people in this range: bots' traffic is left out (see above).");
      expect(page.querySelector(".bots-left-out")?.text.replace(/\s+/g, " ").trim()).toBe("1 click and 1 lead from bots left out: show them");
      await get(ops.agent, page.querySelector(".bots-left-out a")!.getAttribute("href")!);
      expect(lastView<ReportView>("report").rows.map((row) => [row.sid, row.clicks, row.leads])).toEqual([["hb1", 1, 1]]);
    });

    it("downloads the same rows as CSV, with the report's columns", async () => {
      const response = await get(ops.agent, "/report.csv?since=2026-11-01&until=2026-11-08&by=day,sid");
      expect(response.status).toBe(200);
      expect(response.headers["content-type"]).toMatch(/^text\/csv/);
      expect(response.headers["content-disposition"]).toMatch(/^attachment; filename="?report-2026-11-01-to-2026-11-08-by-day-sid\.csv"?$/);
      expect(response.text.split("\r\n")).toEqual([
        REPORT_COLUMNS.join(","),
        "2026-11-03,a1,3,2,1,1,1,1,0,1,0,18.5,6,12.5,0.5,9.25,1,18.5,18.5",
        "2026-11-03,b2,1,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0",
        "",
      ]);
      expect((await get(ops.agent, "/report.csv?since=nope")).status).toBe(400);
    });

    it("names bad values and shows the defaults, never a 500", async () => {
      const response = await get(ops.agent, "/?since=2026-13-01&by=week&sid=%3Cscript%3E&until=2026-11-01&until=2026-11-02");
      expect(response.status).toBe(200);
      const view = lastView<ReportView>("report");
      expect(view.errors!.length).toBeGreaterThanOrEqual(3);
      expect(view.query.by).toBe("day,sid");
      expect(response.text).not.toContain("<script>");
    });

    it("shows one click's journey in order", async () => {
      expect((await get(ops.agent, "/journey?tid=t1")).status).toBe(200);
      const view = lastView<JourneyView>("journey");
      expect(view.tid).toBe("t1");
      expect(view.events.map((event) => event.name)).toEqual(["campaign_hit", "zip_submitted", "quote_page_view", "form_started", "campaign_hit", "lead_submitted", "buyer_pinged", "buyer_pinged", "lead_sold"]);
      await get(ops.agent, "/journey?tid=%3Cbad%3E");
      expect(lastView<JourneyView>("journey").error).toMatch(/click id/);
    });

    describe("where visitors leave the form", () => {
      const [S0, S1] = [SCREEN_IDS[0]!, SCREEN_IDS[1]!];
      beforeAll(async () => {
        // In October, apart from the report's seed: p1 leaves at the second screen, p2 answers
        // every screen and stores a lead, q1 (another source) starts and leaves, pb is a bot.
        let minute = 0;
        const at = () => new Date(Date.parse("2026-10-05T15:00:00Z") + (minute += 1) * 60_000);
        const steps = (visitId: string, sid: string, screens: readonly string[], bot = false) =>
          screens.map((screen) => ({ name: "form_step_completed" as const, at: at(), sid, visitId, step: 1, detail: screen, bot }));
        await insertEvents(
          db,
          [
            { name: "form_started", at: at(), sid: "a1", visitId: "p1" },
            ...steps("p1", "a1", [S0]),
            { name: "form_started", at: at(), sid: "a1", visitId: "p2" },
            ...steps("p2", "a1", SCREEN_IDS),
            { name: "lead_submitted", at: at(), sid: "a1", visitId: "p2", leadReference: "LD-PPPP-0002" },
            { name: "form_started", at: at(), sid: "b2", visitId: "q1" },
            { name: "form_started", at: at(), sid: "a1", visitId: "pb" },
            ...steps("pb", "a1", [S0], true),
          ],
          ZONE,
        );
      });

      it("shows each screen's reached, answered and left, for all sources and per source, bots excluded", async () => {
        const response = await get(ops.agent, "/?since=2026-10-01&until=2026-10-10&screens=1");
        expect(response.status).toBe(200);
        const view = lastView<ReportView>("report");
        expect(view.query.screens).toBe(true);
        expect(view.screens!.map((funnel) => [funnel.sid, funnel.visits, funnel.leads])).toEqual([[null, 3, 1], ["a1", 2, 1], ["b2", 1, 0]]);
        const [all] = view.screens!;
        expect(all!.screens[0]).toEqual({ screen: S0, position: 1, reached: 3, answered: 2, left: 1, left_rate: 0.3333 });
        expect(all!.screens[1]).toEqual({ screen: S1, position: 2, reached: 2, answered: 1, left: 1, left_rate: 0.5 });
        expect(all!.screens.at(-1)).toEqual({ screen: REQUEST_STORED, position: SCREEN_IDS.length + 1, reached: 1, answered: 1, left: 0, left_rate: 0 });
        // The page's table: a row per screen with its header cell, the numbers beside it.
        const section = parseHtml(response.text).querySelector("section.screen-funnel");
        expect(section?.querySelector("h2")?.text).toBe("Where visitors leave the form");
        const table = section!.querySelector("table.screen-funnel-table");
        expect(table?.querySelector("caption")?.text).toBe("All sources: 3 visits in the form, 1 request stored");
        const rows = table!.querySelectorAll("tbody tr").map((tr) => tr.querySelectorAll("th, td").map((cell) => cell.text.trim()));
        expect(rows.slice(0, 2)).toEqual([
          [S0, "3", "2", "1", "33.3%"],
          [S1, "2", "1", "1", "50.0%"],
        ]);
        expect(section!.querySelectorAll("details summary").map((summary) => summary.text)).toEqual(["a1: 2 visits in the form, 1 request stored", "b2: 1 visit in the form, 0 requests stored"]);
      });

      it("follows the report's filters: one source, bots included", async () => {
        await get(ops.agent, "/?since=2026-10-01&until=2026-10-10&sid=a1&bots=1&screens=1");
        const view = lastView<ReportView>("report");
        expect(view.screens!.map((funnel) => [funnel.sid, funnel.visits])).toEqual([[null, 3], ["a1", 3]]);
        expect(view.screens![0]!.screens[1]).toMatchObject({ screen: S1, answered: 1, left: 2 });
      });

      it("is shown to ops too, and a bad value falls back to the defaults with a message, never a 500", async () => {
        const { agent } = await signedIn(OPS);
        const response = await get(agent, "/?since=2026-10-01&until=2026-10-10&sid=%3Cx%3E&screens=1");
        expect(response.status).toBe(200);
        const view = lastView<ReportView>("report");
        expect(view.errors).toEqual(["Source must be a sid: letters, digits and - _ . ~, at most 64."]);
        expect(view.screens![0]!.visits).toBe(3);
        expect(parseHtml(response.text).querySelector("section.screen-funnel table")).not.toBeNull();
        await get(agent, "/?since=2026-10-01&until=2026-10-10&screens=yes&screens=1");
        expect(lastView<ReportView>("report")).toMatchObject({ errors: ["Where visitors leave the form was given more than once."] });
        expect(lastView<ReportView>("report").screens).toBeUndefined();
      });

      it("is drawn only when asked (it reads raw events): otherwise a link asks for it with the same query", async () => {
        const response = await get(ops.agent, "/?since=2026-10-01&until=2026-10-10&by=sid");
        expect(response.status).toBe(200);
        const view = lastView<ReportView>("report");
        expect(view.screens).toBeUndefined();
        const section = parseHtml(response.text).querySelector("section.screen-funnel");
        expect(section?.querySelector("table")).toBeNull();
        const href = section?.querySelector("a")?.getAttribute("href") ?? "";
        expect(href).toBe("/?since=2026-10-01&until=2026-10-10&by=sid&screens=1#screen-funnel-heading");
        await get(ops.agent, href.replace(/#.*$/, ""));
        expect(lastView<ReportView>("report").screens![0]!.visits).toBe(3);
      });
    });

    it("answers an unknown console page with its 404 page", async () => {
      const response = await get(ops.agent, "/admin");
      expect(response.status).toBe(404);
      expect(lastView("error")).toMatchObject({ status: 404 });
    });
  });
});
