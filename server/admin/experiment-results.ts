/**
 * An experiment's results page (GET /experiments/:id/results, issue 45 item 4): for ops and
 * analysts alike (counts and money, nothing personal), per variant against the control, and per
 * source with ?by=sid. The experiment is read from the database at the request, not from this
 * process's settings snapshot, so a page opened right after a change elsewhere shows it.
 */
import { Router } from "express";
import type { Database } from "../db/database";
import { getExperiment } from "../settings/store";
import { experimentResults } from "../experiments/results";
import { experimentPaths, type ExperimentResultsView } from "../../shared/admin-views";
import type { RenderView } from "./render";

/** An experiment id as the schema allows it (server/experiments/schema.ts): anything else is no experiment. */
const EXPERIMENT_ID = /^[a-z0-9][a-z0-9-]{0,39}$/;

export async function experimentResultsView(db: Database, id: string, bySid: boolean, now: Date): Promise<ExperimentResultsView | undefined> {
  if (!EXPERIMENT_ID.test(id)) return undefined;
  const stored = await getExperiment(db.builder, id);
  if (!stored) return undefined;
  return { page: "experiment-results", results: await experimentResults(db, stored.entry, { bySid, now }), bySid };
}

export interface ExperimentResultsRouteDependencies {
  db: Database;
  render: RenderView;
  now: () => Date;
}

export function experimentResultsRoutes({ db, render, now }: ExperimentResultsRouteDependencies): Router {
  const router = Router();
  router.get(experimentPaths(":id").results, async (req, res) => {
    // The path is built from experimentPaths, so Express types the parameter loosely: one string here.
    const id = typeof req.params.id === "string" ? req.params.id : "";
    // Only by=sid asks for the sources; any other value (or a repeated key) is the default view.
    const view = await experimentResultsView(db, id, req.query.by === "sid", now());
    if (!view) return render(req, res, 404, { page: "error", status: 404, message: `There is no experiment ${EXPERIMENT_ID.test(id) ? id : "with that id"}.` });
    return render(req, res, 200, view);
  });
  return router;
}
