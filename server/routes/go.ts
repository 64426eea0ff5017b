/**
 * GET /go: where the landing page's ZIP form submits (a plain GET form, so it works without
 * JavaScript). Valid ZIP: 303 to the quote page with the ZIP and the valid campaign ids.
 * Anything else: 303 back to the landing page, keeping valid campaign ids. The Location is
 * always built from validated values only, so it can never point off-site.
 */
import type { Request, Response } from "express";
import { campaignQueryString, parseCampaignQuery } from "../../shared/campaign";
import { INVALID_ZIP_FLAG, paths } from "../../shared/routes";
import { logZipSubmitted, type ZipOutcome } from "../events";

export function goHandler(req: Request, res: Response): void {
  // Express 5's "simple" query parser: repeated keys become arrays, nothing is nested.
  const parsed = parseCampaignQuery(req.query as Record<string, unknown>);
  const outcome: ZipOutcome = parsed.zip ? "accepted" : parsed.zipGiven ? "invalid_zip" : "missing_zip";
  logZipSubmitted(req, parsed, outcome);
  res.setHeader("Cache-Control", "no-store");
  if (parsed.zip) {
    res.redirect(303, `${paths.quote}${campaignQueryString({ zip: parsed.zip, ...parsed.campaign })}`);
    return;
  }
  const back = new URLSearchParams(campaignQueryString(parsed.campaign));
  back.set(INVALID_ZIP_FLAG.key, INVALID_ZIP_FLAG.value);
  res.redirect(303, `${paths.landing}?${back.toString()}`);
}
