/**
 * The shapes every /api endpoint answers a refusal in (server/api/errors.ts writes them; the
 * pages' scripts read them): one error envelope, plus the field errors of a 422. The quote form's
 * replies (shared/lead/api.ts) are the same shapes.
 */

/** A refused request: `error` is for the visitor; some answers add fields (a 409's `reference`). */
export type ApiError<Extra extends object = object> = { status: "error"; error: string } & Extra;

/** A 422: one message per field that failed validation. */
export interface ApiInvalid<Field extends string = string> {
  status: "invalid";
  errors: Partial<Record<Field, string>>;
}
