/**
 * The Express application: the middleware pipeline, in order. Built from explicit dependencies
 * so tests run the real app against a captured log stream.
 */
import type { BuyerReturnsOptions } from "./api/buyer-returns";
import express, { type ErrorRequestHandler, type RequestHandler } from "express";
import compression from "compression";
import type { Config } from "./config";
import { createHttpLogger, type Logger } from "./logger";
import { metricsMiddleware } from "./metrics";
import { securityHeaders } from "./security";
import type { Lifecycle } from "./lifecycle";
import { healthRouter } from "./routes/health";
import { goHandler } from "./routes/go";
import { doNotSellForm } from "./routes/do-not-sell";
import { createRenderHandler } from "./pages/render";
import type { RenderSource } from "./pages/render-source";
import type { Csrf } from "./csrf";
import type { PrivacyService } from "./privacy/service";
import { hasGpc } from "./http/gpc";
import { clientErrorStatus } from "./http/http-error";
import { clientBudgets } from "./http/rate-limit";
import type { BudgetStores } from "./http/rate-limit-store";
import { apiRouter } from "./api/router";
import type { LeadApiOptions } from "./api/leads";
import type { VehicleCatalog } from "./vehicles/catalog";
import { consentCertificateRoute } from "./consent/route";
import { proofScripts } from "./consent/proof-scripts";
import type { ConsentCertificates } from "./consent/service";
import type { ServerContext } from "../shared/render-contract";
import { errorPageHtml } from "./pages/error-page";
import { logNotFound, attachEventRecorder } from "./events";
import type { EventRecorder } from "./analytics/writer";
import type { OutageLog } from "./db/outage";
import { API_PREFIX, paths } from "../shared/routes";
import type { Experiment } from "./experiments/schema";
import { attachExperiments } from "./experiments/visitor";
import { attachExposureRecorder, type ExposureRecorder } from "./experiments/exposure";
import { landingVariant } from "./experiments/landing";

export interface AppDependencies {
  config: Config;
  logger: Logger;
  lifecycle: Lifecycle;
  source: RenderSource;
  /** Static files: the production build's, or Vite's dev middleware. */
  assets: RequestHandler[];
  privacy: { service: PrivacyService; csrf: Csrf };
  /** The quote form's API; it shares the privacy form's CSRF protection. */
  leads: LeadApiOptions & { certificates: ConsentCertificates };
  /** Vehicle makes, models and VIN decoding (GET /api/vehicles/...); absent (tests of other parts): those are a 404. */
  vehicles?: VehicleCatalog;
  /** Buyers' signed return reports (POST /api/buyer-returns), against the live settings' buyers; absent in tests of other parts. */
  buyerReturns?: BuyerReturnsOptions;
  /** Where funnel events are stored for the report (server/analytics/writer.ts); absent: logged only. */
  analytics?: EventRecorder;
  /** Where the per-client budgets count (server/http/rate-limit-store.ts); absent: in this process's memory. */
  rateLimits?: BudgetStores | undefined;
  /** Hears of each request that met an unreachable database: one warning per outage (server/db/outage.ts); absent: one per request. */
  outage?: OutageLog;
  /**
   * A/B experiments (issue 45, server/experiments/): the live settings' list, read per request, and
   * where exposures are written. Absent: none run, everyone sees the control and no cookie is set.
   */
  experiments?: { running(): readonly Experiment[]; exposures?: ExposureRecorder; now?: () => Date };
}

