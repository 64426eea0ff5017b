/**
 * Who sees which variant (issue 45, docs/experiments.md): deterministic from the visitor id (the
 * qr_vis cookie) and the experiment, so every replica and every visit agree for the experiment's
 * life without storing an assignment; sticky because the hash never changes. A visitor without an
 * id (no cookie: Global Privacy Control, an opt-out, a bot) is never assigned and sees the control.
 */
import { createHash, randomBytes } from "node:crypto";
import { controlKnobs, KNOBS, type Assignment, type ExperimentSurface, type KnobName, type Knobs } from "../../shared/experiments";
import { knobsOf, type Experiment, type Variant } from "./schema";

/** Buckets of the hash: shares are whole percents, so 10,000 leave no rounding in any share. */
const BUCKETS = 10_000;

/** A new visitor id: 128 random bits, base64url (22 characters, safe in a cookie and an id column). */
export function newVisitorId(): string {
  return randomBytes(16).toString("base64url");
}

/** A visitor id as the cookie must hold it; anything else is ignored (and a new one minted). */
export const VISITOR_ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;

/** The visitor's bucket in this experiment, 0 to 9,999: SHA-256 of the experiment and the visitor. */
export function bucketOf(experimentId: string, visitorId: string): number {
  const digest = createHash("sha256").update(`${experimentId}\n${visitorId}`).digest();
  return digest.readUInt32BE(0) % BUCKETS;
}

/** The visitor's variant: the shares laid end to end over the buckets, in the variants' order. */
export function variantFor(experiment: Pick<Experiment, "id" | "variants">, visitorId: string): Variant {
  const bucket = bucketOf(experiment.id, visitorId);
  let end = 0;
  for (const variant of experiment.variants) {
    end += variant.share * (BUCKETS / 100);
    if (bucket < end) return variant;
  }
  // Shares add up to 100 (the schema's rule); the control if they ever did not.
  return experiment.variants[0]!;
}

/** Whether the experiment runs now for a visitor from this source (sid), changing something on this surface. */
export function appliesTo(experiment: Experiment, at: Date, sid: string | undefined, surface: ExperimentSurface): boolean {
  if (experiment.status !== "running") return false;
  const now = at.getTime();
  if (now < Date.parse(experiment.startAt)) return false;
  if (experiment.stopAt && now >= Date.parse(experiment.stopAt)) return false;
  if (experiment.sids && (!sid || !experiment.sids.includes(sid))) return false;
  return [...knobsOf(experiment)].some((knob) => KNOBS[knob].surface === surface);
}

/** The running experiments that change this surface for this visitor's source. */
export function experimentsFor(experiments: readonly Experiment[], at: Date, sid: string | undefined, surface: ExperimentSurface): Experiment[] {
  return experiments.filter((experiment) => appliesTo(experiment, at, sid, surface));
}

/** The visitor's variants in these experiments (none without a visitor id: the control everywhere). */
export function assign(experiments: readonly Experiment[], visitorId: string | undefined): { assignments: Assignment[]; knobs: Knobs } {
  const knobs = controlKnobs();
  if (!visitorId) return { assignments: [], knobs };
  const assignments: Assignment[] = [];
  for (const experiment of experiments) {
    const variant = variantFor(experiment, visitorId);
    assignments.push({ experiment: experiment.id, variant: variant.id });
    // Two running experiments never change the same knob for the same traffic (schema.ts, clashes).
    Object.assign(knobs as unknown as Record<KnobName, unknown>, variant.values);
  }
  return { assignments, knobs };
}
