/** The console's sign-in form: name and password, the pre-session CSRF token and where to go next. */
import { adminPaths, type SignInView } from "../../../shared/admin-views";
import { ConsoleBrand } from "../AdminLayout";
import { CsrfField } from "../CsrfField";
import { FlashMessage } from "../FlashMessage";

export function SignInPage({ view }: { view: SignInView }) {
  return (
    <main id="main" className="sign-in-main">
      <div className="sign-in-card">
        <p className="sign-in-brand">
          <ConsoleBrand />
        </p>
        <h1>Sign in</h1>
        {view.flash ? <FlashMessage flash={view.flash} /> : null}
        {view.error ? (
          <p className="form-error" role="alert">
            {view.error}
          </p>
        ) : null}
        <form method="post" action={adminPaths.signIn} className="sign-in-form">
          <CsrfField token={view.csrfToken} />
          {view.next ? <input type="hidden" name="next" value={view.next} /> : null}
          <div className="field">
            <label htmlFor="sign-in-name">Name</label>
            <input id="sign-in-name" type="text" name="name" defaultValue={view.name ?? ""} autoComplete="username" autoCapitalize="none" spellCheck={false} required />
          </div>
          <div className="field">
            <label htmlFor="sign-in-password">Password</label>
            <input id="sign-in-password" type="password" name="password" autoComplete="current-password" required />
          </div>
          <button type="submit" className="button">
            Sign in
          </button>
        </form>
      </div>
    </main>
  );
}
