/**
 * The /do-not-sell route's loader and action. On the server they use the server's services
 * (ServerContext); in the browser, the JSON API. Both give the page the same shapes.
 */
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from "react-router-dom";
import type { ServerContext } from "../../shared/render-contract";
import type { ApiError, ApiInvalid } from "../../shared/api-envelope";
import { PRIVACY_REFERENCE_PATTERN, type FieldErrors, type PrivacyRequestField, type PrivacyRequestType } from "../../shared/privacy-request";
import { CSRF_FIELD, CSRF_HEADER, paths } from "../../shared/routes";
import { randomId } from "../../shared/random-id";
import { requestTypeOf } from "./privacy-request-pages";

export const SUBMISSION_FIELD = "submissionId";
export const RECEIVED_PARAM = "received";
/**
 * `?request=revoke_consent`: the choice the form opens with (the footer's "Stop Calls and Texts"),
 * which also gives the page its "Stop calls and texts" face (privacy-request-pages.ts).
 */
export const REQUEST_PARAM = "request";

export interface DoNotSellLoaderData {
  csrfToken: string;
  gpc: boolean;
  submissionId: string;
  /** The reference of a request just received (after the no-JavaScript redirect). */
  received: string | null;
  /** The request type the address asks to open with, when it is one of the form's. */
  preselected: PrivacyRequestType | null;
}

/** POST /api/privacy-requests: 201 with the reference, or a refusal in the API's envelope. */
export type PrivacyApiReply =
  | { reference: string; dueAt: string }
  | ApiError<{ reference?: string }>
  | ApiInvalid<PrivacyRequestField>;

export type DoNotSellActionData =
  | { received: string; dueAt: string; requestType: PrivacyRequestType | null }
  | { errors: FieldErrors; values: Record<string, string> }
  | { duplicateOf: string }
  | { formError: string };

function serverContext(context: unknown): ServerContext | undefined {
  return typeof context === "object" && context !== null && "privacy" in context ? (context as ServerContext) : undefined;
}

export async function loader({ request, context }: LoaderFunctionArgs): Promise<DoNotSellLoaderData> {
  const receivedParam = new URL(request.url).searchParams.get(RECEIVED_PARAM);
  const received = receivedParam && PRIVACY_REFERENCE_PATTERN.test(receivedParam) ? receivedParam : null;
  const preselected = requestTypeOf(new URL(request.url).searchParams.get(REQUEST_PARAM));
  const server = serverContext(context);
  if (server) return { csrfToken: server.privacy.csrfToken(), gpc: server.privacy.gpc, submissionId: randomId(), received, preselected };
  const response = await fetch(paths.privacySession, { headers: { Accept: "application/json" }, signal: request.signal });
  if (!response.ok) throw data("Could not prepare the form", { status: response.status });
  const session = (await response.json()) as { csrfToken: string; gpc: boolean };
  return { csrfToken: session.csrfToken, gpc: session.gpc, submissionId: randomId(), received, preselected };
}

/** The form's text fields; a field sent more than once becomes a list (which validation refuses). */
function formFields(form: FormData): Record<string, string | string[]> {
  const fields: Record<string, string | string[]> = {};
  for (const key of new Set(form.keys())) {
    const all = form.getAll(key).filter((value): value is string => typeof value === "string");
    if (all.length > 0) fields[key] = all.length === 1 ? all[0]! : all;
  }
  return fields;
}

/** The values to show again in the form: the first of each field. */
function firstValues(fields: Record<string, string | string[]>): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, Array.isArray(value) ? (value[0] ?? "") : value]));
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const { [CSRF_FIELD]: csrfToken, [SUBMISSION_FIELD]: submissionId, ...fields } = formFields(form);
  const server = serverContext(context);
  if (server) {
    const outcome = await server.privacy.submit(fields, submissionId);
    switch (outcome.kind) {
      case "created": {
        // Post/redirect/get: a reload of the confirmation does not send the form again. A stored
        // revocation of consent is confirmed on the "Stop calls and texts" face, in its words.
        const confirmation = new URLSearchParams();
        if (requestTypeOf(fields.requestType) === "revoke_consent") confirmation.set(REQUEST_PARAM, "revoke_consent");
        confirmation.set(RECEIVED_PARAM, outcome.reference);
        return redirect(`${paths.doNotSell}?${confirmation.toString()}`, 303);
      }
      case "duplicate":
        return data<DoNotSellActionData>({ duplicateOf: outcome.reference }, { status: 409 });
      case "invalid":
        return data<DoNotSellActionData>({ errors: outcome.errors as FieldErrors, values: firstValues(fields) }, { status: 422 });
      case "expired":
        return data<DoNotSellActionData>({ formError: "This form has expired. Please send it again." }, { status: 400 });
    }
  }
  const response = await fetch(paths.privacyApi, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json", [CSRF_HEADER]: typeof csrfToken === "string" ? csrfToken : "" },
    body: JSON.stringify({ ...fields, submissionId }),
  });
  return actionDataFrom(response.status, await response.json().catch(() => null), fields);
}

const GENERAL_ERROR = "Something went wrong. Please try again in a moment.";

/** What the page shows for the API's answer; anything unexpected (e.g. a proxy's HTML page) gets a general message. */
function actionDataFrom(status: number, json: unknown, fields: Record<string, string | string[]>): DoNotSellActionData {
  const reply = typeof json === "object" && json !== null ? (json as PrivacyApiReply) : null;
  if (!reply) return { formError: GENERAL_ERROR };
  if (!("status" in reply)) {
    // A 201 means the API took the type that was sent, so the confirmation can speak of it.
    return status === 201 && reply.reference && reply.dueAt ? { received: reply.reference, dueAt: reply.dueAt, requestType: requestTypeOf(fields.requestType) } : { formError: GENERAL_ERROR };
  }
  if (reply.status === "invalid") return { errors: reply.errors, values: firstValues(fields) };
  if (status === 409 && reply.reference) return { duplicateOf: reply.reference };
  return { formError: reply.error || GENERAL_ERROR };
}
