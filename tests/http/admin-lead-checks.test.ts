/**
 * Issue 44 in the console, on both stores, through the real admin app, the real React renderer
 * and a settings directory over the test database: a buyer's requirements saved from the form and
 * read back (the edit form, the buyer's page in words, the history), a wrong requirement refused
 * with 422 beside its field; a lead's Checks section from its lead_checks rows for ops and
 * analysts alike, the sentence when none ran, and a requirement's reason in the Offers section.
 */
import path from "node:path";
import { parse as parseHtml } from "node-html-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAdminApp } from "../../server/admin/app";
import { analyticsReports } from "../../server/admin/reports";
import { renderAdminFrom } from "../../server/admin/render-source";
import { loadProductionBuild } from "../../server/pages/render-source";
import { registerDisclosure } from "../../server/consent/disclosures";
import { disclosureFor } from "../../server/leads/disclosure";
import { leadRepository } from "../../server/db/leads";
import { leadCheckRepository } from "../../server/db/lead-checks";
import { leadStore } from "../../server/leads/store";
import { openSettingsDirectory, type SettingsDirectory } from "../../server/settings/directory";
import { getBuyer } from "../../server/settings/store";
import type { AdminView, BuyerDetailView, BuyerFormView, LeadsView } from "../../shared/admin-views";
import { projectRoot } from "../../tools/production-server";
import { sampleNewLead } from "../../tools/lead-session";
import { allStores, type TestDatabase } from "../support/databases";
import { captureLogs } from "../support/log-capture";
import { adminRequests, capturingRenderAdmin, type Agent, type Form, addUsers } from "../support/admin-agent";

const SECRET = "lead-checks-test-secret-lead-checks-test";
const OPS = { name: "olivia", password: "olivia's long password" };
const ANALYST = { name: "andy", password: "andy's long password!" };

const buyerForm = (id: string, extra: Form = {}): Form => ({ id, name: `Buyer ${id}`, mode: "post", url: `https://${id}.example/leads`, price: "12", ...extra });
const REQUIREMENTS: Form = {
  "requirements.trustedForm": "retained",
  "requirements.leadid": "token",
  "requirements.litigatorClean": "yes",
  "requirements.noDnc": "yes",
  "requirements.lineTypes": ["mobile", "landline"],
  "requirements.whenUnavailable": "wait",
};

