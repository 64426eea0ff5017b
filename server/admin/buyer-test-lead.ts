/**
 * "Send a test lead" from a buyer's console page (issue 43, item 5): a made-up lead, marked as a
 * test the way the buyer takes one, sent to the buyer's real endpoint by the same code as a real
 * delivery (the outbound policy and HTTP client of server/delivery/http-send.ts, the worker's
 * request builders and verdicts, the auction's ping round and bid readers), within the buyer's
 * timeouts. What was sent (masked: credentials hidden, contact masked), the raw answer and how the
 * buyer's answer rules read it are returned for the page; nothing is stored, billed or counted.
 *
 * The lead: the quote form's sample answers with a fictional contact. Its reference is LD-TEST-…,
 * its phone the test number (201) 555-0199 and its `test` flag set (server/auction/sandbox.ts), so
 * a buyer on our own contract (quoteridge) recognises it as every test lead is recognised, and a
 * buyer with its own spec gets the spec's `test` mark (the engine's `test: true`). A ping/post
 * buyer is pinged first (`test: true` in our ping, or its spec's mark); its post follows only a bid,
 * carrying the bid's id and price, as after a won auction.
 */
import { randomBytes } from "node:crypto";
import type { LeadRecord } from "../db/leads";
import type { Buyer } from "../delivery/buyers";
import { send as httpSend, type Exchange, type SendResult } from "../delivery/http-send";
import { compileSpec, type CompiledHttpSpec, type RenderResult } from "../delivery/spec";
import { HIDDEN, maskValue } from "../delivery/spec/mask";
import { deliveryPayload } from "../delivery/payload";
import { postHeaders, quoteridgeExchange, quoteridgeVerdict, specExchange, specVerdict, type Verdict } from "../delivery/worker";
import { offerFacts, priceFor } from "../delivery/offer";
import { SIGNATURE_HEADER } from "../delivery/signature";
import { TEST_LEAD_PHONE } from "../auction/sandbox";
import { pingPayload } from "../auction/ping";
import { pingRound } from "../auction/pinger";
import type { PingResult } from "../auction/bids";
import { CONSENT_DISCLOSURE, CONSENT_DISCLOSURE_SHA256, disclosureText } from "../../shared/consent-disclosure";
import type { AnswerReadingView, SentRequestView, SpecStage, TestExchangeView, TestLeadView } from "../../shared/admin-views";

/** How much of an answer's body the page shows. */
export const TEST_ANSWER_BODY_CHARACTERS = 4_096;
/** Test leads one console user may send a minute (per replica), beside one at a time per buyer. */
export const DEFAULT_TEST_LEADS_PER_MINUTE = 5;

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** LD-TEST-XXXX: a lead reference's shape (so a buyer's validation takes it), saying what it is. */
export function testReference(): string {
  return `LD-TEST-${[...randomBytes(4)].map((byte) => CROCKFORD[byte % 32]).join("")}`;
}

/** The sample lead, as the delivery worker reads a stored one: fictional, and a test by every sign we have. */
export function testLead(reference: string, at: Date): LeadRecord {
  const vehicles = [
    { year: 2019, make: "Toyota", model: "Camry", ownership: "own", primaryUse: "commute", annualMileage: "10k_15k" },
    { year: 2003, make: "Honda", model: "Accord", vin: "1HGCM82633A004352", ownership: "finance", primaryUse: "pleasure", annualMileage: "under_5k" },
  ] as const;
  const drivers = [
    { firstName: "Test", lastName: "Lead", dateOfBirth: "1990-04-15", relationship: "self", maritalStatus: "married", licenseStatus: "active", ageFirstLicensed: 16, accidents: 0, tickets: 1, claims: 0, dui: false, sr22: false },
    { firstName: "Sample", lastName: "Lead", dateOfBirth: "1988-11-02", relationship: "spouse", maritalStatus: "married", licenseStatus: "active", ageFirstLicensed: 17, accidents: 1, tickets: 0, claims: 1, dui: false, sr22: false },
  ] as const;
  const visitor = drivers[0];
  return {
    reference,
    receivedAt: at,
    city: "Beverly Hills",
    state: "CA",
    timeZone: "America/Los_Angeles",
    sid: null,
    tid: null,
    gpc: false,
    duplicateOf: null,
    test: true,
    zip: "90210",
    vehicles: vehicles.map((vehicle) => ({ ...vehicle })),
    drivers: drivers.map((driver) => ({ ...driver })),
    vehicleYear: vehicles[0].year,
    vehicleMake: vehicles[0].make,
    vehicleModel: vehicles[0].model,
    ownership: vehicles[0].ownership,
    primaryUse: vehicles[0].primaryUse,
    firstName: visitor.firstName,
    lastName: visitor.lastName,
    dateOfBirth: visitor.dateOfBirth,
    licenseStatus: visitor.licenseStatus,
    incidents: "one",
    currentlyInsured: true,
    currentInsurer: "GEICO",
    insuredFor: "1_3y",
    coverage: "standard",
    residence: "own",
    streetAddress: "123 Test Lead St",
    email: "test-lead@example.com",
    phone: TEST_LEAD_PHONE,
    consent: {
      disclosureVersion: CONSENT_DISCLOSURE.version,
      disclosureSha256: CONSENT_DISCLOSURE_SHA256,
      checkboxChecked: true,
      consentedAt: new Date(at.getTime() - 1_000),
      // TEST-NET-1 (RFC 5737): an address no visitor has.
      ip: "192.0.2.1",
      userAgent: "QuoteRidge-TestLead/1 (operations console)",
      formUrl: "https://www.example.com/quote?test-lead=1",
      pageUrl: "https://www.example.com/?test-lead=1",
      certificateId: null,
    },
  };
}

