/**
 * An experiment as ops define it in the console (issue 45, docs/experiments.md): checked by this
 * schema wherever it comes from (the console, the settings import), so a bad one is refused when
 * saved, with the field named: shares that do not add up to 100, a value a page cannot use, two
 * running experiments changing the same knob for the same traffic.
 */
import { z } from "zod";
import { campaignIdSchema } from "../../shared/campaign";
import { KNOB_NAMES, KNOBS, PRIMARY_METRICS, type KnobName } from "../../shared/experiments";

/** Each knob's values: what its page can really show. */
export const KNOB_SCHEMAS: { readonly [K in KnobName]: z.ZodType } = {
  // Plain text: the page escapes it; no markup, no line breaks, short enough for a phone's first screen.
  "landing.headline": z.string().trim().min(10, "at least 10 characters").max(70, "at most 70 characters, to fit a phone's first screen").regex(/^[^<>\n\r]*$/, "plain text, one line"),
  "landing.buttonText": z.string().trim().min(3, "at least 3 characters").max(24, "at most 24 characters, to fit the button on a phone").regex(/^[^<>\n\r→]*$/, "plain text, one line, without the arrow (the page adds it)"),
  "landing.carrierLogos": z.boolean(),
  "form.coverageFirst": z.boolean(),
  "form.skipCoverage": z.boolean(),
};

const slug = z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/, "lower-case letters, digits and -, at most 40");

export const variantSchema = z
  .object({
    id: slug,
    name: z.string().trim().min(1).max(60),
    /** Percent of the experiment's visitors (whole numbers; the variants' shares add up to 100). */
    share: z.number().int().min(0).max(100),
    /** The knobs it changes and their values; the control changes none. */
    values: z.record(z.string(), z.unknown()).default({}),
  })
  .strict()
  .superRefine((variant, ctx) => {
    for (const [name, value] of Object.entries(variant.values)) {
      if (!(KNOB_NAMES as string[]).includes(name)) {
        ctx.addIssue({ code: "custom", message: `not something a variant can change (one of ${KNOB_NAMES.join(", ")})`, path: ["values", name] });
        continue;
      }
      const checked = KNOB_SCHEMAS[name as KnobName].safeParse(value);
      if (!checked.success) ctx.addIssue({ code: "custom", message: checked.error.issues[0]?.message ?? "not a value this page can show", path: ["values", name] });
    }
  });
export type Variant = z.infer<typeof variantSchema>;

export const EXPERIMENT_STATUSES = ["draft", "running", "stopped"] as const;
export type ExperimentStatus = (typeof EXPERIMENT_STATUSES)[number];

export const experimentSchema = z
  .object({
    id: slug,
    name: z.string().trim().min(2).max(80),
    /** What the change is expected to do, written before the start. */
    hypothesis: z.string().trim().min(10).max(500),
    /** draft: not shown; running: assigned between startAt and stopAt; stopped: everyone sees the control. */
    status: z.enum(EXPERIMENT_STATUSES).default("draft"),
    /** The first variant is the control and changes nothing. */
    variants: z.array(variantSchema).min(2).max(5),
    /** The traffic sources (sid) it includes; absent: every visitor. */
    sids: z.array(campaignIdSchema).min(1).optional(),
    /** Fixed before the start (issue 45): the metric its verdict is about. */
    primaryMetric: z.enum(PRIMARY_METRICS).default("net_revenue_per_visitor"),
    startAt: z.iso.datetime({ offset: true }),
    stopAt: z.iso.datetime({ offset: true }).optional(),
  })
  .strict()
  .superRefine((experiment, ctx) => {
    const total = experiment.variants.reduce((sum, variant) => sum + variant.share, 0);
    if (total !== 100) ctx.addIssue({ code: "custom", message: `the variants' shares add up to ${total}, not 100`, path: ["variants"] });
    const [control, ...others] = experiment.variants;
    if (control && Object.keys(control.values).length > 0) ctx.addIssue({ code: "custom", message: "the first variant is the control: it changes nothing", path: ["variants", 0, "values"] });
    others.forEach((variant, index) => {
      if (Object.keys(variant.values).length === 0) ctx.addIssue({ code: "custom", message: "a variant changes at least one thing", path: ["variants", index + 1, "values"] });
    });
    const ids = experiment.variants.map((variant) => variant.id);
    for (const id of new Set(ids.filter((value, index) => ids.indexOf(value) !== index))) ctx.addIssue({ code: "custom", message: `variant id ${id} is listed twice`, path: ["variants"] });
    if (experiment.stopAt && experiment.stopAt <= experiment.startAt) ctx.addIssue({ code: "custom", message: "the stop must be after the start", path: ["stopAt"] });
  });
export type Experiment = z.infer<typeof experimentSchema>;

/** The knobs an experiment changes (any variant's). */
export function knobsOf(experiment: Pick<Experiment, "variants">): Set<KnobName> {
  return new Set(experiment.variants.flatMap((variant) => Object.keys(variant.values) as KnobName[]));
}

/** Whether two experiments can reach the same visitor: no sids means every source. */
function sameTraffic(a: Pick<Experiment, "sids">, b: Pick<Experiment, "sids">): boolean {
  if (!a.sids || !b.sids) return true;
  return a.sids.some((sid) => b.sids!.includes(sid));
}

/**
 * Two experiments that are not stopped may not change the same knob for the same traffic: a
 * visitor would see one variant's value or the other's, and neither result would be true.
 * Returns each clash as a message naming the other experiment and the knob.
 */
export function clashes(experiment: Experiment, others: readonly Experiment[]): string[] {
  if (experiment.status === "stopped") return [];
  const mine = knobsOf(experiment);
  const problems: string[] = [];
  for (const other of others) {
    if (other.id === experiment.id || other.status === "stopped" || !sameTraffic(experiment, other)) continue;
    for (const knob of knobsOf(other)) if (mine.has(knob)) problems.push(`experiment ${other.id} already changes ${KNOBS[knob].label.toLowerCase()} for the same traffic`);
  }
  return problems;
}
