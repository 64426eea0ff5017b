/**
 * The operations console: an Express app of its own, served only on ADMIN_HOST:ADMIN_PORT
 * (server/admin/listener.ts), never by the public app. The pipeline, in order: request id and
 * access log; the console's strict headers; sign-in and sign-out; then every page behind a
 * session, and every action behind the session's CSRF token and the ops role.
 * docs/operations-console.md describes it for its users.
 */
import { createHmac } from "node:crypto";
import express, { type ErrorRequestHandler, type Request, type Response } from "express";
import type { Logger } from "pino";
import type { Config } from "../config";
import type { Database } from "../db/database";
import type { SettingsDirectory } from "../settings/directory";
import type { EventRecorder } from "../analytics/writer";
import { createCsrf } from "../csrf";
import { createHttpLogger } from "../logger";
import type { Lifecycle } from "../lifecycle";
import { clientErrorStatus } from "../http/http-error";
import { parsedBody, requestPath } from "../http/guards";
import { perClientLimit } from "../http/rate-limit";
import { logNotFound } from "../events";
import { adminPaths, type RenderAdmin } from "../../shared/admin-views";
import { adminSecurityHeaders } from "./security";
import { adminUserRepository } from "./users";
import { adminSessionRepository } from "./sessions";
import { createFlashStore } from "./flash";
import { createRenderView, type RenderView } from "./render";
import { SIGN_IN_RATE_LIMITED, signInRoutes } from "./sign-in-routes";
import { requireRole, requireSession, requireSessionCsrf, sessionOf } from "./session-guard";
import { metricsText, registry } from "../metrics";
import { createActions } from "./actions";
import type { AdminReports } from "./reports";
import { reportCsvFor, reportView } from "./report-view";
import { journeyView } from "./journey-view";
import { leadsView } from "./leads-view";
import { parseLeadListQuery } from "./lead-list-query";
import { LEAD_CSV_MAX_ROWS, leadListCsv, leadListView } from "./lead-list-view";
import { UnknownCursorError } from "../db/lead-list";
import { buyersView } from "./buyers-view";
import { privacyView } from "./privacy-view";
import { settingsRoutes } from "./settings-routes";
import { experimentRoutes } from "./experiment-routes";
import { experimentResultsRoutes } from "./experiment-results";
import { outboundPolicy } from "../delivery/outbound";
import { certificateSecret, certificateUrl } from "../consent/certificate";
import type { LeadRecord } from "../db/leads";

/** Sign-in attempts per client per 10 minutes (beside the per-user lockout). */
export const DEFAULT_SIGN_IN_LIMIT = 30;
/** A console form is a few short fields; a note is at most 1,000 characters. */
const BODY_LIMIT = "16kb";

export interface AdminAppDependencies {
  /** NODE_ENV and OUTBOUND_ALLOW: in production buyers' and sources' addresses must be https:// to public hosts. */
  config: Pick<Config, "ADMIN_SESSION_HOURS" | "REPORT_TIME_ZONE" | "NODE_ENV"> & Partial<Pick<Config, "OUTBOUND_ALLOW">> & CertificateLinkConfig;
  logger: Logger;
  db: Database;
  /** The React entry's renderAdmin, loaded when first needed (in development Vite loads it per request). */
  renderAdmin: () => Promise<RenderAdmin>;
  /** The site's CSRF_SECRET: the sign-in form's tokens and the flash cookie are keyed from it. */
  secret: string | Buffer;
  reports: AdminReports;
  /** The business settings in force (buyers, sources, auction), kept current by polling; absent in tests of pages that need none. */
  settings?: SettingsDirectory;
  /** Wakes this process's delivery worker after a retry. */
  nudge?: () => void;
  /** The funnel events' writer: a return made here is stored for the report like any other. */
  analytics?: EventRecorder;
  /** While draining, keep-alive clients are told to reconnect. */
  lifecycle?: Lifecycle;
  signInLimit?: number;
  now?: () => Date;
  /** A buyer's consent certificate link for a lead, for the spec preview; by default made as the delivery worker makes it (server/delivery/setup.ts). */
  certificateUrl?: (lead: LeadRecord, buyerId: string) => string | null;
  /** Test leads one console user may send to buyers a minute (default 5, server/admin/buyer-test-lead.ts). */
  testLeadsPerMinute?: number;
}

