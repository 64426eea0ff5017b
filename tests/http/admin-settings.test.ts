/**
 * Buyers and sources from the operations console (issue 33, item 2), against both stores, through
 * the real admin app, the real React renderer and a real settings directory over the test database
 * (so `refresh()` really reloads what the store wrote): create with the secret shown once, 422 with
 * each problem beside its field, https in production, 409 on a stale revision, pause, resume,
 * archive after a confirmation that counts the deliveries in flight, secret rotation with an
 * overlap, sources, analysts read-only and never shown a secret, CSRF, admin_action and history;
 * and a buyer's posting spec (issue 43): its JSON edited with each problem beside it, shown in
 * words, kept by an edit of the other settings, its credentials set and replaced (fingerprints
 * only), and the masked preview of what the buyer would receive for a lead.
 */
import path from "node:path";
import request from "supertest";
import { parse as parseHtml } from "node-html-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAdminApp } from "../../server/admin/app";
import { analyticsReports } from "../../server/admin/reports";
import { renderAdminFrom } from "../../server/admin/render-source";
import { loadProductionBuild } from "../../server/pages/render-source";
import { registerDisclosure } from "../../server/consent/disclosures";
import { disclosureFor } from "../../server/leads/disclosure";
import { leadRepository } from "../../server/db/leads";
import { leadStore } from "../../server/leads/store";
import { openSettingsDirectory, type SettingsDirectory } from "../../server/settings/directory";
import { secretFingerprint } from "../../server/settings/store";
import { activeSecrets } from "../../server/delivery/buyers";
import { signBody, verifySignature } from "../../server/delivery/signature";
import type { AdminView, BuyerArchiveView, BuyerDetailView, BuyerFormView, BuyersView, LeadsView, SourceDetailView, SourceFormView, SourcesView } from "../../shared/admin-views";
import { ACME_POST, COBALT_PING, COBALT_POST, EXAMPLE_CREDENTIALS } from "../../tools/buyer-spec-examples";
import { getBuyer } from "../../server/settings/store";
import { projectRoot } from "../../tools/production-server";
import { sampleNewLead } from "../../tools/lead-session";
import { allStores, type TestDatabase } from "../support/databases";
import type { LogLine } from "../support/app";
import { captureLogs } from "../support/log-capture";
import { adminRequests, capturingRenderAdmin, cookieHeader, type Agent, type Form, addUsers } from "../support/admin-agent";

const SECRET = "settings-test-secret-settings-test-secret";
const OPS = { name: "olivia", password: "olivia's long password" };
const ANALYST = { name: "andy", password: "andy's long password!" };


/** A small valid buyer as the form sends it. */
const buyerForm = (id: string, extra: Form = {}): Form => ({ id, name: `Buyer ${id}`, mode: "post", url: `https://${id}.example/leads`, price: "12", ...extra });

