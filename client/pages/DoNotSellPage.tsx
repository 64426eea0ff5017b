/**
 * /do-not-sell: "Do Not Sell or Share My Personal Information". A short form for privacy
 * requests that works without JavaScript (POST, then redirect to the confirmation) and, with
 * it, sends in place with a toast. Shows "Opt-out request honored" when the browser sends the
 * Global Privacy Control signal (Cal. Code Regs. tit. 11, §7025).
 *
 * `?request=revoke_consent` (the "Stop Calls and Texts" link) gives the same form its own face:
 * the heading, the title and the words about revoking consent to calls and texts, with that
 * request already chosen (decision 028; privacy-request-pages.ts).
 */
import { useEffect, useRef } from "react";
import { Link, useActionData, useLoaderData, useNavigation, useSubmit } from "react-router-dom";
import { SiteHeader } from "../components/SiteHeader";
import { SiteFooter } from "../components/SiteFooter";
import { notify } from "../components/Notifications";
import {
  DETAILS_MAX_LENGTH,
  EMAIL_MAX_LENGTH,
  PRIVACY_REQUEST_LABELS,
  PRIVACY_REQUEST_TYPES,
  US_STATES,
  type FieldErrors,
  type PrivacyRequestField,
} from "../../shared/privacy-request";
import { CSRF_FIELD, paths } from "../../shared/routes";
import { site } from "../../shared/site";
import { SUBMISSION_FIELD, type DoNotSellActionData, type DoNotSellLoaderData } from "./do-not-sell-data";
import { REQUEST_DEADLINES, REQUEST_PAGE_HEADINGS, requestPageFace } from "./privacy-request-pages";

export { loader, action } from "./do-not-sell-data";
export { doNotSellHandle as handle } from "./privacy-request-pages";

const FIELD_ORDER: PrivacyRequestField[] = ["requestType", "email", "phone", "state", "details"];
const FIELD_IDS: Record<PrivacyRequestField, string> = {
  requestType: `request-type-${PRIVACY_REQUEST_TYPES[0]}`,
  email: "privacy-email",
  phone: "privacy-phone",
  state: "privacy-state",
  details: "privacy-details",
};

function ErrorText({ field, errors }: { field: PrivacyRequestField; errors: FieldErrors }) {
  const message = errors[field];
  return message ? (
    <p id={`${field}-error`} className="field-error">
      {message}
    </p>
  ) : null;
}

function describedBy(field: PrivacyRequestField, errors: FieldErrors, hint?: string): string | undefined {
  const ids = [hint, errors[field] ? `${field}-error` : undefined].filter(Boolean);
  return ids.length > 0 ? ids.join(" ") : undefined;
}

/** The email and phone inputs: either may identify the person, so both point at the shared hint. */
function ContactInput(props: {
  field: "email" | "phone";
  label: string;
  type: "email" | "tel";
  autoComplete: string;
  maxLength: number;
  values: Record<string, string>;
  errors: FieldErrors;
}) {
  const { field, label, type, autoComplete, maxLength, values, errors } = props;
  return (
    <div className="field">
      <label htmlFor={FIELD_IDS[field]}>{label}</label>
      <input
        id={FIELD_IDS[field]}
        name={field}
        type={type}
        autoComplete={autoComplete}
        inputMode={type}
        maxLength={maxLength}
        defaultValue={values[field] ?? ""}
        aria-invalid={errors[field] ? true : undefined}
        aria-describedby={describedBy(field, errors, "contact-hint")}
      />
      <ErrorText field={field} errors={errors} />
    </div>
  );
}

const { optOutBusinessDays, revokeConsentBusinessDays, nevadaOptOutDays, answerDays } = REQUEST_DEADLINES;

/**
 * How soon each request is acted on, said before the form is sent (issue 42: an opt-out's 15
 * business days, Cal. Code Regs. tit. 11, §7026(f)), in the privacy policy's words and with the
 * deadlines the server keeps (docs/privacy-operations.md). On the Do Not Sell face only: the
 * "Stop calls and texts" face says its own deadline in its own words.
 */
function RequestTimings() {
  return (
    <section className="request-timings" aria-labelledby="request-timings-heading" data-testid="request-timings">
      <h2 id="request-timings-heading">How soon we act</h2>
      <ul>
        <li>
          <strong>Do not sell or share:</strong> we stop selling and sharing your personal information within{" "}
          {optOutBusinessDays} business days; our systems apply it as soon as your request arrives.
        </li>
        <li>
          <strong>Nevada opt-out:</strong> applied the same way; we respond within {nevadaOptOutDays} days (30 more at most, if
          we tell you).
        </li>
        <li>
          <strong>Stop calls and texts:</strong> your consent is revoked at once; companies that have your quote request
          must stop calling and texting within {revokeConsentBusinessDays} business days.
        </li>
        <li>
          <strong>Know, delete or correct:</strong> we respond within {answerDays} days ({answerDays} more at most, if we tell
          you why), and may first verify your identity. <strong>Appeals:</strong> within {answerDays} days.
        </li>
      </ul>
    </section>
  );
}