/** What certificate links are made from, as the delivery worker makes them (server/delivery/setup.ts). */
export type CertificateLinkConfig = Partial<Pick<Config, "PUBLIC_BASE_URL" | "CERTIFICATE_SECRET" | "CSRF_SECRET" | "HOST" | "PORT">>;

/** The links the delivery worker gives buyers: the same key (CERTIFICATE_SECRET, else derived from the CSRF secret) and origin. */
function certificateLinks(config: CertificateLinkConfig, csrfSecret: string | Buffer): (lead: LeadRecord, buyerId: string) => string | null {
  const host = config.HOST === undefined || config.HOST === "0.0.0.0" || config.HOST === "::" ? "localhost" : config.HOST;
  const key = { secret: certificateSecret(config, csrfSecret), baseUrl: config.PUBLIC_BASE_URL ?? `http://${host}:${config.PORT ?? 3000}` };
  return (lead, buyerId) => (lead.consent?.certificateId ? certificateUrl(lead.consent.certificateId, buyerId, key) : null);
}

/** A key for one use, derived from the shared secret, so a token of one kind is never valid as another. */
const keyFor = (secret: string | Buffer, purpose: string) => createHmac("sha256", secret).update(`operations-console:${purpose}`).digest();

export function createAdminApp(deps: AdminAppDependencies): express.Express {
  const { config, logger, db, reports, settings } = deps;
  /** The buyers and sources in force at this request (undefined: this console runs without settings). */
  const buyersNow = () => settings?.current();
  const now = deps.now ?? (() => new Date());
  const users = adminUserRepository(db);
  const sessions = adminSessionRepository(db, config.ADMIN_SESSION_HOURS);
  const flash = createFlashStore(keyFor(deps.secret, "flash"));
  const render = createRenderView(deps.renderAdmin, flash);
  const body = parsedBody(express.urlencoded({ extended: false, limit: BODY_LIMIT, parameterLimit: 20 }), () => "The form could not be read.");
  const actions = createActions({ db, flash, render, now, ...(settings ? { buyers: () => settings.current() } : {}), ...(deps.nudge ? { nudge: deps.nudge } : {}), ...(deps.analytics ? { analytics: deps.analytics } : {}) });

  const app = express();
  // Reached directly (SSH tunnel, internal network), never through the balancer: no proxy
  // header is believed, so req.ip (the sign-in rate limit's key) is the socket's address.
  app.set("trust proxy", false);
  app.set("query parser", "simple");
  app.disable("x-powered-by");

  // `find` may be a person's phone or email (the leads list's search): never in the access log.
  app.use(createHttpLogger(logger, { redactQuery: ["find"] }));
  if (deps.lifecycle) {
    const lifecycle = deps.lifecycle;
    app.use((_req, res, next) => {
      if (lifecycle.isShuttingDown()) res.setHeader("Connection", "close");
      next();
    });
  }
  app.use(adminSecurityHeaders());

  // Prometheus scrapes here without a session: this listener is private (ADMIN_HOST), never the
  // public port, and the figures hold no personal data (docs/metrics.md).
  app.get(adminPaths.metrics, async (_req, res) => {
    res.setHeader("Cache-Control", "no-store");
    res.type(registry.contentType).send(await metricsText());
  });

  const signInCsrf = createCsrf(keyFor(deps.secret, "sign-in"));
  app.use(
    signInRoutes({
      users,
      sessions,
      csrf: signInCsrf,
      flash,
      render,
      limit: perClientLimit(deps.signInLimit ?? DEFAULT_SIGN_IN_LIMIT, "admin_sign_in_rate_limited"),
      body,
      now,
    }),
  );

  // Everything below needs a session.
  app.use(requireSession(sessions, now));
  const ops = requireRole("ops");
  const query = (req: Request) => req.query as Record<string, unknown>;

  app.get(adminPaths.report, async (req, res) => render(req, res, 200, await reportView(db, reports, query(req), config.REPORT_TIME_ZONE, now())));
  app.get(adminPaths.reportCsv, async (req, res) => {
    const csv = await reportCsvFor(db, reports, query(req), config.REPORT_TIME_ZONE, now());
    // A bad query is a client error here: there is no page to show it on.
    if (csv.errors.length > 0) return res.status(400).type("text/plain").send(`${csv.errors.join("\n")}\n`);
    res.attachment(csv.fileName).type("text/csv; charset=utf-8").send(csv.body);
  });
  app.get(adminPaths.journey, async (req, res) => render(req, res, 200, await journeyView(db, reports, req.query.tid)));
  app.get(adminPaths.buyers, async (req, res) => render(req, res, 200, await buyersView(db, buyersNow(), now())));
  // Leads: analysts too (no contact details anywhere in their view); a contact search, contact
  // details (masked) and the CSV, which holds the full export, are for ops.
  const buyerIdsNow = () => (buyersNow()?.buyers ?? []).map((buyer) => buyer.id);
  const leadList = (req: Request, res: Response) => parseLeadListQuery(query(req), { role: sessionOf(res).role, buyers: buyerIdsNow(), timeZone: config.REPORT_TIME_ZONE, now: now() });
  app.get(adminPaths.leads, async (req, res) => {
    const buyers = buyersNow();
    if (req.query.reference !== undefined) return render(req, res, 200, await leadsView(db, req.query.reference, buyers !== undefined, buyers, sessionOf(res).role));
    const buyerIds = buyerIdsNow();
    const parsed = leadList(req, res);
    if (parsed.kind === "reference") return res.redirect(303, `${adminPaths.leads}?${new URLSearchParams({ reference: parsed.reference }).toString()}`);
    const base = { page: "leads" as const, deliveries: [], failed: [], listBuyers: buyerIds };
    if (parsed.kind === "forbidden") {
      const session = sessionOf(res);
      req.log.warn({ event: "admin_forbidden", user: session.name, role: session.role, path: requestPath(req), method: req.method }, "console role refused");
      return render(req, res, 403, { ...base, listErrors: [parsed.message], listForm: parsed.form });
    }
    if (parsed.kind === "invalid") return render(req, res, 400, { ...base, listErrors: parsed.errors, listForm: parsed.form });
    const role = sessionOf(res).role;
    const [list, failed] = await Promise.all([
      // A cursor whose lead is gone (purged, or a made-up address) is the client's mistake.
      leadListView(db, parsed, { role, buyers: buyerIds }).catch((error: unknown) => {
        if (error instanceof UnknownCursorError) return error;
        throw error;
      }),
      leadsView(db, undefined, buyers !== undefined, undefined, role),
    ]);
    if (list instanceof UnknownCursorError) return render(req, res, 400, { ...base, listErrors: [list.message], listForm: parsed.query });
    return render(req, res, 200, { ...failed, list });
  });
  app.get(adminPaths.leadsCsv, ops, async (req, res) => {
    const parsed = leadList(req, res);
    // A download has no page to show a problem on: one plain line, as /report.csv does.
    if (parsed.kind === "reference") return res.redirect(303, `${adminPaths.leads}?${new URLSearchParams({ reference: parsed.reference }).toString()}`);
    if (parsed.kind !== "list") return res.status(parsed.kind === "forbidden" ? 403 : 400).type("text/plain").send(`${parsed.kind === "forbidden" ? parsed.message : parsed.errors.join("\n")}\n`);
    const csv = await leadListCsv(db, parsed);
    if (csv.kind === "too_many") {
      return res.status(400).type("text/plain").send(`${csv.total} leads match; the console exports at most ${LEAD_CSV_MAX_ROWS}. Narrow the range, or use npm run leads -- export.\n`);
    }
    // Personal information leaves the console: who took which list, without the list itself.
    const { find, ...filters } = parsed.query;
    req.log.info(
      { event: "admin_leads_export", user: sessionOf(res).name, rows: csv.rows, query: filters, ...(find !== undefined ? { search: parsed.filter.email !== undefined ? "email" : "phone" } : {}) },
      "leads exported from the console",
    );
    res.attachment(csv.fileName).type("text/csv; charset=utf-8").send(csv.body);
  });
  // Buyers' and sources' pages, forms and actions, with their own form parser (a buyer form is long).
  app.use(settingsRoutes({ db, settings, render, flash, outbound: outboundPolicy(config), ops, now, certificateUrl: deps.certificateUrl ?? certificateLinks(config, deps.secret), ...(deps.testLeadsPerMinute !== undefined ? { testLeadsPerMinute: deps.testLeadsPerMinute } : {}) }));
  // A/B experiments (issue 45): pages for every role, the form, start, stop and the kill switch for ops.
  app.use(experimentRoutes({ db, settings, render, flash, ops, now }));
  // An experiment's results (issue 45, item 4): every role, read only.
  app.use(experimentResultsRoutes({ db, render, now }));
  app.get(adminPaths.privacy, ops, async (req, res) => render(req, res, 200, await privacyView(db, now())));

  app.post(adminPaths.leadRetry, body, requireSessionCsrf, ops, actions.retry);
  app.post(adminPaths.leadReturn, body, requireSessionCsrf, ops, actions.returnLead);
  app.post(adminPaths.leadContact, body, requireSessionCsrf, ops, actions.showContact);
  app.post(adminPaths.privacyClose, body, requireSessionCsrf, ops, actions.closePrivacyRequest);

  app.use((req, res) => {
    logNotFound(req);
    return render(req, res, 404, { page: "error", status: 404, message: "There is no such page in the console." });
  });
  app.use(errorHandler(render, (req, res) => signInCsrf.issue(req, res)));
  return app;
}

