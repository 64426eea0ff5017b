/**
 * Experiments as business settings (server/settings/store.ts, issue 45 item 1) on both stores:
 * stored one row each with a revision, every change in settings_changes (kind experiment) with its
 * actor, part of the settings' version so another replica's directory loads them at its next poll;
 * a clash, a change to what a started experiment fixed and a stale edit refused with nothing saved;
 * start, stop and the kill switch; and the settings file's export and import carrying them.
 */
import pino from "pino";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { experimentSchema, type Experiment } from "../../server/experiments/schema";
import { openSettingsDirectory, type SettingsDirectory } from "../../server/settings/directory";
import {
  createExperiment,
  ExperimentRefusedError,
  exportSettings,
  getExperiment,
  ImportFileError,
  importSettings,
  loadSettings,
  setExperimentStatus,
  SettingsKeyError,
  settingsHistory,
  settingsVersion,
  StaleRevisionError,
  stopAllExperiments,
  updateExperiment,
} from "../../server/settings/store";
import { allStores, type TestDatabase } from "../support/databases";

const quiet = pino({ level: "silent" });

const experiment = (id: string, overrides: Record<string, unknown> = {}): Experiment =>
  experimentSchema.parse({
    id,
    name: `Experiment ${id}`,
    hypothesis: "A shorter headline gets more visitors to enter their ZIP code.",
    startAt: "2026-05-01T09:00:00.000Z",
    variants: [
      { id: "control", name: "Control", share: 50 },
      { id: "short", name: "Short headline", share: 50, values: { "landing.headline": "Cheaper car insurance, fast" } },
    ],
    ...overrides,
  });
const logos = (id: string, overrides: Record<string, unknown> = {}) => experiment(id, { variants: [{ id: "control", name: "Control", share: 50 }, { id: "none", name: "No logos", share: 50, values: { "landing.carrierLogos": false } }], ...overrides });

