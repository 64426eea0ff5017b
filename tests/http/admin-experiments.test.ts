/**
 * A/B experiments from the operations console (issue 45, item 1), against both stores, through the
 * real admin app, the React renderer and a real settings directory over the test database: create
 * → list → edit → start → stop → the kill switch; 422s with each problem beside its field (shares
 * that do not add up to 100, a value a page cannot show, a clash with another experiment); 409 on a
 * stale form; analysts read but change nothing; CSRF; and every change moves the settings' version,
 * so a second replica's directory (polling, never told) runs on it within seconds.
 */
import { parse as parseHtml } from "node-html-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAdminApp } from "../../server/admin/app";
import { analyticsReports } from "../../server/admin/reports";
import { openSettingsDirectory, type SettingsDirectory } from "../../server/settings/directory";
import { settingsHistory, settingsVersion } from "../../server/settings/store";
import { renderAdmin } from "../../client/entry-server";
import type { AdminView, ExperimentDetailView, ExperimentFormView, ExperimentsStopAllView, ExperimentsView } from "../../shared/admin-views";
import { allStores, type TestDatabase } from "../support/databases";
import type { LogLine } from "../support/app";
import { captureLogs } from "../support/log-capture";
import { addUsers, adminRequests, capturingRenderAdmin, type Agent, type Form } from "../support/admin-agent";

const SECRET = "experiments-test-secret-experiments-test";
const OPS = { name: "olivia", password: "olivia's long password" };
const ANALYST = { name: "andy", password: "andy's long password!" };
/** Issue 45: "Stopping one, or a kill switch, sends everyone to the control within seconds." */
const WITHIN_MS = 5_000;

/** A valid experiment as the form sends it: a control and one variant changing the headline. */
const experimentForm = (id: string, extra: Form = {}): Form => ({
  id,
  name: `Experiment ${id}`,
  hypothesis: "A shorter headline gets more visitors to enter their ZIP code.",
  primaryMetric: "net_revenue_per_visitor",
  sids: "",
  startAt: "2026-01-01T09:00",
  stopAt: "",
  "variants.0.id": "control",
  "variants.0.name": "Control",
  "variants.0.share": "50",
  "variants.1.id": "short",
  "variants.1.name": "Short headline",
  "variants.1.share": "50",
  "variants.1.values.landing.headline": "Cheaper car insurance, fast",
  ...extra,
});

