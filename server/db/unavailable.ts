/**
 * Whether an error means "the database could not be reached just now" (stopped, restarting,
 * failing over, the network between us cut), as opposed to a fault in our code, our SQL or the
 * data. Those are worth a retry: the API answers them 503 with Retry-After instead of 500
 * (server/api/errors.ts), and the quote form sends the same request again with the same
 * idempotency key, so nothing is lost and nothing is stored twice (issue 10).
 *
 * Only the driver's own signals count, never a word of a message we wrote: `pg` reports a dead
 * server as a Node socket error (`code` ECONNREFUSED…), as a PostgreSQL error (`code` a SQLSTATE:
 * 57P01 admin_shutdown when a backend is stopped or terminated, 57P03 cannot_connect_now while it
 * starts or stops, class 08 connection exceptions), or as one of a few plain Errors of its own
 * (pg's client and pg-pool, by exact message).
 */

/** PostgreSQL's SQLSTATEs of a server going away or not yet back (class 57P, operator intervention). */
const UNAVAILABLE_SQLSTATES = new Set([
  "57P01", // admin_shutdown: fast/smart shutdown, pg_terminate_backend
  "57P02", // crash_shutdown: another backend crashed, the server is restarting
  "57P03", // cannot_connect_now: starting up, shutting down, in recovery
]);

/** SQLSTATE class 08: connection exceptions (08000, 08003, 08006, 08001, 08004, 08P01…). */
const CONNECTION_EXCEPTION = /^08[0-9A-Z]{3}$/;

/** Node's socket and DNS errors on the way to the database (DNS: a failover moving a host name). */
const UNAVAILABLE_SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETUNREACH",
  "ENETDOWN",
  "EAI_AGAIN",
  "ENOTFOUND",
]);

/** The plain Errors pg (8.x) and pg-pool (3.x) raise when the connection is lost or never made. */
const UNAVAILABLE_DRIVER_MESSAGES = new Set([
  "Connection terminated unexpectedly", // the server closed the socket (pg client)
  "Connection terminated due to connection timeout", // connectionTimeoutMillis while connecting (pg-pool)
  "timeout exceeded when trying to connect", // waited connectionTimeoutMillis for a pool slot (pg-pool)
  "Client has encountered a connection error and is not queryable", // a query on a client whose socket died
]);

/** How deep to follow `cause` and AggregateError's `errors`: far more than any real chain. */
const MAX_DEPTH = 5;

export function isDatabaseUnavailable(error: unknown): boolean {
  return check(error, 0);
}

function check(error: unknown, depth: number): boolean {
  if (typeof error !== "object" || error === null || depth > MAX_DEPTH) return false;
  const { code, message, cause, errors, syscall } = error as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown; syscall?: unknown };
  if (typeof code === "string") {
    if (UNAVAILABLE_SQLSTATES.has(code) || CONNECTION_EXCEPTION.test(code) || UNAVAILABLE_SOCKET_CODES.has(code)) return true;
    // The embedded store's socket is missing while its database process starts again (decision 033).
    if (code === "ENOENT" && syscall === "connect") return true;
  } else if (typeof message === "string" && UNAVAILABLE_DRIVER_MESSAGES.has(message)) {
    return true;
  }
  // Node reports a refused connection to every address of a host as an AggregateError (with the
  // code of the first); pg-pool wraps a connect timeout's socket error as `cause`.
  if (Array.isArray(errors) && errors.some((inner) => check(inner, depth + 1))) return true;
  return cause !== undefined && check(cause, depth + 1);
}
