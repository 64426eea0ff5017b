/**
 * The console's experiment form (issue 45, item 1) as data: its urlencoded fields read into an
 * experiment checked by experimentSchema (server/experiments/schema.ts, the schema the store, the
 * settings import and assignment rely on) and by the store's rules across experiments (clashes,
 * what is fixed once started), each problem keyed by the field it is shown beside; and a stored
 * experiment written back into fields for the edit form.
 *
 * Field names follow the schema's paths, so an issue's path names its field: "variants.2.share",
 * "variants.1.values.landing.headline" (a knob's name has a dot of its own). Row 0 is the control:
 * it has no knob fields, since it changes nothing. Times are datetime-local fields read as UTC, the
 * zone every time in the console is shown in (client/admin/format.ts formatTime).
 */
import type { z } from "zod";
import { KNOB_NAMES, KNOBS, PRIMARY_METRICS, type KnobName } from "../../shared/experiments";
import { EXPERIMENT_VARIANT_ROWS, experimentKnobField, type FormValues } from "../../shared/admin-views";
import { experimentSchema, type Experiment } from "../experiments/schema";
import { experimentProblems, type ExperimentProblem } from "../settings/store";
import { amount, errorsByField, fieldForPath, sentence, text, words } from "./settings-form";

/** Variant rows the form shows: the schema's maximum of variants, the control first. */
const VARIANT_ROWS = EXPERIMENT_VARIANT_ROWS;
const knobField = experimentKnobField;

const FIELDS = new Set<string>([
  "id",
  "name",
  "hypothesis",
  "primaryMetric",
  "sids",
  "startAt",
  "stopAt",
  "variants",
  ...Array.from({ length: VARIANT_ROWS }, (_, row) => [`variants.${row}`, `variants.${row}.id`, `variants.${row}.name`, `variants.${row}.share`, ...(row === 0 ? [] : KNOB_NAMES.map((knob) => knobField(row, knob)))]).flat(),
]);

/** Whether the form has a field (or a fieldset) of this name. */
export const isExperimentField = (name: string) => FIELDS.has(name);

const DATETIME_LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/;
const TIME_HINT = "a date and time in UTC, like 2026-05-01T09:00";

/** A stored time as a datetime-local field's value, in UTC to the minute. */
export function timeToForm(iso: string | undefined): string {
  if (!iso) return "";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "" : date.toISOString().slice(0, 16);
}

/**
 * A datetime-local field read as UTC: the ISO time, undefined when empty, or an error. A field
 * left as the edit form showed it keeps the stored time (which may have seconds or an offset), so
 * saving an unchanged form records no change.
 */
function timeFromForm(raw: string, stored: string | undefined): { value: string | undefined } | { error: string } {
  if (raw === "") return { value: undefined };
  if (stored !== undefined && timeToForm(stored) === raw) return { value: stored };
  if (!DATETIME_LOCAL.test(raw)) return { error: `Enter ${TIME_HINT}.` };
  const date = new Date(`${raw}Z`);
  // A day the month does not have (02-30) either fails or rolls over: both are refused.
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, raw.length) !== raw) return { error: `Enter ${TIME_HINT} (that day does not exist).` };
  return { value: date.toISOString() };
}

/** A knob's field as its value: text as typed (the schema trims and checks it), yes/no as a boolean; undefined when unchanged. */
function knobFromForm(values: FormValues, row: number, knob: KnobName): unknown {
  const raw = text(values, knobField(row, knob));
  if (raw === "") return undefined;
  if (typeof KNOBS[knob].control === "boolean") return raw === "yes" ? true : raw === "no" ? false : raw;
  return raw;
}

/** Whether a variant row holds anything (an untouched row is no variant; the control's row always counts). */
function rowUsed(values: FormValues, row: number): boolean {
  if (row === 0) return true;
  const own = [`variants.${row}.id`, `variants.${row}.name`, `variants.${row}.share`, ...KNOB_NAMES.map((knob) => knobField(row, knob))];
  return own.some((name) => text(values, name) !== "");
}

/** The form row each of the experiment's variants came from: rows are packed (an empty row between two is no variant); a started experiment's are its stored ones. */
function variantRows(values: FormValues, stored: Experiment | undefined): number[] {
  if (stored !== undefined && stored.status !== "draft") return stored.variants.map((_, index) => index);
  return Array.from({ length: VARIANT_ROWS }, (_, row) => row).filter((row) => rowUsed(values, row));
}

/** The field an issue's path points at, its variant index (a packed one) turned into its form row. */
function fieldOfPath(path: readonly PropertyKey[], rows: readonly number[]): string {
  const inRows = path[0] === "variants" && typeof path[1] === "number" ? ["variants", rows[path[1]] ?? path[1], ...path.slice(2)] : path;
  return fieldForPath(inRows, isExperimentField, new Set(["variants"]));
}

/** Valid values for the experiment's own fields, standing in for wrong ones so the checks across its variants still run. */
const STAND_INS: Record<string, string> = { id: "stand-in", name: "Stand-in", hypothesis: "A stand-in hypothesis.", startAt: "2000-01-01T00:00:00.000Z" };

/**
 * zod runs an object's refinements (shares adding up to 100, the control changing nothing) only
 * when its fields parsed: with a wrong name or start, those problems would come one answer later.
 * So the experiment is checked again with stand-ins for its own wrong fields, and that check's
 * other problems are added, so every problem comes in the one answer.
 */
