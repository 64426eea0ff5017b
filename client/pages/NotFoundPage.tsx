/**
 * Any unknown path (spec section 8): rendered by the root error boundary with HTTP 404. A page of
 * the site like the others (issue 42): the site header (logo to /zipcode) and the legal footer
 * around the spec's "404", "Oops! Page not found" and "Return to Home". The server's fixed 404
 * (server/pages/error-page.ts, for a missing file or a refused link) is the same page in plain
 * HTML: keep the two alike (tests/http/pages.test.ts compares them).
 */
import { useEffect } from "react";
import { Link, useLocation } from "react-router-dom";
import { SiteHeader } from "../components/SiteHeader";
import { SiteFooter } from "../components/SiteFooter";
import { paths } from "../../shared/routes";

export function NotFoundPage() {
  const { pathname } = useLocation();
  useEffect(() => {
    // The spec asks for the attempted path in the console; a warning, since it is not a fault of the page.
    console.warn(`404: no page at ${pathname}`);
  }, [pathname]);
  return (
    <div className="page">
      <SiteHeader />
      <main id="main" className="status-page">
        <h1 className="status-code">404</h1>
        <p className="status-message">Oops! Page not found</p>
        <Link to={paths.quote} className="button-primary">
          Return to Home
        </Link>
      </main>
      <SiteFooter />
    </div>
  );
}