describe.each(allStores())("buyers and sources in the console ($kind)", (store) => {
  let db: TestDatabase;
  let settings: SettingsDirectory;
  let app: ReturnType<typeof createAdminApp>;
  /** The same console outside production (http:// buyer addresses allowed). */
  let testApp: ReturnType<typeof createAdminApp>;
  let logs: LogLine[] = [];
  let rawLogs: string[] = [];
  const views: AdminView[] = [];
  /** Every secret the console showed, to prove no other page or log line carries one. */
  const secretsShown: string[] = [];
  let ops: { agent: Agent; csrf: string };
  let analyst: { agent: Agent; csrf: string };

  const lastView = <V extends AdminView>(page: V["page"]): V => {
    const view = [...views].reverse().find((candidate) => candidate.page === page);
    if (!view) throw new Error(`no ${page} view rendered`);
    return view as V;
  };
  const actions = (action: string) => logs.filter((line) => line.event === "admin_action" && line.action === action);
  const buyerNow = (id: string) => settings.current().buyers.find((buyer) => buyer.id === id);

  const { get, post, signedIn } = adminRequests(() => app);
  async function createBuyer(id: string, extra: Form = {}) {
    const response = await post(ops.agent, "/buyers", { ...buyerForm(id, extra), _csrf: ops.csrf });
    expect(response.status, response.text.slice(0, 300)).toBe(201);
    const secret = lastView<BuyerDetailView>("buyer").oneTimeSecret!.secret;
    secretsShown.push(secret);
    return secret;
  }
  /** Problems of the HTML form: each field's aria-invalid and the text of what describes it. */
  function problemsIn(html: string): Record<string, string> {
    const document = parseHtml(html);
    const problems: Record<string, string> = {};
    for (const control of document.querySelectorAll('[aria-invalid="true"]')) {
      const described = (control.getAttribute("aria-describedby") ?? "").split(" ").filter(Boolean);
      const text = described.map((id) => document.getElementById(id)?.text ?? "").join(" ");
      problems[control.getAttribute("name") ?? control.id] = text.trim();
    }
    return problems;
  }

  /** What the buyer's page says beside "Open now". */
  function openNowIn(html: string): string {
    const term = parseHtml(html).querySelectorAll(".facts dt").find((dt) => dt.text.trim() === "Open now");
    return term?.nextElementSibling?.text.trim() ?? "";
  }

  beforeAll(async () => {
    db = await store.open();
    await registerDisclosure(db.builder, disclosureFor(undefined));
    await addUsers(db, [{ ...OPS, role: "ops" }, { ...ANALYST, role: "analyst" }]);
    const captured = captureLogs({ LOG_LEVEL: "debug", NODE_ENV: "production" });
    logs = captured.lines;
    rawLogs = captured.raw;
    // Not started: no poll, so a page shows a change only if the console's own refresh() applied it.
    settings = await openSettingsDirectory({ db: db.builder, logger: captured.logger, pollMs: 60_000 });
    const renderAdmin = capturingRenderAdmin(renderAdminFrom((await loadProductionBuild(path.join(projectRoot, "dist"))).source), views);
    const common = { logger: captured.logger, db, renderAdmin, secret: SECRET, reports: analyticsReports, settings };
    app = createAdminApp({ ...common, config: { ADMIN_SESSION_HOURS: 12, REPORT_TIME_ZONE: "America/New_York", NODE_ENV: "production" } });
    testApp = createAdminApp({ ...common, config: { ADMIN_SESSION_HOURS: 12, REPORT_TIME_ZONE: "America/New_York", NODE_ENV: "test" } });
    ops = await signedIn(OPS);
    analyst = await signedIn(ANALYST);
  });
  afterAll(async () => {
    settings?.stop();
    await db?.close();
  });

  describe("creating a buyer", () => {
    it("shows its generated secret once, then only its fingerprint, applies it at once and keeps its history", async () => {
      const form = await get(ops.agent, "/buyers/new");
      expect(form.status).toBe(200);
      expect(lastView<BuyerFormView>("buyer-form")).toMatchObject({ mode: "create", errors: {}, ruleRows: 2 });
      // Every control has a label.
      const controls = parseHtml(form.text).querySelectorAll("form.settings-form input:not([type=hidden]), form.settings-form select, form.settings-form textarea");
      expect(controls.length).toBeGreaterThan(80);
      for (const control of controls) expect(parseHtml(form.text).querySelector(`label[for="${control.id}"]`), control.getAttribute("name") ?? "").not.toBeNull();
      // More price rule rows: the same form again, filled in, nothing saved.
      const more = await post(ops.agent, "/buyers", { ...buyerForm("morerows"), "priceRules.1.label": "Second", more: "rules", _csrf: ops.csrf });
      expect(more.status).toBe(200);
      expect(lastView<BuyerFormView>("buyer-form")).toMatchObject({ ruleRows: 5, errors: {} });
      expect(parseHtml(more.text).querySelector('input[name="priceRules.1.label"]')?.getAttribute("value")).toBe("Second");
      expect(buyerNow("morerows")).toBeUndefined();

      const created = await post(ops.agent, "/buyers", {
        ...buyerForm("lakeside", { states: ["CA", "TX"], "caps.day": "200", "budget.month": "5000", "priceRules.0.label": "Homeowners", "priceRules.0.add": "4", "priceRules.0.when.homeowner": "yes" }),
        _csrf: ops.csrf,
      });
      expect(created.status).toBe(201);
      const view = lastView<BuyerDetailView>("buyer");
      const secret = view.oneTimeSecret!.secret;
      secretsShown.push(secret);
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(view.oneTimeSecret).toEqual({ secret, reason: "created", previousUntil: null });
      expect(parseHtml(created.text).querySelector("#one-time-secret")?.getAttribute("value")).toBe(secret);
      expect(created.headers["cache-control"]).toContain("no-store");
      // Never in a cookie.
      expect(String(created.headers["set-cookie"] ?? "")).not.toContain(secret);

      // Live on this replica at once (the directory is not polling).
      expect(buyerNow("lakeside")).toMatchObject({ name: "Buyer lakeside", states: ["CA", "TX"], caps: { day: 200 }, budget: { month: 5000 }, price: 12, secret, status: "active" });
      expect(buyerNow("lakeside")!.priceRules).toEqual([{ label: "Homeowners", when: { homeowner: true }, add: 4 }]);

      const again = await get(ops.agent, "/buyers/lakeside");
      expect(again.status).toBe(200);
      expect(again.text).not.toContain(secret);
      expect(again.text).toContain(secretFingerprint(secret));
      const detail = lastView<BuyerDetailView>("buyer");
      expect(detail.oneTimeSecret).toBeUndefined();
      expect(detail.buyer.limits).toEqual([
        { period: "day", unit: "leads", used: 0, limit: 200 },
        { period: "month", unit: "dollars", used: 0, limit: 5000 },
      ]);
      expect(detail.history).toHaveLength(1);
      expect(detail.history[0]).toMatchObject({ actor: "console:olivia", action: "create" });
      expect(detail.history[0]!.sentences).toEqual([`Created by olivia, with the secret ${secretFingerprint(secret)}.`]);
      expect(parseHtml(again.text).querySelectorAll(".history-table tbody tr")).toHaveLength(1);

      expect(actions("create_buyer").at(-1)).toMatchObject({ user: OPS.name, target: "lakeside", outcome: "done" });
      expect(rawLogs.join("")).not.toContain(secret);

      const list = await get(ops.agent, "/buyers");
      expect(list.status).toBe(200);
      const row = lastView<BuyersView>("buyers").buyers.find((buyer) => buyer.id === "lakeside");
      expect(row).toMatchObject({ status: "active", mode: "post", price: 12 });
      expect(parseHtml(list.text).querySelector('[data-buyer="lakeside"]')?.text).toContain("Day 0 / 200");
      expect(parseHtml(list.text).querySelector('[data-buyer="lakeside"]')?.text).toContain("Month $0.00 / $5,000.00");
    });

    it("refuses a taken id beside the id field", async () => {
      const response = await post(ops.agent, "/buyers", { ...buyerForm("lakeside", { name: "Another Lakeside" }), _csrf: ops.csrf });
      expect(response.status).toBe(422);
      expect(lastView<BuyerFormView>("buyer-form").errors).toEqual({ id: "A buyer with id lakeside exists already." });
    });
  });

  describe("a wrong form", () => {
    it("answers 422 with the form as sent and each problem beside its field", async () => {
      const before = settings.current().version;
      const response = await post(ops.agent, "/buyers", {
        ...buyerForm("Bad Id!", { url: "https://bad.example/leads", name: "Kept As Sent", price: "-1", "filters.driverAge.min": "60", "filters.driverAge.max": "30", "filters.zips.include": "90210 9021", states: ["CA", "ZZ"] }),
        _csrf: ops.csrf,
      });
      expect(response.status).toBe(422);
      const view = lastView<BuyerFormView>("buyer-form");
      expect(view.errors).toEqual({
        id: "Lower-case letters, digits, - and _, at most 32.",
        price: "At least 0.",
        "filters.driverAge.max": "Min must not be more than max.",
        "filters.zips.include": "A 5-digit ZIP code, like 90210.",
        states: "A two-letter US state code, like CA.",
      });
      // In the HTML: each field marked invalid and described by its problem, the values as sent.
      const problems = problemsIn(response.text);
      expect(problems.id).toContain("Lower-case letters");
      expect(problems.price).toContain("At least 0.");
      expect(problems["filters.driverAge.max"]).toContain("Min must not be more than max.");
      expect(problems["filters.zips.include"]).toContain("5-digit ZIP");
      expect(problems.states).toContain("two-letter US state");
      const document = parseHtml(response.text);
      expect(document.querySelector('input[name="name"]')?.getAttribute("value")).toBe("Kept As Sent");
      expect(document.querySelector('input[name="id"]')?.getAttribute("value")).toBe("Bad Id!");
      expect(document.querySelector('[role="alert"] a[href="#f-price"]')).not.toBeNull();
      expect(settings.current().version).toBe(before);
      expect(actions("create_buyer").at(-1)).toMatchObject({ outcome: "invalid" });
    });

    it("refuses a buyer address that is not https:// in production, beside that field, and takes it elsewhere", async () => {
      const response = await post(ops.agent, "/buyers", { ...buyerForm("plainhttp", { url: "http://plainhttp.example/leads" }), _csrf: ops.csrf });
      expect(response.status).toBe(422);
      expect(lastView<BuyerFormView>("buyer-form").errors).toEqual({ url: "Use an https:// address: in production leads, pings and postbacks go out over TLS only." });
      expect(problemsIn(response.text).url).toContain("https://");
      expect(buyerNow("plainhttp")).toBeUndefined();
      const outside = await post(ops.agent, "/buyers", { ...buyerForm("plainhttp", { url: "http://plainhttp.example/leads" }), _csrf: ops.csrf }, testApp);
      expect(outside.status).toBe(201);
      secretsShown.push(lastView<BuyerDetailView>("buyer").oneTimeSecret!.secret);
    });

    it.each([
      ["url", "https://169.254.169.254/latest/meta-data/", /link-local/],
      ["url", "http://127.0.0.1:5432/", /https:\/\//],
      ["url", "http://localhost:6379/", /https:\/\//],
      ["url", "http://[::1]:5432/", /https:\/\//],
      ["url", "https://2130706433:5432/", /127\.0\.0\.1 is a loopback/],
      ["url", "https://10.0.0.5/leads", /RFC 1918/],
      ["url", "https://192.168.1.1/", /RFC 1918/],
      ["url", "https://metadata.google.internal/", /reserved for private networks/],
      ["webhookUrl", "https://[fe80::1]/hooks", /link-local/],
      ["pingUrl", "https://100.64.0.9/ping", /carrier-grade NAT/],
    ])("refuses %s %s in production, beside that field", async (field, address, reason) => {
      const extra = field === "pingUrl" ? { mode: "pingpost", pingUrl: address } : { [field]: address };
      const response = await post(ops.agent, "/buyers", { ...buyerForm("inside", extra), _csrf: ops.csrf });
      expect(response.status).toBe(422);
      expect(Object.keys(lastView<BuyerFormView>("buyer-form").errors)).toEqual([field]);
      expect(problemsIn(response.text)[field]).toMatch(reason);
      expect(buyerNow("inside")).toBeUndefined();
    });

    it("lists every problem of a new buyer in one answer: the schema's, the address's and a taken id and name (issue 42, item 7)", async () => {
      await createBuyer("summitline", { name: "Summit Line Insurance" });
      const before = settings.current().version;
      const response = await post(ops.agent, "/buyers", { id: "summitline", name: "summit line INSURANCE", mode: "post", url: "http://summitline.example/leads", price: "", _csrf: ops.csrf });
      expect(response.status).toBe(422);
      expect(lastView<BuyerFormView>("buyer-form").errors).toEqual({
        id: "A buyer with id summitline exists already.",
        name: "Another buyer (summitline) is called Summit Line Insurance: the consent names buyers, so each name is one buyer's.",
        url: "Use an https:// address: in production leads, pings and postbacks go out over TLS only.",
        price: "This is required.",
      });
      // Each beside its field, and each in the summary at the top with a link to it.
      const problems = problemsIn(response.text);
      expect(Object.keys(problems).sort()).toEqual(["id", "name", "price", "url"]);
      expect(problems.name).toContain("Another buyer (summitline)");
      const summary = parseHtml(response.text).querySelector('[role="alert"]');
      for (const field of ["id", "name", "url", "price"]) expect(summary?.querySelector(`a[href="#f-${field}"]`), field).not.toBeNull();
      expect(settings.current().version).toBe(before);
      expect(actions("create_buyer").at(-1)).toMatchObject({ target: "summitline", outcome: "invalid", fields: ["price", "url", "id", "name"] });

      // An edit that takes another buyer's name is told so together with its other problems.
      await createBuyer("rivet");
      await get(ops.agent, "/buyers/rivet/edit");
      const form = lastView<BuyerFormView>("buyer-form");
      const edited = await post(ops.agent, "/buyers/rivet", { ...form.values, name: "Summit Line Insurance", "caps.day": "-1", revision: String(form.revision), _csrf: ops.csrf });
      expect(edited.status).toBe(422);
      expect(Object.keys(lastView<BuyerFormView>("buyer-form").errors).sort()).toEqual(["caps.day", "name"]);
    });

    it("hints that a buyer's address is https:// to a public host in production, and no longer that loopback http:// is accepted", async () => {
      const form = await get(ops.agent, "/buyers/new");
      const hint = parseHtml(form.text).querySelector("#f-url-hint")?.text ?? "";
      expect(hint).toContain("https:// to a public host");
      expect(hint).not.toMatch(/loopback|localhost|127\.0\.0\.1|http:\/\/(?!s)/i);
    });

    it("never answers 500, whatever the form holds", async () => {
      const odd: Form[] = [
        { _csrf: ops.csrf },
        { _csrf: ops.csrf, id: ["a", "b"], name: ["x"], price: ["1", "2"], states: "CA" },
        { _csrf: ops.csrf, ...buyerForm("odd"), price: "1e309", "caps.day": "9".repeat(40), "priceRules.999999.label": "x", "filters.coverage": ["nope"], mode: "auction" },
        { _csrf: ops.csrf, ...buyerForm("odd2"), "schedule.on": "yes", "schedule.from": "25:00", "schedule.days": ["someday"], timeZone: "Mars/Olympus" },
        { _csrf: ops.csrf, ...buyerForm("odd3"), "filters.driverAge.min": "-5", "filters.vehicles.min": "1.5", "filters.dui": "maybe", "priceRules.0.add": "lots" },
      ];
      for (const form of odd) {
        const response = await post(ops.agent, "/buyers", form);
        expect(response.status, JSON.stringify(form)).toBe(422);
      }
      // Past the settings forms' own limit (500 fields): refused as a client error, not a crash.
      const crowded = Object.fromEntries(Array.from({ length: 600 }, (_, index) => [`priceRules.${index}.label`, "x"]));
      expect((await post(ops.agent, "/buyers", { ...crowded, _csrf: ops.csrf })).status).toBe(413);
      const json = await request(app).post("/buyers").set("Cookie", cookieHeader(ops.agent)).type("json").send({ _csrf: ops.csrf });
      expect(json.status).toBeLessThan(500);
      for (const url of ["/buyers/NOPE!", "/buyers/nobody", "/buyers/nobody/edit", "/sources/no%20such", "/sources/nothere/edit"]) expect((await get(ops.agent, url)).status, url).toBe(404);
      for (const url of ["/buyers/nobody", "/buyers/nobody/status", "/buyers/nobody/rotate-secret", "/sources/nothere", "/sources/nothere/status"]) {
        expect((await post(ops.agent, url, { _csrf: ops.csrf, status: "paused" })).status, url).toBe(404);
      }
    });
  });

  describe("editing a buyer", () => {
    it("saves with the revision it read, and answers 409 to a form read before someone else's save", async () => {
      await createBuyer("harbor");
      const edit = await get(ops.agent, "/buyers/harbor/edit");
      expect(edit.status).toBe(200);
      const form = lastView<BuyerFormView>("buyer-form");
      expect(form.mode).toBe("edit");
      const revision = String(form.revision);
      expect(parseHtml(edit.text).querySelector('input[name="revision"]')?.getAttribute("value")).toBe(revision);
      expect(form.values).toMatchObject({ name: "Buyer harbor", price: "12", url: "https://harbor.example/leads" });

      const saved = await post(ops.agent, "/buyers/harbor", { ...form.values, price: "15", "caps.hour": "5", revision, _csrf: ops.csrf });
      expect(saved.status).toBe(303);
      expect(saved.headers.location).toBe("/buyers/harbor");
      expect(buyerNow("harbor")).toMatchObject({ price: 15, caps: { hour: 5 } });
      expect(actions("update_buyer").at(-1)).toMatchObject({ target: "harbor", outcome: "done", revision: Number(revision) + 1 });

      // A second editor still holding the first revision.
      const stale = await post(ops.agent, "/buyers/harbor", { ...form.values, price: "99", revision, _csrf: ops.csrf });
      expect(stale.status).toBe(409);
      const conflict = lastView<BuyerFormView>("buyer-form");
      expect(conflict.conflict).toEqual({ currentRevision: Number(revision) + 1 });
      expect(parseHtml(stale.text).querySelector('input[name="price"]')?.getAttribute("value")).toBe("99");
      expect(parseHtml(stale.text).text).toContain(`now revision ${Number(revision) + 1}`);
      expect(buyerNow("harbor")!.price).toBe(15);
      expect(actions("update_buyer").at(-1)).toMatchObject({ outcome: "conflict" });

      const page = await get(ops.agent, "/buyers/harbor");
      const history = lastView<BuyerDetailView>("buyer").history;
      expect(history.map((row) => row.action)).toEqual(["update", "create"]);
      expect(history[0]!.sentences).toEqual(["Cap per hour set to 5 by olivia.", "Base price changed from $12.00 to $15.00 by olivia."]);
      expect(parseHtml(page.text).querySelector(".history-table")?.text).toContain("Base price changed from $12.00 to $15.00 by olivia.");
      // A bad edit: 422 beside the field, nothing saved.
      const bad = await post(ops.agent, "/buyers/harbor", { ...form.values, revision: String(Number(revision) + 1), "caps.day": "-3", _csrf: ops.csrf });
      expect(bad.status).toBe(422);
      expect(lastView<BuyerFormView>("buyer-form").errors).toEqual({ "caps.day": "At least 0." });
      const noRevision = await post(ops.agent, "/buyers/harbor", { ...form.values, _csrf: ops.csrf });
      expect(noRevision.status).toBe(422);
    });
  });

  describe("pause, resume and archive", () => {
    it("pauses and resumes at once, and archives only after saying how many deliveries are still in flight", async () => {
      await createBuyer("ridge", { "caps.day": "50" });
      const lead = await leadStore(leadRepository(db)).create(sampleNewLead({ sid: "fb01", tid: "t-ridge" }), (created) => ({
        deliveries: ["ridge", "ridge-2"].map((key) => ({
          kind: "buyer" as const,
          target: "ridge",
          idempotencyKey: `${created.reference}:${key}`,
          sale: true,
          price: 16,
          url: null,
          capDay: null,
          priceReason: "base $12.00 + Homeowners +$4.00",
        })),
      }));
      if (!lead.created) throw new Error("expected a new lead");

      const paused = await post(ops.agent, "/buyers/ridge/status", { status: "paused", _csrf: ops.csrf });
      expect(paused.status).toBe(303);
      expect(paused.headers.location).toBe("/buyers/ridge");
      expect(buyerNow("ridge")!.status).toBe("paused");
      const detail = await get(ops.agent, "/buyers/ridge");
      expect(lastView<BuyerDetailView>("buyer").flash?.text).toBe("Paused ridge: it is offered no leads until resumed. Its 2 deliveries in flight will still be sent.");
      expect(parseHtml(detail.text).querySelector(".status-badge")?.text).toContain("paused");
      expect(actions("set_buyer_status").at(-1)).toMatchObject({ target: "ridge", status: "paused", outcome: "done", inFlight: 2 });

      // The lead page says why the paused buyer is not offered, and each delivery's price and why.
      await get(ops.agent, `/leads?reference=${lead.reference}`);
      const leads = lastView<LeadsView>("leads");
      expect(leads.offers!.buyers.find((buyer) => buyer.buyerId === "ridge")).toMatchObject({ offered: false, rule: "status", reason: "paused by ops" });
      expect(leads.deliveries.map((delivery) => delivery.priceReason)).toEqual(["base $12.00 + Homeowners +$4.00", "base $12.00 + Homeowners +$4.00"]);

      expect((await post(ops.agent, "/buyers/ridge/status", { status: "active", _csrf: ops.csrf })).status).toBe(303);
      expect(buyerNow("ridge")!.status).toBe("active");

      const ask = await post(ops.agent, "/buyers/ridge/status", { status: "archived", _csrf: ops.csrf });
      expect(ask.status).toBe(200);
      expect(lastView<BuyerArchiveView>("buyer-archive")).toMatchObject({ id: "ridge", inFlight: 2 });
      const page = parseHtml(ask.text);
      expect(page.querySelector(".in-flight")?.text).toBe("Its 2 deliveries in flight (pending or being sent) will still be sent and finish.");
      expect(page.text).toContain("no more leads");
      expect(page.querySelector('form input[name="confirm"]')?.getAttribute("value")).toBe("yes");
      expect(buyerNow("ridge")!.status).toBe("active");

      const archived = await post(ops.agent, "/buyers/ridge/status", { status: "archived", confirm: "yes", _csrf: ops.csrf });
      expect(archived.status).toBe(303);
      expect(buyerNow("ridge")!.status).toBe("archived");
      const list = await get(ops.agent, "/buyers");
      expect(parseHtml(list.text).querySelector('details.archived [data-buyer="ridge"]')).not.toBeNull();
      await get(ops.agent, "/buyers/ridge");
      expect(lastView<BuyerDetailView>("buyer").history.map((row) => row.action)).toEqual(["archive", "resume", "pause", "create"]);

      const wrong = await post(ops.agent, "/buyers/ridge/status", { status: "deleted", _csrf: ops.csrf });
      expect(wrong.status).toBe(422);
    });
  });

  describe("a buyer's page at a glance (issue 42, item 8)", () => {
    it("does not call a paused or archived buyer open now", async () => {
      await createBuyer("glance");
      const open = await get(ops.agent, "/buyers/glance");
      expect(lastView<BuyerDetailView>("buyer").buyer.open).toBe(true);
      expect(openNowIn(open.text)).toBe("Open");
      await post(ops.agent, "/buyers/glance/status", { status: "paused", _csrf: ops.csrf });
      const paused = await get(ops.agent, "/buyers/glance");
      expect(lastView<BuyerDetailView>("buyer").buyer.open).toBe(false);
      expect(openNowIn(paused.text)).toBe("Closed: paused, it is offered no leads until resumed");
      expect(parseHtml(paused.text).querySelector(".status-notice")?.text).toContain("Paused: it is offered no leads until resumed.");
      const list = await get(ops.agent, "/buyers");
      expect(parseHtml(list.text).querySelector('[data-buyer="glance"]')?.text).not.toMatch(/\bOpen\b/);
      await post(ops.agent, "/buyers/glance/status", { status: "archived", confirm: "yes", _csrf: ops.csrf });
      const archived = await get(ops.agent, "/buyers/glance");
      expect(openNowIn(archived.text)).toBe("Closed: archived, it is offered no more leads");
    });

    it("tells the history in sentences, not keys and JSON", async () => {
      await createBuyer("story", { states: ["CA"] });
      await get(ops.agent, "/buyers/story/edit");
      const form = lastView<BuyerFormView>("buyer-form");
      const saved = await post(ops.agent, "/buyers/story", {
        ...form.values,
        states: ["CA", "TX"],
        "priceRules.0.label": "Homeowners",
        "priceRules.0.add": "4",
        "priceRules.0.when.homeowner": "yes",
        "filters.driverAge.min": "21",
        "schedule.on": "yes",
        "schedule.timeZone": "America/Chicago",
        "schedule.days": ["mon", "tue"],
        "schedule.from": "09:00",
        "schedule.to": "17:00",
        revision: String(form.revision),
        _csrf: ops.csrf,
      });
      expect(saved.status).toBe(303);
      await post(ops.agent, "/buyers/story/status", { status: "paused", _csrf: ops.csrf });
      const page = await get(ops.agent, "/buyers/story");
      const history = lastView<BuyerDetailView>("buyer").history;
      expect(history.map((row) => row.sentences)).toEqual([
        ["Paused by olivia."],
        [
          "Schedule changed from always to Mon, Tue 09:00–17:00 (America/Chicago) by olivia.",
          "States: TX added by olivia.",
          "Price rule Homeowners +$4.00 added by olivia (when homeowner: yes).",
          "Lead filter drivers' ages set to at least 21 by olivia.",
        ],
        [expect.stringMatching(/^Created by olivia, with the secret sha256:[0-9a-f]{12}\.$/)],
      ]);
      const table = parseHtml(page.text).querySelector(".history-table")!;
      expect(table.text).toContain("Price rule Homeowners +$4.00 added by olivia (when homeowner: yes).");
      // No raw keys, no JSON.
      for (const raw of ["priceRules", "driverAge", "{", "[", '"']) expect(table.text, raw).not.toContain(raw);
    });
  });

  describe("rotating a secret", () => {
    it("shows the new secret once and until when the old one works; both verify during the overlap", async () => {
      const old = await createBuyer("crest");
      const created = lastView<BuyerDetailView>("buyer");
      const rotation = { overlapHours: "24", revision: String(created.revision), _csrf: ops.csrf };
      expect(parseHtml((await get(ops.agent, "/buyers/crest")).text).querySelector('form[action="/buyers/crest/rotate-secret"] input[name="revision"]')?.getAttribute("value")).toBe(rotation.revision);
      const rotated = await post(ops.agent, "/buyers/crest/rotate-secret", rotation);
      expect(rotated.status).toBe(200);
      const view = lastView<BuyerDetailView>("buyer");
      const fresh = view.oneTimeSecret!.secret;
      secretsShown.push(fresh);
      expect(fresh).not.toBe(old);
      expect(view.oneTimeSecret!.reason).toBe("rotated");
      const until = Date.parse(view.oneTimeSecret!.previousUntil!);
      expect(Math.abs(until - (Date.now() + 24 * 3_600_000))).toBeLessThan(60_000);
      expect(parseHtml(rotated.text).querySelector(".previous-until")?.text).toContain("still signs and verifies until");
      expect(view.previous).toEqual({ fingerprint: secretFingerprint(old), until: view.oneTimeSecret!.previousUntil });

      const buyer = buyerNow("crest")!;
      const secrets = activeSecrets(buyer, new Date());
      const body = JSON.stringify({ reference: "LD-AAAA-BBBB", reason: "duplicate" });
      expect(verifySignature(secrets, signBody(old, body), body)).toBe("ok");
      expect(verifySignature(secrets, signBody(fresh, body), body)).toBe("ok");
      expect(verifySignature(secrets, signBody("someone-else-secret-of-32-characters!", body), body)).toBe("mismatch");
      expect(actions("rotate_secret").at(-1)).toMatchObject({ target: "crest", outcome: "done", overlapHours: 24 });
      expect(rawLogs.join("")).not.toContain(fresh);

      const after = await get(ops.agent, "/buyers/crest");
      expect(after.text).not.toContain(fresh);
      expect(lastView<BuyerDetailView>("buyer").history[0]).toMatchObject({ action: "rotate_secret" });

      // A reload posts the same rotation again: refused, the secret just handed over stays.
      const reload = await post(ops.agent, "/buyers/crest/rotate-secret", rotation);
      expect(reload.status).toBe(409);
      expect(lastView<BuyerDetailView>("buyer").oneTimeSecret).toBeUndefined();
      expect(reload.text).not.toContain(fresh);
      expect(buyerNow("crest")!.secret).toBe(fresh);
      expect(buyerNow("crest")!.previousSecret).toBe(old);
      expect(actions("rotate_secret").at(-1)).toMatchObject({ target: "crest", outcome: "conflict" });

      const current = String(lastView<BuyerDetailView>("buyer").revision);
      const bad = await post(ops.agent, "/buyers/crest/rotate-secret", { overlapHours: "200", revision: current, _csrf: ops.csrf });
      expect(bad.status).toBe(422);
      expect(lastView<BuyerDetailView>("buyer").rotateError).toBe("Enter whole hours from 0 to 168.");
      expect(problemsIn(bad.text).overlapHours).toContain("0 to 168");
      expect(buyerNow("crest")!.secret).toBe(fresh);

      // No overlap: the old secret stops at once.
      expect((await post(ops.agent, "/buyers/crest/rotate-secret", { overlapHours: "0", revision: current, _csrf: ops.csrf })).status).toBe(200);
      const newest = lastView<BuyerDetailView>("buyer").oneTimeSecret!.secret;
      secretsShown.push(newest);
      const now = activeSecrets(buyerNow("crest")!, new Date());
      expect(verifySignature(now, signBody(fresh, body), body)).toBe("mismatch");
      expect(verifySignature(now, signBody(newest, body), body)).toBe("ok");
    });
  });

  describe("a buyer's posting spec and credentials (issue 43)", () => {
    const ACME_KEY = EXAMPLE_CREDENTIALS.acme.key;
    const json = (value: unknown) => JSON.stringify(value, null, 2);
    /** The buyer's page's revision now. */
    const revisionOf = async (id: string) => {
      await get(ops.agent, `/buyers/${id}`);
      return String(lastView<BuyerDetailView>("buyer").revision);
    };
    const postSpec = async (id: string, form: Form) => post(ops.agent, `/buyers/${id}/spec`, { revision: await revisionOf(id), ...form, _csrf: ops.csrf });

    it("refuses a bad spec with each problem beside its textarea, named by its path, then saves a good one and shows it in words", async () => {
      await createBuyer("acmeform", { name: "Acme Auto Agents", url: "https://acmeform.example/leads" });
      const fresh = await get(ops.agent, "/buyers/acmeform");
      expect(lastView<BuyerDetailView>("buyer").spec.stages).toEqual([expect.objectContaining({ stage: "post", format: "quoteridge" })]);
      expect(parseHtml(fresh.text).querySelector('textarea[name="spec.post"]')?.text).toBe("");
      const before = settings.current().version;

      // An unknown fact: 422, the problem beside the textarea with its path, the JSON as sent.
      const unknown = { ...ACME_POST, fields: ACME_POST.fields.map((field, index) => (index === 3 ? { ...field, from: "contact.fax" } : field)) };
      const refused = await postSpec("acmeform", { "spec.post": json(unknown) });
      expect(refused.status).toBe(422);
      const problems = lastView<BuyerDetailView>("buyer").specForm!.errors.post!;
      expect(problems).toContainEqual({ path: "fields.3.from", message: expect.stringMatching(/unknown fact/) });
      const beside = problemsIn(refused.text)["spec.post"];
      expect(beside).toContain("fields.3.from");
      expect(beside).toMatch(/unknown fact/);
      expect(parseHtml(refused.text).querySelector('textarea[name="spec.post"]')?.text).toContain("contact.fax");
      expect(actions("update_spec").at(-1)).toMatchObject({ target: "acmeform", outcome: "invalid" });

      // Not JSON, and a map that misses a value: each named.
      const broken = await postSpec("acmeform", { "spec.post": '{ "format": "form", ' });
      expect(broken.status).toBe(422);
      expect(problemsIn(broken.text)["spec.post"]).toMatch(/not JSON/);
      const unmapped = { ...ACME_POST, fields: [{ to: "Own", from: "vehicle.1.ownership", transforms: [{ type: "map", values: { own: "Owned" } }] }] };
      const unmappedAnswer = await postSpec("acmeform", { "spec.post": json(unmapped) });
      expect(unmappedAnswer.status).toBe(422);
      expect(problemsIn(unmappedAnswer.text)["spec.post"]).toContain("fields.0.transforms.0");

      // A good spec naming a credential the buyer does not have yet.
      const noKey = await postSpec("acmeform", { "spec.post": json(ACME_POST) });
      expect(noKey.status).toBe(422);
      expect(lastView<BuyerDetailView>("buyer").specForm!.errors.post).toEqual([{ path: "auth.credential", message: expect.stringContaining('no credential "key"') }]);
      expect(settings.current().version).toBe(before);
      expect(lastView<BuyerDetailView>("buyer").spec.credentials).toEqual([]);

      // The credential first, then the spec.
      const set = await post(ops.agent, "/buyers/acmeform/credentials", { name: "key", value: ACME_KEY, _csrf: ops.csrf });
      expect(set.status).toBe(303);
      secretsShown.push(ACME_KEY);
      expect(buyerNow("acmeform")!.credentials).toEqual({ key: ACME_KEY });
      const saved = await postSpec("acmeform", { "spec.post": json(ACME_POST) });
      expect(saved.status).toBe(303);
      expect(saved.headers.location).toBe("/buyers/acmeform#spec-title");
      expect(buyerNow("acmeform")!.spec!.post).toMatchObject({ format: "form", auth: { type: "query", name: "key", credential: "key" } });
      expect(actions("update_spec").at(-1)).toMatchObject({ target: "acmeform", outcome: "done" });

      const page = await get(ops.agent, "/buyers/acmeform");
      const view = lastView<BuyerDetailView>("buyer");
      expect(view.flash?.text).toMatch(/^Saved the posting spec of acmeform/);
      const stage = view.spec.stages[0]!;
      expect(stage).toMatchObject({ format: "form", method: "POST", url: "https://acmeform.example/leads", auth: "the credential key in the query parameter key", credential: "key" });
      expect(stage.fields).toContainEqual({ to: "DOB", from: "driver.1.dateOfBirth", transforms: "date as MM/DD/YYYY" });
      expect(stage.fields.find((row) => row.to === "V1_Ownership")).toMatchObject({ from: "vehicle.1.ownership", transforms: expect.stringMatching(/^(?=.*own → "Owned")(?=.*finance → "Financed")(?=.*lease → "Leased")/) });
      expect(stage.fields).toContainEqual({ to: "SubID", from: "source.sid", transforms: 'default ""' });
      expect(stage.answer).toContain('When the status is 200 and response/status is "success": accepted, price from response/price, their lead id from response/lead_id.');
      expect(stage.answer).toContain('When the status is 200 and response/status is one of "duplicate", "rejected": refused, reason from response/message.');
      const document = parseHtml(page.text);
      const dob = document.querySelectorAll(".spec-fields tbody tr").find((row) => row.querySelector("th")?.text === "DOB");
      expect(dob?.text).toContain("driver.1.dateOfBirth");
      expect(document.querySelector('[data-credential="key"]')?.text).toContain(view.spec.credentials[0]!.fingerprint!);
      expect(view.spec.credentials).toEqual([{ name: "key", fingerprint: secretFingerprint(ACME_KEY), usedBy: ["post"] }]);
      expect(page.text).not.toContain(ACME_KEY);
      // The edit form starts from the stored spec.
      expect(JSON.parse(document.querySelector('textarea[name="spec.post"]')!.text)).toMatchObject({ format: "form", fields: expect.any(Array) });

      // A change: one field removed, one added. The history says so in sentences, no JSON.
      const changed = { ...ACME_POST, fields: [...ACME_POST.fields.filter((field) => field.to !== "Accidents"), { to: "Tickets", from: "driver.1.tickets" }] };
      expect((await postSpec("acmeform", { "spec.post": json(changed) })).status).toBe(303);
      const later = await get(ops.agent, "/buyers/acmeform");
      const history = lastView<BuyerDetailView>("buyer").history;
      expect(history.map((row) => row.sentences)).toEqual([
        ["Posting spec (post) changed by olivia: 1 field rule added (Tickets), 1 field rule removed (Accidents)."],
        ['Posting spec (post) set by olivia: form, POST, 23 field rules, 4 answer rules, authentication: the credential key in the query parameter key.'],
        [`Credential key set by olivia (${secretFingerprint(ACME_KEY)}).`],
        [expect.stringMatching(/^Created by olivia/)],
      ]);
      const table = parseHtml(later.text).querySelector(".history-table")!;
      for (const raw of ["{", "[", "fields", ACME_KEY]) expect(table.text, raw).not.toContain(raw);
      // The same spec again: nothing to save.
      expect((await postSpec("acmeform", { "spec.post": json(changed) })).status).toBe(303);
      expect(actions("update_spec").at(-1)).toMatchObject({ outcome: "nothing_to_do" });
      expect(rawLogs.join("")).not.toContain(ACME_KEY);
    });

    it("keeps the spec and the credentials when the other settings are edited, and a ping spec only for a ping/post buyer", async () => {
      const spec = buyerNow("acmeform")!.spec;
      await get(ops.agent, "/buyers/acmeform/edit");
      const form = lastView<BuyerFormView>("buyer-form");
      expect(JSON.stringify(form.values)).not.toContain(ACME_KEY);
      const saved = await post(ops.agent, "/buyers/acmeform", { ...form.values, price: "14", revision: String(form.revision), _csrf: ops.csrf });
      expect(saved.status).toBe(303);
      expect(buyerNow("acmeform")).toMatchObject({ price: 14, spec, credentials: { key: ACME_KEY } });
      await get(ops.agent, "/buyers/acmeform");
      expect(lastView<BuyerDetailView>("buyer").history[0]!.sentences).toEqual(["Base price changed from $12.00 to $14.00 by olivia."]);

      // Cobalt: a ping/post buyer with both stages; it may not become a post buyer while it has a ping spec.
      await createBuyer("cobaltx", { name: "Cobalt Exchange", mode: "pingpost", pingUrl: "https://cobaltx.example/ping", url: "https://cobaltx.example/post", saleTypes: ["exclusive"] });
      expect((await post(ops.agent, "/buyers/cobaltx/credentials", { name: "apiKey", value: EXAMPLE_CREDENTIALS.cobalt.apiKey, _csrf: ops.csrf })).status).toBe(303);
      secretsShown.push(EXAMPLE_CREDENTIALS.cobalt.apiKey);
      const both = await postSpec("cobaltx", { "spec.post": json(COBALT_POST), "spec.ping": json(COBALT_PING) });
      expect(both.status).toBe(303);
      const page = await get(ops.agent, "/buyers/cobaltx");
      expect(lastView<BuyerDetailView>("buyer").spec.stages.map((stage) => [stage.stage, stage.format, stage.url])).toEqual([
        ["post", "json", "https://cobaltx.example/post"],
        ["ping", "json", "https://cobaltx.example/ping"],
      ]);
      expect(parseHtml(page.text).querySelector('textarea[name="spec.ping"]')).not.toBeNull();
      // A ping naming a contact fact is refused beside the ping's textarea.
      const leaky = { ...COBALT_PING, fields: [...COBALT_PING.fields, { to: "email", from: "contact.email" }] };
      const refused = await postSpec("cobaltx", { "spec.post": json(COBALT_POST), "spec.ping": json(leaky) });
      expect(refused.status).toBe(422);
      expect(lastView<BuyerDetailView>("buyer").specForm!.errors).toEqual({ ping: [expect.objectContaining({ path: "fields.8.from" })] });
      expect(problemsIn(refused.text)["spec.ping"]).toContain("fields.8.from");

      await get(ops.agent, "/buyers/cobaltx/edit");
      const cobaltForm = lastView<BuyerFormView>("buyer-form");
      const toPost = await post(ops.agent, "/buyers/cobaltx", { ...cobaltForm.values, mode: "post", pingUrl: "", saleTypes: ["shared"], revision: String(cobaltForm.revision), _csrf: ops.csrf });
      expect(toPost.status).toBe(422);
      expect(lastView<BuyerFormView>("buyer-form").errors).toEqual({ mode: expect.stringContaining("ping spec") });
      expect(buyerNow("cobaltx")!.mode).toBe("pingpost");
    });

    it("replaces a credential from the buyer's page, showing only fingerprints, and refuses a bad form without echoing the value", async () => {
      const replacement = "acme-rotated-key-456";
      const oldFingerprint = secretFingerprint(ACME_KEY);
      const replaced = await post(ops.agent, "/buyers/acmeform/credentials", { name: "key", value: replacement, _csrf: ops.csrf });
      expect(replaced.status).toBe(303);
      secretsShown.push(replacement);
      expect(buyerNow("acmeform")!.credentials).toEqual({ key: replacement });
      expect(actions("set_credential").at(-1)).toMatchObject({ user: OPS.name, target: "acmeform", outcome: "done", credential: "key", replaced: true });
      const page = await get(ops.agent, "/buyers/acmeform");
      const view = lastView<BuyerDetailView>("buyer");
      expect(view.flash?.text).toBe("Replaced the credential key of acmeform.");
      expect(view.history[0]).toMatchObject({ action: "rotate_credential", sentences: [`Credential key replaced by olivia (now ${secretFingerprint(replacement)}, was ${oldFingerprint}).`] });
      expect(page.text).not.toContain(replacement);
      expect(page.text).toContain(secretFingerprint(replacement));
      // The history row holds fingerprints only.
      const stored = await getBuyer(db.builder, "acmeform");
      expect(stored!.entry.credentials).toEqual({ key: replacement });
      expect(rawLogs.join("")).not.toContain(replacement);

      const bad = await post(ops.agent, "/buyers/acmeform/credentials", { name: "no spaces please", value: "a-new-value-not-to-echo", _csrf: ops.csrf });
      expect(bad.status).toBe(422);
      expect(lastView<BuyerDetailView>("buyer").credentialForm).toEqual({ name: "no spaces please", errors: { name: "1 to 40 letters, digits, . _ and -." } });
      expect(problemsIn(bad.text).name).toContain("1 to 40 letters");
      expect(bad.text).not.toContain("a-new-value-not-to-echo");
      const empty = await post(ops.agent, "/buyers/acmeform/credentials", { name: "key", value: "", _csrf: ops.csrf });
      expect(empty.status).toBe(422);
      expect(problemsIn(empty.text).value).toContain("Enter the new value.");
      expect(buyerNow("acmeform")!.credentials).toEqual({ key: replacement });
    });

    it("previews the masked request for the newest lead or the one asked for, and says which value a lead lacks", async () => {
      const lead = await leadStore(leadRepository(db)).create(sampleNewLead({ sid: "fb01", tid: "t-preview" }), () => ({ deliveries: [] }));
      if (!lead.created) throw new Error("expected a new lead");
      const stored = await leadRepository(db).findByReference(lead.reference);
      const page = await get(ops.agent, "/buyers/acmeform");
      const preview = lastView<BuyerDetailView>("buyer").preview!;
      expect(preview).toMatchObject({ reference: lead.reference, asked: lead.reference });
      const result = preview.stages[0]!.result;
      if (result.kind !== "request") throw new Error(`expected a request, got ${result.kind}`);
      expect(result.method).toBe("POST");
      expect(result.url).toMatch(/^https:\/\/acmeform\.example\/leads\?key=/);
      expect(result.headers).toContainEqual({ name: "content-type", value: expect.stringContaining("application/x-www-form-urlencoded") });
      const body = new URLSearchParams(result.body ?? "");
      expect(body.get("LeadID")).toBe(lead.reference);
      expect(body.get("SubID")).toBe("fb01");
      expect(body.get("State")).toBe("CA");
      expect(body.get("TCPA_Text")).toMatch(/^By ticking this box/);
      // No credential, no contact in clear.
      const shown = parseHtml(page.text).querySelector(".masked-request")!.text;
      const digits = stored!.phone.replace(/\D/g, "").slice(-10);
      for (const clear of ["acme-rotated-key-456", stored!.email, digits, stored!.streetAddress ?? "no street"]) {
        expect(JSON.stringify(preview), clear).not.toContain(clear);
        expect(shown, clear).not.toContain(clear);
      }
      expect(body.get("Email")).toMatch(/\*/);
      expect(parseHtml(page.text).querySelector("#preview-title")?.text).toBe(`What Acme Auto Agents would receive for lead ${lead.reference}`);

      // A lead without a sid, and a spec that needs one (no default): not sent, and which value.
      const strict = { ...ACME_POST, fields: ACME_POST.fields.map((field) => (field.to === "SubID" ? { to: "SubID", from: "source.sid" } : field)) };
      expect((await postSpec("acmeform", { "spec.post": json(strict) })).status).toBe(303);
      const bare = await leadStore(leadRepository(db)).create(sampleNewLead({ sid: undefined, tid: undefined }), () => ({ deliveries: [] }));
      if (!bare.created) throw new Error("expected a new lead");
      const missing = await get(ops.agent, `/buyers/acmeform?lead=${bare.reference.toLowerCase()}`);
      expect(lastView<BuyerDetailView>("buyer").preview!.stages[0]!.result).toEqual({ kind: "not_sent", missing: "source.sid", field: "SubID", why: null });
      expect(parseHtml(missing.text).querySelector(".not-sent")?.text).toContain("Not sent: the lead has no source.sid (the buyer's field SubID)");
      // The older lead, asked for by reference, still renders.
      await get(ops.agent, `/buyers/acmeform?lead=${lead.reference}`);
      expect(lastView<BuyerDetailView>("buyer").preview!.stages[0]!.result.kind).toBe("request");
      // A wrong reference is told beside the field.
      const wrong = await get(ops.agent, "/buyers/acmeform?lead=LD-NOPE");
      expect(lastView<BuyerDetailView>("buyer").preview).toMatchObject({ error: "A lead reference looks like LD-7K3M-Q9XD.", stages: [] });
      expect(problemsIn(wrong.text).lead).toContain("LD-7K3M-Q9XD");

      // A ping/post buyer: the ping (no contact) and the post with a stand-in bid id.
      await get(ops.agent, `/buyers/cobaltx?lead=${lead.reference}`);
      const cobalt = lastView<BuyerDetailView>("buyer").preview!;
      const [postStage, pingStage] = cobalt.stages;
      if (postStage?.result.kind !== "request" || pingStage?.result.kind !== "request") throw new Error("expected two requests");
      expect(JSON.parse(pingStage.result.body!)).toMatchObject({ state: "CA", vehicle_count: expect.any(Number) });
      expect(pingStage.result.headers).toContainEqual({ name: "x-api-key", value: expect.not.stringContaining(EXAMPLE_CREDENTIALS.cobalt.apiKey) });
      expect(JSON.parse(postStage.result.body!)).toMatchObject({ bid_id: "BID-PREVIEW" });
      expect(cobalt.notes[0]).toContain("stand in");

      // A buyer with our signed JSON has nothing of its own to preview.
      await get(ops.agent, "/buyers/harbor");
      expect(lastView<BuyerDetailView>("buyer").preview).toBeUndefined();
    });

    it("shows analysts the spec and credential names and fingerprints, never a value, a form or the preview", async () => {
      const page = await get(analyst.agent, "/buyers/acmeform");
      expect(page.status).toBe(200);
      const view = lastView<BuyerDetailView>("buyer");
      expect(view.preview).toBeUndefined();
      expect(view.spec.credentials).toEqual([{ name: "key", fingerprint: secretFingerprint("acme-rotated-key-456"), usedBy: ["post"] }]);
      expect(view.spec.stages[0]!.fields.length).toBeGreaterThan(10);
      expect(parseHtml(page.text).querySelectorAll("form").map((form) => form.getAttribute("action"))).toEqual(["/sign-out"]);
      for (const url of ["/buyers/acmeform/spec", "/buyers/acmeform/credentials"]) {
        const refused = await post(analyst.agent, url, { name: "key", value: "analyst-tries", "spec.post": "", revision: "1", _csrf: analyst.csrf });
        expect(refused.status, url).toBe(403);
      }
      expect(buyerNow("acmeform")!.credentials).toEqual({ key: "acme-rotated-key-456" });
      // Without the session's CSRF token, ops are refused too.
      expect((await post(ops.agent, "/buyers/acmeform/credentials", { name: "key", value: "no-csrf-value" })).status).toBe(403);
      expect((await post(ops.agent, "/buyers/acmeform/spec", { "spec.post": "", revision: "1" })).status).toBe(403);
      expect(buyerNow("acmeform")!.spec?.post).toBeDefined();
    });
  });

  describe("sources", () => {
    it("creates, lists, edits with a revision check and archives a source, with its history", async () => {
      expect((await get(ops.agent, "/sources/new")).status).toBe(200);
      const bad = await post(ops.agent, "/sources", { sid: "fb 01", payout: "-1", postbackUrl: "https://track.example/pb", _csrf: ops.csrf });
      expect(bad.status).toBe(422);
      expect(Object.keys(lastView<SourceFormView>("source-form").errors).sort()).toEqual(["payout", "postbackUrl", "sid"]);
      expect(problemsIn(bad.text).postbackUrl).toContain("{tid}");
      const metadata = await post(ops.agent, "/sources", { sid: "fb01", payout: "1", postbackUrl: "https://169.254.169.254/latest/meta-data/?tid={tid}", _csrf: ops.csrf });
      expect(metadata.status).toBe(422);
      expect(problemsIn(metadata.text).postbackUrl).toMatch(/link-local/);

      const created = await post(ops.agent, "/sources", { sid: "fb01", name: "Facebook", payout: "8", floor: "10", postbackUrl: "https://track.example/pb?tid={tid}", _csrf: ops.csrf });
      expect(created.status).toBe(303);
      expect(created.headers.location).toBe("/sources/fb01");
      expect(settings.current().sources.find((source) => source.sid === "fb01")).toMatchObject({ payout: 8, floor: 10, status: "active" });
      expect(actions("create_source").at(-1)).toMatchObject({ target: "fb01", outcome: "done" });
      const taken = await post(ops.agent, "/sources", { sid: "fb01", payout: "8", _csrf: ops.csrf });
      expect(taken.status).toBe(422);

      const list = await get(ops.agent, "/sources");
      expect(lastView<SourcesView>("sources").sources).toContainEqual({ sid: "fb01", name: "Facebook", status: "active", payout: 8, floor: 10, postbackUrl: "https://track.example/pb?tid={tid}" });
      expect(parseHtml(list.text).querySelector('[data-sid="fb01"]')?.text).toContain("$8.00");

      await get(ops.agent, "/sources/fb01/edit");
      const form = lastView<SourceFormView>("source-form");
      const revision = String(form.revision);
      expect((await post(ops.agent, "/sources/fb01", { ...form.values, payout: "9", revision, _csrf: ops.csrf })).status).toBe(303);
      expect(settings.current().sources.find((source) => source.sid === "fb01")!.payout).toBe(9);
      const stale = await post(ops.agent, "/sources/fb01", { ...form.values, payout: "11", revision, _csrf: ops.csrf });
      expect(stale.status).toBe(409);
      expect(lastView<SourceFormView>("source-form").conflict).toEqual({ currentRevision: Number(revision) + 1 });
      expect(actions("update_source").map((line) => line.outcome)).toEqual(["done", "conflict"]);

      expect((await post(ops.agent, "/sources/fb01/status", { status: "archived", _csrf: ops.csrf })).status).toBe(303);
      expect(settings.current().sources.find((source) => source.sid === "fb01")!.status).toBe("archived");
      const detail = await get(ops.agent, "/sources/fb01");
      expect(detail.status).toBe(200);
      const view = lastView<SourceDetailView>("source");
      expect(view.history.map((row) => row.action)).toEqual(["archive", "update", "create"]);
      expect(view.history[1]!.sentences).toEqual(["Payout per sold lead changed from $8.00 to $9.00 by olivia."]);
      expect(view.history[0]!.sentences).toEqual(["Archived by olivia."]);
      expect(parseHtml(detail.text).querySelectorAll(".history-table tbody tr")).toHaveLength(3);
      expect(actions("set_source_status").at(-1)).toMatchObject({ target: "fb01", status: "archived", outcome: "done" });
    });
  });

  describe("analysts and CSRF", () => {
    it("shows analysts every buyer and source page, no form to change them and no secret", async () => {
      expect(secretsShown.length).toBeGreaterThan(3);
      for (const url of ["/buyers", "/buyers/lakeside", "/buyers/crest", "/buyers/ridge", "/buyers/acmeform", "/buyers/cobaltx", "/sources", "/sources/fb01"]) {
        const response = await get(analyst.agent, url);
        expect(response.status, url).toBe(200);
        for (const secret of secretsShown) expect(response.text, url).not.toContain(secret);
        // Only the sign-out form.
        expect(parseHtml(response.text).querySelectorAll("form").map((form) => form.getAttribute("action")), url).toEqual(["/sign-out"]);
      }
      for (const url of ["/buyers/new", "/buyers/lakeside/edit", "/sources/new", "/sources/fb01/edit"]) expect((await get(analyst.agent, url)).status, url).toBe(403);
    });

    it("answers 403 to every change an analyst posts, and changes nothing", async () => {
      const version = settings.current().version;
      const posts: [string, Form][] = [
        ["/buyers", buyerForm("analysts")],
        ["/buyers/lakeside", { ...buyerForm("lakeside"), revision: "1" }],
        ["/buyers/lakeside/status", { status: "paused" }],
        ["/buyers/lakeside/status", { status: "archived", confirm: "yes" }],
        ["/buyers/lakeside/rotate-secret", { overlapHours: "1" }],
        ["/sources", { sid: "an01", payout: "1" }],
        ["/sources/fb01", { sid: "fb01", payout: "1", revision: "1" }],
        ["/sources/fb01/status", { status: "active" }],
      ];
      for (const [url, form] of posts) {
        const response = await post(analyst.agent, url, { ...form, _csrf: analyst.csrf });
        expect(response.status, url).toBe(403);
        for (const secret of secretsShown) expect(response.text).not.toContain(secret);
      }
      expect(settings.current().version).toBe(version);
      expect(logs.filter((line) => line.event === "admin_forbidden" && line.user === ANALYST.name).length).toBeGreaterThanOrEqual(posts.length);
    });

    it("refuses a change without the session's CSRF token", async () => {
      const version = settings.current().version;
      for (const [url, form] of [
        ["/buyers", buyerForm("nocsrf")],
        ["/buyers/lakeside/status", { status: "paused" }],
        ["/buyers/lakeside/rotate-secret", { overlapHours: "1" }],
        ["/sources", { sid: "nocsrf", payout: "1" }],
      ] as const) {
        const missing = await post(ops.agent, url, form);
        expect(missing.status, url).toBe(403);
        const wrong = await post(ops.agent, url, { ...form, _csrf: "not-the-token" });
        expect(wrong.status, url).toBe(403);
      }
      expect(settings.current().version).toBe(version);
      expect(buyerNow("lakeside")!.status).toBe("active");
      expect(logs.filter((line) => line.event === "csrf_rejected").length).toBeGreaterThanOrEqual(8);
    });
  });
});
