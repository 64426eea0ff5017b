/**
 * The Express application: the middleware pipeline, in order. Built from explicit dependencies
 * so tests run the real app against a captured log stream.
 */
import express, { type ErrorRequestHandler, type RequestHandler } from "express";
import compression from "compression";
import type { Config } from "./config";
import { createHttpLogger, type Logger } from "./logger";
import { securityHeaders } from "./security";
import { healthRouter, type Lifecycle } from "./routes/health";
import { goHandler } from "./routes/go";
import { createRenderHandler } from "./render";
import type { RenderSource } from "./render-source";
import type { Csrf } from "./csrf";
import { hasGpc, type PrivacyService } from "./privacy/service";
import { privacyRoutes } from "./routes/privacy";
import { leadRoutes, type LeadRouteOptions } from "./routes/leads";
import type { ServerContext } from "../client/render-contract";
import { errorPageHtml } from "./error-pages";
import { logNotFound } from "./events";
import { paths } from "../shared/routes";

export interface AppDependencies {
  config: Config;
  logger: Logger;
  lifecycle: Lifecycle;
  source: RenderSource;
  /** Static files: the production build's, or Vite's dev middleware. */
  assets: RequestHandler[];
  privacy: { service: PrivacyService; csrf: Csrf };
  /** The quote form's API; it shares the privacy form's CSRF protection. */
  leads: Omit<LeadRouteOptions, "csrf" | "leadRateLimit" | "eventsRateLimit">;
}

export function createApp({ config, logger, lifecycle, source, assets, privacy, leads }: AppDependencies): express.Express {
  const app = express();
  // We sit behind a load balancer: req.ip and req.protocol come from its X-Forwarded-* headers,
  // but only for the hops the operator configured.
  app.set("trust proxy", config.TRUST_PROXY);
  app.set("query parser", "simple");
  app.disable("x-powered-by");

  // 1. Request id and access log first, so every later line and error carries the id.
  app.use(createHttpLogger(logger));
  // 2. While draining, tell keep-alive clients to reconnect elsewhere.
  app.use((_req, res, next) => {
    if (lifecycle.isShuttingDown()) res.setHeader("Connection", "close");
    next();
  });
  // 3. Nonce and security headers on every response, files included.
  app.use(securityHeaders(config));
  // 4. Compress text (HTML, JS, CSS, SVG, JSON); compression skips what is already compressed.
  app.use(compression());
  // 5. Probes, then the campaign redirect: neither needs rendering.
  app.use(healthRouter(lifecycle));
  app.get(paths.go, goHandler);
  // 6. Pages are rendered by the React router; loaders and actions get the server's services.
  const contextFor = (req: express.Request, res: express.Response): ServerContext => ({
    privacy: {
      csrfToken: () => privacy.csrf.issue(req, res),
      gpc: hasGpc(req),
      submit: (raw, submissionId) => privacy.service.submit(req, raw, submissionId),
    },
  });
  // Development re-renders every time so edits show at once.
  const renderPage = createRenderHandler(source, config, { cache: config.NODE_ENV !== "development", contextFor });
  // 7. Privacy requests: the form's POST and its JSON API (CSRF, size and rate checks).
  app.use(privacyRoutes({ service: privacy.service, csrf: privacy.csrf, rateLimit: config.PRIVACY_RATE_LIMIT, renderPage }));
  // 8. The quote form's API: session, ZIP lookup, quote requests, funnel events.
  app.use(leadRoutes({ ...leads, csrf: privacy.csrf, leadRateLimit: config.LEAD_RATE_LIMIT, eventsRateLimit: config.EVENTS_RATE_LIMIT }));
  // Any other /api/ address: a JSON 404 (API callers parse JSON), never the not-found page.
  app.all("/api/{*splat}", (req, res) => {
    logNotFound(req);
    res.status(404).setHeader("Cache-Control", "no-store").json({ error: "No such API endpoint." });
  });
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

function clientErrorStatus(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { status, statusCode } = error as { status?: unknown; statusCode?: unknown };
  const code = typeof status === "number" ? status : statusCode;
  return typeof code === "number" && code >= 400 && code < 500 ? code : undefined;
}
