/**
 * The quote form's API (the form is the static page rapidfire.html, framed by /):
 * - GET  /api/leads/session       a CSRF token and the signed "form opened" time, on load
 * - GET  /api/zip-codes/:zip      the city and state of a ZIP code, to show and confirm it
 * - POST /api/leads               the quote request (JSON; same origin, CSRF, size and rate limits)
 * - POST /api/events              the funnel beacon: form_started, form_step_completed (204)
 */
import express, { type Request } from "express";
import type { Csrf } from "../csrf";
import { CSRF_HEADER } from "../csrf";
import { hasGpc } from "../privacy/service";
import type { LeadService, LeadOutcome } from "../leads/service";
import type { FormTokens } from "../leads/form-token";
import type { ZipDirectory } from "../zip-codes";
import { logFunnelEvent } from "../events";
import { isJsonObject, jsonParseErrors, noStore, ownJsonBody, perClientLimit } from "./api-guards";
import { paths } from "../../shared/routes";
import { funnelEventSchema, type LeadSubmitResponse } from "../../shared/lead";

/** A complete request is about 1.5 KB; 16 KB leaves room for long addresses and URLs, no more. */
const LEAD_BODY_LIMIT = "16kb";
const EVENT_BODY_LIMIT = "2kb";
/** ZIP codes change rarely; a day in browser and CDN caches is safe. */
const ZIP_CACHE = "public, max-age=86400";

export interface LeadRouteOptions {
  service: LeadService;
  csrf: Csrf;
  formTokens: FormTokens;
  zipCodes: ZipDirectory;
  consentVersion: number;
  leadRateLimit: number;
  eventsRateLimit: number;
}

const STATUS: Record<LeadOutcome["kind"], number> = { created: 201, already_sent: 409, invalid: 422, rejected: 400 };

function answer(outcome: LeadOutcome): { status: number; body: LeadSubmitResponse } {
  switch (outcome.kind) {
    case "created":
      return { status: STATUS.created, body: { status: "created", reference: outcome.reference, duplicate: outcome.duplicate } };
    case "already_sent":
      return { status: STATUS.already_sent, body: { status: "already_sent", reference: outcome.reference } };
    case "invalid":
      return { status: STATUS.invalid, body: { status: "invalid", errors: outcome.errors } };
    case "rejected":
      return { status: outcome.status, body: { status: "error", error: outcome.message } };
  }
}

export function leadRoutes(options: LeadRouteOptions): express.Router {
  const { service, csrf, formTokens, zipCodes } = options;
  const router = express.Router();

  router.get(paths.leadsSession, (req, res) => {
    noStore(res).json({ csrfToken: csrf.issue(req, res), formToken: formTokens.issue(), consentVersion: options.consentVersion, gpc: hasGpc(req) });
  });

  router.get(`${paths.zipCodesApi}/:zip`, (req: Request<{ zip: string }>, res) => {
    const zip = req.params.zip;
    if (!/^\d{5}$/.test(zip)) {
      res.status(400).json({ error: "A ZIP code is exactly 5 digits." });
      return;
    }
    const location = zipCodes.lookup(zip);
    res.setHeader("Cache-Control", ZIP_CACHE);
    if (location) res.json(location);
    else res.status(404).json({ error: `We could not find ZIP code ${zip}.` });
  });

  router.post(
    paths.leadsApi,
    perClientLimit(options.leadRateLimit, "lead_rate_limited"),
    ...ownJsonBody(LEAD_BODY_LIMIT),
    async (req, res, next) => {
      try {
        noStore(res);
        if (!csrf.verify(req, req.get(CSRF_HEADER))) {
          req.log.warn({ event: "csrf_rejected", path: req.path }, "quote request without a valid CSRF token");
          res.status(403).json({ status: "error", error: "Your session has expired. Reload the page and send the form again." } satisfies LeadSubmitResponse);
          return;
        }
        const body: unknown = req.body;
        if (!isJsonObject(body)) {
          res.status(400).json({ status: "error", error: "Send the form's fields as a JSON object." } satisfies LeadSubmitResponse);
          return;
        }
        const { status, body: reply } = answer(await service.submit(req, body));
        res.status(status).json(reply);
      } catch (error) {
        next(error);
      }
    },
  );

  router.post(
    paths.eventsApi,
    perClientLimit(options.eventsRateLimit, "events_rate_limited"),
    ...ownJsonBody(EVENT_BODY_LIMIT),
    (req, res) => {
      noStore(res);
      const parsed = funnelEventSchema.safeParse(req.body);
      if (!parsed.success) {
        res.status(400).json({ error: "Unknown or malformed event." });
        return;
      }
      logFunnelEvent(req, parsed.data);
      res.status(204).end();
    },
  );

  router.use(jsonParseErrors);
  return router;
}
