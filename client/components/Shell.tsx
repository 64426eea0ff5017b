/**
 * The app shell around every page: the toast area (spec "Shell"), the document title kept in sync
 * on client navigation, and the root error boundary that renders the not-found page for unknown
 * paths. The tooltip provider (also "Shell" in the spec) travels with the tooltip's lazily loaded
 * code instead (TooltipButton.tsx, with the delays in tooltip-handover.ts), so that Radix is not
 * part of every page's first load; the tooltip is a desktop hover hint over the "Why?" toggletip,
 * an HTML popover that needs no script (decision 029).
 */
import { useEffect, type ReactNode } from "react";
import { Outlet, ScrollRestoration, isRouteErrorResponse, useMatches, useRouteError } from "react-router-dom";
import { Notifications } from "./Notifications";
import { errorMeta, metaFromMatches, notFoundMeta } from "../page-meta";
import type { PageMeta } from "../../shared/render-contract";
import { NotFoundPage } from "../pages/NotFoundPage";
import { ErrorPage } from "../pages/ErrorPage";

function AppProviders({ children }: { children: ReactNode }) {
  return (
    <>
      {children}
      <Notifications />
    </>
  );
}

/** The server writes the head; after client-side navigation this keeps it matching the page. */
function useDocumentMeta(meta: PageMeta | undefined) {
  useEffect(() => {
    if (!meta) return;
    document.title = meta.title;
    document.querySelector('meta[name="description"]')?.setAttribute("content", meta.description);
  }, [meta]);
}

export function Shell() {
  const matches = useMatches();
  useDocumentMeta(metaFromMatches(matches));
  return (
    <AppProviders>
      <Outlet />
      {/* New pages open at the top; links to #sections scroll there; Back restores the position. */}
      <ScrollRestoration />
    </AppProviders>
  );
}

export function RootErrorBoundary() {
  const error = useRouteError();
  const notFound = isRouteErrorResponse(error) && error.status === 404;
  useDocumentMeta(notFound ? notFoundMeta : errorMeta);
  return <AppProviders>{notFound ? <NotFoundPage /> : <ErrorPage />}</AppProviders>;
}
