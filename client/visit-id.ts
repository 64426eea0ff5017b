/**
 * The visit id (`vid`, shared/campaign.ts) the landing and quote pages pass on: the ZIP form's
 * hidden input, the quote frame's address. It reaches the page through a route loader so the
 * server's HTML, the router's hydration data and the server's events all hold the same value:
 * on the server the loader returns the one server/render.ts chose (ServerContext.visitId), and
 * hydration reuses that data without running the loader again. For navigations inside the
 * browser: the address's vid, else the one this document's pages have shown, else a new one.
 */
import { useEffect } from "react";
import { useLoaderData, type LoaderFunctionArgs } from "react-router-dom";
import { visitIdOf } from "../shared/campaign";
import { randomId } from "../shared/random-id";

export interface VisitLoaderData {
  visitId: string;
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

export function visitLoader({ request, context }: LoaderFunctionArgs): VisitLoaderData {
  const visitId = serverVisitId(context) ?? visitIdOf(new URL(request.url).searchParams) ?? documentVisitId ?? randomId();
  return { visitId };
}

/** The current page's visit id (its route must use visitLoader). */
export function useVisitId(): string {
  const { visitId } = useLoaderData<VisitLoaderData>();
  useEffect(() => {
    documentVisitId = visitId;
  }, [visitId]);
  return visitId;
}
