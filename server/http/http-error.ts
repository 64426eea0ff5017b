/**
 * How a handler or a guard refuses a request: it throws (or passes to `next`) an HttpError, and
 * the pipeline's one error handler writes the answer: the JSON envelope on the API
 * (server/api/errors.ts), an error page for the no-JavaScript form (server/routes/do-not-sell.ts).
 */
export class HttpError extends Error {
  /** A 4xx (or 5xx) status. */
  readonly status: number;
  /** More fields for the JSON answer, beside `status` and `error` (e.g. a 409's `reference`). */
  readonly extra: Readonly<Record<string, unknown>>;
  /** A 422's field messages: answered as `{ status: "invalid", errors }` instead of an error. */
  readonly fieldErrors: Readonly<Partial<Record<string, string>>> | undefined;

  /** `message` is shown to the visitor: plain words, never internals. */
  constructor(status: number, message: string, extra: Record<string, unknown> = {}, fieldErrors?: Partial<Record<string, string>>) {
    super(message);
    this.name = "HttpError";
    this.status = status;
    this.extra = extra;
    this.fieldErrors = fieldErrors;
  }

  /** 422 with one message per field. */
  static invalid(errors: Partial<Record<string, string>>): HttpError {
    return new HttpError(422, "Some answers need another look.", {}, errors);
  }
}

/** The 4xx status an error carries (ours, or http-errors' from body-parser), if any. */
export function clientErrorStatus(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { status, statusCode } = error as { status?: unknown; statusCode?: unknown };
  const code = typeof status === "number" ? status : statusCode;
  return typeof code === "number" && code >= 400 && code < 500 ? code : undefined;
}
