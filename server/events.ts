/**
 * The events analysts and ops query (docs/logging.md). Each is one log line with our own keys:
 * `event`, `path`, `campaign: { sid, tid }`; untrusted input only ever appears as a value,
 * validated or cut to length, never as a key.
 */
import type { Request } from "express";
import { parseCampaignSearch, type ParsedCampaignQuery, type RejectedParam } from "../shared/campaign";
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
export function logCampaignHit(req: Request, url: URL): void {
  if (!url.searchParams.has("sid") && !url.searchParams.has("tid")) return;
  const parsed = parseCampaignSearch(url.searchParams);
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