function problemsBehind(input: Record<string, unknown>, issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  const wrong = new Set(issues.map((issue) => issue.path[0]).filter((key): key is string => typeof key === "string" && key !== "variants"));
  if (wrong.size === 0) return [];
  const again: Record<string, unknown> = { ...input };
  for (const key of wrong) {
    if (key in STAND_INS) again[key] = STAND_INS[key];
    else delete again[key];
  }
  const parsed = experimentSchema.safeParse(again);
  return parsed.success ? [] : parsed.error.issues.filter((issue) => !wrong.has(String(issue.path[0])));
}

export type ExperimentFormResult = { ok: true; experiment: Experiment } | { ok: false; errors: Record<string, string> };

export interface ExperimentFormOptions {
  /** The edited experiment as stored (absent: a new one, a draft). */
  stored?: Experiment;
  /** Every other experiment stored now: the clash check's. */
  others: readonly Experiment[];
}

/**
 * The form checked: the experiment to save, or every problem by field at once. A new experiment is
 * a draft; an edit keeps the stored status and id. Once an experiment has started only its name,
 * hypothesis and stop are on the form; the rest is taken from the stored one.
 */
export function checkExperimentForm(values: FormValues, { stored, others }: ExperimentFormOptions): ExperimentFormResult {
  const errors: Record<string, string> = {};
  const startAt = timeFromForm(text(values, "startAt"), stored?.startAt);
  const stopAt = timeFromForm(text(values, "stopAt"), stored?.stopAt);
  if ("error" in startAt) errors.startAt = startAt.error;
  if ("error" in stopAt) errors.stopAt = stopAt.error;
  const started = stored !== undefined && stored.status !== "draft";
  if (!started && "value" in startAt && startAt.value === undefined) errors.startAt = `Enter the start, ${TIME_HINT}.`;
  const rows = variantRows(values, stored);
  const sids = words(values, "sids");
  const own = {
    name: text(values, "name"),
    hypothesis: text(values, "hypothesis"),
    stopAt: "value" in stopAt ? stopAt.value : undefined,
  };
  const input: Record<string, unknown> = started
    ? { ...stored, ...own }
    : {
        id: stored?.id ?? text(values, "id"),
        status: stored?.status ?? "draft",
        ...own,
        variants: rows.map((row) => ({
          id: text(values, `variants.${row}.id`),
          name: text(values, `variants.${row}.name`),
          share: amount(values, `variants.${row}.share`),
          values: row === 0 ? {} : Object.fromEntries(KNOB_NAMES.map((knob) => [knob, knobFromForm(values, row, knob)]).filter(([, value]) => value !== undefined)),
        })),
        sids: sids.length > 0 ? sids : undefined,
        primaryMetric: text(values, "primaryMetric") || undefined,
        startAt: "value" in startAt ? startAt.value : undefined,
      };
  // Absent, not undefined: the schema's defaults (primaryMetric) and optional fields (stopAt, sids) then apply.
  for (const key of ["stopAt", "sids", "primaryMetric"]) if (input[key] === undefined) delete input[key];
  const fieldOf = (path: readonly PropertyKey[]) => fieldOfPath(path, rows);

  const parsed = experimentSchema.safeParse(input);
  if (!parsed.success) {
    // The time fields' own words beat the schema's ("Invalid ISO datetime").
    const issues = [...parsed.error.issues, ...problemsBehind(input, parsed.error.issues)].filter((issue) => !(issue.path[0] === "startAt" && errors.startAt) && !(issue.path[0] === "stopAt" && errors.stopAt));
    for (const [name, message] of Object.entries(errorsByField(issues, fieldOf))) errors[name] ??= message;
    return { ok: false, errors };
  }
  for (const problem of experimentProblems(parsed.data, stored, others)) errors[fieldOf(problem.path)] ??= sentence(problem.message);
  if (stored === undefined && errors.id === undefined && others.some((other) => other.id === parsed.data.id)) errors.id = `An experiment with id ${parsed.data.id} exists already.`;
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, experiment: parsed.data };
}

/** The store's refusal (a clash found under its lock) beside the fields, as the form's own check puts them. */
export function problemsToErrors(problems: readonly ExperimentProblem[], values: FormValues, stored: Experiment | undefined): Record<string, string> {
  const rows = variantRows(values, stored);
  const errors: Record<string, string> = {};
  for (const problem of problems) errors[fieldOfPath(problem.path, rows)] ??= sentence(problem.message);
  return errors;
}

/** A stored experiment as the edit form's fields. */
export function experimentToForm(experiment: Experiment): FormValues {
  const values: FormValues = {
    id: experiment.id,
    name: experiment.name,
    hypothesis: experiment.hypothesis,
    primaryMetric: experiment.primaryMetric,
    sids: (experiment.sids ?? []).join(", "),
    startAt: timeToForm(experiment.startAt),
    stopAt: timeToForm(experiment.stopAt),
  };
  experiment.variants.forEach((variant, row) => {
    values[`variants.${row}.id`] = variant.id;
    values[`variants.${row}.name`] = variant.name;
    values[`variants.${row}.share`] = String(variant.share);
    for (const [knob, value] of Object.entries(variant.values)) {
      if (!(KNOB_NAMES as string[]).includes(knob)) continue;
      values[knobField(row, knob as KnobName)] = typeof value === "boolean" ? (value ? "yes" : "no") : String(value);
    }
  });
  return values;
}

/** A new experiment's form: a control and one variant splitting the traffic, starting now (to the minute, UTC). */
export function newExperimentForm(now: Date): FormValues {
  return {
    primaryMetric: PRIMARY_METRICS[0],
    startAt: timeToForm(now.toISOString()),
    "variants.0.id": "control",
    "variants.0.name": "Control",
    "variants.0.share": "50",
    "variants.1.share": "50",
  };
}
