/**
 * The quote form's API (the form is the static page rapidfire.html, framed by /):
 * - GET  /api/leads/session       a CSRF token, the signed "form opened" time and the consent
 *                                  disclosure to show (its stored version and exact text), on load;
 *                                  with TRUSTEDFORM / JORNAYA on, the providers' scripts to load;
 *                                  with an A/B experiment running on the form for this visitor
 *                                  (?sid&tid: the form's own campaign ids), the form's knobs
 * - POST /api/leads/disclosure    the consent words for the visitor's answers so far (the buyers that
 *                                  could take the request, with us), asked on reaching the consent box
 * - GET  /api/zip-codes/:zip      the city and state of a ZIP code, to show and confirm it
 * - POST /api/leads               the quote request (the API pipeline: same origin, CSRF, size and rate limits)
 * - POST /api/events              the funnel beacon: form_started, form_step_completed (204)
 */
import type { Request, Response } from "express";
import type { Csrf } from "../csrf";
import type { LeadService, LeadOutcome } from "../leads/service";
import type { FormTokens } from "../leads/form-token";
import type { ZipDirectory } from "../zip-codes";
import type { ClientBudgets } from "../http/rate-limit";
import { HttpError } from "../http/http-error";
import { noStore } from "../http/guards";
import { logFunnelEvent } from "../events";
import { jsonFields, type Endpoint } from "./pipeline";
import { paths } from "../../shared/routes";
import { LEAD_REFERENCE_PATTERN } from "../../shared/lead/api";
import { funnelEventSchema } from "../../shared/funnel-events";
import type { LeadMatches } from "../leads/matches";
import type { VisitorDisclosures } from "../leads/visitor-disclosure";
import type { LeadSubmitResponse, ProofScript } from "../../shared/lead/api";
import type { ShownDisclosure } from "../../shared/consent-disclosure";
import { parseCampaignQuery } from "../../shared/campaign";
import { FORM_KNOB_NAMES, type FormKnobs, type SessionExperiments } from "../../shared/lead/api";
import { visitorFor } from "../experiments/visitor";
import { recordExposures } from "../experiments/exposure";

/** A complete request is about 1.5 KB; 16 KB leaves room for long addresses and URLs, no more. */
const LEAD_BODY_LIMIT = "16kb";
const EVENT_BODY_LIMIT = "2kb";
/** The answers the words depend on (4 drivers at most) and the page's address: well under 8 KB. */
const DISCLOSURE_BODY_LIMIT = "8kb";
/** ZIP codes change rarely; a day in browser and CDN caches is safe. */
const ZIP_CACHE = "public, max-age=86400";

/** The quote form's services (server/leads/capture.ts builds them). */
export interface LeadApiOptions {
  service: LeadService;
  formTokens: FormTokens;
  zipCodes: ZipDirectory;
  /** The words naming only us, for the session: shown until the visitor's own arrive, never sent (docs/decisions/039). */
  shownDisclosure(): Promise<ShownDisclosure>;
  /** The words for a visitor's answers (server/leads/visitor-disclosure.ts). */
  disclosures: Pick<VisitorDisclosures, "forRequest">;
  /** The buyers that accepted a lead, for its sender (server/leads/matches.ts). */
  matches: LeadMatches;
  /** The consent-proof scripts the form loads, per page load (server/consent/proof-scripts.ts); absent or empty: none. */
  proofScripts?: () => ProofScript[];
}

const STATUS = { created: 201, already_sent: 409 } as const;

/**
 * The form's variants for this visitor (issue 45, docs/experiments.md "The quote form's variants"),
 * or undefined when no running experiment changes the form for them (no cookie is set then, and the
 * session's answer is what it always was). Only the form's knobs go out: the landing page's are
 * none of the form's business. Each assignment is recorded as an exposure now, as the form opens:
 * that is where the variant is shown. The form never sends the variant back; its answers are
 * checked as anyone's (a skipped coverage question arrives as the default the form fills in).
 */
function formExperiments(req: Request, res: Response): SessionExperiments | undefined {
  // The form's own address carries the ids (?zip&sid&tid&vid); it passes sid and tid on. A bad
  // one is dropped, as /go and the page drop it: the visitor is then from no source.
  const { campaign } = parseCampaignQuery({ sid: req.query.sid, tid: req.query.tid });
  const visitor = visitorFor(req, res, { surface: "form", sid: campaign.sid });
  if (visitor.assignments.length === 0) return undefined;
  recordExposures(req, visitor, campaign);
  const knobs = Object.fromEntries(FORM_KNOB_NAMES.map((name) => [name, visitor.knobs[name]])) as Record<keyof FormKnobs, boolean>;
  return { knobs };
}

