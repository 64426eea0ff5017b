/** A refusal or failure inside the console (403, 404, 500): what happened, and a way back. */
import { adminPaths, type ErrorView } from "../../../shared/admin-views";
import { AdminLayout } from "../AdminLayout";

const headings: Record<ErrorView["status"], string> = {
  403: "Not allowed",
  404: "Page not found",
  500: "Something went wrong",
};

export function ErrorPage({ view }: { view: ErrorView }) {
  return (
    <AdminLayout session={view.session} flash={view.flash}>
      <h1>
        {headings[view.status]} <span className="muted">({view.status})</span>
      </h1>
      <p>{view.message}</p>
      <p>
        <a href={view.session ? adminPaths.report : adminPaths.signIn}>{view.session ? "Back to the report" : "Sign in"}</a>
      </p>
    </AdminLayout>
  );
}
