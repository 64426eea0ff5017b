/**
 * A/B experiments in the console (issue 45, item 1): the list and each experiment's page for every
 * role; for ops the form that creates and edits them, start, stop, and the kill switch that stops
 * every running one. Every change goes through server/settings/store.ts (history in the same
 * transaction, checked there against the other experiments under a lock), is logged as
 * admin_action, and is applied by this replica at once (`settings.refresh()`); the other replicas
 * see it at their next settings poll, so a stop sends everyone to the control within seconds. A
 * wrong form answers 422 with each problem beside its field; an edit saved over someone else's
 * answers 409. The results page (/experiments/:id/results) is routed elsewhere: only linked here.
 */
import express, { type Request, type RequestHandler, type Response, type Router } from "express";
import type { Database } from "../db/database";
import { createExperiment, ExperimentRefusedError, getExperiment, loadSettings, setExperimentStatus, SettingsKeyError, StaleRevisionError, stopAllExperiments, updateExperiment } from "../settings/store";
import type { SettingsDirectory } from "../settings/directory";
import type { Experiment } from "../experiments/schema";
import { adminPaths, experimentPaths, type ExperimentFormView } from "../../shared/admin-views";
import { parsedBody } from "../http/guards";
import { back, logAction } from "./actions";
import type { FlashStore } from "./flash";
import type { RenderView } from "./render";
import { requireSessionCsrf, sessionOf } from "./session-guard";
import { formValuesOf, text } from "./settings-form";
import { checkExperimentForm, experimentToForm, newExperimentForm, problemsToErrors } from "./experiment-form";
import { experimentDetailView, experimentsView, experimentSummary, stopAllView } from "./experiment-views";

/** Five variant rows of three fields and one per knob, and the experiment's own: about 60 fields. */
const FORM_LIMIT = "32kb";
const FORM_PARAMETERS = 120;
const EXPERIMENT_ID = /^[a-z0-9][a-z0-9-]{0,39}$/;

export interface ExperimentRouteDependencies {
  db: Database;
  settings: SettingsDirectory | undefined;
  render: RenderView;
  flash: FlashStore;
  ops: RequestHandler;
  now: () => Date;
}

const actorOf = (res: Response) => `console:${sessionOf(res).name}`;
const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;
/** What a stop means for visitors, said after each stop. */
const CONTROL_SOON = "every visitor sees the control, on every replica within a few seconds (at its next settings poll)";

