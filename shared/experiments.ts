/**
 * A/B experiments (issue 45, docs/experiments.md): the closed list of things a variant may change
 * ("knobs"), each read by one page or form screen, with the control's value. A variant is a named
 * set of knob values; a change needs no new code beyond what reads the knob. Shared by the server
 * (validation, assignment, rendering) and the pages that read the values (the landing page, the
 * quote form); the schemas that check a variant's values are the server's
 * (server/experiments/schema.ts).
 */

/** Where a knob takes effect: its surface is what an exposure is counted on. */
export type ExperimentSurface = "landing" | "form";

export interface KnobValues {
  /** The landing page's headline (the page's h1). */
  "landing.headline": string;
  /** The landing page's ZIP button text (the arrow stays, hidden from screen readers). */
  "landing.buttonText": string;
  /** Whether the landing page shows the six carrier logos. */
  "landing.carrierLogos": boolean;
  /** The quote form asks the coverage question before the current-insurer question. */
  "form.coverageFirst": boolean;
  /** The quote form skips the coverage question, which then takes its default (standard). */
  "form.skipCoverage": boolean;
}
export type KnobName = keyof KnobValues;

/** Every knob, its surface, what ops read in the console, and the control's value (what the site shows without an experiment). */
export const KNOBS: { readonly [K in KnobName]: { surface: ExperimentSurface; label: string; control: KnobValues[K] } } = {
  "landing.headline": { surface: "landing", label: "Landing page headline", control: "Compare Free Car Insurance Quotes" },
  "landing.buttonText": { surface: "landing", label: "Landing page button text", control: "Get Your Quote" },
  "landing.carrierLogos": { surface: "landing", label: "Landing page shows the carrier logos", control: true },
  "form.coverageFirst": { surface: "form", label: "Quote form asks coverage before the current insurer", control: false },
  "form.skipCoverage": { surface: "form", label: "Quote form skips the coverage question (standard coverage)", control: false },
};
export const KNOB_NAMES = Object.keys(KNOBS) as KnobName[];

/** The coverage a lead takes when its form skipped the question (form.skipCoverage). */
export const SKIPPED_COVERAGE_DEFAULT = "standard";

/** The values a page reads: the control's, with the visitor's variants' values over them. */
export type Knobs = KnobValues;

export function controlKnobs(): Knobs {
  return Object.fromEntries(KNOB_NAMES.map((name) => [name, KNOBS[name].control])) as unknown as Knobs;
}

/** A visitor's variant in one experiment, as the pages and the report name it. */
export interface Assignment {
  experiment: string;
  variant: string;
}

/**
 * The first-party cookie holding the visitor id experiments assign by (content/legal: the privacy
 * policy's cookie table names it, its purpose and lifetime). Set only while an experiment runs on
 * the page the visitor opens, never with Global Privacy Control or an opt-out.
 */
export const EXPERIMENT_COOKIE = "qr_vis";
/** Its lifetime: long enough for an experiment's life, no longer. */
export const EXPERIMENT_COOKIE_DAYS = 90;

/** The primary metrics an experiment may be judged by (fixed before it starts). */
export const PRIMARY_METRICS = ["net_revenue_per_visitor", "lead_rate"] as const;
export type PrimaryMetric = (typeof PRIMARY_METRICS)[number];
