/**
 * One HTTP exchange with a buyer or a traffic source, as the delivery worker records it: the
 * outcome (2xx accepted; 408, 429 and 5xx worth retrying; any other status refused), the status,
 * the latency, a masked excerpt of the answer, and Retry-After. Never throws: a timeout and a
 * network error are outcomes too.
 *
 * node:http with keep-alive agents rather than fetch: a delivery's CPU is mostly its HTTP
 * exchange and its database statement, and fetch's streams and header objects cost several times
 * what http.request does for the same exchange (npm run bench). Redirects are not followed (a
 * 3xx is a refusal: the buyer's URL is configured, not discovered).
 *
 * Every exchange obeys the process's outbound policy (server/delivery/outbound.ts): in production
 * an address inside our network is refused before connecting, on the address the name resolved
 * to, and the refusal is logged with the buyer or source it was for (never the lead).
 */
import http from "node:http";
import https from "node:https";
import type { AttemptOutcome } from "../db/schema";
import type { Logger } from "../logger";
import { responseExcerpt } from "./payload";
import { guardedLookup, NO_EXCEPTIONS, OutboundRefusedError, outboundUrlProblem, type OutboundPolicy } from "./outbound";

export interface SendResult {
  outcome: Exclude<AttemptOutcome, "withheld">;
  httpStatus: number | null;
  latencyMs: number;
  excerpt: string | null;
  /** The answer's text, cut at MAX_RESPONSE_BYTES. */
  body: string;
  retryAfter: string | null;
  /** The answer's X-Signature header: a bid must be signed by its buyer (server/auction/bids.ts). */
  signature: string | null;
  /** The answer's Content-Type, shown with a test lead's answer in the console; absent when none came. */
  contentType?: string | null;
}

export interface Exchange {
  method: "GET" | "POST" | "PUT";
  headers: Record<string, string>;
  body?: string;
  /** Whom the exchange is for, named in the warning when the address is refused. */
  party?: { buyer: string } | { source: string } | { provider: string };
}

/**
 * The outbound policy of this process: each process's composition root sets it from its
 * configuration (setOutboundPolicy). Until then, enforced unless NODE_ENV says development or
 * test, so a process that forgets to set it fails closed.
 */
let policy: OutboundPolicy = { enforce: !["development", "test"].includes(process.env.NODE_ENV ?? ""), allow: NO_EXCEPTIONS };
let refusalLog: Logger | undefined;

/** Sets the process's outbound policy and where refusals are logged (at warn, as outbound_refused). */
export function setOutboundPolicy(next: OutboundPolicy, logger: Logger): void {
  policy = next;
  refusalLog = logger;
}

const MAX_RESPONSE_BYTES = 16_384;

// Idle connections are closed after 4 s, before the usual 5 s a server keeps them (Node's own
// default), so a reused connection is rarely one the buyer has just closed.
const agents = {
  "http:": new http.Agent({ keepAlive: true, timeout: 4_000 }),
  "https:": new https.Agent({ keepAlive: true, timeout: 4_000 }),
};

/** The outcome an HTTP status stands for. */
export function outcomeOf(status: number): SendResult["outcome"] {
  if (status >= 200 && status < 300) return "accepted";
  return status === 408 || status === 429 || status >= 500 ? "retry" : "rejected";
}

/** Sends one request and reads the answer, all within `timeoutMs`. */
export function send(url: string, exchange: Exchange, timeoutMs: number): Promise<SendResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined = undefined; // set once the request is made; a bad URL finishes before
    const finish = (result: Omit<SendResult, "latencyMs">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, latencyMs: Math.round(performance.now() - started) });
    };
    const failed = (excerpt: string) => finish({ outcome: "network_error", httpStatus: null, excerpt, body: "", retryAfter: null, signature: null });
    // Retried like a network error: nothing is lost if the address is mended, or a name resolves to a public address again.
    const refused = (host: string, reason: string) => {
      refusalLog?.warn({ event: "outbound_refused", ...exchange.party, host, reason }, "outbound address refused");
      failed(`refused: ${reason}`);
    };

    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return failed("invalid URL");
    }
    const agent = target.protocol === "https:" ? agents["https:"] : target.protocol === "http:" ? agents["http:"] : undefined;
    if (!agent) return failed(`unsupported protocol ${target.protocol}`);
    const problem = outboundUrlProblem(url, policy);
    if (problem !== undefined) return refused(target.hostname, problem);
    const lookup = guardedLookup(policy, target.hostname);
    const headers = exchange.body === undefined ? exchange.headers : { ...exchange.headers, "content-length": String(Buffer.byteLength(exchange.body)) };
    const request = (target.protocol === "https:" ? https : http).request(target, { method: exchange.method, headers, agent, ...(lookup ? { lookup } : {}) });
    timer = setTimeout(() => {
      finish({ outcome: "timeout", httpStatus: null, excerpt: `no answer within ${timeoutMs} ms`, body: "", retryAfter: null, signature: null });
      request.destroy();
    }, timeoutMs);

    request.on("error", (error: NodeJS.ErrnoException) => (error instanceof OutboundRefusedError ? refused(error.host, error.reason) : failed(error.code ?? "network error")));
    request.on("response", (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on("data", (chunk: Buffer) => {
        if (size >= MAX_RESPONSE_BYTES) return;
        chunks.push(chunk);
        size += chunk.length;
      });
      response.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8").slice(0, MAX_RESPONSE_BYTES);
        const status = response.statusCode ?? 0;
        const retryAfter = response.headers["retry-after"];
        const signature = response.headers["x-signature"];
        const contentType = response.headers["content-type"];
        finish({
          outcome: outcomeOf(status),
          httpStatus: status,
          excerpt: responseExcerpt(body) || null,
          body,
          retryAfter: typeof retryAfter === "string" ? retryAfter : null,
          signature: typeof signature === "string" ? signature : null,
          contentType: typeof contentType === "string" ? contentType : null,
        });
      });
      response.on("error", (error: NodeJS.ErrnoException) => failed(error.code ?? "network error"));
      response.on("close", () => {
        if (!response.complete) failed("connection closed before the answer ended");
      });
    });
    request.end(exchange.body);
  });
}
