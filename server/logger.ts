/**
 * Structured logs: one JSON object per line on stdout, a request id on every request line,
 * no raw IP addresses, no cookies or credentials. See docs/logging.md for every field.
 */
import { randomUUID } from "node:crypto";
import { isIP } from "node:net";
import type { RequestHandler } from "express";
import { pino, stdSerializers, stdTimeFunctions, type DestinationStream, type Logger } from "pino";
import { LOG_BUFFER_MAX_BYTES, type Config } from "./config";
import { paths } from "../shared/routes";

export type { Logger };

declare module "http" {
  interface IncomingMessage {
    /** The request id (createHttpLogger): the incoming X-Request-Id when acceptable, else a new UUID. */
    id: string;
    /** Lines written while handling the request: each carries `requestId`. */
    log: Logger;
  }
}

/** Incoming ids we accept and echo: what load balancers and tracers generate (UUIDs, hex, base64url). */
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:+/=-]{8,128}$/;
export const REQUEST_ID_HEADER = "X-Request-Id";
/** Long URLs are cut in logs so one hostile request cannot write a megabyte line. */
export const MAX_LOGGED_URL = 2048;

export function isAcceptableRequestId(value: unknown): value is string {
  return typeof value === "string" && REQUEST_ID_PATTERN.test(value);
}

/**
 * Shortens an IP address so it no longer identifies a household: IPv4 keeps its /24,
 * IPv6 its /48 (the usual anonymisation of analytics tools). Unknown input becomes undefined.
 */
export function anonymizeIp(address: string | undefined): string | undefined {
  if (!address) return undefined;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const ip = mapped ? mapped[1]! : address;
  const version = isIP(ip);
  if (version === 4) return ip.replace(/\.\d+$/, ".0");
  if (version === 6) {
    const [head = ""] = ip.split("::");
    const groups = head.split(":").filter(Boolean);
    const kept = ip.startsWith("::") ? [] : groups.slice(0, 3);
    while (kept.length < 3) kept.push("0");
    return `${kept.join(":")}::`;
  }
  return undefined;
}

export function truncate(value: string, max = MAX_LOGGED_URL): string {
  return value.length > max ? `${value.slice(0, max)}…` : value;
}

/**
 * The `err` serializer: pino's, minus what could carry a visitor's data. body-parser attaches the
 * raw request body to its errors (`body`), and V8's JSON.parse messages quote a piece of the input
 * (`…"99 Juniper Lane",}" is not valid JSON`), so for body errors neither the body nor the message
 * (nor the stack, which repeats it) is logged: only the kind of failure.
 */
export function serializeError(error: unknown): unknown {
  // An error pino has already serialized (as pino-http used to pass it) keeps the original in `raw`.
  const original = error instanceof Error ? error : (error as { raw?: unknown } | null)?.raw;
  if (!(original instanceof Error)) return error;
  const serialized = { ...(stdSerializers.err(original) as unknown as Record<string, unknown>) };
  delete serialized.body;
  const bodyErrorType = (original as { type?: unknown }).type;
  if (typeof bodyErrorType === "string" && bodyErrorType.startsWith("entity.")) {
    serialized.message = `request body refused (${bodyErrorType}); its content is not logged`;
    serialized.stack = undefined;
    serialized.bodyError = bodyErrorType;
  }
  return serialized;
}

export function createLogger(config: Pick<Config, "LOG_LEVEL" | "NODE_ENV"> & Partial<Pick<Config, "LOG_BUFFER_BYTES">>, destination?: DestinationStream): Logger {
  const pretty = config.NODE_ENV === "development" && !destination;
  return pino(
    {
      level: config.LOG_LEVEL,
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: serializeError },
      // Belt and braces: the serializers below never include headers, but any future line that
      // logs a request or response object must not leak credentials either.
      redact: {
        paths: [
          "req.headers.cookie",
          "req.headers.authorization",
          "req.headers['proxy-authorization']",
          "res.headers['set-cookie']",
          "headers.cookie",
          "headers.authorization",
        ],
        censor: "[redacted]",
      },
      // pino-pretty is a dev dependency: only the development server loads it.
      ...(pretty ? { transport: { target: "pino-pretty", options: { translateTime: "SYS:HH:MM:ss" } } } : {}),
    },
    destination ?? (pretty ? undefined : bufferedDestination(1, config.LOG_BUFFER_BYTES ?? LOG_BUFFER_MAX_BYTES)),
  );
}

