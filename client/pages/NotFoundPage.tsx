/** Any unknown path (spec section 8): rendered by the root error boundary with HTTP 404. */
import { useEffect } from "react";
import { Link, useLocation } from "react-router-dom";
import { paths } from "../../shared/routes";

export function NotFoundPage() {
  const { pathname } = useLocation();
  useEffect(() => {
    // The spec asks for the attempted path in the console; a warning, since it is not a fault of the page.
    console.warn(`404: no page at ${pathname}`);
  }, [pathname]);
  return (
    <main id="main" className="status-page">
      <h1 className="status-code">404</h1>
      <p className="status-message">Oops! Page not found</p>
      <Link to={paths.quote} className="button-primary">
        Return to Home
      </Link>
    </main>
  );
}