/**
 * Refusals keep their status: 403 and 404 as the console's error page; a sign-in over its budget
 * as the sign-in page; other client errors (an unreadable form) as one plain line. Anything else
 * is a 500 page with no details, logged with the request id.
 */
function errorHandler(render: RenderView, signInToken: (req: Request, res: Response) => string): ErrorRequestHandler {
  return (error: unknown, req: Request, res: Response, next) => {
    const status = clientErrorStatus(error);
    if (status === undefined) req.log.error({ err: error }, "console request failed");
    else req.log.warn({ err: error, status }, "console client error");
    if (res.headersSent) return next(error);
    const message = error instanceof Error ? error.message : "";
    const answer = async () => {
      if (status === 403 || status === 404) return render(req, res, status, { page: "error", status, message });
      if (status === 429 && req.path === adminPaths.signIn) {
        return render(req, res, 429, { page: "sign-in", csrfToken: signInToken(req, res), error: SIGN_IN_RATE_LIMITED, next: adminPaths.report });
      }
      if (status !== undefined) return void res.status(status).type("text/plain").send(`${message || "The request could not be handled."}\n`);
      return render(req, res, 500, { page: "error", status: 500, message: `Something went wrong. Reference: ${String(req.id)}` });
    };
    answer().catch((failure: unknown) => {
      req.log.error({ err: failure }, "console error page failed");
      if (!res.headersSent) res.status(status ?? 500).type("text/plain").send("The console could not answer.\n");
    });
  };
}