/**
 * Standard output, written asynchronously: a line goes into a buffer and the buffer is written
 * when the previous write has completed, so under load many lines leave in one write instead of
 * one system call each on the request's path (issue 12). pino writes what is left synchronously
 * when the process exits (a normal exit or process.exit after SIGTERM); only a SIGKILL or a
 * crash of the machine can lose the lines of the last write in flight.
 *
 * Lines wait as bytes, not text: in its text mode sonic-boom appends each line to the pending
 * string and measures that string's UTF-8 length, which copies the whole pending chunk (up to
 * 16 KB) again for every line. Under ad traffic that was 17 KB of garbage per request, a quarter
 * of all the server allocated (a sampling heap profile, issue 12); as bytes, a line is copied
 * once and a chunk is joined once, when it is written.
 *
 * The buffer is bounded: when whatever reads stdout falls behind by LOG_BUFFER_BYTES, new
 * lines are dropped rather than held (memory stays bounded under any load); how many were
 * dropped is written as a `log_lines_dropped` warning once stdout keeps up again.
 */
const DROP_REPORT_MS = 5_000;

export function bufferedDestination(fd: number, maxBytes: number): DestinationStream & { flush(callback: (error?: Error) => void): void; flushSync(): void } {
  const stream = pino.destination({ dest: fd, sync: false, maxLength: maxBytes, contentMode: "buffer" });
  // In buffer mode sonic-boom takes Buffers; its types only know its text mode. Looked up at each
  // call: pino replaces the stream's write with a no-op when stdout is closed (EPIPE).
  const write = (line: string) => (stream.write as unknown as (bytes: Buffer) => boolean).call(stream, Buffer.from(line, "utf8"));
  let dropped = 0;
  let timer: NodeJS.Timeout | undefined;
  stream.on("drop", () => {
    dropped += 1;
    timer ??= setTimeout(() => {
      timer = undefined;
      const line = `${JSON.stringify({ level: "warn", time: new Date().toISOString(), pid: process.pid, event: "log_lines_dropped", count: dropped, msg: "stdout fell behind: log lines were dropped" })}\n`;
      dropped = 0;
      write(line);
    }, DROP_REPORT_MS).unref();
  });
  return { write, flush: (callback) => stream.flush(callback), flushSync: () => stream.flushSync() };
}

/** Pino's own error for a 5xx answered without one, as the access log has always written it. */
function statusError(status: number): Error {
  return new Error(`failed with status code ${status}`);
}

/**
 * The URL with the values of these query parameters replaced: a search for a person's phone or
 * email in the console is a GET (a list is a link), and the access log must not keep what was searched.
 */
export function withoutQueryValues(url: string, names: readonly string[]): string {
  const mark = url.indexOf("?");
  if (mark < 0) return url;
  const params = new URLSearchParams(url.slice(mark + 1));
  let changed = false;
  for (const name of names) {
    if (!params.has(name)) continue;
    const count = params.getAll(name).length;
    params.delete(name);
    for (let i = 0; i < count; i += 1) params.append(name, "[redacted]");
    changed = true;
  }
  return changed ? `${url.slice(0, mark)}?${params.toString()}` : url;
}

/**
 * The request id and the access log: `req.id` and the `X-Request-Id` header, `req.log` (a child
 * logger whose lines carry `requestId`), and one line per request when its response ends (docs/
 * logging.md). Written here rather than with pino-http, which made two child loggers per request
 * and serialized the request into one of them: the largest cost of a cached page (issue 12,
 * decision 020). The line is the same: `requestId`, `req`, `res`, `responseTime`.
 */
export function createHttpLogger(logger: Logger, options: { redactQuery?: readonly string[] } = {}): RequestHandler {
  const hidden = options.redactQuery ?? [];
  return (req, res, next) => {
    const started = Date.now();
    const incoming = req.headers["x-request-id"];
    const id = isAcceptableRequestId(incoming) ? incoming : randomUUID();
    res.setHeader(REQUEST_ID_HEADER, id);
    req.id = id;
    req.log = logger.child({ requestId: id });
    // Load balancer probes every few seconds would drown the access log.
    if (req.url === paths.healthz || req.url === paths.readyz) {
      next();
      return;
    }
    const done = () => {
      res.removeListener("finish", done);
      res.removeListener("close", done);
      const statusCode = res.statusCode;
      const line = {
        requestId: id,
        req: {
          method: req.method,
          url: truncate(hidden.length > 0 ? withoutQueryValues(req.originalUrl ?? req.url, hidden) : (req.originalUrl ?? req.url)),
          ip: anonymizeIp(req.ip ?? req.socket.remoteAddress),
          userAgent: truncate(String(req.headers["user-agent"] ?? ""), 256),
        },
        res: { statusCode },
        responseTime: Date.now() - started,
      };
      // 503 is "not now" by design (the database is briefly unreachable, the process is draining):
      // its cause is told once (database_outage_started/_ended), not as an error per request.
      if (statusCode === 503) logger.info(line, "request answered 503");
      else if (statusCode >= 500) logger.error({ ...line, err: statusError(statusCode) }, "request errored");
      // The visitor went away before the whole response was sent.
      else if (!res.writableFinished) logger.info(line, "request aborted");
      else logger.info(line, "request completed");
    };
    res.on("finish", done);
    res.on("close", done);
    next();
  };
}
