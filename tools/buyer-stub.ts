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
 *
 * It also plays the three example buyers of issue 43 (deploy/buyer-specs/, docs/buyer-specs.md),
 * each in its own terms, as their posting specs describe them:
 * - `POST /specs/acme/leads?key=…`  Acme Auto Agents: a form post, key in the query (401 if wrong),
 *                                   answered in XML (success with AC-1001, AC-1002…; duplicate,
 *                                   rejected or error when scripted);
 * - `POST /specs/bolt/leads`        Bolt Insurance Direct: JSON with `Authorization: Bearer …`,
 *                                   answered 201 with B-77, B-78… (a 200 refusal or 503 when scripted);
 * - `POST /specs/cobalt/ping`       Cobalt Exchange's ping: JSON with `X-Api-Key`, answered with a
 *   `POST /specs/cobalt/post`       bid CP-9, CP-10… (or no_bid); its post must carry a bid id it
 *                                   gave, and is answered sold (or rejected when scripted).
 * Every request to them is recorded whole (method, path, query, headers, raw and parsed body, the
 * answer) for the tests to compare with what the spec says the buyer gets; `scriptSpec` queues
 * answers as `script` does for our own buyers, and so does `POST /script/<endpoint>` with a JSON
 * list of them (`["duplicate", { "play": "refused", "message": "State not served" }]`), for a
 * trial by hand. A refused credential is answered 401 without spending a scripted answer.
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

/** The example buyers' endpoints (issue 43): which buyer, which stage, at which path of the stub. */
export const SPEC_ENDPOINTS = {
  acme: { buyerId: "acme", stage: "post", path: "/specs/acme/leads" },
  bolt: { buyerId: "bolt", stage: "post", path: "/specs/bolt/leads" },
  "cobalt-ping": { buyerId: "cobalt", stage: "ping", path: "/specs/cobalt/ping" },
  "cobalt-post": { buyerId: "cobalt", stage: "post", path: "/specs/cobalt/post" },
} as const;
export type SpecEndpoint = keyof typeof SPEC_ENDPOINTS;
export type SpecBuyerId = (typeof SPEC_ENDPOINTS)[SpecEndpoint]["buyerId"];

/** The credentials the example buyers expect, as deploy/buyer-specs/ gives them (test values, not secrets). */
export const SPEC_CREDENTIALS: Readonly<Record<SpecBuyerId, string>> = { acme: "acme-test-key-123", bolt: "bolt-test-token-456", cobalt: "cobalt-test-key-789" };

/** The answers each example buyer gives by name; the first of each is its default. */
export interface SpecPlays {
  /** 200 XML: success (its lead id and price), duplicate or rejected (with a message), error (try again). */
  acme: "success" | "duplicate" | "rejected" | "error";
  /** 201 accepted (its id and payout), 200 refused (why), 503 unavailable. */
  bolt: "accepted" | "refused" | "unavailable";
  /** A bid (its bid id and amount) or no_bid. */
  "cobalt-ping": "bid" | "no_bid";
  /** sold, or rejected (with a message). */
  "cobalt-post": "sold" | "rejected";
}

/** Each example buyer's answers by name, its default first. */
export const SPEC_PLAYS: { readonly [E in SpecEndpoint]: readonly SpecPlays[E][] } = {
  acme: ["success", "duplicate", "rejected", "error"],
  bolt: ["accepted", "refused", "unavailable"],
  "cobalt-ping": ["bid", "no_bid"],
  "cobalt-post": ["sold", "rejected"],
};

/** One of the buyer's own answers, with what may vary in it. */
export interface SpecScripted<E extends SpecEndpoint> {
  play: SpecPlays[E];
  /** The refusal's words: Acme's <message>, Bolt's `why`, Cobalt's `message` (each has a default). */
  message?: string;
  /** Acme's <price> (14.25), Bolt's payout (11.00), Cobalt's bid amount (9.75). */
  price?: number;
  delayMs?: number;
}

/**
 * A scripted answer of an example buyer: its own answer by name (`"duplicate"`, or
 * `{ play: "refused", message: "…" }`), or any HTTP answer, hang or dropped connection as for our
 * own buyers (a string body is sent as it is, with the given headers).
 */
export type SpecAnswer<E extends SpecEndpoint> = SpecPlays[E] | SpecScripted<E> | StubResponse;

