/**
 * A real HTTP server that plays lead buyers and a traffic source, for the delivery tests, the
 * benchmark, the container test and local trials (`npm run buyer-stub`, docs/lead-delivery.md):
 * - `POST /leads/:buyerId`  a buyer: verifies X-Signature with that buyer's secret, records the
 *                           request, and answers from the buyer's script (default 200 `{}`);
 * - `GET /postback?…`       the traffic source's conversion postback: records the query and
 *                           the Idempotency-Key (the event id it would deduplicate on);
 * - `GET /received`         everything recorded, as JSON (`?buyer=ID` for one buyer's leads).
 * A request whose signature does not verify is answered 401 `{ "reason": "signature <verdict>" }`,
 * as a careful buyer would (and without spending a scripted answer), unless `enforceSignature` is false.
 */
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { verifySignature, type SignatureCheck } from "../server/delivery/signature";

/** One scripted answer: an HTTP response (after `delayMs`), never answering at all, or a dropped connection. */
export type StubResponse =
  | { status: number; /** JSON (a string is sent as it is). */ body?: unknown; delayMs?: number; headers?: Record<string, string> }
  | "hang"
  | "close";

export interface ReceivedLead {
  buyerId: string;
  receivedAt: Date;
  headers: http.IncomingHttpHeaders;
  /** The body exactly as it arrived (what the signature covers). */
  rawBody: string;
  /** The body parsed as JSON; undefined when it is not JSON. */
  json: unknown;
  /** The signature verdict with the buyer's secret; "unknown_buyer" when the stub has no secret for the id. */
  signature: SignatureCheck | "unknown_buyer";
  idempotencyKey: string | undefined;
  /** The lead's reference, from the body (or the X-Lead-Reference header). */
  reference: string | undefined;
  /** Whether an earlier request to this buyer carried the same Idempotency-Key (a retry or a duplicate). */
  repeat: boolean;
  /** What the stub answered: a status, or "hang" / "close". */
  answer: number | "hang" | "close";
}

export interface ReceivedPostback {
  receivedAt: Date;
  /** The path and query string as requested. */
  url: string;
  /** The query parameters, decoded. */
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  /** The postback's event id, as its Idempotency-Key header carries it. */
  idempotencyKey: string | undefined;
  /** Whether an earlier postback carried the same Idempotency-Key (the same event again, as a source would drop it). */
  repeat: boolean;
  answer: number | "hang" | "close";
}

/**
 * Running counts per buyer that never drop anything (unlike the records, which `maxRecorded`
 * bounds): what a benchmark reads to count thousands of deliveries and time them.
 */
export interface BuyerTally {
  /** Requests received (every attempt, retries included). */
  received: number;
  /** 2xx answers really sent (after their delay; not counted when the sender hung up first). */
  accepted: number;
  /** Requests whose signature did not verify with the buyer's secret. */
  badSignatures: number;
  /** Requests that repeated an earlier request's Idempotency-Key (retries, duplicates). */
  repeats: number;
  /** When the first and the latest 2xx answer were sent: milliseconds since the epoch, sub-millisecond precision. */
  firstAcceptedAt: number | undefined;
  lastAcceptedAt: number | undefined;
}

export interface BuyerStubOptions {
  /** Buyer id → its secret (the `secret` of that buyer in BUYERS_FILE). */
  buyers: Record<string, string>;
  /** A secret for any buyer id not in `buyers` (the command's BUYER_SECRET); unset: unknown ids get 404. */
  anyBuyerSecret?: string;
  /** Default 0: a free port the system picks. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** The answer when a buyer's script is empty (default 200 `{}` at once); e.g. `{ status: 200, body: {}, delayMs: 50 }` for the benchmark. */
  defaultResponse?: StubResponse;
  /** Answer a bad signature 401 (default true); false: answer from the script anyway. */
  enforceSignature?: boolean;
  /** Keep at most this many leads and postbacks in memory (default unbounded; the benchmark sets one). */
  maxRecorded?: number;
  /** Called with one line per lead and postback received ("summit accepted LD-…, signature ok"). */
  log?: (line: string) => void;
}

