/**
 * The /do-not-sell route's loader and action. On the server they use the server's services
 * (ServerContext); in the browser, the JSON API. Both give the page the same shapes.
 */
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from "react-router-dom";
import type { ServerContext } from "../render-contract";
import { PRIVACY_REFERENCE_PATTERN, type FieldErrors } from "../../shared/privacy-request";
import { CSRF_FIELD, CSRF_HEADER, paths } from "../../shared/routes";
import { randomId } from "../../shared/random-id";

export const SUBMISSION_FIELD = "submissionId";
export const RECEIVED_PARAM = "received";

export interface DoNotSellLoaderData {
  csrfToken: string;
  gpc: boolean;
  submissionId: string;
  /** The reference of a request just received (after the no-JavaScript redirect). */
  received: string | null;
}

export type DoNotSellActionData =
  | { received: string; dueAt: string }
  | { errors: FieldErrors; values: Record<string, string> }
  | { duplicateOf: string }
  | { formError: string };

function serverContext(context: unknown): ServerContext | undefined {
  return typeof context === "object" && context !== null && "privacy" in context ? (context as ServerContext) : undefined;
}

export async function loader({ request, context }: LoaderFunctionArgs): Promise<DoNotSellLoaderData> {
  const receivedParam = new URL(request.url).searchParams.get(RECEIVED_PARAM);
  const received = receivedParam && PRIVACY_REFERENCE_PATTERN.test(receivedParam) ? receivedParam : null;
  const server = serverContext(context);
  if (server) return { csrfToken: server.privacy.csrfToken(), gpc: server.privacy.gpc, submissionId: randomId(), received };
  const response = await fetch(paths.privacySession, { headers: { Accept: "application/json" }, signal: request.signal });
  if (!response.ok) throw data("Could not prepare the form", { status: response.status });
  const session = (await response.json()) as { csrfToken: string; gpc: boolean };
  return { csrfToken: session.csrfToken, gpc: session.gpc, submissionId: randomId(), received };
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
      case "created":
        // Post/redirect/get: a reload of the confirmation does not send the form again.
        return redirect(`${paths.doNotSell}?${RECEIVED_PARAM}=${outcome.reference}`, 303);
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
  const body = (await response.json().catch(() => ({}))) as { reference?: string; dueAt?: string; errors?: FieldErrors; error?: string };
  if (response.status === 201 && body.reference && body.dueAt) return { received: body.reference, dueAt: body.dueAt } satisfies DoNotSellActionData;
  if (response.status === 409 && body.reference) return { duplicateOf: body.reference } satisfies DoNotSellActionData;
  if (response.status === 422 && body.errors) return { errors: body.errors, values: firstValues(fields) } satisfies DoNotSellActionData;
  return { formError: body.error ?? "Something went wrong. Please try again in a moment." } satisfies DoNotSellActionData;
}