/** One request an example buyer received, whole, and what it answered. */
export interface SpecRequest {
  endpoint: SpecEndpoint;
  buyerId: SpecBuyerId;
  stage: "post" | "ping";
  receivedAt: Date;
  method: string;
  /** The path without the query. */
  path: string;
  /** The query parameters, decoded (Acme's key is here). */
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  /** The body exactly as it arrived. */
  rawBody: string;
  /** A form body as its fields (text), a JSON body parsed; undefined when it does not parse. */
  body: unknown;
  /** Whether the credential was the one the buyer expects (a refused one was answered 401). */
  authorized: boolean;
  /** Marked as a test the way its spec says (Acme TestLead=1, Bolt "test": true, Cobalt X-Test: 1). */
  test: boolean;
  /** Our lead reference as it reached the buyer: Acme's LeadID, Bolt's external_id (Cobalt gets none). */
  reference: string | undefined;
  /** The id the buyer gave: Acme's lead id, Bolt's id, Cobalt's bid id (ping) or the bid bought (post). */
  buyerLeadId: string | undefined;
  /** What it answered: the status and body, or "hang" / "close". */
  answer: { status: number; body: string } | "hang" | "close";
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
  /** The credentials the example buyers of issue 43 expect (default SPEC_CREDENTIALS). */
  specCredentials?: Partial<Record<SpecBuyerId, string>>;
  /** How long the example buyers take to answer by default (default 0). */
  specDelayMs?: number;
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
  /** An example buyer's address (issue 43), for its `url` or `pingUrl` (Acme's key is added by its spec). */
  specUrl(endpoint: SpecEndpoint): string;
  /** What an example buyer received (every endpoint when not given), oldest first. */
  specRequests(endpoint?: SpecEndpoint): SpecRequest[];
  /** Queues an example buyer's answers for its next requests; once used up, its default answer. */
  scriptSpec<E extends SpecEndpoint>(endpoint: E, answers: SpecAnswer<E>[]): void;
  /** Resolves once the endpoint has received at least `count` requests (default 1); rejects after `timeoutMs`. */
  waitForSpecRequests(endpoint: SpecEndpoint, count?: number, timeoutMs?: number): Promise<SpecRequest[]>;
  /** Forgets what was received, every queued answer and the tallies (and the example buyers' id counters and bids). */
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

// ---- the example buyers of issue 43 ---------------------------------------------------------

const SPEC_PATHS: ReadonlyMap<string, SpecEndpoint> = new Map(Object.entries(SPEC_ENDPOINTS).map(([endpoint, { path }]) => [path, endpoint as SpecEndpoint]));
const XML_TYPE = "application/xml; charset=utf-8";
const JSON_TYPE = "application/json";
/** The ids the example buyers start counting from: AC-1001, B-77, CP-9. */
const FIRST_IDS: Readonly<Record<SpecBuyerId, number>> = { acme: 1001, bolt: 77, cobalt: 9 };
const DEFAULT_PRICES: Readonly<Record<"acme" | "bolt" | "cobalt-ping", number>> = { acme: 14.25, bolt: 11, "cobalt-ping": 9.75 };
const DEFAULT_MESSAGES = { acme: "Already have this consumer", bolt: "State not served", "cobalt-post": "Bid no longer valid" } as const;

/** An example buyer's answer: status, content type, body, and the stub's line about it. */
interface Played {
  status: number;
  contentType: string;
  text: string;
  line: string;
  buyerLeadId?: string;
}

const escapeXml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
/** Acme's answer: `<response><status>…</status>…</response>`, elements in the order given. */
const acmeXml = (elements: [name: string, value: string][]) => `<response>${elements.map(([name, value]) => `<${name}>${escapeXml(value)}</${name}>`).join("")}</response>`;
const dollars = (price: number) => price.toFixed(2);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The request's media type, lower case, without parameters. */
function mediaType(req: http.IncomingMessage): string {
  return String(req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
}

/** A named answer as an object (a bare name is `{ play: name }`); undefined for an HTTP answer. */
function scripted<E extends SpecEndpoint>(answer: SpecAnswer<E>): SpecScripted<E> | undefined {
  if (typeof answer === "string") return answer === "hang" || answer === "close" ? undefined : { play: answer as SpecPlays[E] };
  return "play" in answer ? answer : undefined;
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

  // The example buyers' state: what they received, their scripts, their id counters, Cobalt's bids.
  const specCredentials: Record<SpecBuyerId, string> = { ...SPEC_CREDENTIALS, ...options.specCredentials };
  const specDelayMs = options.specDelayMs ?? 0;
  const specRequests: SpecRequest[] = [];
  const specScripts = new Map<SpecEndpoint, SpecAnswer<SpecEndpoint>[]>();
  const nextIds: Record<SpecBuyerId, number> = { ...FIRST_IDS };
  const cobaltBids = new Set<string>();

  /** The buyer's own answer by name (a scripted one, or its default). */
  function play(endpoint: SpecEndpoint, answer: SpecScripted<SpecEndpoint>, body: Record<string, unknown>, reference: string): Played {
    const message = answer.message;
    switch (endpoint) {
      case "acme": {
        if (answer.play === "success") {
          const id = `AC-${nextIds.acme++}`;
          const price = dollars(answer.price ?? DEFAULT_PRICES.acme);
          return { status: 200, contentType: XML_TYPE, text: acmeXml([["status", "success"], ["lead_id", id], ["price", price]]), line: `acme accepted ${reference} as ${id} at $${price}`, buyerLeadId: id };
        }
        if (answer.play === "error") return { status: 200, contentType: XML_TYPE, text: acmeXml([["status", "error"], ...(message ? [["message", message] as [string, string]] : [])]), line: `acme answered error to ${reference} (to be tried again)` };
        const why = message ?? DEFAULT_MESSAGES.acme;
        return { status: 200, contentType: XML_TYPE, text: acmeXml([["status", answer.play], ["message", why]]), line: `acme refused ${reference}: ${answer.play} (${why})` };
      }
      case "bolt": {
        if (answer.play === "accepted") {
          const id = `B-${nextIds.bolt++}`;
          const payout = dollars(answer.price ?? DEFAULT_PRICES.bolt);
          return { status: 201, contentType: JSON_TYPE, text: JSON.stringify({ result: { accepted: true, id, payout } }), line: `bolt accepted ${reference} as ${id} at $${payout}`, buyerLeadId: id };
        }
        if (answer.play === "unavailable") return { status: 503, contentType: JSON_TYPE, text: JSON.stringify({ error: message ?? "Service temporarily unavailable" }), line: `bolt answered 503 to ${reference}` };
        const why = message ?? DEFAULT_MESSAGES.bolt;
        return { status: 200, contentType: JSON_TYPE, text: JSON.stringify({ result: { accepted: false, why } }), line: `bolt refused ${reference} (${why})` };
      }
      case "cobalt-ping": {
        const lead = `${String(body.zip)} ${String(body.state)}, ${String(body.vehicle_count)} vehicles, ${String(body.driver_count)} drivers`;
        if (answer.play === "no_bid") return { status: 200, contentType: JSON_TYPE, text: JSON.stringify({ status: "no_bid" }), line: `cobalt passed on a ping (${lead})` };
        const bidId = `CP-${nextIds.cobalt++}`;
        const amount = answer.price ?? DEFAULT_PRICES["cobalt-ping"];
        cobaltBids.add(bidId);
        return { status: 200, contentType: JSON_TYPE, text: JSON.stringify({ status: "bid", bid_id: bidId, amount }), line: `cobalt bid $${dollars(amount)} as ${bidId} on a ping (${lead})`, buyerLeadId: bidId };
      }
      case "cobalt-post": {
        const bidId = String(body.bid_id);
        if (answer.play === "sold") return { status: 200, contentType: JSON_TYPE, text: JSON.stringify({ status: "sold" }), line: `cobalt bought the lead of bid ${bidId}` };
        const why = message ?? DEFAULT_MESSAGES["cobalt-post"];
        return { status: 200, contentType: JSON_TYPE, text: JSON.stringify({ status: "rejected", message: why }), line: `cobalt rejected the lead of bid ${bidId} (${why})` };
      }
    }
  }

  /** Why the buyer refuses the request before reading it (a wrong credential, a body it cannot read), as its answer; undefined when it reads it. */
  function refusal(endpoint: SpecEndpoint, req: http.IncomingMessage, query: Record<string, string>, body: unknown, reference: string): (Played & { authorized: boolean }) | undefined {
    const { buyerId } = SPEC_ENDPOINTS[endpoint];
    const header = (name: string) => (typeof req.headers[name] === "string" ? req.headers[name] : undefined);
    if (buyerId === "acme") {
      if (query.key !== specCredentials.acme) return { authorized: false, status: 401, contentType: XML_TYPE, text: acmeXml([["status", "unauthorized"], ["message", "Invalid key"]]), line: `acme refused ${reference}: wrong key (401)` };
      if (mediaType(req) !== "application/x-www-form-urlencoded") return { authorized: true, status: 415, contentType: XML_TYPE, text: acmeXml([["status", "error"], ["message", "Send application/x-www-form-urlencoded"]]), line: `acme could not read ${reference}: content type ${mediaType(req) || "missing"} (415)` };
      return undefined;
    }
    const authorized = buyerId === "bolt" ? header("authorization") === `Bearer ${specCredentials.bolt}` : header("x-api-key") === specCredentials.cobalt;
    const what = endpoint === "cobalt-ping" ? "a ping" : endpoint === "cobalt-post" ? "a post" : reference;
    if (!authorized) {
      const text = buyerId === "bolt" ? JSON.stringify({ error: "invalid bearer token" }) : JSON.stringify({ status: "error", message: "invalid API key" });
      return { authorized, status: 401, contentType: JSON_TYPE, text, line: `${buyerId} refused ${what}: wrong ${buyerId === "bolt" ? "token" : "API key"} (401)` };
    }
    if (mediaType(req) !== "application/json" || !isObject(body)) {
      return { authorized, status: 400, contentType: JSON_TYPE, text: JSON.stringify({ error: "expected a JSON object (application/json)" }), line: `${buyerId} could not read ${what} (400)` };
    }
    if (endpoint === "cobalt-post" && !cobaltBids.has(String(body.bid_id))) {
      return { authorized, status: 200, contentType: JSON_TYPE, text: JSON.stringify({ status: "rejected", message: `unknown bid_id ${String(body.bid_id)}` }), line: `cobalt rejected a post for a bid it never made (${String(body.bid_id)})` };
    }
    return undefined;
  }

  async function onSpec(endpoint: SpecEndpoint, req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
    const rawBody = await readBody(req);
    if (rawBody === undefined) return;
    const { buyerId, stage } = SPEC_ENDPOINTS[endpoint];
    const query = Object.fromEntries(url.searchParams);
    const body: unknown = endpoint === "acme" ? Object.fromEntries(new URLSearchParams(rawBody)) : parseJson(rawBody);
    const fields = isObject(body) ? body : {};
    const referenceField = endpoint === "acme" ? fields.LeadID : endpoint === "bolt" ? fields.external_id : undefined;
    const reference = typeof referenceField === "string" ? referenceField : undefined;
    const test = endpoint === "acme" ? fields.TestLead === "1" : endpoint === "bolt" ? fields.test === true : req.headers["x-test"] === "1";

    const refused = refusal(endpoint, req, query, body, reference ?? "(no reference)");
    const queued = refused ? undefined : specScripts.get(endpoint)?.shift();
    const named = queued === undefined ? { play: SPEC_PLAYS[endpoint][0]! } : scripted(queued);
    let answer: SpecRequest["answer"];
    let line: string;
    let buyerLeadId: string | undefined;
    const delayMs = (queued !== undefined && typeof queued === "object" ? queued.delayMs : undefined) ?? specDelayMs;
    const send = (status: number, headers: Record<string, string>, text: string) => {
      const write = () => {
        if (res.destroyed || res.writableEnded) return;
        res.writeHead(status, headers);
        res.end(text);
      };
      if (delayMs > 0) setTimeout(write, delayMs);
      else write();
    };
    const played = refused ?? (named ? play(endpoint, named, fields, reference ?? "(no reference)") : undefined);
    if (played) {
      send(played.status, { "Content-Type": played.contentType }, played.text);
      answer = { status: played.status, body: played.text };
      line = played.line;
      buyerLeadId = played.buyerLeadId;
    } else if (queued === "hang" || queued === "close") {
      if (queued === "close") res.socket?.destroy();
      answer = queued;
      line = `${buyerId} ${queued === "hang" ? "left" : "closed the connection on"} ${reference ?? `its ${stage}`}${queued === "hang" ? " hanging" : ""}`;
    } else {
      const response = queued as Exclude<StubResponse, "hang" | "close">;
      const text = typeof response.body === "string" ? response.body : JSON.stringify(response.body ?? {});
      send(response.status, { "Content-Type": JSON_TYPE, ...response.headers }, text);
      answer = { status: response.status, body: text };
      line = `${buyerId} answered ${response.status} to ${reference ?? `its ${stage}`}`;
    }
    const request: SpecRequest = {
      endpoint,
      buyerId,
      stage,
      receivedAt: new Date(),
      method: req.method ?? "",
      path: url.pathname,
      query,
      headers: req.headers,
      rawBody,
      body,
      authorized: refused?.authorized ?? true,
      test,
      reference,
      buyerLeadId,
      answer,
    };
    record(specRequests, request);
    log(`${line}${test ? " [test]" : ""}`);
  }

  /** `POST /script/<endpoint>` with a JSON list of answers: queues them, as scriptSpec does. */
  async function onScript(endpoint: string, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const text = await readBody(req);
    if (text === undefined) return;
    const answers = parseJson(text);
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { "Content-Type": JSON_TYPE });
      res.end(JSON.stringify(body));
    };
    if (!Object.hasOwn(SPEC_ENDPOINTS, endpoint)) return reply(404, { error: `no example buyer endpoint ${endpoint}: one of ${Object.keys(SPEC_ENDPOINTS).join(", ")}` });
    const plays: readonly string[] = SPEC_PLAYS[endpoint as SpecEndpoint];
    const valid = (answer: unknown) =>
      typeof answer === "string"
        ? plays.includes(answer) || answer === "hang" || answer === "close"
        : isObject(answer) && (typeof answer.play === "string" ? plays.includes(answer.play) : Number.isInteger(answer.status) && Number(answer.status) >= 100 && Number(answer.status) <= 599);
    if (!Array.isArray(answers) || !answers.every(valid)) {
      return reply(400, { error: `send a JSON list of answers: ${plays.join(", ")}, hang, close, { "play": …, "message": …, "price": … } or { "status": …, "body": … }` });
    }
    const queue = [...(specScripts.get(endpoint as SpecEndpoint) ?? []), ...(answers as SpecAnswer<SpecEndpoint>[])];
    specScripts.set(endpoint as SpecEndpoint, queue);
    log(`${endpoint}: ${answers.length} scripted ${answers.length === 1 ? "answer" : "answers"} queued (${queue.length} waiting)`);
    reply(200, { queued: queue.length });
  }

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
    const body = {
      leads: buyer === null ? leads : leads.filter((lead) => lead.buyerId === buyer),
      postbacks,
      specs: buyer === null ? specRequests : specRequests.filter((request) => request.buyerId === buyer),
    };
    res.writeHead(200, { "Content-Type": "application/json", "Cache-Control": "no-store" });
    res.end(JSON.stringify(body));
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://stub.invalid");
    const leadPath = /^\/leads\/([^/]+)$/.exec(url.pathname);
    const specEndpoint = SPEC_PATHS.get(url.pathname);
    if (specEndpoint && req.method === "POST") {
      onSpec(specEndpoint, req, res, url).catch(() => res.destroy());
    } else if (specEndpoint) {
      res.writeHead(405, { "Content-Type": "application/json", Allow: "POST" });
      res.end(JSON.stringify({ error: "POST only" }));
    } else if (req.method === "POST" && url.pathname.startsWith("/script/")) {
      onScript(url.pathname.slice("/script/".length), req, res).catch(() => res.destroy());
    } else if (req.method === "POST" && leadPath) {
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
    specUrl: (endpoint) => `${origin}${SPEC_ENDPOINTS[endpoint].path}`,
    specRequests: (endpoint) => (endpoint === undefined ? [...specRequests] : specRequests.filter((request) => request.endpoint === endpoint)),
    scriptSpec(endpoint, answers) {
      specScripts.set(endpoint, [...(specScripts.get(endpoint) ?? []), ...(answers as SpecAnswer<SpecEndpoint>[])]);
    },
    waitForSpecRequests: (endpoint, count = 1, timeoutMs = 10_000) =>
      waitFor(() => specRequests.filter((request) => request.endpoint === endpoint), count, timeoutMs, `requests to ${endpoint}`),
    reset() {
      specRequests.length = 0;
      specScripts.clear();
      Object.assign(nextIds, FIRST_IDS);
      cobaltBids.clear();
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