export function DoNotSellPage() {
  const loaderData = useLoaderData() as DoNotSellLoaderData;
  const actionData = useActionData() as DoNotSellActionData | undefined;
  const navigation = useNavigation();
  const submitting = navigation.state === "submitting";
  const submit = useSubmit();
  const summaryRef = useRef<HTMLDivElement>(null);

  const errors: FieldErrors = actionData && "errors" in actionData ? actionData.errors : {};
  // What was sent, after a refusal; else the choice the address asks for (the footer's "Stop Calls and Texts").
  const values: Record<string, string> = actionData && "values" in actionData ? actionData.values : loaderData.preselected ? { requestType: loaderData.preselected } : {};
  const received = actionData && "received" in actionData ? actionData.received : loaderData.received;
  // What the confirmation speaks of: the type just sent, or (after the no-JavaScript redirect) the address's.
  const receivedType = actionData && "received" in actionData ? actionData.requestType : loaderData.preselected;
  const face = requestPageFace(loaderData.preselected);
  const duplicateOf = actionData && "duplicateOf" in actionData ? actionData.duplicateOf : null;
  const formError = actionData && "formError" in actionData ? actionData.formError : null;
  const errorFields = FIELD_ORDER.filter((field) => errors[field]);

  useEffect(() => {
    if (errorFields.length > 0 || formError) summaryRef.current?.focus();
  }, [actionData, errorFields.length, formError]);

  useEffect(() => {
    if (actionData && "received" in actionData) {
      notify((toast) => toast.success(`Request received. Your reference is ${actionData.received}.`));
    }
  }, [actionData]);

  return (
    <div className="page">
      <SiteHeader />
      <main id="main" className="container privacy-request">
        <h1>{REQUEST_PAGE_HEADINGS[face]}</h1>

        {loaderData.gpc ? (
          <div className="notice notice-success" role="status" data-testid="gpc-status">
            <p className="notice-title">Opt-out request honored</p>
            <p>
              Your browser sent a Global Privacy Control signal. We treat it as your request to opt out of the sale and
              sharing of personal information collected from this browser, and we record it with anything you send us.
            </p>
          </div>
        ) : null}

        {received && receivedType === "revoke_consent" ? (
          <div className="notice notice-success" role="status" data-testid="privacy-received">
            <p className="notice-title">We received your request</p>
            <p>
              Your reference number is <strong className="reference">{received}</strong>. Keep it to follow up with us at{" "}
              <a href={`mailto:${site.contactEmail}`}>{site.contactEmail}</a>. Your consent to be called and texted about
              your quote requests is revoked from now on: we send your requests to no more companies, and we are telling each
              company that already has one to stop. They have up to {revokeConsentBusinessDays} business days to do so.
            </p>
            <p>
              <Link to={paths.doNotSell}>Send another request</Link>
            </p>
          </div>
        ) : received ? (
          <div className="notice notice-success" role="status" data-testid="privacy-received">
            <p className="notice-title">We received your request</p>
            <p>
              Your reference number is <strong className="reference">{received}</strong>. Keep it to follow up with us at{" "}
              <a href={`mailto:${site.contactEmail}`}>{site.contactEmail}</a>. We stop selling and sharing your personal information within{" "}
              {optOutBusinessDays} business days of an opt-out (our systems apply it as soon as it arrives), and answer requests to know, delete
              or correct within {answerDays} days. We may contact you to verify your identity before we
              share or delete information.
            </p>
            <p>
              <Link to={paths.doNotSell}>Send another request</Link>
            </p>
          </div>
        ) : null}

        {duplicateOf ? (
          <div className="notice" role="status">
            <p className="notice-title">We already have this request</p>
            <p>
              This form was already sent. Your reference number is <strong className="reference">{duplicateOf}</strong>.
            </p>
          </div>
        ) : null}

        {errorFields.length > 0 || formError ? (
          <div className="notice notice-error" role="alert" tabIndex={-1} ref={summaryRef} data-testid="error-summary">
            <p className="notice-title">Please check the form</p>
            <ul>
              {formError ? <li>{formError}</li> : null}
              {errorFields.map((field) => (
                <li key={field}>
                  <a href={`#${FIELD_IDS[field]}`}>{errors[field]}</a>
                </li>
              ))}
            </ul>
          </div>
        ) : null}

        {face === "stopCalls" ? (
          <>
            <p>
              When you asked for quotes, you agreed that the insurers and agents named beside the consent box could call and
              text you about your request. Send this form to take that consent back. We record it the moment it arrives: your
              quote requests go to no more companies, and every company that already has one is told at once that you
              revoked your consent. The law gives them up to {revokeConsentBusinessDays} business days to stop calling and texting you.
            </p>
            <p>
              To find your quote requests we need the email address or the phone number you gave us. You can also reply STOP
              to a text, tell the caller, or write to <a href={`mailto:${site.contactEmail}`}>{site.contactEmail}</a>. This
              does not delete your information or stop its sale: for that, choose another request below (we stop selling and
              sharing within {optOutBusinessDays} business days of an opt-out). More in our{" "}
              <Link to={`${paths.privacy}#opting-out`}>privacy policy</Link>.
            </p>
          </>
        ) : (
          <p>
            {site.productName} sends the quote requests you make to the insurers and agents named beside the consent box on
            our quote form, and they pay us for them: under state privacy laws that is a sale. Use this form to stop it, to stop
            calls and texts about your quote requests, or to ask what we hold about you and which companies received it, to
            delete it or to correct it. For an opt-out we only need a way to find your records: an email address
            or a phone number. You can also write to <a href={`mailto:${site.contactEmail}`}>{site.contactEmail}</a>. More in
            our <Link to={paths.californiaRights}>privacy policy</Link>.
          </p>
        )}

        {face === "doNotSell" ? <RequestTimings /> : null}

        {/* A plain form: it posts without JavaScript; with it, the router's useSubmit sends it in place
            (the route's action, useActionData, "Sending…"), as <Form> would. <Form> itself is not used:
            React Router is one module in the landing page's bundle, and <Form> with its default-action
            hook added 0.4 KB gzip there for a page most visitors never open (issue 12).
            Posted to the address it was opened at, so a refusal (422) keeps the page's face; keyed by the
            choice the address opens with, so a link from one face to the other (the footer) checks that
            choice although the page stays mounted. */}
        <form
          key={loaderData.preselected ?? ""}
          method="post"
          action={face === "stopCalls" ? paths.stopCalls : paths.doNotSell}
          className="privacy-form"
          aria-label="Privacy request"
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            void submit(event.currentTarget);
          }}
        >
          <input type="hidden" name={CSRF_FIELD} value={loaderData.csrfToken} />
          <input type="hidden" name={SUBMISSION_FIELD} value={loaderData.submissionId} />

          <fieldset aria-describedby={errors.requestType ? "requestType-error" : undefined}>
            <legend>What would you like us to do?</legend>
            {PRIVACY_REQUEST_TYPES.map((type) => (
              <div className="choice" key={type}>
                <input
                  type="radio"
                  id={`request-type-${type}`}
                  name="requestType"
                  value={type}
                  defaultChecked={(values.requestType ?? "") === type}
                  aria-invalid={errors.requestType ? true : undefined}
                />
                <label htmlFor={`request-type-${type}`}>{PRIVACY_REQUEST_LABELS[type]}</label>
              </div>
            ))}
            <ErrorText field="requestType" errors={errors} />
          </fieldset>

          <p id="contact-hint" className="hint">
            Give an email address, a phone number, or both: the ones you used with us.
          </p>
          <ContactInput field="email" label="Email address" type="email" autoComplete="email" maxLength={EMAIL_MAX_LENGTH} values={values} errors={errors} />
          <ContactInput field="phone" label="Phone number" type="tel" autoComplete="tel" maxLength={20} values={values} errors={errors} />
          <div className="field">
            <label htmlFor="privacy-state">State (optional)</label>
            <select
              id="privacy-state"
              name="state"
              defaultValue={values.state ?? ""}
              aria-invalid={errors.state ? true : undefined}
              aria-describedby={describedBy("state", errors)}
            >
              <option value="">Choose your state</option>
              {Object.entries(US_STATES).map(([code, name]) => (
                <option key={code} value={code}>
                  {name}
                </option>
              ))}
            </select>
            <ErrorText field="state" errors={errors} />
          </div>
          <div className="field">
            <label htmlFor="privacy-details">What should we correct, or which request do you appeal and why? (only for a correction or an appeal)</label>
            <textarea
              id="privacy-details"
              name="details"
              rows={3}
              maxLength={DETAILS_MAX_LENGTH}
              defaultValue={values.details ?? ""}
              aria-invalid={errors.details ? true : undefined}
              aria-describedby={describedBy("details", errors)}
            />
            <ErrorText field="details" errors={errors} />
          </div>
          <button type="submit" className="button-primary" disabled={submitting}>
            {submitting ? "Sending…" : "Send request"}
          </button>
        </form>
      </main>
      <SiteFooter />
    </div>
  );
}
