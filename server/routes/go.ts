/**
 * GET /go: where the landing page's ZIP form submits (a plain GET form, so it works without
 * JavaScript). Valid ZIP: 303 to the quote page with the ZIP and the valid campaign ids.
 * Anything else: 303 back to the landing page, keeping valid campaign ids. The Location is
 * always built from validated values only, so it can never point off-site.
 *
 * The visit id (`vid`) travels on both ways. A link straight to /go (or one whose vid was
 * refused) has none: one is minted here, so the quote page, the form and the lead still join.
 */
import type { Request, Response } from "express";
import { campaignQueryString, parseCampaignQuery, type ParsedCampaignQuery } from "../../shared/campaign";
import { randomId } from "../../shared/random-id";
import { INVALID_ZIP_FLAG, paths } from "../../shared/routes";
import { logZipSubmitted, type ZipOutcome } from "../events";

/** The parsed query with a visit id: the one given when valid, else a new one. */
function withVisit(parsed: ParsedCampaignQuery): ParsedCampaignQuery {
  return parsed.campaign.vid ? parsed : { ...parsed, campaign: { ...parsed.campaign, vid: randomId() } };
}

export function goHandler(req: Request, res: Response): void {
  // Express 5's "simple" query parser: repeated keys become arrays, nothing is nested.
  const parsed = withVisit(parseCampaignQuery(req.query as Record<string, unknown>));
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