const headerList = (headers: Record<string, string>) => Object.entries(headers).map(([name, value]) => ({ name, value }));

/** A request in the buyer's own terms as sent: the exchange's headers, each the spec masked shown masked. */
function maskedSpecRequest(exchange: Exchange, rendered: Extract<RenderResult, { ok: true }>): SentRequestView {
  const masked = rendered.masked.headers;
  return {
    method: rendered.masked.method,
    url: rendered.masked.url,
    headers: headerList(Object.fromEntries(Object.entries(exchange.headers).map(([name, value]) => [name, masked[name] ?? value]))),
    body: rendered.masked.body,
  };
}

/** Our own payload's contact facts (the lead's and each driver's), masked as a spec's request masks them. */
const MASKED_KEYS = { firstName: "name", lastName: "name", email: "email", phone: "phone", streetAddress: "street", dateOfBirth: "date", ip: "ip" } as const;

function maskJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskJson);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([key, inner]) => {
      const kind = (MASKED_KEYS as Record<string, (typeof MASKED_KEYS)[keyof typeof MASKED_KEYS] | undefined>)[key];
      return [key, kind && (typeof inner === "string" || inner === null) ? maskValue(kind, inner) : maskJson(inner)];
    }),
  );
}

/** A request in our own terms (quoteridge) as sent: the signature hidden, the contact masked. */
function maskedQuoteridgeRequest(url: string, exchange: Exchange): SentRequestView {
  let body = exchange.body ?? null;
  if (body !== null) {
    try {
      body = JSON.stringify(maskJson(JSON.parse(body) as unknown), null, 2);
    } catch {
      body = HIDDEN;
    }
  }
  const hidden = SIGNATURE_HEADER.toLowerCase();
  return { method: exchange.method, url, headers: headerList(Object.fromEntries(Object.entries(exchange.headers).map(([name, value]) => [name, name.toLowerCase() === hidden ? HIDDEN : value]))), body };
}

/** The raw answer, for the page: the status, the headers of interest, the body's first few KB. */
function answerOf(result: SendResult): TestExchangeView["answer"] {
  if (result.httpStatus === null) return null;
  const headers = [
    ...(result.contentType ? [{ name: "content-type", value: result.contentType }] : []),
    ...(result.retryAfter !== null ? [{ name: "retry-after", value: result.retryAfter }] : []),
    ...(result.signature !== null ? [{ name: "x-signature", value: "present (not shown)" }] : []),
  ];
  const truncated = result.body.length > TEST_ANSWER_BODY_CHARACTERS;
  return { status: result.httpStatus, latencyMs: result.latencyMs, headers, body: result.body.slice(0, TEST_ANSWER_BODY_CHARACTERS), truncated };
}

const reading = (kind: AnswerReadingView["kind"], text: string, extra: Partial<Omit<AnswerReadingView, "kind" | "text">> = {}): AnswerReadingView => ({ kind, text, price: null, buyerLeadId: null, bidId: null, ...extra });
const dollars = (price: number) => `$${price.toFixed(2)}`;