export function experimentRoutes({ db, settings, render, flash, ops, now }: ExperimentRouteDependencies): Router {
  const router = express.Router();
  const form = parsedBody(express.urlencoded({ extended: false, limit: FORM_LIMIT, parameterLimit: FORM_PARAMETERS }), () => "The form could not be read.");
  const post = [form, requireSessionCsrf, ops];
  const notFound = (req: Request, res: Response, message: string) => render(req, res, 404, { page: "error", status: 404, message });
  /** The experiments stored now (not this replica's copy, which may be a poll behind): a clash is told with the form's other problems. */
  const storedNow = async () => (await loadSettings(db.builder)).experiments;
  /** After a change: this replica applies it now, so its next page and visitor see it. */
  const applied = async () => settings?.refresh();
  const idOf = (req: Request) => {
    const id = req.params.id;
    return typeof id === "string" && EXPERIMENT_ID.test(id) ? id : undefined;
  };
  const formView = (view: Omit<ExperimentFormView, "page">): ExperimentFormView => ({ page: "experiment-form", ...view });
  /** The edit form of a started experiment shows what it no longer edits. */
  const startedPart = (stored: Experiment) => (stored.status === "draft" ? {} : { started: experimentSummary(stored, now()) });

  router.get(adminPaths.experiments, async (req, res) => render(req, res, 200, experimentsView(settings?.current(), now())));

  router.get(adminPaths.experimentNew, ops, async (req, res) => {
    if (!settings) return notFound(req, res, "This console runs without business settings.");
    return render(req, res, 200, formView({ mode: "create", values: newExperimentForm(now()), errors: {} }));
  });

  router.post(adminPaths.experiments, ...post, async (req, res) => {
    if (!settings) return notFound(req, res, "This console runs without business settings.");
    const values = formValuesOf(req.body);
    const target = text(values, "id").slice(0, 40);
    const checked = checkExperimentForm(values, { others: await storedNow() });
    if (!checked.ok) {
      logAction(req, res, "create_experiment", target, "invalid", { fields: Object.keys(checked.errors) });
      return render(req, res, 422, formView({ mode: "create", values, errors: checked.errors }));
    }
    try {
      await createExperiment(db.builder, checked.experiment, actorOf(res));
    } catch (error) {
      // Someone saved the same id, or a clashing experiment, since the form was checked.
      const errors = error instanceof SettingsKeyError ? { id: `An experiment with id ${checked.experiment.id} exists already.` } : error instanceof ExperimentRefusedError ? problemsToErrors(error.problems, values, undefined) : undefined;
      if (!errors) throw error;
      logAction(req, res, "create_experiment", target, "invalid", { fields: Object.keys(errors) });
      return render(req, res, 422, formView({ mode: "create", values, errors }));
    }
    await applied();
    logAction(req, res, "create_experiment", checked.experiment.id, "done");
    back(req, res, flash, experimentPaths(checked.experiment.id).detail, { kind: "success", text: `Created experiment ${checked.experiment.id} as a draft: no visitor sees it until it is started.` });
  });

  // The kill switch: a page that names what it stops, then the stop itself (confirm=yes).
  router.post(adminPaths.experimentsStopAll, ...post, async (req, res) => {
    if (!settings) return notFound(req, res, "This console runs without business settings.");
    if (text(formValuesOf(req.body), "confirm") !== "yes") return render(req, res, 200, stopAllView(await storedNow(), now()));
    const stopped = await stopAllExperiments(db.builder, actorOf(res));
    await applied();
    logAction(req, res, "stop_all_experiments", stopped.join(",").slice(0, 200) || "(none)", stopped.length > 0 ? "done" : "nothing_to_do", { stopped: stopped.length });
    back(
      req,
      res,
      flash,
      adminPaths.experiments,
      stopped.length > 0 ? { kind: "success", text: `Stopped ${plural(stopped.length, "experiment", "experiments")} (${stopped.join(", ")}): ${CONTROL_SOON}.` } : { kind: "error", text: "No experiment was running: nothing was stopped." },
    );
  });

  router.get("/experiments/:id", async (req, res) => {
    const id = idOf(req);
    const view = id ? await experimentDetailView(db, id, now()) : undefined;
    if (!view) return notFound(req, res, "There is no such experiment.");
    return render(req, res, 200, view);
  });

  router.get("/experiments/:id/edit", ops, async (req, res) => {
    const id = idOf(req);
    const stored = id ? await getExperiment(db.builder, id) : undefined;
    if (!id || !stored) return notFound(req, res, "There is no such experiment.");
    return render(req, res, 200, formView({ mode: "edit", key: id, revision: stored.revision, values: experimentToForm(stored.entry), errors: {}, ...startedPart(stored.entry) }));
  });

  router.post("/experiments/:id", ...post, async (req, res) => {
    const id = idOf(req);
    const stored = id ? await getExperiment(db.builder, id) : undefined;
    if (!id || !stored) return notFound(req, res, "There is no such experiment.");
    const values = formValuesOf(req.body);
    const revisionText = text(values, "revision");
    const revision = /^\d{1,9}$/.test(revisionText) ? Number(revisionText) : undefined;
    const edit = (status: number, errors: Record<string, string>, extra: Partial<ExperimentFormView> = {}) =>
      render(req, res, status, { ...formView({ mode: "edit", key: id, ...(revision !== undefined ? { revision } : {}), values, errors, ...startedPart(stored.entry) }), ...extra });
    if (revision === undefined) {
      logAction(req, res, "update_experiment", id, "invalid", { fields: ["revision"] });
      return edit(422, { "": "This form does not say which version of the experiment it edits: open the edit page again." });
    }
    const checked = checkExperimentForm(values, { stored: stored.entry, others: (await storedNow()).filter((other) => other.id !== id) });
    if (!checked.ok) {
      logAction(req, res, "update_experiment", id, "invalid", { fields: Object.keys(checked.errors) });
      return edit(422, checked.errors);
    }
    let saved: number;
    try {
      saved = await updateExperiment(db.builder, checked.experiment, revision, actorOf(res));
    } catch (error) {
      if (error instanceof StaleRevisionError) {
        logAction(req, res, "update_experiment", id, "conflict", { revision, current: error.current });
        return edit(
          409,
          { "": `Someone else changed this experiment since you opened the form: it is now at revision ${error.current}, your form was read at ${revision}. Nothing was saved. Open the edit page again to see their change, then make yours.` },
          { conflict: { currentRevision: error.current } },
        );
      }
      if (error instanceof ExperimentRefusedError) {
        const errors = problemsToErrors(error.problems, values, stored.entry);
        logAction(req, res, "update_experiment", id, "invalid", { fields: Object.keys(errors) });
        return edit(422, errors);
      }
      throw error;
    }
    await applied();
    const changed = saved !== revision;
    logAction(req, res, "update_experiment", id, changed ? "done" : "nothing_to_do", { revision: saved });
    back(req, res, flash, experimentPaths(id).detail, { kind: "success", text: changed ? `Saved ${id} (revision ${saved}).` : `Nothing changed in ${id}.` });
  });

  router.post("/experiments/:id/status", ...post, async (req, res) => {
    const id = idOf(req);
    const stored = id ? await getExperiment(db.builder, id) : undefined;
    if (!id || !stored) return notFound(req, res, "There is no such experiment.");
    const status = text(formValuesOf(req.body), "status");
    const refuse = async (message: string, detail: Record<string, unknown>) => {
      logAction(req, res, "set_experiment_status", id, "invalid", detail);
      const view = await experimentDetailView(db, id, now());
      return render(req, res, 422, { ...view!, flash: { kind: "error", text: message } });
    };
    if (status !== "running" && status !== "stopped") return refuse("Choose running (start) or stopped (stop).", { status: status.slice(0, 20) });
    let revision: number;
    try {
      revision = await setExperimentStatus(db.builder, id, status, actorOf(res), now());
    } catch (error) {
      if (!(error instanceof ExperimentRefusedError)) throw error;
      const problems = error.problems.map((problem) => problem.message);
      return refuse(`${id} was not started: ${problems.join("; ")}.`, { status, problems: problems.slice(0, 5) });
    }
    await applied();
    const changed = revision !== stored.revision;
    logAction(req, res, "set_experiment_status", id, changed ? "done" : "nothing_to_do", { status });
    const state = experimentSummary({ ...stored.entry, status }, now()).stateText;
    const said = status === "running" ? `Started ${id}: ${state.charAt(0).toLowerCase()}${state.slice(1)}.` : `Stopped ${id}: ${CONTROL_SOON}.`;
    back(req, res, flash, experimentPaths(id).detail, changed ? { kind: "success", text: said } : { kind: "error", text: `${id} is ${status} already.` });
  });

  return router;
}
