/**
 * The events analysts and ops query (docs/logging.md). Each is one log line with our own keys:
 * `event`, `path`, `campaign: { sid, tid }`; untrusted input only ever appears as a value,
 * validated or cut to length, never as a key.
 */
import type { Request } from "express";
import { parseCampaignSearch, type Campaign, type ParsedCampaignQuery, type RejectedParam } from "../shared/campaign";
import type { FunnelEvent } from "../shared/funnel-events";
import { paths } from "../shared/routes";
import { truncate } from "./logger";

export type ZipOutcome = "accepted" | "invalid_zip" | "missing_zip";

function pathOf(req: Request): string {
  const url = req.originalUrl;
  const query = url.indexOf("?");
  return truncate(query === -1 ? url : url.slice(0, query), 1024);
}

function rejectedField(rejected: RejectedParam[]): { rejected?: RejectedParam[] } {
  return rejected.length > 0 ? { rejected } : {};
}

/** `not_found`: a visitor asked for a path we do not have (every 404, pages and files). */
export function logNotFound(req: Request): void {
  req.log.info({ event: "not_found", path: pathOf(req), method: req.method }, "not found");
}

/** `campaign_hit`: a page was requested with sid and/or tid (valid values, and what was refused). */
function logCampaignHit(req: Request, parsed: ParsedCampaignQuery): void {
  const rejected = parsed.rejected.filter((entry) => entry.param !== "zip");
  req.log.info(
    { event: "campaign_hit", path: pathOf(req), campaign: parsed.campaign, ...rejectedField(rejected) },
    "campaign hit",
  );
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
}


/** `quote_page_view`: the quote page (/) was served; the first step of the analysts' funnel. */
function logQuotePageView(req: Request, parsed: ParsedCampaignQuery): void {
  req.log.info(
    { event: "quote_page_view", path: pathOf(req), ...(parsed.zip ? { zip: parsed.zip } : {}), campaign: parsed.campaign },
    "quote page view",
  );
}

/** The events of a served page: a campaign hit (when sid or tid is given), and the quote page's view. */
export function logPageEvents(req: Request, url: URL): void {
  const campaignGiven = url.searchParams.has("sid") || url.searchParams.has("tid");
  const quoteView = url.pathname === paths.quote && req.method === "GET";
  if (!campaignGiven && !quoteView) return;
  const parsed = parseCampaignSearch(url.searchParams); // once, for both
  if (campaignGiven) logCampaignHit(req, parsed);
  if (quoteView) logQuotePageView(req, parsed);
}

/** `form_started` / `form_step_completed`: reported by the quote form's beacon (POST /api/events). */
export function logFunnelEvent(req: Request, event: FunnelEvent): void {
  const { event: name, step, zip, sid, tid } = event;
  req.log.info(
    { event: name, ...(step === undefined ? {} : { step }), ...(zip ? { zip } : {}), campaign: campaignOf(sid, tid) },
    name.replaceAll("_", " "),
  );
}

/** `lead_submitted`: a quote request was stored. Never the person's details: the reference finds them. */
export function logLeadSubmitted(
  req: Request,
  lead: { reference: string; duplicateOf: string | null; zip: string; state: string; gpc: boolean; sid?: string | undefined; tid?: string | undefined },
): void {
  req.log.info(
    {
      event: "lead_submitted",
      reference: lead.reference,
      duplicate: lead.duplicateOf !== null,
      ...(lead.duplicateOf ? { duplicateOf: lead.duplicateOf } : {}),
      zip: lead.zip,
      state: lead.state,
      gpc: lead.gpc,
      campaign: campaignOf(lead.sid, lead.tid),
    },
    "lead submitted",
  );
}

export type LeadRejection = "honeypot" | "too_fast" | "form_expired" | "bad_envelope" | "stale_disclosure" | "invalid_fields" | "already_sent";

/** `lead_rejected`: a quote request was refused before storing; `fields` names the invalid ones, never their values. */
export function logLeadRejected(req: Request, reason: LeadRejection, details: { fields?: string[]; reference?: string } = {}): void {
  req.log.info({ event: "lead_rejected", reason, ...details }, "lead rejected");
}

function campaignOf(sid: string | undefined, tid: string | undefined): Campaign {
  return { ...(sid ? { sid } : {}), ...(tid ? { tid } : {}) };
}
