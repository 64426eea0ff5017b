/**
 * The visit id (`vid`, shared/campaign.ts) and the campaign ids (sid, tid) the landing and quote
 * pages pass on: the ZIP form's hidden inputs, the quote frame's address. They reach the page
 * through a route loader so the server's HTML, the router's hydration data and the server's
 * events all hold the same values: on the server the loader returns the visit id
 * server/pages/render.ts chose (ServerContext.visitId), and hydration reuses that data without running
 * the loader again. So the zod schemas that validate the address (shared/campaign.ts) are not
 * part of the page's first JavaScript: the loader imports them when it runs in the browser, for
 * a navigation inside the site (issue 12). The visit id for such a navigation: the address's
 * vid, else the one this document's pages have shown, else a new one.
 */
import { useEffect } from "react";
import { useLoaderData, type LoaderFunctionArgs } from "react-router-dom";
import type { Campaign } from "../shared/campaign-format";

export interface VisitLoaderData {
  visitId: string;
  /** The address's valid sid and tid (and zip, for the quote page's frame). */
  campaign: Pick<Campaign, "sid" | "tid">;
  zip?: string;
}

/**
 * Browser only (written in an effect, never on the server): the visit of the pages shown in this
 * document, so going to a legal page and back does not start a new visit.
 */
let documentVisitId: string | undefined;

function serverVisitId(context: unknown): string | undefined {
  if (typeof context !== "object" || context === null || !("visitId" in context)) return undefined;
  return typeof context.visitId === "string" ? context.visitId : undefined;
}

export async function visitLoader({ request, context }: LoaderFunctionArgs): Promise<VisitLoaderData> {
  const { parseCampaignSearch, visitIdOf } = await import("../shared/campaign");
  const search = new URL(request.url).searchParams;
  const { zip, campaign } = parseCampaignSearch(search);
  const visitId = serverVisitId(context) ?? visitIdOf(search) ?? documentVisitId ?? (await import("../shared/random-id")).randomId();
  return { visitId, campaign: { ...(campaign.sid ? { sid: campaign.sid } : {}), ...(campaign.tid ? { tid: campaign.tid } : {}) }, ...(zip ? { zip } : {}) };
}

/** The current page's visit (its route must use visitLoader). */
export function useVisit(): VisitLoaderData {
  const data = useLoaderData<VisitLoaderData>();
  useEffect(() => {
    documentVisitId = data.visitId;
  }, [data.visitId]);
  return data;
}

/** The current page's visit id (its route must use visitLoader). */
export function useVisitId(): string {
  return useVisit().visitId;
}
