/**
 * Per-client budgets (IP address, see TRUST_PROXY) over a 10-minute window, counted before any
 * parsing. One budget per kind of submission, shared by every route that takes it: the privacy
 * request's JSON API and its no-JavaScript form spend the same one. Where the budgets count
 * (shared by every replica on PostgreSQL, per process while it fails; in memory on the embedded
 * store): ./rate-limit-store.ts.
 */
import type { RequestHandler } from "express";
import { rateLimit } from "express-rate-limit";
import type { Config } from "../config";
import { HttpError } from "./http-error";
import { requestPath } from "./guards";
import { errorMessage } from "../pages/error-page";
import type { BudgetStoreOptions, BudgetStores } from "./rate-limit-store";

const RATE_WINDOW_MS = 10 * 60_000;

/**
 * At most `limit` requests per client per window; over it, a warn line with `event` and a 429
 * HttpError. Counted in express-rate-limit's memory store unless `store` says where else.
 */
export function perClientLimit(limit: number, event: string, store: BudgetStoreOptions = {}): RequestHandler {
  return rateLimit({
    ...store,
    windowMs: RATE_WINDOW_MS,
    limit,
    standardHeaders: "draft-8",
    legacyHeaders: false,
    // A 503 (the database was away) is not the client's doing: the form's automatic retries are free.
    skipFailedRequests: true,
    requestWasSuccessful: (_req, res) => res.statusCode !== 503,
    handler(req, _res, next) {
      req.log.warn({ event, path: requestPath(req) }, "rate limited");
      next(new HttpError(429, errorMessage(429)));
    },
  });
}

export interface ClientBudgets {
  /** POST /api/leads (LEAD_RATE_LIMIT). */
  leads: RequestHandler;
  /** POST /api/events (EVENTS_RATE_LIMIT). */
  events: RequestHandler;
  /** POST /api/privacy-requests and POST /do-not-sell together (PRIVACY_RATE_LIMIT). */
  privacy: RequestHandler;
}

/**
 * One set per app: each budget is one counter, whichever routes use it. `stores` (PostgreSQL)
 * makes each counter shared by every replica; without it, each process counts on its own.
 */
export function clientBudgets(config: Pick<Config, "LEAD_RATE_LIMIT" | "EVENTS_RATE_LIMIT" | "PRIVACY_RATE_LIMIT">, stores?: BudgetStores): ClientBudgets {
  return {
    leads: perClientLimit(config.LEAD_RATE_LIMIT, "lead_rate_limited", stores?.("leads")),
    events: perClientLimit(config.EVENTS_RATE_LIMIT, "events_rate_limited", stores?.("events")),
    privacy: perClientLimit(config.PRIVACY_RATE_LIMIT, "privacy_request_rate_limited", stores?.("privacy")),
  };
}
