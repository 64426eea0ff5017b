/** An unexpected error in a route: a calm message and a way back, never a stack trace. */
import { Link } from "react-router-dom";
import { paths } from "../../shared/routes";

export function ErrorPage() {
  return (
    <main id="main" className="status-page">
      <h1 className="status-message">Something went wrong</h1>
      <p>Please try again in a moment.</p>
      <Link to={paths.quote} className="button-primary">
        Return to Home
      </Link>
    </main>
  );
}