export interface BuyerStub {
  /** The stub's origin, e.g. http://127.0.0.1:41234. */
  readonly origin: string;
  readonly port: number;
  /** The buyer's delivery address, for its `url` in a buyers file. */
  url(buyerId: string): string;
  /** A postback address with the placeholders of `query` left in (default tid, payout and status), for a source's `postbackUrl`. */
  postbackUrl(query?: string): string;
  /** The leads this buyer was sent, oldest first (every attempt, retries included). */
  received(buyerId: string): ReceivedLead[];
  /** Every postback received, oldest first. */
  postbacks(): ReceivedPostback[];
  /** Queues answers for the buyer's next requests, after any still queued; once used up, the default answer. */
  script(buyerId: string, responses: StubResponse[]): void;
  /** Queues answers for the next postbacks (default 200). */
  scriptPostbacks(responses: StubResponse[]): void;
  /** Resolves once the buyer has received at least `count` requests (default 1); rejects after `timeoutMs`. */
  waitForLeads(buyerId: string, count?: number, timeoutMs?: number): Promise<ReceivedLead[]>;
  /** Resolves once at least `count` postbacks arrived; rejects after `timeoutMs`. */
  waitForPostbacks(count?: number, timeoutMs?: number): Promise<ReceivedPostback[]>;
  /** The buyer's running counts since the start or the last reset (zeros for a buyer never called). */
  tally(buyerId: string): BuyerTally;
  /** Forgets what was received, every queued answer and the tallies. */
  reset(): void;
  /** Stops listening and drops every connection (hanging requests included): the buyer is down. */
  stop(): Promise<void>;
  /** Listens again on the same port (stopping first if running): the buyer is back up. Records are kept. */
  restart(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;
const DEFAULT_POSTBACK_QUERY = "tid={tid}&payout={payout}&status={status}";
const OK: StubResponse = { status: 200, body: {} };

/** "accepted LD-…", "rejected LD-… (400)", "answered 500 to LD-…", "left LD-… hanging", … */
function describeAnswer(answer: ReceivedLead["answer"], reference: string): string {
  if (answer === "hang") return `left ${reference} hanging`;
  if (answer === "close") return `closed the connection on ${reference}`;
  if (answer >= 200 && answer < 300) return `accepted ${reference}`;
  if (answer >= 400 && answer < 500 && answer !== 408 && answer !== 429) return `rejected ${reference} (${answer})`;
  return `answered ${answer} to ${reference}`;
}

function readBody(req: http.IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        resolve(undefined);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.once("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.once("error", reject);
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function referenceOf(json: unknown, header: string | string[] | undefined): string | undefined {
  if (typeof json === "object" && json !== null && typeof (json as { reference?: unknown }).reference === "string") {
    return (json as { reference: string }).reference;
  }
  return typeof header === "string" ? header : undefined;
}

export async function startBuyerStub(options: BuyerStubOptions): Promise<BuyerStub> {
  const host = options.host ?? "127.0.0.1";
  const defaultResponse = options.defaultResponse ?? OK;
  const enforceSignature = options.enforceSignature ?? true;
  const maxRecorded = options.maxRecorded ?? Number.POSITIVE_INFINITY;
  const log = options.log ?? (() => {});

  const leads: ReceivedLead[] = [];
  const postbacks: ReceivedPostback[] = [];
  const scripts = new Map<string, StubResponse[]>();
  const postbackScript: StubResponse[] = [];
  const keysSeen = new Set<string>();
  const waiters = new Set<() => void>();
  const sockets = new Set<Socket>();
  const tallies = new Map<string, BuyerTally>();
  const tallyOf = (buyerId: string): BuyerTally => {
    let tally = tallies.get(buyerId);
    if (!tally) {
      tally = { received: 0, accepted: 0, badSignatures: 0, repeats: 0, firstAcceptedAt: undefined, lastAcceptedAt: undefined };
      tallies.set(buyerId, tally);
    }
    return tally;
  };
  const epochMs = () => performance.timeOrigin + performance.now();

  const record = <T>(list: T[], item: T) => {
    list.push(item);
    if (list.length > maxRecorded) list.splice(0, list.length - maxRecorded);
    for (const wake of waiters) wake();
  };

  /** Sends a scripted answer; resolves with what was done. `onSent` runs once the answer is written. */
  const answerWith = (res: http.ServerResponse, response: StubResponse, onSent?: (status: number) => void): ReceivedLead["answer"] => {
    if (response === "hang") return "hang";
    if (response === "close") {
      res.socket?.destroy();
      return "close";
    }
    const send = () => {
      if (res.destroyed || res.writableEnded) return;
      const text = typeof response.body === "string" ? response.body : JSON.stringify(response.body ?? {});
      res.writeHead(response.status, { "Content-Type": "application/json", ...response.headers });
      res.end(text);
      onSent?.(response.status);
    };
    if (response.delayMs) setTimeout(send, response.delayMs);
    else send();
    return response.status;
  };

  const secretOf = (buyerId: string) => (Object.hasOwn(options.buyers, buyerId) ? options.buyers[buyerId] : options.anyBuyerSecret);

  async function onLead(buyerId: string, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const rawBody = await readBody(req);
    if (rawBody === undefined) return; // over the limit: the connection was dropped
    const secret = secretOf(buyerId);
    if (secret === undefined) {
      answerWith(res, { status: 404, body: { reason: `no buyer ${buyerId} here` } });
      log(`${buyerId}: no such buyer (404)`);
      return;
    }
    const json = parseJson(rawBody);
    const signatureHeader = req.headers["x-signature"];
    const signature = verifySignature(secret, typeof signatureHeader === "string" ? signatureHeader : undefined, rawBody);
    const idempotencyKey = typeof req.headers["idempotency-key"] === "string" ? req.headers["idempotency-key"] : undefined;
    const repeat = idempotencyKey !== undefined && keysSeen.has(`${buyerId}\n${idempotencyKey}`);
    if (idempotencyKey !== undefined) keysSeen.add(`${buyerId}\n${idempotencyKey}`);
    const reference = referenceOf(json, req.headers["x-lead-reference"]);

    const tally = tallyOf(buyerId);
    tally.received += 1;
    if (signature !== "ok") tally.badSignatures += 1;
    if (repeat) tally.repeats += 1;

    let response: StubResponse;
    if (signature !== "ok" && enforceSignature) response = { status: 401, body: { reason: `signature ${signature}` } };
    else response = scripts.get(buyerId)?.shift() ?? defaultResponse;
    const answer = answerWith(res, response, (status) => {
      if (status < 200 || status >= 300) return;
      const at = epochMs();
      tally.accepted += 1;
      tally.firstAcceptedAt ??= at;
      tally.lastAcceptedAt = at;
    });
    record(leads, { buyerId, receivedAt: new Date(), headers: req.headers, rawBody, json, signature, idempotencyKey, reference, repeat, answer });
    log(`${buyerId} ${describeAnswer(answer, reference ?? "(no reference)")}, signature ${signature}${repeat ? " (a retry: same Idempotency-Key)" : ""}`);
  }

  function onPostback(req: http.IncomingMessage, res: http.ServerResponse, url: URL): void {
    const query = Object.fromEntries(url.searchParams);
    const idempotencyKey = typeof req.headers["idempotency-key"] === "string" ? req.headers["idempotency-key"] : undefined;
    const repeat = idempotencyKey !== undefined && keysSeen.has(`postback\n${idempotencyKey}`);
    if (idempotencyKey !== undefined) keysSeen.add(`postback\n${idempotencyKey}`);
    const answer = answerWith(res, postbackScript.shift() ?? { status: 200, body: { ok: true } });
    record(postbacks, { receivedAt: new Date(), url: req.url ?? "", query, headers: req.headers, idempotencyKey, repeat, answer });
    log(`postback ${new URLSearchParams(query).toString()} (${answer})${repeat ? ` (a repeat of event ${idempotencyKey}: a source counts it once)` : ""}`);
  }

  function onReceived(res: http.ServerResponse, url: URL): void {
    const buyer = url.searchParams.get("buyer");
    const body = { leads: buyer === null ? leads : leads.filter((lead) => lead.buyerId === buyer), postbacks };
    res.writeHead(200, { "Content-Type": "application/json", "Cache-Control": "no-store" });
    res.end(JSON.stringify(body));
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://stub.invalid");
    const leadPath = /^\/leads\/([^/]+)$/.exec(url.pathname);
    if (req.method === "POST" && leadPath) {
      onLead(decodeURIComponent(leadPath[1]!), req, res).catch(() => res.destroy());
    } else if (req.method === "GET" && url.pathname === "/postback") {
      onPostback(req, res, url);
    } else if (req.method === "GET" && url.pathname === "/received") {
      onReceived(res, url);
    } else {
      res.writeHead(404, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ reason: "not found" }));
    }
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });

  let listening = false;
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => {
        server.off("error", reject);
        listening = true;
        resolve((server.address() as AddressInfo).port);
      });
    });
  const port = await listen(options.port ?? 0);
  const origin = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;

  const stop = () =>
    new Promise<void>((resolve) => {
      if (!listening) return resolve();
      listening = false;
      server.close(() => resolve());
      // Hanging and keep-alive connections too: a buyer that goes down drops them all.
      for (const socket of sockets) socket.destroy();
    });

  const waitFor = <T>(list: () => T[], count: number, timeoutMs: number, what: string) =>
    new Promise<T[]>((resolve, reject) => {
      const check = () => {
        const items = list();
        if (items.length < count) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve(items);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`buyer stub: waited ${timeoutMs} ms for ${count} ${what}, got ${list().length}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });

  return {
    origin,
    port,
    url: (buyerId) => `${origin}/leads/${encodeURIComponent(buyerId)}`,
    postbackUrl: (query = DEFAULT_POSTBACK_QUERY) => `${origin}/postback?${query}`,
    received: (buyerId) => leads.filter((lead) => lead.buyerId === buyerId),
    postbacks: () => [...postbacks],
    script(buyerId, responses) {
      scripts.set(buyerId, [...(scripts.get(buyerId) ?? []), ...responses]);
    },
    scriptPostbacks(responses) {
      postbackScript.push(...responses);
    },
    waitForLeads: (buyerId, count = 1, timeoutMs = 10_000) =>
      waitFor(() => leads.filter((lead) => lead.buyerId === buyerId), count, timeoutMs, `requests to buyer ${buyerId}`),
    waitForPostbacks: (count = 1, timeoutMs = 10_000) => waitFor(() => [...postbacks], count, timeoutMs, "postbacks"),
    tally: (buyerId) => ({ ...tallyOf(buyerId) }),
    reset() {
      tallies.clear();
      leads.length = 0;
      postbacks.length = 0;
      postbackScript.length = 0;
      scripts.clear();
      keysSeen.clear();
    },
    stop,
    async restart() {
      await stop();
      await listen(port);
    },
  };
}