export function createApp({ config, logger, lifecycle, source, assets, privacy, leads, vehicles, buyerReturns, analytics, rateLimits, outage, experiments }: AppDependencies): express.Express {
  const app = express();
  if (analytics) attachEventRecorder(app, analytics);
  if (experiments) {
    // Secure in production, where visitors reach us over TLS at the balancer (docs/deployment.md).
    attachExperiments(app, { running: experiments.running, secureCookie: config.NODE_ENV === "production", ...(experiments.now ? { now: experiments.now } : {}) });
    if (experiments.exposures) attachExposureRecorder(app, experiments.exposures);
  }
  // We sit behind a load balancer: req.ip and req.protocol come from its X-Forwarded-* headers,
  // but only for the hops the operator configured.
  app.set("trust proxy", config.TRUST_PROXY);
  app.set("query parser", "simple");
  app.disable("x-powered-by");

  // 1. Request id and access log first, so every later line and error carries the id.
  app.use(createHttpLogger(logger));
  // Every request is counted by route pattern and status (server/metrics.ts; scraped on the console's listener).
  app.use(metricsMiddleware());
  // 2. While draining, tell keep-alive clients to reconnect elsewhere.
  app.use((_req, res, next) => {
    if (lifecycle.isShuttingDown()) res.setHeader("Connection", "close");
    next();
  });
  // 3. Nonce and security headers on every response, files included.
  const security = securityHeaders(config);
  app.use(security.handler);
  // 4. Pages are rendered by the React router; loaders and actions get the server's services.
  const contextFor = (req: express.Request, res: express.Response): ServerContext => ({
    privacy: {
      csrfToken: () => privacy.csrf.issue(req, res),
      gpc: hasGpc(req),
      submit: (raw, submissionId) => privacy.service.submit(req, raw, submissionId),
    },
  });
  // Development re-renders every time so edits show at once.
  const { renderPage, cachedPage } = createRenderHandler(source, config, {
    cache: config.NODE_ENV !== "development",
    contextFor,
    policyFor: security.policyFor,
    logger,
    // The landing page's variant (issue 45); without experiments, pages take today's path.
    ...(experiments ? { variantOf: landingVariant } : {}),
  });
  //    A page already in the cache (most ad clicks) is answered here: it is compressed already,
  //    and nothing after this step serves a GET for an address the renderer answered.
  app.use(cachedPage);
  // 5. Compress text (HTML, JS, CSS, SVG, JSON); compression skips what is already compressed.
  app.use(compression());
  // 6. Probes, then the campaign redirect: neither needs rendering.
  app.use(healthRouter(lifecycle));
  app.get(paths.go, goHandler);
  // Consent certificates for buyers (signed links, 404 for anything else; server/consent/route.ts).
  app.use(consentCertificateRoute(leads.certificates));
  // 7. The JSON API (privacy requests, the quote form's session, ZIP lookup, quote requests and
  //    funnel events): one pipeline, one error envelope, a JSON 404 for unknown addresses. Each
  //    per-client budget is one counter, so the no-JavaScript privacy form spends the API's.
  const budgets = clientBudgets(config, rateLimits);
  // The quote form learns from its session which consent-proof scripts to load (issue 44); its CSP allows exactly those (step 3).
  const proof = { ...leads, proofScripts: () => proofScripts(config) };
  app.use(API_PREFIX, apiRouter({ csrf: privacy.csrf, budgets, privacy: privacy.service, leads: proof, ...(vehicles ? { vehicles } : {}), ...(buyerReturns ? { buyerReturns } : {}), ...(outage ? { outage } : {}) }));
  // 8. The privacy form without JavaScript: the same checks, answered as pages.
  app.use(doNotSellForm({ csrf: privacy.csrf, budget: budgets.privacy, renderPage }));
  // 9. Files, then every other GET/HEAD is a page.
  if (assets.length > 0) app.use(assets);
  app.get("/{*splat}", renderPage);
  // 10. Other methods on pages are not supported.
  app.use((req, res) => {
    res.setHeader("Allow", "GET, HEAD");
    res.status(405).type("html").send(errorPageHtml(405, String(req.id)));
  });
  app.use(errorHandler);
  return app;
}

/** Client mistakes keep their 4xx; anything else is a 500 with no details for the visitor. */
const errorHandler: ErrorRequestHandler = (error: unknown, req, res, next) => {
  const status = clientErrorStatus(error);
  if (status === 404) logNotFound(req);
  else if (status !== undefined) req.log.warn({ err: error, status }, "client error");
  else req.log.error({ err: error }, "request failed");
  if (res.headersSent) {
    next(error);
    return;
  }
  const code = status ?? 500;
  res.status(code);
  res.setHeader("Cache-Control", "no-store");
  res.type("html").send(errorPageHtml(code, String(req.id)));
};