describe.each(allStores())("lead checks and buyers' requirements in the console ($kind)", (store) => {
  let db: TestDatabase;
  let settings: SettingsDirectory;
  let app: ReturnType<typeof createAdminApp>;
  const views: AdminView[] = [];
  let ops: { agent: Agent; csrf: string };
  let analyst: { agent: Agent; csrf: string };
  const lastView = <V extends AdminView>(page: V["page"]): V => {
    const view = [...views].reverse().find((candidate) => candidate.page === page);
    if (!view) throw new Error(`no ${page} view rendered`);
    return view as V;
  };
  const { get, post, signedIn } = adminRequests(() => app);

  /** Problems of the HTML form: each invalid control's name and the text of what describes it. */
  function problemsIn(html: string): Record<string, string> {
    const document = parseHtml(html);
    const problems: Record<string, string> = {};
    for (const control of document.querySelectorAll('[aria-invalid="true"]')) {
      const described = (control.getAttribute("aria-describedby") ?? "").split(" ").filter(Boolean);
      problems[control.getAttribute("name") ?? control.id] = described.map((id) => document.getElementById(id)?.text ?? "").join(" ").trim();
    }
    return problems;
  }

  beforeAll(async () => {
    db = await store.open();
    await registerDisclosure(db.builder, disclosureFor(undefined));
    await addUsers(db, [{ ...OPS, role: "ops" }, { ...ANALYST, role: "analyst" }]);
    const captured = captureLogs({ LOG_LEVEL: "warn", NODE_ENV: "production" });
    settings = await openSettingsDirectory({ db: db.builder, logger: captured.logger, pollMs: 60_000 });
    const renderAdmin = capturingRenderAdmin(renderAdminFrom((await loadProductionBuild(path.join(projectRoot, "dist"))).source), views);
    app = createAdminApp({ logger: captured.logger, db, renderAdmin, secret: SECRET, reports: analyticsReports, settings, config: { ADMIN_SESSION_HOURS: 12, REPORT_TIME_ZONE: "America/New_York", NODE_ENV: "production" } });
    ops = await signedIn(OPS);
    analyst = await signedIn(ANALYST);
  });
  afterAll(async () => {
    settings?.stop();
    await db?.close();
  });

  it("saves a buyer's requirements from the form and reads them back on the edit form, its page and its history", async () => {
    const created = await post(ops.agent, "/buyers", { ...buyerForm("vetted", REQUIREMENTS), _csrf: ops.csrf });
    expect(created.status, created.text.slice(0, 300)).toBe(201);
    const stored = await getBuyer(db.builder, "vetted");
    expect(stored?.entry.requirements).toEqual({ trustedForm: "retained", leadid: "token", litigatorClean: true, noDnc: true, lineTypes: ["mobile", "landline"], whenUnavailable: "wait" });
    expect(settings.current().buyers.find((buyer) => buyer.id === "vetted")?.requirements).toEqual(stored?.entry.requirements);

    // The edit form shows every value as saved.
    const edit = await get(ops.agent, "/buyers/vetted/edit");
    expect(edit.status).toBe(200);
    const form = lastView<BuyerFormView>("buyer-form");
    expect(Object.fromEntries(Object.entries(form.values).filter(([name]) => name.startsWith("requirements.")))).toEqual(REQUIREMENTS);
    const html = parseHtml(edit.text);
    expect(html.querySelector("fieldset#f-requirements legend")?.text).toBe("Requirements before a lead is sent");
    expect(html.querySelector('select[name="requirements.trustedForm"] option[selected]')?.getAttribute("value")).toBe("retained");
    expect(html.querySelector('select[name="requirements.leadid"] option[selected]')?.getAttribute("value")).toBe("token");
    expect(html.querySelector('select[name="requirements.whenUnavailable"] option[selected]')?.getAttribute("value")).toBe("wait");
    expect(html.querySelectorAll('#f-requirements input[type="checkbox"][checked]').map((input) => `${input.getAttribute("name") ?? ""}=${input.getAttribute("value") ?? ""}`)).toEqual([
      "requirements.litigatorClean=yes",
      "requirements.noDnc=yes",
      "requirements.lineTypes=mobile",
      "requirements.lineTypes=landline",
    ]);

    // Saved again as shown, with one requirement changed: only that one is in the history.
    const saved = await post(ops.agent, "/buyers/vetted", { ...form.values, "requirements.leadid": "authentic", "requirements.lineTypes": ["mobile"], revision: String(form.revision), _csrf: ops.csrf });
    expect(saved.status).toBe(303);
    expect((await getBuyer(db.builder, "vetted"))?.entry.requirements).toEqual({ trustedForm: "retained", leadid: "authentic", litigatorClean: true, noDnc: true, lineTypes: ["mobile"], whenUnavailable: "wait" });

    for (const user of [ops, analyst]) {
      const page = await get(user.agent, "/buyers/vetted");
      expect(page.status).toBe(200);
      const detail = lastView<BuyerDetailView>("buyer");
      const row = detail.settings.find((one) => one.label === "Requirements before a lead is sent");
      expect(row?.value).toBe(
        "TrustedForm: we retain the certificate · LeadiD: authentic · Phone not on the TCPA litigator list · Phone on no Do Not Call list (federal and the lead's state) · Line types: mobile · When a check has no answer: wait and try again",
      );
      expect(parseHtml(page.text).querySelector(".settings-list")?.text).toContain("Requirements before a lead is sentTrustedForm: we retain the certificate");
      expect(detail.history[0]?.sentences).toEqual(["Requirement LeadiD changed from a token is enough to authentic by olivia.", "Requirement Line types changed from mobile, landline to mobile by olivia."]);
    }
  });

  it("answers 422 with the problem beside the requirement's field, and saves nothing", async () => {
    const bad = await post(ops.agent, "/buyers", { ...buyerForm("shaky", { "requirements.trustedForm": "pinky-promise", "requirements.lineTypes": ["mobile", "satellite"] }), _csrf: ops.csrf });
    expect(bad.status).toBe(422);
    expect(lastView<BuyerFormView>("buyer-form").errors).toEqual({
      "requirements.trustedForm": "Choose one of: retained, certificate.",
      "requirements.lineTypes": "Choose one of: mobile, landline, fixedVoip, nonFixedVoip.",
    });
    const problems = problemsIn(bad.text);
    expect(problems["requirements.trustedForm"]).toContain("Choose one of: retained, certificate.");
    expect(problems["requirements.lineTypes"]).toContain("Choose one of: mobile, landline, fixedVoip, nonFixedVoip.");
    // The form comes back as sent.
    expect(parseHtml(bad.text).querySelector('input[name="requirements.lineTypes"][value="mobile"]')?.hasAttribute("checked")).toBe(true);

    // Waiting for an answer no provider gives: refused beside "When a check has no answer".
    const waiting = await post(ops.agent, "/buyers", { ...buyerForm("shaky", { "requirements.trustedForm": "certificate", "requirements.whenUnavailable": "wait" }), _csrf: ops.csrf });
    expect(waiting.status).toBe(422);
    expect(Object.keys(lastView<BuyerFormView>("buyer-form").errors)).toEqual(["requirements.whenUnavailable"]);
    expect(problemsIn(waiting.text)["requirements.whenUnavailable"]).toMatch(/Waiting is for a check a provider answers/);
    expect(await getBuyer(db.builder, "shaky")).toBeUndefined();
  });

  it("shows a lead's recorded checks to ops and analysts, and a requirement's reason beside the buyer's delivery", async () => {
    if (!settings.current().buyers.some((buyer) => buyer.id === "vetted")) {
      expect((await post(ops.agent, "/buyers", { ...buyerForm("vetted", REQUIREMENTS), _csrf: ops.csrf })).status).toBe(201);
    }
    const created = await leadStore(leadRepository(db)).create(sampleNewLead(), (lead) => ({
      deliveries: [{ kind: "buyer", target: "vetted", idempotencyKey: `${lead.reference}:vetted`, sale: true, price: 12, url: null, capDay: null }],
    }));
    if (!created.created) throw new Error("expected a new lead");
    const reference = created.reference;
    const checks = leadCheckRepository(db.builder);
    const started = new Date();
    const kinds = [
      { kind: "trustedform", provider: "trustedform" },
      { kind: "litigator", provider: "tcpa-litigator-list" },
      { kind: "line_type", provider: "twilio-lookup" },
    ];
    expect(await checks.claim(reference, kinds, started, new Date(started.getTime() - 60_000))).toEqual(new Set(kinds.map((one) => one.kind)));
    await checks.finish(
      reference,
      [
        { kind: "trustedform", provider: "trustedform", status: "ok", outcome: "retained", detail: "certificate retained", latencyMs: 412, cached: false, called: true },
        { kind: "litigator", provider: "tcpa-litigator-list", status: "ok", outcome: "listed", detail: "on the litigator list", latencyMs: 0, cached: true, called: false },
        { kind: "line_type", provider: "twilio-lookup", status: "unavailable", outcome: "timeout", detail: "no answer within 1500 ms", latencyMs: 1500, cached: false, called: true },
      ],
      new Date(started.getTime() + 1500),
    );
    // The delivery worker's record of a post the requirements held back.
    const reason = "requires a clean litigator check; the answer was listed";
    await db.builder.updateTable("deliveries").set({ status: "failed", lastError: `not sent: vetted ${reason}`, completedAt: new Date() }).where("leadReference", "=", reference).execute();

    for (const user of [ops, analyst]) {
      const response = await get(user.agent, `/leads?reference=${reference}`);
      expect(response.status).toBe(200);
      const view = lastView<LeadsView>("leads");
      expect(view.checks?.map((check) => [check.kindText, check.provider, check.statusText, check.outcome, check.latencyMs, check.cached])).toEqual([
        // Started together, so in the order of their kinds.
        ["Line type", "twilio-lookup", "no answer", "timeout", 1500, false],
        ["TCPA litigator", "tcpa-litigator-list", "answered", "listed", 0, true],
        ["TrustedForm certificate", "trustedform", "answered", "retained", 412, false],
      ]);
      const section = parseHtml(response.text).querySelector('section[aria-labelledby="checks"]');
      const rows = section?.querySelectorAll("tbody tr").map((row) => row.querySelectorAll("th, td").map((cell) => cell.text));
      expect(rows?.map((cells) => cells.slice(0, 6))).toEqual([
        ["Line type", "twilio-lookup", "no answer", "timeout: no answer within 1500 ms", "1500 ms", "—"],
        ["TCPA litigator", "tcpa-litigator-list", "answered", "listed: on the litigator list", "0 ms", "cached"],
        ["TrustedForm certificate", "trustedform", "answered", "retained: certificate retained", "412 ms", "—"],
      ]);
      // The Offers section says why the buyer did not get it, whole, to analysts too (our words, not the buyer's).
      expect(view.offers?.buyers.find((buyer) => buyer.buyerId === "vetted")).toMatchObject({ recorded: "delivery failed", requirement: reason });
      const offers = parseHtml(response.text).querySelector('section[aria-labelledby="offers"]');
      expect(offers?.querySelectorAll("tbody tr").find((row) => row.text.includes("vetted"))?.querySelectorAll("td").at(-1)?.text).toBe(`delivery failed: ${reason}`);
      // Ops also read it as the delivery's last error.
      if (user === ops) expect(response.text).toContain(`not sent: vetted ${reason}`);
    }
  });

  it("says no checks ran for a lead none was recorded for", async () => {
    const created = await leadStore(leadRepository(db)).create(sampleNewLead());
    if (!created.created) throw new Error("expected a new lead");
    const response = await get(analyst.agent, `/leads?reference=${created.reference}`);
    expect(response.status).toBe(200);
    expect(lastView<LeadsView>("leads").checks).toEqual([]);
    expect(parseHtml(response.text).querySelector('section[aria-labelledby="checks"] p')?.text).toBe("No checks ran: no buyer that could take this lead requires one.");
  });
});
