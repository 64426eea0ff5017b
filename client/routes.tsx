/** The route table, one place for the server (createStaticHandler) and the browser (createBrowserRouter). */
import type { RouteObject } from "react-router-dom";
import { Shell, RootErrorBoundary } from "./components/Shell";
import { LandingPage } from "./pages/LandingPage";
import { QuotePage } from "./pages/QuotePage";
import { PrivacyPolicyPage } from "./pages/PrivacyPolicyPage";
import { TermsOfUsePage } from "./pages/TermsOfUsePage";
import { pageTitle, type RouteHandle } from "./page-meta";
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
        handle: handle(pageTitle("Your Free Car Insurance Quote"), "Answer a few quick questions to compare free car insurance quotes from top insurers.", true),
      },
      {
        path: "zipcode",
        Component: LandingPage,
        handle: handle(
          `Compare Free Car Insurance Quotes | ${site.productName}`,
          `Compare free car insurance quotes from top insurers in minutes. Enter your ZIP code and you could save up to ${site.maxSavingsPercent}%.`,
        ),
      },
      {
        path: "privacy-policy",
        Component: PrivacyPolicyPage,
        handle: handle(pageTitle("Auto Insurance Quotes Privacy Policy"), `How ${site.productName} collects, uses and shares personal information, and the privacy rights you have.`),
      },
      {
        path: "terms-of-use",
        Component: TermsOfUsePage,
        handle: handle(pageTitle("Terms of Use"), `The terms that apply when you use ${site.productName} to compare car insurance quotes.`),
      },
    ],
  },
];
