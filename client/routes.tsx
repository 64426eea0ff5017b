/** The route table, one place for the server (createStaticHandler) and the browser (createBrowserRouter). */
import type { RouteObject } from "react-router-dom";
import { Shell, RootErrorBoundary } from "./components/Shell";
import { LandingPage } from "./pages/LandingPage";
import { QuotePage } from "./pages/QuotePage";
import { pageTitle, type RouteHandle } from "./page-meta";
import { visitLoader } from "./visit-id";
import { landingLoader } from "./landing-knobs";
import { isolated } from "./isolation";
import { site } from "../shared/site";

const handle = (title: string, description: string, noindex = false): RouteHandle => ({
  meta: { title, description, noindex },
});

export const routes: RouteObject[] = [
  {
    id: "root",
    path: "/",
    Component: Shell,
    ErrorBoundary: RootErrorBoundary,
    children: [
      {
        index: true,
        Component: QuotePage,
        // The visit id the frame's address carries (client/visit-id.ts). Never shown in a document
        // served without COOP: from the landing or a legal page it is loaded in full (client/isolation.ts).
        loader: isolated(visitLoader),
        handle: handle(pageTitle("Your Free Car Insurance Quote"), "Answer a few quick questions to compare free car insurance quotes from top insurers.", true),
      },
      {
        path: "zipcode",
        Component: LandingPage,
        // The visit id the ZIP form carries to /go (client/visit-id.ts), and the experiments'
        // values this visitor sees (client/landing-knobs.ts).
        loader: landingLoader,
        handle: handle(
          `Compare Free Car Insurance Quotes | ${site.productName}`,
          `Compare free car insurance quotes from top insurers in minutes. Enter your ZIP code and you could save up to ${site.maxSavingsPercent}%.`,
        ),
      },
      {
        path: "privacy-policy",
        // The legal pages are code-split (their text is long and most visitors never read it): the
        // server resolves `lazy` while rendering; entry-client.tsx resolves it before hydrating.
        lazy: () => import("./pages/PrivacyPolicyPage").then((module) => ({ Component: module.PrivacyPolicyPage })),
        handle: handle(pageTitle("Auto Insurance Quotes Privacy Policy"), `How ${site.productName} collects, uses and shares personal information, and the privacy rights you have.`),
      },
      {
        path: "terms-of-use",
        lazy: () => import("./pages/TermsOfUsePage").then((module) => ({ Component: module.TermsOfUsePage })),
        handle: handle(pageTitle("Terms of Use"), `The terms that apply when you use ${site.productName} to compare car insurance quotes.`),
      },
      {
        path: "do-not-sell",
        // Code-split too: the form and its validation rules are not needed on the landing page.
        lazy: () =>
          import("./pages/DoNotSellPage").then((module) => ({
            Component: module.DoNotSellPage,
            // A page that takes personal data: loaded in full from an open page (client/isolation.ts).
            loader: isolated(module.loader),
            action: module.action,
            // Its title follows the address (Do Not Sell, or Stop calls and texts: decision 028), and the
            // form carries this visitor's CSRF token: never cached. The words travel with the chunk.
            handle: module.handle,
          })),
      },
    ],
  },
];
