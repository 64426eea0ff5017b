/**
 * The events analysts and ops query (docs/logging.md, docs/analytics.md). Each is one log line
 * with our own keys: `event`, `path`, `campaign: { sid, tid, vid }`; untrusted input only ever
 * appears as a value, validated or cut to length, never as a key. The funnel's events are also
 * stored for the report (server/analytics/): handed to the app's event writer, which writes them
 * in batches after the response — with the bot flag and GPC, never the ZIP or anything personal.
 */
import type { Application, Request } from "express";
import { isBotUserAgent } from "./http/bot-agent";
import type { EventRecorder } from "./analytics/writer";
import type { EventInput } from "./analytics/store";
import { hasGpc } from "./http/gpc";
import { visitorIdOf } from "./experiments/visitor";
import { parseCampaignSearch, type Campaign, type ParsedCampaignQuery, type RejectedParam } from "../shared/campaign";
import type { FunnelEvent } from "../shared/funnel-events";
import { paths } from "../shared/routes";
import { truncate } from "./logger";
import { pathOfUrl } from "./http/url-path";
import { leadsRefused, leadsStored } from "./metrics";

/** Each app's event writer (createApp registers it); an app without one stores no events. */
const recorders = new WeakMap<Application, EventRecorder>();

export function attachEventRecorder(app: Application, recorder: EventRecorder): void {
  recorders.set(app, recorder);
}

/** Whether the request comes from a crawler or a script by its user agent (isbot's list). */
export function isBotRequest(req: Request): boolean {
  return isBotUserAgent(req.get("user-agent") ?? "");
}

/**
 * Hands a funnel event to the app's writer, with the request's bot flag, GPC signal and the
 * experiments' visitor id (the qr_vis cookie, or the one this response sets; never with GPC): the
 * results join a visitor's events to their variant by it (issue 45).
 */
function store(req: Request, event: EventInput): void {
  const recorder = recorders.get(req.app);
  if (!recorder) return;
  const visitorId = visitorIdOf(req);
  recorder.record({ ...event, bot: event.bot === true || isBotRequest(req), gpc: hasGpc(req), ...(visitorId ? { visitorId } : {}) });
}

/** The stored form of a campaign: null for what was not given. */
function ids(campaign: Campaign): Pick<EventInput, "sid" | "tid" | "visitId"> {
  return { sid: campaign.sid ?? null, tid: campaign.tid ?? null, visitId: campaign.vid ?? null };
}

/** A step completed sooner than this after the form opened was not typed by a person. */
export const HUMAN_STEP_MIN_MS = 1_000;

export type ZipOutcome = "accepted" | "invalid_zip" | "missing_zip";

function pathOf(req: Request): string {
  return truncate(pathOfUrl(req.originalUrl), 1024);
}

function rejectedField(rejected: RejectedParam[]): { rejected?: RejectedParam[] } {
  return rejected.length > 0 ? { rejected } : {};
}

/** `not_found`: a visitor asked for a path we do not have (every 404, pages and files). */
export function logNotFound(req: Request): void {
  req.log.info({ event: "not_found", path: pathOf(req), method: req.method }, "not found");
}

/**
 * `campaign_hit`: a page was requested with sid and/or tid (valid values, and what was refused).
 * Stored when it starts a visit (`entry`: the address carried no visit id): that is the ad click.
 */
function logCampaignHit(req: Request, parsed: ParsedCampaignQuery, campaign: Campaign, entry: boolean): void {
  const rejected = parsed.rejected.filter((entry) => entry.param !== "zip");
  const path = pathOf(req);
  req.log.info({ event: "campaign_hit", path, campaign, entry, ...rejectedField(rejected) }, "campaign hit");
  if (entry) store(req, { name: "campaign_hit", path, ...ids(campaign) });
}

/** `zip_submitted`: the landing form reached /go; `outcome` says where the visitor was sent. */
export function logZipSubmitted(req: Request, parsed: ParsedCampaignQuery, outcome: ZipOutcome): void {
  req.log.info(
    {
      event: "zip_submitted",
      path: pathOf(req),
      outcome,
      ...(parsed.zip ? { zip: parsed.zip } : {}),
      campaign: parsed.campaign,
      ...rejectedField(parsed.rejected),
    },
    "zip submitted",
  );
  store(req, { name: "zip_submitted", path: pathOf(req), detail: outcome, ...ids(parsed.campaign) });
}


