/**
 * The console's pages as whole HTML documents (shared/admin-views.ts `RenderAdmin`): the server
 * gathers a view, this renders it with renderToStaticMarkup. No client JavaScript: the console
 * works with plain forms and links and its charts are SVG drawn here, so the document has no
 * script at all and the CSP's script-src is 'none'. The stylesheet is inlined in a nonce'd
 * <style> (admin-styles.ts), the only style the CSP allows, so the console needs no static files
 * from the public site.
 */
import type { ReactNode } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import type { AdminView, RenderAdmin } from "../../shared/admin-views";
import { site } from "../../shared/site";
import { adminCss } from "./admin-styles";
import { BuyersPage } from "./pages/BuyersPage";
import { BuyerArchivePage } from "./pages/BuyerArchivePage";
import { BuyerDetailPage } from "./pages/BuyerDetailPage";
import { BuyerFormPage } from "./pages/BuyerFormPage";
import { SourceDetailPage } from "./pages/SourceDetailPage";
import { SourceFormPage } from "./pages/SourceFormPage";
import { SourcesPage } from "./pages/SourcesPage";
import { ErrorPage } from "./pages/ErrorPage";
import { JourneyPage } from "./pages/JourneyPage";
import { LeadsPage } from "./pages/LeadsPage";
import { PrivacyPage } from "./pages/PrivacyPage";
import { ExperimentsPage } from "./pages/ExperimentsPage";
import { ExperimentDetailPage } from "./pages/ExperimentDetailPage";
import { ExperimentFormPage } from "./pages/ExperimentFormPage";
import { ExperimentStopAllPage } from "./pages/ExperimentStopAllPage";
import { ExperimentResultsPage } from "./pages/ExperimentResultsPage";
import { ReportPage } from "./pages/ReportPage";
import { SignInPage } from "./pages/SignInPage";

function pageTitle(view: AdminView): string {
  switch (view.page) {
    case "sign-in":
      return "Sign in";
    case "report":
      return "Sub-id report";
    case "journey":
      return view.tid ? `Journey of ${view.tid}` : "Click journey";
    case "leads":
      return view.lead ? `Lead ${view.lead.reference}` : "Leads";
    case "buyers":
      return "Buyers";
    case "buyer":
      return `Buyer ${view.buyer.id}`;
    case "buyer-archive":
      return `Archive ${view.id}`;
    case "buyer-form":
      return view.mode === "create" ? "New buyer" : `Edit buyer ${view.key ?? ""}`;
    case "sources":
      return "Sources";
    case "source":
      return `Source ${view.source.sid}`;
    case "source-form":
      return view.mode === "create" ? "New source" : `Edit source ${view.key ?? ""}`;
    case "privacy":
      return "Privacy requests";
    case "experiments":
      return "Experiments";
    case "experiment":
      return `Experiment ${view.experiment.id}`;
    case "experiment-form":
      return view.mode === "create" ? "New experiment" : `Edit experiment ${view.key ?? ""}`;
    case "experiments-stop-all":
      return "Stop every experiment";
    case "experiment-results":
      return `Results of ${view.results.experiment.id}`;
    case "error":
      return `Error ${view.status}`;
  }
}

function pageBody(view: AdminView): ReactNode {
  switch (view.page) {
    case "sign-in":
      return <SignInPage view={view} />;
    case "report":
      return <ReportPage view={view} />;
    case "journey":
      return <JourneyPage view={view} />;
    case "leads":
      return <LeadsPage view={view} />;
    case "buyers":
      return <BuyersPage view={view} />;
    case "buyer":
      return <BuyerDetailPage view={view} />;
    case "buyer-archive":
      return <BuyerArchivePage view={view} />;
    case "buyer-form":
      return <BuyerFormPage view={view} />;
    case "sources":
      return <SourcesPage view={view} />;
    case "source":
      return <SourceDetailPage view={view} />;
    case "source-form":
      return <SourceFormPage view={view} />;
    case "privacy":
      return <PrivacyPage view={view} />;
    case "experiments":
      return <ExperimentsPage view={view} />;
    case "experiment":
      return <ExperimentDetailPage view={view} />;
    case "experiment-form":
      return <ExperimentFormPage view={view} />;
    case "experiments-stop-all":
      return <ExperimentStopAllPage view={view} />;
    case "experiment-results":
      return <ExperimentResultsPage view={view} />;
    case "error":
      return <ErrorPage view={view} />;
  }
}

/**
 * The site's shield as the tab icon, inline: the console serves no static files, and without an
 * icon link the browser asks for /favicon.ico and gets a 404 (the CSP allows data: images).
 */
const ICON = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><path d="M16 2 4 6.5v8.2C4 22.4 9.1 28.3 16 30c6.9-1.7 12-7.6 12-15.3V6.5L16 2Z" fill="#0b5cab"/><path d="m10.5 16.2 3.8 3.8 7.4-8" fill="none" stroke="#fff" stroke-width="2.6" stroke-linecap="round" stroke-linejoin="round"/></svg>',
)}`;

function AdminDocument({ view, nonce }: { view: AdminView; nonce: string }) {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex, nofollow" />
        <meta name="referrer" content="same-origin" />
        <link rel="icon" type="image/svg+xml" href={ICON} />
        <title>{`${pageTitle(view)} · Operations console · ${site.productName}`}</title>
        {/* Our own stylesheet, never user input, so raw text is safe here. */}
        <style nonce={nonce} dangerouslySetInnerHTML={{ __html: adminCss }} />
      </head>
      <body className={`console console-${view.page}`}>{pageBody(view)}</body>
    </html>
  );
}

export const renderAdmin: RenderAdmin = (view, { nonce }) => `<!doctype html>${renderToStaticMarkup(<AdminDocument view={view} nonce={nonce} />)}`;
