/**
 * The console's experiment pages' data (issue 45, item 1): the list (what each changes, for which
 * sources, its variants' shares, where it stands now), one experiment with its history, and the
 * kill switch's confirmation. Where an experiment stands is said against the clock, as the pages
 * assign visitors (server/experiments/assign.ts appliesTo): running and before its start is
 * scheduled, past its stop has ended.
 */
import type { Database } from "../db/database";
import type { LiveSettings } from "../delivery/buyers";
import { KNOB_NAMES, KNOBS, type KnobName } from "../../shared/experiments";
import { PRIMARY_METRIC_WORDS, type ExperimentDetailView, type ExperimentsStopAllView, type ExperimentStateName, type ExperimentSummaryView, type ExperimentsView, type ExperimentVariantView } from "../../shared/admin-views";
import { knobsOf, type Experiment } from "../experiments/schema";
import { getExperiment, settingsHistory } from "../settings/store";
import { experimentChangeSentences } from "./experiment-history";
import { knobValueWords, utcWords } from "./experiment-words";

export function experimentState(experiment: Experiment, now: Date): { state: ExperimentStateName; text: string } {
  if (experiment.status === "draft") return { state: "draft", text: "Draft: not shown to anyone" };
  if (experiment.status === "stopped") return { state: "stopped", text: "Stopped: everyone sees the control" };
  if (now.getTime() < Date.parse(experiment.startAt)) return { state: "scheduled", text: `Scheduled: starts ${utcWords(experiment.startAt)}` };
  if (experiment.stopAt && now.getTime() >= Date.parse(experiment.stopAt)) return { state: "ended", text: `Ended at its stop, ${utcWords(experiment.stopAt)}: everyone sees the control` };
  return { state: "live", text: `Live since ${utcWords(experiment.startAt)}` };
}

function variantView(variant: Experiment["variants"][number], index: number): ExperimentVariantView {
  const known = KNOB_NAMES.filter((knob) => Object.hasOwn(variant.values, knob));
  return {
    id: variant.id,
    name: variant.name,
    share: variant.share,
    control: index === 0,
    changes: known.map((knob: KnobName) => ({ knob, label: KNOBS[knob].label, value: knobValueWords(variant.values[knob]) })),
  };
}

export function experimentSummary(experiment: Experiment, now: Date): ExperimentSummaryView {
  const { state, text } = experimentState(experiment, now);
  return {
    id: experiment.id,
    name: experiment.name,
    hypothesis: experiment.hypothesis,
    status: experiment.status,
    state,
    stateText: text,
    variants: experiment.variants.map(variantView),
    changes: [...knobsOf(experiment)].filter((knob) => Object.hasOwn(KNOBS, knob)).map((knob) => KNOBS[knob].label),
    sids: experiment.sids ?? null,
    primaryMetric: experiment.primaryMetric,
    primaryMetricText: PRIMARY_METRIC_WORDS[experiment.primaryMetric],
    startAt: experiment.startAt,
    stopAt: experiment.stopAt ?? null,
  };
}

/** GET /experiments: as this replica runs them (refreshed after every change made here). */
export function experimentsView(settings: LiveSettings | undefined, now: Date): ExperimentsView {
  if (!settings) return { page: "experiments", experiments: [], configured: false, running: 0 };
  return {
    page: "experiments",
    experiments: settings.experiments.map((experiment) => experimentSummary(experiment, now)),
    configured: true,
    running: settings.experiments.filter((experiment) => experiment.status === "running").length,
  };
}

/** GET /experiments/:id, read from the store (its revision is the edit form's); undefined when there is none. */
export async function experimentDetailView(db: Database, id: string, now: Date): Promise<ExperimentDetailView | undefined> {
  const [stored, changes] = await Promise.all([getExperiment(db.builder, id), settingsHistory(db.builder, "experiment", id)]);
  if (!stored) return undefined;
  return {
    page: "experiment",
    experiment: experimentSummary(stored.entry, now),
    revision: stored.revision,
    history: changes.map((change) => ({ at: change.at.toISOString(), actor: change.actor, action: change.action, sentences: experimentChangeSentences(change) })),
  };
}

/** The kill switch's question: the experiments it would stop. */
export function stopAllView(experiments: readonly Experiment[], now: Date): ExperimentsStopAllView {
  return {
    page: "experiments-stop-all",
    running: experiments.filter((experiment) => experiment.status === "running").map((experiment) => ({ id: experiment.id, name: experiment.name, stateText: experimentState(experiment, now).text })),
  };
}
