/**
 * The app shell around every page: the tooltip provider and the toast area (spec "Shell"), the document
 * title kept in sync on client navigation, and the root error boundary that renders the
 * not-found page for unknown paths.
 */
import { useEffect, type ReactNode } from "react";
import { Outlet, ScrollRestoration, isRouteErrorResponse, useMatches, useRouteError } from "react-router-dom";
import { TooltipProvider } from "@radix-ui/react-tooltip";
import { Notifications } from "./Notifications";
import { errorMeta, metaFromMatches, notFoundMeta } from "../page-meta";
import type { PageMeta } from "../../shared/render-contract";
import { NotFoundPage } from "../pages/NotFoundPage";
import { ErrorPage } from "../pages/ErrorPage";

/** Radix's documented defaults, stated so a library upgrade cannot change them silently. */
export const TOOLTIP_DELAY_MS = 700;
export const TOOLTIP_SKIP_DELAY_MS = 300;

function AppProviders({ children }: { children: ReactNode }) {
  return (
    <TooltipProvider delayDuration={TOOLTIP_DELAY_MS} skipDelayDuration={TOOLTIP_SKIP_DELAY_MS}>
      {children}
      <Notifications />
    </TooltipProvider>
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
