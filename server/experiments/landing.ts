/**
 * The landing page's variant for one request (issue 45): which of its knobs this visitor's
 * variants change, and the page cache's key for that combination (server/pages/render.ts keeps
 * one entry per combination, never one visitor's variant for another). The exposure is recorded
 * here, where the variant is decided for a page that shows it.
 *
 * Undefined when no running experiment changes the landing page for the address's source: the
 * page is then the same for everyone and takes today's path, at today's cost.
 */
import type { Request, Response } from "express";
import { controlKnobs, type Knobs } from "../../shared/experiments";
import type { LandingKnobs } from "../../shared/render-contract";
import { paths } from "../../shared/routes";
import { recordExposures } from "./exposure";
import { anyExperiments, experimentsOn, visitorFor } from "./visitor";

export interface PageVariant {
  /** The page cache's key part: the knobs' values that differ from the control's; "" for the control. */
  key: string;
  /** Those values, for the render (ServerContext.knobs). */
  knobs: LandingKnobs;
}

/** The knobs the landing page reads, in a fixed order (the key must not depend on experiments' order). */
const LANDING_KNOBS = ["landing.headline", "landing.buttonText", "landing.carrierLogos"] as const satisfies readonly (keyof LandingKnobs)[];

/** shared/campaign.ts's campaignIdSchema as one regular expression: zod's parse, per request, cost ad clicks measurably. */
export const CAMPAIGN_ID = /^[A-Za-z0-9._~-]{1,64}$/;

/** An address's one valid campaign id of this name (the exposure's sid or tid), else null. */
function campaignId(url: URL, name: "sid" | "tid"): string | null {
  const all = url.searchParams.getAll(name);
  return all.length === 1 && CAMPAIGN_ID.test(all[0]!) ? all[0]! : null;
}

const CONTROL = controlKnobs();

/** The request's answer, on the request (not a WeakMap: see server/experiments/visitor.ts, STATE). */
const DECIDED = Symbol("landing variant");
type WithVariant = Request & { [DECIDED]?: { variant: PageVariant | undefined } };

export function landingVariant(req: Request, res: Response, url: URL): PageVariant | undefined {
  if (url.pathname !== paths.landing || !anyExperiments(req)) return undefined;
  // The page cache's lookup and the render both ask: one answer, one exposure per request.
  const holder = req as WithVariant;
  const known = holder[DECIDED];
  if (known) return known.variant;
  const sid = campaignId(url, "sid") ?? undefined;
  const variant = experimentsOn(req, "landing", sid).length === 0 ? undefined : decide(req, res, url, sid);
  holder[DECIDED] = { variant };
  return variant;
}

function decide(req: Request, res: Response, url: URL, sid: string | undefined): PageVariant {
  const visitor = visitorFor(req, res, { surface: "landing", sid });
  // A HEAD shows nothing: no exposure.
  if (req.method === "GET") recordExposures(req, visitor, { sid: sid ?? null, tid: campaignId(url, "tid") });
  return variantOf(visitor.knobs);
}

/** The knobs that differ from the control's, and their key. */
export function variantOf(knobs: Knobs): PageVariant {
  const changed: LandingKnobs = {};
  for (const name of LANDING_KNOBS) {
    if (knobs[name] !== CONTROL[name]) Object.assign(changed, { [name]: knobs[name] });
  }
  return { key: Object.keys(changed).length === 0 ? "" : JSON.stringify(changed), knobs: changed };
}