/** A post's answer as the delivery worker's verdict reads it, in words. */
export function postReading(verdict: Verdict, result: SendResult): AnswerReadingView {
  switch (verdict.outcome) {
    case "accepted": {
      const id = verdict.buyerLeadId ?? null;
      const price = verdict.price === null ? " (the answer gives no price: the agreed price would be charged)" : ` at ${dollars(verdict.price)}`;
      return reading("accepted", `Accepted${price}${id ? `, their lead id ${id}` : ""}.`, { price: verdict.price, buyerLeadId: id });
    }
    case "rejected":
      return reading("refused", `Refused: ${verdict.reason}.`, { buyerLeadId: verdict.buyerLeadId ?? null });
    default: {
      if (verdict.error?.startsWith("no answer rule")) return reading("error", `Error: ${verdict.error}. A real delivery records it with its excerpt and tries again: never a sale.`);
      if (result.httpStatus === null) return reading("error", `No answer: ${result.excerpt ?? result.outcome}.`);
      return reading("retry", `To be tried again (${verdict.error ?? `HTTP ${result.httpStatus}`}).`);
    }
  }
}

/** A ping's answer as the auction reads it, in words. */
export function pingReading(result: PingResult): AnswerReadingView {
  switch (result.outcome) {
    case "bid":
      return reading("bid", `Bid ${dollars(result.bid!.price)}${result.bid!.bidId ? `, bid id ${result.bid!.bidId}` : ""}.`, { price: result.bid!.price, bidId: result.bid!.bidId });
    case "no_bid":
      return reading("no_bid", `No bid${result.detail ? `: ${result.detail}` : ""}.`);
    case "not_sent":
      return reading("not_sent", `Not sent: ${result.detail ?? "the sample lead lacks a value the spec needs"}.`);
    default:
      return reading("error", `Not a bid (${result.outcome.replace(/_/g, " ")})${result.detail ? `: ${result.detail}` : ""}.`);
  }
}

/** A stage's own spec, compiled; null for our signed JSON. */
function ownSpec(buyer: Buyer, stage: SpecStage): CompiledHttpSpec | null {
  const spec = buyer.spec?.[stage];
  const compiled = spec ? compileSpec(spec) : undefined;
  return compiled && compiled.format !== "quoteridge" ? compiled : null;
}

const formatOf = (spec: CompiledHttpSpec | null) => (spec ? `the buyer's own spec (${spec.format})` : "our signed JSON (quoteridge)");

export interface TestLeadOptions {
  now: () => Date;
  /** The HTTP client (http-send's by default: the process's outbound policy applies). */
  send?: (url: string, exchange: Exchange, timeoutMs: number) => Promise<SendResult>;
}

type Sent = { url: string; exchange: Exchange; result: SendResult };

/** The ping, as the auction pings (pingRound, within the buyer's ping timeout), and the bid it got. */
async function testPing(buyer: Buyer, lead: LeadRecord, at: Date, options: TestLeadOptions): Promise<{ view: TestExchangeView; bid: PingResult["bid"] }> {
  const send = options.send ?? httpSend;
  const spec = ownSpec(buyer, "ping");
  const pingId = `test-${lead.reference}`;
  // Filled in by the round's callbacks (an object: a closure's assignment does not narrow a `let`).
  const seen: { rendered?: RenderResult; sent?: Sent } = {};
  const [result] = await pingRound([buyer], pingPayload(lead, pingId, { test: true, now: at }), {
    deadlineMs: buyer.pingTimeoutMs,
    floor: 0,
    now: options.now,
    specPing: () => {
      if (!spec) return undefined;
      const rendered = spec.render({ lead, now: at, pingId, test: true }, { url: buyer.pingUrl ?? "", credentials: buyer.credentials ?? {} });
      seen.rendered = rendered;
      return { spec, rendered };
    },
    send: async (url, exchange, timeoutMs) => {
      const answer = await send(url, exchange, timeoutMs);
      seen.sent = { url, exchange, result: answer };
      return answer;
    },
  });
  const ping = result!;
  const { rendered, sent } = seen;
  const request = sent ? (rendered?.ok ? maskedSpecRequest(sent.exchange, rendered) : maskedQuoteridgeRequest(sent.url, sent.exchange)) : null;
  const view: TestExchangeView = {
    stage: "ping",
    format: formatOf(spec),
    request,
    answer: sent ? answerOf(sent.result) : null,
    transportError: sent && sent.result.httpStatus === null ? sent.result.excerpt : null,
    latencyMs: ping.latencyMs,
    reading: pingReading(ping),
  };
  return { view, bid: ping.outcome === "bid" ? ping.bid : null };
}