describe.each(allStores())("experiments in the console ($kind)", (store) => {
  let db: TestDatabase;
  /** The console's replica: refreshed by the console after each change. */
  let settings: SettingsDirectory;
  /** Another replica: only its own poll tells it anything. */
  let replica: SettingsDirectory;
  let app: ReturnType<typeof createAdminApp>;
  let logs: LogLine[] = [];
  const views: AdminView[] = [];
  let ops: { agent: Agent; csrf: string };
  let analyst: { agent: Agent; csrf: string };
  const { get, post, signedIn } = adminRequests(() => app);

  const lastView = <V extends AdminView>(page: V["page"]): V => {
    const view = [...views].reverse().find((candidate) => candidate.page === page);
    if (!view) throw new Error(`no ${page} view rendered`);
    return view as V;
  };
  const actions = (action: string) => logs.filter((line) => line.event === "admin_action" && line.action === action);
  const onReplica = (id: string) => replica.current().experiments.find((experiment) => experiment.id === id);
  /** Each problem the HTML shows beside a field: the field's name and the text that describes it. */
  function problemsIn(html: string): Record<string, string> {
    const document = parseHtml(html);
    const problems: Record<string, string> = {};
    for (const control of document.querySelectorAll('[aria-invalid="true"]')) {
      const described = (control.getAttribute("aria-describedby") ?? "").split(" ").filter(Boolean);
      problems[control.getAttribute("name") ?? control.id] = described.map((id) => document.getElementById(id)?.text ?? "").join(" ").trim();
    }
    return problems;
  }
  /** The group (fieldset) problem under its legend: "variants", "variants.2". */
  const groupProblem = (html: string, name: string) => parseHtml(html).getElementById(`f-${name.replace(/[^A-Za-z0-9_-]/g, "-")}-error`)?.text.trim();

  beforeAll(async () => {
    db = await store.open();
    await addUsers(db, [{ ...OPS, role: "ops" }, { ...ANALYST, role: "analyst" }]);
    const captured = captureLogs({ LOG_LEVEL: "debug", NODE_ENV: "production" });
    logs = captured.lines;
    // Not started: a page shows a change only if the console's own refresh() applied it.
    settings = await openSettingsDirectory({ db: db.builder, logger: captured.logger, pollMs: 60_000 });
    replica = await openSettingsDirectory({ db: db.builder, logger: captured.logger, pollMs: 50 });
    replica.start();
    app = createAdminApp({
      config: { ADMIN_SESSION_HOURS: 12, REPORT_TIME_ZONE: "America/New_York", NODE_ENV: "production" },
      logger: captured.logger,
      db,
      renderAdmin: capturingRenderAdmin(async () => renderAdmin, views),
      secret: SECRET,
      reports: analyticsReports,
      settings,
      now: () => new Date("2026-03-01T12:00:00Z"),
    });
    ops = await signedIn(OPS);
    analyst = await signedIn(ANALYST);
  });
  afterAll(async () => {
    settings?.stop();
    replica?.stop();
    await db?.close();
  });

  it("lists no experiment at first, under Experiments in the navigation, with the way to make one", async () => {
    const page = await get(ops.agent, "/experiments");
    expect(page.status).toBe(200);
    expect(lastView<ExperimentsView>("experiments")).toMatchObject({ experiments: [], configured: true, running: 0 });
    const html = parseHtml(page.text);
    expect(html.querySelector('nav a[href="/experiments"]')?.getAttribute("aria-current")).toBe("page");
    expect(html.querySelector('a[href="/experiments/new"]')?.text).toBe("New experiment");
  });

  it("offers a form whose every control is labelled, typed by the knob, with no knob fields for the control", async () => {
    const page = await get(ops.agent, "/experiments/new");
    expect(page.status).toBe(200);
    const html = parseHtml(page.text);
    const controls = html.querySelectorAll("form.settings-form input:not([type=hidden]), form.settings-form select, form.settings-form textarea");
    expect(controls.length).toBeGreaterThan(30);
    for (const control of controls) expect(html.querySelector(`label[for="${control.id}"]`), control.getAttribute("name") ?? "").not.toBeNull();
    expect(html.querySelectorAll('[name^="variants.0.values."]')).toHaveLength(0);
    expect(html.querySelector('[name="variants.4.values.landing.headline"]')?.getAttribute("type")).toBe("text");
    expect(html.querySelector('select[name="variants.4.values.landing.carrierLogos"]')?.querySelectorAll("option").map((option) => option.getAttribute("value"))).toEqual(["", "yes", "no"]);
    expect(html.querySelector('[name="startAt"]')?.getAttribute("type")).toBe("datetime-local");
    expect(html.querySelector('[name="startAt"]')?.getAttribute("value")).toBe("2026-03-01T12:00");
  });

  it("refuses shares that do not add up to 100 and values a page cannot show (422), each beside its field, saving nothing", async () => {
    const version = await settingsVersion(db.builder);
    const response = await post(ops.agent, "/experiments", {
      ...experimentForm("bad", { "variants.1.share": "40", "variants.1.values.landing.headline": "<b>Cheap</b> car insurance" }),
      "variants.2.id": "arrow",
      "variants.2.name": "Arrow",
      "variants.2.share": "10",
      "variants.2.values.landing.buttonText": "Go →",
      "variants.3.id": "nothing",
      "variants.3.name": "Changes nothing",
      "variants.3.share": "5",
      startAt: "next tuesday",
      _csrf: ops.csrf,
    });
    expect(response.status).toBe(422);
    const view = lastView<ExperimentFormView>("experiment-form");
    expect(view.errors).toEqual({
      variants: "The variants' shares add up to 105, not 100.",
      "variants.1.values.landing.headline": "Plain text, one line.",
      "variants.2.values.landing.buttonText": "Plain text, one line, without the arrow (the page adds it).",
      "variants.3": "A variant changes at least one thing.",
      startAt: "Enter a date and time in UTC, like 2026-05-01T09:00.",
    });
    const problems = problemsIn(response.text);
    expect(problems["variants.1.values.landing.headline"]).toContain("Plain text, one line.");
    expect(problems["variants.2.values.landing.buttonText"]).toContain("without the arrow");
    expect(problems.startAt).toContain("Enter a date and time in UTC");
    expect(groupProblem(response.text, "variants")).toContain("add up to 105, not 100");
    expect(groupProblem(response.text, "variants.3")).toContain("changes at least one thing");
    // The form comes back as it was sent, and the summary links each problem to its field.
    expect(parseHtml(response.text).querySelector('[name="variants.2.values.landing.buttonText"]')?.getAttribute("value")).toBe("Go →");
    expect(parseHtml(response.text).querySelectorAll(".form-errors a").map((link) => link.getAttribute("href"))).toContain("#f-variants-2-values-landing-buttonText");
    expect(await settingsVersion(db.builder)).toBe(version);
    expect(actions("create_experiment").at(-1)).toMatchObject({ outcome: "invalid", user: "olivia" });
  });

  it("creates a draft, applies it at once, lists it with its shares, changes, sources and a link to its results, and another replica loads it", async () => {
    const version = await settingsVersion(db.builder);
    const created = await post(ops.agent, "/experiments", { ...experimentForm("headline", { sids: "fb, tiktok" }), _csrf: ops.csrf });
    expect(created.status).toBe(303);
    expect(created.headers.location).toBe("/experiments/headline");
    expect(await settingsVersion(db.builder)).toBeGreaterThan(version);
    expect(settings.current().experiments.map((experiment) => [experiment.id, experiment.status])).toEqual([["headline", "draft"]]);
    await expect.poll(() => onReplica("headline")?.status, { timeout: WITHIN_MS }).toBe("draft");

    const detail = await get(ops.agent, "/experiments/headline");
    expect(detail.status).toBe(200);
    expect(parseHtml(detail.text).querySelector(".flash")?.text).toContain("Created experiment headline as a draft");
    expect(lastView<ExperimentDetailView>("experiment").history.map((row) => row.sentences[0])).toEqual(["Created by olivia as a draft experiment."]);

    const list = await get(ops.agent, "/experiments");
    const row = parseHtml(list.text).querySelector('tr[data-experiment="headline"]')!;
    expect(row.text).toContain("Experiment headline");
    expect(row.text).toContain("Draft");
    expect(row.text).toContain("control 50% · short 50%");
    expect(row.text).toContain("Landing page headline");
    expect(row.text).toContain("fb, tiktok");
    expect(row.text).toContain("2026-01-01 09:00:00 UTC");
    expect(row.querySelector('a[href="/experiments/headline/results"]')).not.toBeNull();
    expect(actions("create_experiment").at(-1)).toMatchObject({ outcome: "done", target: "headline" });
  });

  it("edits it with its revision, and refuses a form read before someone else's save (409)", async () => {
    const form = await get(ops.agent, "/experiments/headline/edit");
    expect(form.status).toBe(200);
    const edit = lastView<ExperimentFormView>("experiment-form");
    expect(edit).toMatchObject({ mode: "edit", key: "headline", revision: 1, values: { sids: "fb, tiktok", "variants.1.values.landing.headline": "Cheaper car insurance, fast" } });
    const saved = await post(ops.agent, "/experiments/headline", { ...experimentForm("headline", { name: "Shorter headline", sids: "fb, tiktok", "variants.0.share": "40", "variants.1.share": "60" }), revision: "1", _csrf: ops.csrf });
    expect(saved.status).toBe(303);
    expect(settings.current().experiments[0]).toMatchObject({ name: "Shorter headline", variants: [{ share: 40 }, { share: 60 }] });
    const stale = await post(ops.agent, "/experiments/headline", { ...experimentForm("headline", { name: "Someone else's" }), revision: "1", _csrf: ops.csrf });
    expect(stale.status).toBe(409);
    expect(lastView<ExperimentFormView>("experiment-form").conflict).toEqual({ currentRevision: 2 });
    expect(settings.current().experiments[0]!.name).toBe("Shorter headline");
    await get(ops.agent, "/experiments/headline");
    expect(lastView<ExperimentDetailView>("experiment").history[0]!.sentences).toEqual([
      "Name changed from “Experiment headline” to “Shorter headline” by olivia.",
      "Variant control share changed from 50% to 40% by olivia.",
      "Variant short share changed from 50% to 60% by olivia.",
    ]);
  });

  it("starts it: live on this replica at once and on the other within seconds", async () => {
    const started = await post(ops.agent, "/experiments/headline/status", { status: "running", _csrf: ops.csrf });
    expect(started.status).toBe(303);
    expect(settings.current().experiments[0]!.status).toBe("running");
    await expect.poll(() => onReplica("headline")?.status, { timeout: WITHIN_MS }).toBe("running");
    const page = await get(ops.agent, "/experiments/headline");
    expect(parseHtml(page.text).querySelector(".flash")?.text).toContain("Started headline: live since 2026-01-01 09:00 UTC");
    expect(lastView<ExperimentDetailView>("experiment").experiment).toMatchObject({ status: "running", state: "live" });
    expect(actions("set_experiment_status").at(-1)).toMatchObject({ outcome: "done", status: "running", target: "headline" });
  });

  it("refuses a second experiment changing the same thing for overlapping sources, naming the field and the other experiment", async () => {
    const response = await post(ops.agent, "/experiments", { ...experimentForm("clash", { sids: "tiktok google" }), _csrf: ops.csrf });
    expect(response.status).toBe(422);
    expect(lastView<ExperimentFormView>("experiment-form").errors).toEqual({ "variants.1.values.landing.headline": "Experiment headline already changes landing page headline for the same traffic." });
    expect(problemsIn(response.text)["variants.1.values.landing.headline"]).toContain("Experiment headline already changes landing page headline");
    // Another source only: no clash.
    expect((await post(ops.agent, "/experiments", { ...experimentForm("google-only", { sids: "google" }), _csrf: ops.csrf })).status).toBe(303);
  });

  it("edits a started experiment's name, hypothesis and stop only, showing the rest as it is", async () => {
    await get(ops.agent, "/experiments/headline/edit");
    const view = lastView<ExperimentFormView>("experiment-form");
    expect(view.started).toMatchObject({ id: "headline", status: "running" });
    const fields = parseHtml((await get(ops.agent, "/experiments/headline/edit")).text).querySelectorAll("form.settings-form [name]").map((field) => field.getAttribute("name"));
    expect(fields.filter((name) => !["_csrf", "revision"].includes(name ?? ""))).toEqual(["name", "hypothesis", "stopAt"]);
    const saved = await post(ops.agent, "/experiments/headline", { name: "Shorter headline", hypothesis: "Shorter headlines get more ZIP codes entered on phones.", stopAt: "2026-04-01T00:00", "variants.1.share": "99", revision: "3", _csrf: ops.csrf });
    expect(saved.status).toBe(303);
    expect(settings.current().experiments[0]).toMatchObject({ stopAt: "2026-04-01T00:00:00.000Z", variants: [{ share: 40 }, { share: 60 }] });
  });

  it("stops it: everyone sees the control on both replicas within seconds", async () => {
    const stopped = await post(ops.agent, "/experiments/headline/status", { status: "stopped", _csrf: ops.csrf });
    expect(stopped.status).toBe(303);
    expect(settings.current().experiments[0]!.status).toBe("stopped");
    await expect.poll(() => onReplica("headline")?.status, { timeout: WITHIN_MS }).toBe("stopped");
    await get(ops.agent, "/experiments/headline");
    expect(lastView<ExperimentDetailView>("experiment").history[0]!.sentences[0]).toBe("Stopped by olivia: everyone sees the control.");
  });

  it("stops every running experiment with the kill switch, after a page that names them", async () => {
    expect((await post(ops.agent, "/experiments/google-only/status", { status: "running", _csrf: ops.csrf })).status).toBe(303);
    expect((await post(ops.agent, "/experiments", { ...experimentForm("logos", { "variants.1.values.landing.headline": "", "variants.1.values.landing.carrierLogos": "no" }), _csrf: ops.csrf })).status).toBe(303);
    expect((await post(ops.agent, "/experiments/logos/status", { status: "running", _csrf: ops.csrf })).status).toBe(303);
    await expect.poll(() => replica.current().experiments.filter((experiment) => experiment.status === "running").length, { timeout: WITHIN_MS }).toBe(2);

    const list = await get(ops.agent, "/experiments");
    expect(parseHtml(list.text).querySelector('form[action="/experiments/stop-all"] button')?.text).toBe("Stop every experiment");
    const asked = await post(ops.agent, "/experiments/stop-all", { _csrf: ops.csrf });
    expect(asked.status).toBe(200);
    expect(lastView<ExperimentsStopAllView>("experiments-stop-all").running.map((experiment) => experiment.id)).toEqual(["google-only", "logos"]);
    expect(settings.current().experiments.filter((experiment) => experiment.status === "running")).toHaveLength(2);

    const done = await post(ops.agent, "/experiments/stop-all", { confirm: "yes", _csrf: ops.csrf });
    expect(done.status).toBe(303);
    expect(done.headers.location).toBe("/experiments");
    expect(settings.current().experiments.filter((experiment) => experiment.status === "running")).toEqual([]);
    await expect.poll(() => replica.current().experiments.filter((experiment) => experiment.status === "running").length, { timeout: WITHIN_MS }).toBe(0);
    const after = await get(ops.agent, "/experiments");
    expect(parseHtml(after.text).querySelector(".flash")?.text).toContain("Stopped 2 experiments (google-only, logos)");
    expect((await settingsHistory(db.builder, "experiment", "logos"))[0]).toMatchObject({ action: "stop_all", actor: "console:olivia" });
    expect(actions("stop_all_experiments").at(-1)).toMatchObject({ outcome: "done", stopped: 2 });
  });

  it("shows analysts the list and each experiment, no form, and refuses every change they post (403)", async () => {
    const list = await get(analyst.agent, "/experiments");
    expect(list.status).toBe(200);
    expect(parseHtml(list.text).querySelector('a[href="/experiments/new"]')).toBeNull();
    expect(parseHtml(list.text).querySelector('form[action="/experiments/stop-all"]')).toBeNull();
    expect(parseHtml(list.text).querySelectorAll('tr[data-experiment] a[href$="/results"]')).toHaveLength(3);
    const detail = await get(analyst.agent, "/experiments/headline");
    expect(detail.status).toBe(200);
    expect(parseHtml(detail.text).querySelector('a[href="/experiments/headline/edit"]')).toBeNull();
    for (const url of ["/experiments/new", "/experiments/headline/edit"]) expect((await get(analyst.agent, url)).status, url).toBe(403);
    const version = await settingsVersion(db.builder);
    for (const [url, form] of [
      ["/experiments", experimentForm("analysts")],
      ["/experiments/headline", { ...experimentForm("headline"), revision: "5" }],
      ["/experiments/headline/status", { status: "running" }],
      ["/experiments/stop-all", { confirm: "yes" }],
    ] as const) {
      expect((await post(analyst.agent, url, { ...form, _csrf: analyst.csrf })).status, url).toBe(403);
    }
    expect(await settingsVersion(db.builder)).toBe(version);
  });

  it("refuses a change without the session's CSRF token (403)", async () => {
    expect((await post(ops.agent, "/experiments/headline/status", { status: "running" })).status).toBe(403);
    expect((await post(ops.agent, "/experiments/headline/status", { status: "running", _csrf: "forged" })).status).toBe(403);
    expect(settings.current().experiments[0]!.status).toBe("stopped");
  });
});