describe.each(allStores())("experiments in the settings store ($kind)", (store) => {
  let db: TestDatabase;
  let directories: SettingsDirectory[] = [];
  const directory = async (pollMs = 50) => {
    const opened = await openSettingsDirectory({ db: db.builder, logger: quiet, pollMs });
    directories.push(opened);
    return opened;
  };

  beforeAll(async () => {
    db = await store.open();
  });
  afterAll(async () => {
    await db?.close();
  });
  beforeEach(async () => {
    await db.query("TRUNCATE buyers, traffic_sources, business_settings, settings_changes RESTART IDENTITY CASCADE");
  });
  afterEach(() => {
    for (const opened of directories) opened.stop();
    directories = [];
  });

  it("stores an experiment with its history and moves the settings' version, so another replica loads it at its next poll", async () => {
    const replica = await directory();
    replica.start();
    const version = await settingsVersion(db.builder);
    await createExperiment(db.builder, experiment("headline"), "console:ana");
    expect(await settingsVersion(db.builder)).toBeGreaterThan(version);
    expect(await getExperiment(db.builder, "headline")).toEqual({ entry: experiment("headline"), revision: 1 });
    expect((await loadSettings(db.builder)).experiments).toEqual([experiment("headline")]);
    await expect.poll(() => replica.current().experiments.map((entry) => entry.id), { timeout: 5_000 }).toEqual(["headline"]);

    const revision = await updateExperiment(db.builder, { ...experiment("headline"), name: "Headline, shorter" }, 1, "console:bob");
    expect(revision).toBe(2);
    // The same form saved again: nothing written.
    expect(await updateExperiment(db.builder, { ...experiment("headline"), name: "Headline, shorter" }, 2, "console:bob")).toBe(2);
    await expect.poll(() => replica.current().experiments[0]?.name, { timeout: 5_000 }).toBe("Headline, shorter");

    const history = await settingsHistory(db.builder, "experiment", "headline");
    expect(history.map((change) => [change.kind, change.action, change.actor])).toEqual([
      ["experiment", "update", "console:bob"],
      ["experiment", "create", "console:ana"],
    ]);
    expect(history[0]).toMatchObject({ before: expect.objectContaining({ name: "Experiment headline" }), after: expect.objectContaining({ name: "Headline, shorter" }) });
    expect(history[1]!.before).toBeNull();
  });

  it("refuses an id taken, an edit from a stale form, and a clash, saving nothing", async () => {
    await createExperiment(db.builder, experiment("headline", { sids: ["fb"] }), "console:ana");
    await expect(createExperiment(db.builder, logos("headline"), "console:ana")).rejects.toBeInstanceOf(SettingsKeyError);
    await expect(updateExperiment(db.builder, { ...experiment("headline"), name: "Other" }, 7, "console:bob")).rejects.toBeInstanceOf(StaleRevisionError);
    const clash = await createExperiment(db.builder, experiment("second", { sids: ["fb", "google"] }), "console:bob").catch((error: unknown) => error);
    expect(clash).toBeInstanceOf(ExperimentRefusedError);
    expect((clash as ExperimentRefusedError).problems).toEqual([{ path: ["variants", 1, "values", "landing.headline"], message: "experiment headline already changes landing page headline for the same traffic" }]);
    // Other sources, or another knob: no clash.
    await createExperiment(db.builder, experiment("google-only", { sids: ["google"] }), "console:bob");
    await createExperiment(db.builder, logos("logos"), "console:bob");
    expect((await loadSettings(db.builder)).experiments.map((entry) => entry.id)).toEqual(["headline", "google-only", "logos"]);
    expect(await settingsHistory(db.builder, "experiment", "second")).toEqual([]);
  });

  it("of two clashing experiments saved at once, stores one", async () => {
    const results = await Promise.allSettled([createExperiment(db.builder, experiment("first"), "console:ana"), createExperiment(db.builder, experiment("second"), "console:bob")]);
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    expect(results.find((result) => result.status === "rejected")?.reason).toBeInstanceOf(ExperimentRefusedError);
    expect((await loadSettings(db.builder)).experiments).toHaveLength(1);
  });

  it("starts and stops, keeps what a started experiment fixed, and refuses a start past its stop", async () => {
    await createExperiment(db.builder, experiment("headline"), "console:ana");
    expect(await setExperimentStatus(db.builder, "headline", "running", "console:ana")).toBe(2);
    expect(await setExperimentStatus(db.builder, "headline", "running", "console:ana")).toBe(2);
    const changed = await updateExperiment(db.builder, { ...experiment("headline"), variants: [{ id: "control", name: "Control", share: 20, values: {} }, { id: "short", name: "Short headline", share: 80, values: { "landing.headline": "Cheaper car insurance, fast" } }] }, 2, "console:ana").catch((error: unknown) => error);
    expect((changed as ExperimentRefusedError).problems.map((problem) => problem.path)).toEqual([["variants"]]);
    // Its words and its stop may change.
    expect(await updateExperiment(db.builder, { ...experiment("headline"), hypothesis: "Shorter headlines convert better on phones, we think.", stopAt: "2026-06-01T00:00:00.000Z" }, 2, "console:ana")).toBe(3);
    expect(await setExperimentStatus(db.builder, "headline", "stopped", "console:bob")).toBe(4);
    expect((await loadSettings(db.builder)).experiments[0]).toMatchObject({ status: "stopped", stopAt: "2026-06-01T00:00:00.000Z" });
    const late = await setExperimentStatus(db.builder, "headline", "running", "console:bob", new Date("2026-06-02T00:00:00Z")).catch((error: unknown) => error);
    expect((late as ExperimentRefusedError).problems).toEqual([{ path: ["stopAt"], message: expect.stringMatching(/stop time has passed/) }]);
    expect((await settingsHistory(db.builder, "experiment", "headline")).map((change) => change.action)).toEqual(["stop", "update", "start", "create"]);
  });

  it("stops every running experiment at once with the kill switch, each in its history, and leaves drafts alone", async () => {
    await createExperiment(db.builder, experiment("headline", { status: "running" }), "cli");
    await createExperiment(db.builder, logos("logos", { status: "running" }), "cli");
    await createExperiment(db.builder, experiment("draft", { sids: ["fb"], variants: [{ id: "control", name: "Control", share: 50 }, { id: "skip", name: "Skip coverage", share: 50, values: { "form.skipCoverage": true } }] }), "cli");
    const replica = await directory();
    replica.start();
    expect(await stopAllExperiments(db.builder, "console:olivia")).toEqual(["headline", "logos"]);
    expect(await stopAllExperiments(db.builder, "console:olivia")).toEqual([]);
    expect((await loadSettings(db.builder)).experiments.map((entry) => [entry.id, entry.status])).toEqual([
      ["headline", "stopped"],
      ["logos", "stopped"],
      ["draft", "draft"],
    ]);
    await expect.poll(() => replica.current().experiments.filter((entry) => entry.status === "running").length, { timeout: 5_000 }).toBe(0);
    expect((await settingsHistory(db.builder, "experiment", "logos"))[0]).toMatchObject({ action: "stop_all", actor: "console:olivia", before: expect.objectContaining({ status: "running" }), after: expect.objectContaining({ status: "stopped" }) });
  });

  it("exports experiments with the settings and imports them back: created, then unchanged, and a clash with a stored one refused", async () => {
    await createExperiment(db.builder, experiment("headline", { status: "running", sids: ["fb"] }), "console:ana");
    const file = await exportSettings(db.builder, { withSecrets: false });
    expect(file.experiments).toEqual([experiment("headline", { status: "running", sids: ["fb"] })]);

    await db.query("TRUNCATE business_settings, settings_changes RESTART IDENTITY");
    expect(await importSettings(db.builder, file, "cli")).toMatchObject({ created: ["experiment headline"], updated: [] });
    expect(await importSettings(db.builder, file, "cli")).toMatchObject({ created: [], updated: [], unchanged: expect.arrayContaining(["experiment headline"]) });
    expect((await settingsHistory(db.builder, "experiment", "headline")).map((change) => [change.action, change.actor])).toEqual([["import", "cli"]]);

    const clashing = { buyers: [], sources: [], experiments: [experiment("again", { sids: ["fb"] })] };
    const refused = await importSettings(db.builder, clashing, "cli").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ImportFileError);
    expect((refused as ImportFileError).problems).toEqual(["experiments.0.variants.1.values.landing.headline: experiment headline already changes landing page headline for the same traffic"]);
    // A file's own shares that do not add up are the schema's refusal, with the path.
    const badShares = { buyers: [], sources: [], experiments: [{ ...experiment("shares"), variants: [{ id: "control", name: "Control", share: 50 }, { id: "b", name: "B", share: 10, values: { "form.coverageFirst": true } }] }] };
    const bad = await importSettings(db.builder, badShares, "cli").catch((error: unknown) => error);
    expect((bad as ImportFileError).problems).toContain("experiments.0.variants: the variants' shares add up to 60, not 100");
    expect((await loadSettings(db.builder)).experiments.map((entry) => entry.id)).toEqual(["headline"]);
  });
});