/** `quote_page_view`: the quote page (/) was served; the first step of the analysts' funnel. */
function logQuotePageView(req: Request, parsed: ParsedCampaignQuery, campaign: Campaign): void {
  const path = pathOf(req);
  req.log.info({ event: "quote_page_view", path, ...(parsed.zip ? { zip: parsed.zip } : {}), campaign }, "quote page view");
  store(req, { name: "quote_page_view", path, ...ids(campaign) });
}

/** The page's visit: its id, and whether it was minted for this request (the visit starts here). */
export interface Visit {
  id: string;
  entry: boolean;
}

/**
 * The events of a served page: a campaign hit (when sid or tid is given), and the quote page's
 * view. `visit` is the visit id the page carries on (from its address, or minted for it).
 */
export function logPageEvents(req: Request, url: URL, visit?: Visit): void {
  const campaignGiven = url.searchParams.has("sid") || url.searchParams.has("tid");
  const quoteView = url.pathname === paths.quote && req.method === "GET";
  if (!campaignGiven && !quoteView) return;
  const parsed = parseCampaignSearch(url.searchParams); // once, for both
  const campaign: Campaign = visit ? { ...parsed.campaign, vid: visit.id } : parsed.campaign;
  if (campaignGiven) logCampaignHit(req, parsed, campaign, visit?.entry ?? false);
  if (quoteView) logQuotePageView(req, parsed, campaign);
}

/** `form_started` / `form_step_completed`: reported by the quote form's beacon (POST /api/events). */
export function logFunnelEvent(req: Request, event: FunnelEvent): void {
  const { event: name, step, screen, zip, sid, tid, vid, ms } = event;
  const campaign = campaignOf(sid, tid, vid);
  // No person completes a step of the form within a second of opening it.
  const tooFast = name === "form_step_completed" && ms !== undefined && ms < HUMAN_STEP_MIN_MS;
  req.log.info(
    { event: name, ...(step === undefined ? {} : { step }), ...(screen === undefined ? {} : { screen }), ...(zip ? { zip } : {}), ...(ms === undefined ? {} : { ms }), campaign, ...(tooFast ? { bot: true } : {}) },
    name.replaceAll("_", " "),
  );
  // The screen goes in the event's detail: the report counts completions per screen.
  store(req, { name, step: step ?? null, detail: screen ?? null, bot: tooFast, ...ids(campaign) });
}

/** `lead_submitted`: a quote request was stored. Never the person's details: the reference finds them. */
export function logLeadSubmitted(
  req: Request,
  lead: { reference: string; duplicateOf: string | null; zip: string; state: string; gpc: boolean; test?: boolean; sid?: string | undefined; tid?: string | undefined; visitId?: string | null | undefined },
): void {
  const campaign = campaignOf(lead.sid, lead.tid, lead.visitId ?? undefined);
  leadsStored.inc({ duplicate: lead.duplicateOf === null ? "false" : "true" });
  req.log.info(
    {
      event: "lead_submitted",
      reference: lead.reference,
      duplicate: lead.duplicateOf !== null,
      ...(lead.duplicateOf ? { duplicateOf: lead.duplicateOf } : {}),
      zip: lead.zip,
      state: lead.state,
      gpc: lead.gpc,
      // An ops test link marked it: sandbox buyers only (server/leads/test-link.ts).
      ...(lead.test ? { test: true } : {}),
      campaign,
    },
    "lead submitted",
  );
  store(req, { name: lead.duplicateOf === null ? "lead_submitted" : "lead_duplicate", leadReference: lead.reference, detail: lead.duplicateOf, ...ids(campaign) });
}

export type LeadRejection = "honeypot" | "too_fast" | "form_expired" | "bad_envelope" | "stale_disclosure" | "invalid_fields" | "already_sent";

/** `lead_rejected`: a quote request was refused before storing; `fields` names the invalid ones, never their values. */
export function logLeadRejected(req: Request, reason: LeadRejection, details: { fields?: string[]; reference?: string; campaign?: Campaign } = {}): void {
  const { campaign, ...facts } = details;
  leadsRefused.inc({ reason });
  req.log.info({ event: "lead_rejected", reason, ...facts, ...(campaign ? { campaign } : {}) }, "lead rejected");
  // A filled honeypot or a form sent faster than a person types is a bot's.
  store(req, { name: "lead_refused", detail: reason, bot: BOT_REJECTIONS.has(reason), leadReference: facts.reference ?? null, ...ids(campaign ?? {}) });
}

const BOT_REJECTIONS: ReadonlySet<LeadRejection> = new Set(["honeypot", "too_fast"]);

function campaignOf(sid: string | undefined, tid: string | undefined, vid?: string): Campaign {
  return { ...(sid ? { sid } : {}), ...(tid ? { tid } : {}), ...(vid ? { vid } : {}) };
}