/** The post, as the delivery worker posts (its request builders, http-send within the buyer's timeout, its verdicts). */
async function testPost(buyer: Buyer, lead: LeadRecord, at: Date, bid: PingResult["bid"], options: TestLeadOptions): Promise<TestExchangeView> {
  const send = options.send ?? httpSend;
  const spec = ownSpec(buyer, "post");
  const price = bid ? bid.price : priceFor(buyer, offerFacts(lead, at)).price;
  const auction = bid ? { saleType: bid.type, bidId: bid.bidId } : null;
  const common = postHeaders(`${lead.reference}:${buyer.id}:test`);
  const base = { stage: "post" as const, format: formatOf(spec) };
  let url = buyer.url;
  let exchange: Exchange;
  let request: SentRequestView;
  if (spec) {
    const rendered = spec.render(
      { lead, now: at, consentText: disclosureText(CONSENT_DISCLOSURE.parts), certificateUrl: null, auction, price, test: true },
      { url: buyer.url, credentials: buyer.credentials ?? {} },
    );
    if (!rendered.ok) {
      const text = `Not sent: the sample test lead has no ${rendered.missing} for the buyer's ${rendered.field}${rendered.why ? ` (${rendered.why})` : ""}.`;
      return { ...base, request: null, answer: null, transportError: null, latencyMs: 0, reading: reading("not_sent", text) };
    }
    url = rendered.request.url;
    exchange = specExchange(buyer, rendered.request, common);
    request = maskedSpecRequest(exchange, rendered);
  } else {
    const payload = deliveryPayload(lead, { sale: true, price, certificateUrl: null, auction, timeZone: lead.timeZone });
    exchange = quoteridgeExchange(buyer, payload, common, options.now());
    request = maskedQuoteridgeRequest(url, exchange);
  }
  const result = await send(url, exchange, buyer.timeoutMs);
  const verdict = spec ? specVerdict(spec, result) : quoteridgeVerdict(result);
  return { ...base, request, answer: answerOf(result), transportError: result.httpStatus === null ? result.excerpt : null, latencyMs: result.latencyMs, reading: postReading(verdict, result) };
}

/** Sends the test lead (a ping first for a ping/post buyer) and says what happened at each step. */
export async function sendTestLead(buyer: Buyer, options: TestLeadOptions): Promise<TestLeadView> {
  const at = options.now();
  const lead = testLead(testReference(), at);
  const exchanges: TestExchangeView[] = [];
  let bid: PingResult["bid"] = null;
  if (buyer.mode === "pingpost") {
    const ping = await testPing(buyer, lead, at, options);
    exchanges.push(ping.view);
    if (!ping.bid) {
      exchanges.push({
        stage: "post",
        format: formatOf(ownSpec(buyer, "post")),
        request: null,
        answer: null,
        transportError: null,
        latencyMs: 0,
        reading: reading("not_sent", "Not posted: a ping/post buyer's post follows a bid only, and the test ping got none."),
      });
      return { reference: lead.reference, sentAt: at.toISOString(), exchanges };
    }
    bid = ping.bid;
  }
  exchanges.push(await testPost(buyer, lead, at, bid, options));
  return { reference: lead.reference, sentAt: at.toISOString(), exchanges };
}

export type TestLeadTurn = { ok: true; done: () => void } | { ok: false; message: string; retryAfterSeconds: number };

/**
 * So the button cannot hammer a buyer: one test lead at a time per buyer, and at most `perMinute`
 * per console user in any minute (counted per replica, in memory: the console is used by a few people).
 */
export function testLeadLimiter(perMinute: number = DEFAULT_TEST_LEADS_PER_MINUTE) {
  const inFlight = new Set<string>();
  const sent = new Map<string, number[]>();
  return {
    begin(user: string, buyerId: string, at: number): TestLeadTurn {
      if (inFlight.has(buyerId)) return { ok: false, message: `A test lead to ${buyerId} is being sent already: wait for its answer, then send another.`, retryAfterSeconds: 5 };
      const recent = (sent.get(user) ?? []).filter((time) => at - time < 60_000);
      if (recent.length >= perMinute) {
        const wait = Math.max(1, Math.ceil((recent[0]! + 60_000 - at) / 1000));
        sent.set(user, recent);
        return { ok: false, message: `You have sent ${recent.length} test leads in the last minute, the most allowed: wait ${wait} s before sending another.`, retryAfterSeconds: wait };
      }
      sent.set(user, [...recent, at]);
      inFlight.add(buyerId);
      return { ok: true, done: () => inFlight.delete(buyerId) };
    },
  };
}
