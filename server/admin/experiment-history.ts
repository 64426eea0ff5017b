/**
 * An experiment's history in sentences (issue 45, item 1), as buyers' and sources' are
 * (server/admin/settings-history.ts): "Started by ana.", "Variant big-headline share changed from
 * 50% to 30% by ana.", "Stopped by ana with “Stop every experiment”: everyone sees the control.",
 * instead of the stored JSON. The store keeps each change as the whole experiment before and after
 * (server/settings/store.ts); this compares them field by field, in the form's order.
 */
import { KNOBS, type KnobName } from "../../shared/experiments";
import type { SettingsChange } from "../settings/store";
import { actorWords } from "./settings-history";
import { PRIMARY_METRIC_WORDS } from "../../shared/admin-views";
import { knobValueWords, utcWords } from "./experiment-words";

type Entry = Record<string, unknown>;
const isEntry = (value: unknown): value is Entry => value !== null && typeof value === "object" && !Array.isArray(value);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const quoted = (value: unknown) => `“${String(value)}”`;
const knobLabel = (knob: string) => (Object.hasOwn(KNOBS, knob) ? KNOBS[knob as KnobName].label.toLowerCase() : knob);
const metricWords = (value: unknown) => (typeof value === "string" && Object.hasOwn(PRIMARY_METRIC_WORDS, value) ? PRIMARY_METRIC_WORDS[value as keyof typeof PRIMARY_METRIC_WORDS].toLowerCase() : String(value));
const sourcesWords = (value: unknown) => (Array.isArray(value) && value.length > 0 ? value.map(String).join(", ") : "every source");
const variantsOf = (value: unknown): Entry[] => (Array.isArray(value) ? value.filter(isEntry) : []);
const valuesOf = (variant: Entry): Entry => (isEntry(variant.values) ? variant.values : {});

/** "control (Control) 50%; big (Big headline) 50%: landing page headline “…”". */
function variantWords(variant: Entry): string {
  const changes = Object.entries(valuesOf(variant)).map(([knob, value]) => `${knobLabel(knob)} ${knobValueWords(value)}`);
  return `${String(variant.id)} (${String(variant.name)}) ${String(variant.share)}%${changes.length > 0 ? `: ${changes.join(", ")}` : ""}`;
}

function scalarSentence(label: string, before: string | undefined, after: string | undefined, by: string): string {
  if (before === undefined) return `${label} set to ${after ?? ""} by ${by}.`;
  if (after === undefined) return `${label} removed by ${by} (it was ${before}).`;
  return `${label} changed from ${before} to ${after} by ${by}.`;
}

/** Each variant added, removed or changed (its name, share, each knob), by variant id. */
function variantSentences(before: unknown, after: unknown, by: string): string[] {
  const was = variantsOf(before);
  const now = variantsOf(after);
  const find = (list: Entry[], id: unknown) => list.find((variant) => variant.id === id);
  const sentences: string[] = [];
  for (const variant of now) {
    const old = find(was, variant.id);
    if (!old) {
      sentences.push(`Variant ${variantWords(variant)} added by ${by}.`);
      continue;
    }
    const label = `Variant ${String(variant.id)}`;
    if (old.name !== variant.name) sentences.push(scalarSentence(`${label} name`, quoted(old.name), quoted(variant.name), by));
    if (old.share !== variant.share) sentences.push(scalarSentence(`${label} share`, `${String(old.share)}%`, `${String(variant.share)}%`, by));
    const oldValues = valuesOf(old);
    const newValues = valuesOf(variant);
    for (const knob of [...new Set([...Object.keys(oldValues), ...Object.keys(newValues)])]) {
      if (same(oldValues[knob], newValues[knob])) continue;
      const format = (value: unknown) => (value === undefined ? undefined : knobValueWords(value));
      sentences.push(scalarSentence(`${label}: ${knobLabel(knob)}`, format(oldValues[knob]), format(newValues[knob]), by));
    }
  }
  for (const variant of was) if (!find(now, variant.id)) sentences.push(`Variant ${variantWords(variant)} removed by ${by}.`);
  const order = (list: Entry[]) => list.map((variant) => String(variant.id)).filter((id) => find(was, id) && find(now, id));
  if (!same(order(was), order(now))) sentences.push(`Variants reordered by ${by}: ${now.map((variant) => String(variant.id)).join(", ")}.`);
  return sentences;
}

/** Each field that differs, in the form's order, as a sentence naming who changed it. */
export function experimentFieldSentences(before: Entry, after: Entry, by: string): string[] {
  const sentences: string[] = [];
  const changed = (key: string) => !same(before[key], after[key]);
  const optional = (value: unknown, format: (value: unknown) => string) => (value === undefined ? undefined : format(value));
  if (changed("name")) sentences.push(scalarSentence("Name", optional(before.name, quoted), optional(after.name, quoted), by));
  if (changed("hypothesis")) sentences.push(scalarSentence("Hypothesis", optional(before.hypothesis, quoted), optional(after.hypothesis, quoted), by));
  if (changed("variants")) sentences.push(...variantSentences(before.variants, after.variants, by));
  if (changed("sids")) sentences.push(`Sources changed from ${sourcesWords(before.sids)} to ${sourcesWords(after.sids)} by ${by}.`);
  if (changed("primaryMetric")) sentences.push(scalarSentence("Primary metric", optional(before.primaryMetric, metricWords), optional(after.primaryMetric, metricWords), by));
  const time = (value: unknown) => utcWords(String(value));
  if (changed("startAt")) sentences.push(scalarSentence("Start", optional(before.startAt, time), optional(after.startAt, time), by));
  if (changed("stopAt")) sentences.push(scalarSentence("Stop", optional(before.stopAt, time), optional(after.stopAt, time), by));
  return sentences;
}

const STATUS_WORDS: Record<string, string> = { draft: "draft", running: "running", stopped: "stopped" };

/** One change of an experiment's history as sentences, each naming who made it. */
export function experimentChangeSentences(change: Pick<SettingsChange, "action" | "actor" | "before" | "after">): string[] {
  const by = actorWords(change.actor);
  const before = change.before ?? {};
  const after = change.after ?? {};
  const fields = () => experimentFieldSentences(before, after, by);
  switch (change.action) {
    case "create":
      return [`Created by ${by} as a ${STATUS_WORDS[String(after.status)] ?? String(after.status)} experiment.`, `Variants: ${variantsOf(after.variants).map(variantWords).join("; ")}.`, `Sources: ${sourcesWords(after.sids)}.`];
    case "start":
      return [`Started by ${by}: visitors are assigned from its start${typeof after.stopAt === "string" ? ` until its stop, ${utcWords(after.stopAt)}` : ""}.`, ...fields()];
    case "stop":
      return [`Stopped by ${by}: everyone sees the control.`, ...fields()];
    case "stop_all":
      return [`Stopped by ${by} with “Stop every experiment”: everyone sees the control.`, ...fields()];
    case "import": {
      if (change.before === null) return [`Imported by ${by} (${STATUS_WORDS[String(after.status)] ?? String(after.status)}).`, `Variants: ${variantsOf(after.variants).map(variantWords).join("; ")}.`];
      const status = before.status !== after.status ? [`Status changed from ${String(before.status)} to ${String(after.status)} by ${by}.`] : [];
      return [`Imported again by ${by}.`, ...status, ...fields()];
    }
    default: {
      const sentences = fields();
      return sentences.length > 0 ? sentences : [`Saved by ${by}, with nothing changed.`];
    }
  }
}