/** A stored (or already stored) request is answered; refusals are thrown for the API's error handler. */
function answer(outcome: LeadOutcome, matches: LeadMatches): { status: number; body: LeadSubmitResponse } {
  switch (outcome.kind) {
    case "created":
      return { status: STATUS.created, body: { status: "created", reference: outcome.reference, duplicate: outcome.duplicate, matchesToken: matches.tokenFor(outcome.reference) } };
    case "already_sent":
      return { status: STATUS.already_sent, body: { status: "already_sent", reference: outcome.reference, matchesToken: matches.tokenFor(outcome.reference) } };
    case "invalid":
      throw HttpError.invalid(outcome.errors);
    case "rejected":
      throw new HttpError(outcome.status, outcome.message);
  }
}

export function leadEndpoints({ service, formTokens, zipCodes, shownDisclosure, disclosures, matches, proofScripts }: LeadApiOptions, csrf: Csrf, budgets: ClientBudgets): Endpoint[] {
  return [
    {
      method: "get",
      path: paths.leadsSession,
      async handle(req, res) {
        const disclosure = await shownDisclosure();
        // The providers' scripts ride along only when one is on: the form loads none otherwise.
        const scripts = proofScripts?.() ?? [];
        // Likewise the experiments' knobs: only when one applies to this visitor.
        const experiments = formExperiments(req, res);
        noStore(res).json({ csrfToken: csrf.issue(req, res), formToken: formTokens.issue(), disclosure, ...(scripts.length > 0 ? { proofScripts: scripts } : {}), ...(experiments ? { experiments } : {}) });
      },
    },
    {
      // The words beside the consent box for these answers: { version, parts }. Through the same
      // checks as the request itself (same origin, CSRF), on the funnel beacon's budget: a form
      // asks it once or twice, as often as it completes a screen, and it stores at most a new text.
      method: "post",
      path: paths.leadsDisclosure,
      body: { limit: DISCLOSURE_BODY_LIMIT, budget: budgets.events, csrf: true },
      async handle(req, res) {
        const outcome = await disclosures.forRequest(jsonFields(req), new Date());
        if (outcome.kind === "invalid") throw HttpError.invalid(outcome.errors);
        if (outcome.kind === "rejected") throw new HttpError(400, outcome.message);
        res.json(outcome.disclosure);
      },
    },
    {
      method: "get",
      path: `${paths.zipCodesApi}/:zip`,
      handle(req, res) {
        const zip = typeof req.params.zip === "string" ? req.params.zip : "";
        if (!/^\d{5}$/.test(zip)) throw new HttpError(400, "A ZIP code is exactly 5 digits.");
        // Both answers are facts about the ZIP code, the same for everyone: cacheable.
        res.setHeader("Cache-Control", ZIP_CACHE);
        const location = zipCodes.lookup(zip);
        if (!location) throw new HttpError(404, `We could not find ZIP code ${zip}.`);
        // What the form shows beside the ZIP (the time zone is for buyers' calling rules, not the page).
        res.json({ zip: location.zip, city: location.city, state: location.state });
      },
    },
    {
      method: "post",
      path: paths.leadsApi,
      body: { limit: LEAD_BODY_LIMIT, budget: budgets.leads, csrf: true },
      async handle(req, res) {
        const { status, body } = answer(await service.submit(req, jsonFields(req)), matches);
        res.status(status).json(body);
      },
    },
    {
      // The matches step: who accepted the lead. The same 404 for an unknown lead and a wrong
      // token, so a guessed reference tells nothing.
      method: "get",
      path: `${paths.leadsApi}/:reference/matches`,
      async handle(req, res) {
        noStore(res);
        const reference = typeof req.params.reference === "string" ? req.params.reference : "";
        if (!LEAD_REFERENCE_PATTERN.test(reference)) throw new HttpError(422, "A lead reference looks like LD-7K3M-Q9XD.");
        const token = typeof req.query.token === "string" ? req.query.token : "";
        const answer = token ? await matches.read(reference, token) : undefined;
        if (!answer) throw new HttpError(404, "No such quote request.");
        res.json(answer);
      },
    },
    {
      method: "post",
      path: paths.eventsApi,
      // No CSRF token: the beacon is sent before the form's session exists and with `keepalive`
      // as a page closes. It stores nothing (one log line, validated), and same-origin and the
      // budget still apply.
      body: { limit: EVENT_BODY_LIMIT, budget: budgets.events, csrf: false },
      handle(req, res) {
        const parsed = funnelEventSchema.safeParse(req.body);
        if (!parsed.success) throw new HttpError(400, "Unknown or malformed event.");
        logFunnelEvent(req, parsed.data);
        res.status(204).end();
      },
    },
  ];
}
