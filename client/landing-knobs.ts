/**
 * The landing page's experiment knobs (issue 45): the values this visitor's variants change,
 * chosen on the server (server/experiments/) and given to the route's loader through
 * ServerContext.knobs, so the server's HTML, the router's hydration data and the hydrated page
 * hold the same headline and button: no flash of the control, no hydration mismatch. Only
 * values that differ from the control's travel; absent ones are the page's own (the control's,
 * shared/experiments.ts KNOBS, which tests/http/experiments-landing.test.ts holds equal). Data,
 * not code: no experiment logic reaches the browser's bundle.
 *
 * In the browser, a navigation to the landing page inside the site keeps the knobs this document
 * was served with. A document that never showed the landing page does not know them (the cookie
 * is HttpOnly and assignment is the server's): such a navigation loads the page in full, as
 * client/isolation.ts does, so an assigned visitor sees their variant there too.
 */
import { useLayoutEffect } from "react";
import { useLoaderData, type LoaderFunctionArgs } from "react-router-dom";
import type { LandingKnobs, ServerContext } from "../shared/render-contract";
import { visitLoader, type VisitLoaderData } from "./visit-id";
import { loadInFull } from "./isolation";

export interface LandingLoaderData extends VisitLoaderData {
  knobs?: LandingKnobs;
}

/** Browser only: the knobs of the landing page this document showed (undefined: it showed none). */
let documentKnobs: LandingKnobs | undefined;

/**
 * On the server the knobs come with the render (ServerContext.knobs; none for the control); in
 * the browser they are the ones this document was served with. Written for the fewest bytes: the
 * landing page's JavaScript has almost no room left (decision 027).
 */
export async function landingLoader(args: LoaderFunctionArgs): Promise<LandingLoaderData> {
  const knobs = (args.context as Partial<ServerContext> | undefined)?.knobs ?? documentKnobs;
  if (!knobs && typeof window == "object") return loadInFull(args.request.url);
  // An undefined `knobs` is left out of the router's data (JSON): the control's page is today's.
  return { ...(await visitLoader(args)), knobs };
}

/** The landing page's knobs (its route must use landingLoader). */
export function useLandingKnobs(): LandingKnobs {
  const { knobs = {} } = useLoaderData<LandingLoaderData>();
  // A layout effect: it runs when the page is committed, before any component's passive effect,
  // so before the ZIP form's first effect can navigate to this page again (dropping the
  // invalid-ZIP flag), whose loader then needs the knobs.
  useLayoutEffect(() => {
    documentKnobs = knobs;
  }, [knobs]);
  return knobs;
}
