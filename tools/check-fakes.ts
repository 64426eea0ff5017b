/**
 * A local stand-in for the four lead-check providers (issue 44; docs/lead-checks.md, "Providers"),
 * for the tests, the benchmark and trials by hand: ONE HTTP server on 127.0.0.1 that answers at
 * each provider's documented path, in its documented terms,
 * - TrustedForm v4:  POST /<40 hex>                        (the certificate URL; Basic "API":key, api-version 4.0)
 * - Jornaya LeadiD:  GET  /Authenticate?lac=…&id=…
 * - TCPA Litigator:  POST /scrub/phone/                    (form: phone_number, type, state; Basic user:key)
 * - Twilio Lookup:   GET  /v2/PhoneNumbers/+1…?Fields=line_type_intelligence (Basic SID:token)
 * and serves the two form scripts the quote form would load from the providers:
 * - GET /trustedform.js  writes the hidden `xxTrustedFormCertUrl` (or the snippet's `field`) into the
 *                         page's forms: a certificate URL on this server;
 * - GET /leadid.js       writes the hidden `leadid_token` (a well-formed LeadiD token).
 *
 * Each provider has a mode, changed at run time: "success" (the answers in `answers`), "refusal"
 * (the provider's definite no), "slow" (the success answer after `delayMs`), "down" (503, or a
 * dropped connection) and "malformed" (200 with a body no adapter can read). Every API request is
 * recorded (never a script's). A wrong credential is answered 401 whatever the mode, as the real
 * APIs do, so a test sees "refused_credentials".
 *
 * The server does not keep the process alive (unref), and close() ends its connections and timers.
 */
import { randomBytes, randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

export const FAKE_PROVIDERS = ["trustedform", "jornaya", "litigator", "twilio"] as const;
export type FakeProvider = (typeof FAKE_PROVIDERS)[number];
export type FakeMode = "success" | "refusal" | "slow" | "down" | "malformed";

/** What "success" answers (and "slow", later). */
export interface FakeAnswers {
  /** TrustedForm: the certificate is retained ("success"), or v4's failure for a lead that does not match it. */
  trustedformMatch: boolean;
  /** TrustedForm's refusal: 404 (no such certificate) or 410 (expired). */
  trustedformRefusal: "not_found" | "expired";
  /** Jornaya: authentic 1 or 0. */
  authentic: boolean;
  /** Litigator list, type tcpa: a match. */
  litigatorListed: boolean;
  /** Litigator list, type dnc (with the state list): a match. */
  dncMatch: boolean;
  /** Twilio: `line_type_intelligence.type`. */
  lineType: string;
}

export interface ModeOptions {
  /** "slow": how long before the answer (default: the fake's slowMs). */
  delayMs?: number;
  /** "down": drop the connection instead of answering 503. */
  reset?: boolean;
  /** "malformed": the body to send (default: JSON cut short). */
  body?: string;
}

export interface FakeRequest {
  provider: FakeProvider;
  method: string;
  /** The path without the query. */
  path: string;
  query: Record<string, string>;
  /** Whether an Authorization header came, and its Basic user (never the password). */
  authorization: boolean;
  authUser: string | null;
  /** Whether the Basic credentials are the fake's own (TrustedForm's user "API" and key, …). */
  credentialsOk: boolean;
  headers: http.IncomingHttpHeaders;
  /** JSON or form fields, parsed (a form's JSON-encoded arrays decoded); the raw text when neither. */
  body: unknown;
  at: Date;
}

export interface CheckFakesOptions {
  /** Added before every API answer (a bench's provider round trip). Default 0. */
  latencyMs?: number;
  /** How long "slow" waits. Default 5 000 ms. */
  slowMs?: number;
  answers?: Partial<FakeAnswers>;
  /** The credentials the fake expects (and puts in `env`). */
  credentials?: Partial<FakeCredentials>;
}

export interface FakeCredentials {
  trustedformApiKey: string;
  jornayaAccountCode: string;
  litigatorUser: string;
  litigatorKey: string;
  twilioAccountSid: string;
  twilioAuthToken: string;
}

export interface CheckFakes {
  /** http://127.0.0.1:<port> */
  origin: string;
  /** TRUSTEDFORM_CERT_ORIGIN: certificates live on this same server. */
  certOrigin: string;
  /** The configuration (server/config.ts) that points every provider and script at the fake, with its credentials. */
  env: Record<string, string>;
  credentials: FakeCredentials;
  answers: FakeAnswers;
  setMode(provider: FakeProvider, mode: FakeMode, options?: ModeOptions): void;
  setAnswers(answers: Partial<FakeAnswers>): void;
  /** Every API request so far, oldest first (the array is live). */
  requests: FakeRequest[];
  count(provider: FakeProvider): number;
  /** A well-formed certificate URL on this server, as /trustedform.js would write it. */
  certUrl(): string;
  /** Forgets the requests, and sets every mode back to "success" and the answers to the start's. */
  reset(): void;
  close(): Promise<void>;
}

const DEFAULT_ANSWERS: FakeAnswers = {
  trustedformMatch: true,
  trustedformRefusal: "not_found",
  authentic: true,
  litigatorListed: false,
  dncMatch: false,
  lineType: "mobile",
};

const DEFAULT_CREDENTIALS: FakeCredentials = {
  trustedformApiKey: "fake-trustedform-key",
  jornayaAccountCode: "0A1B2C3D-4E5F-6A7B-8C9D-0E1F2A3B4C5D",
  litigatorUser: "fake_litigator_user",
  litigatorKey: "fake-litigator-key",
  twilioAccountSid: "AC00000000000000000000000000000000",
  twilioAuthToken: "fake-twilio-token",
};

const CERT_PATH = /^\/([0-9a-f]{40})$/;
const LOOKUP_PATH = /^\/v2\/PhoneNumbers\/([^/]+)$/;

export async function startCheckFakes(options: CheckFakesOptions = {}): Promise<CheckFakes> {
  const latencyMs = options.latencyMs ?? 0;
  const slowMs = options.slowMs ?? 5_000;
  const startAnswers: FakeAnswers = { ...DEFAULT_ANSWERS, ...options.answers };
  const answers: FakeAnswers = { ...startAnswers };
  const credentials: FakeCredentials = { ...DEFAULT_CREDENTIALS, ...options.credentials };
  const modes = new Map<FakeProvider, { mode: FakeMode; options: ModeOptions }>();
  const requests: FakeRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();
  let origin = "";

  const later = (ms: number, run: () => void) => {
    if (ms <= 0) return run();
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, ms);
    timers.add(timer);
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://fake.invalid");
    if (req.method === "GET" && url.pathname === "/trustedform.js") return sendScript(res, trustedFormScript(origin, url.searchParams.get("field")));
    if (req.method === "GET" && url.pathname === "/leadid.js") return sendScript(res, leadIdScript());

    const provider = providerFor(req.method ?? "", url.pathname);
    if (!provider) return void res.writeHead(404, { "content-type": "application/json" }).end('{"error":"no such endpoint on the check fakes"}');

    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      const auth = basicCredentials(req.headers.authorization);
      const record: FakeRequest = {
        provider,
        method: req.method ?? "",
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        authorization: req.headers.authorization !== undefined,
        authUser: auth?.user ?? null,
        credentialsOk: credentialsMatch(provider, auth, url, credentials),
        headers: req.headers,
        body: parseBody(req.headers["content-type"], raw),
        at: new Date(),
      };
      requests.push(record);
      const { mode, options: modeOptions } = modes.get(provider) ?? { mode: "success", options: {} };
      const reply = (status: number, body: unknown) => {
        if (res.destroyed) return;
        res.writeHead(status, { "content-type": "application/json" }).end(typeof body === "string" ? body : JSON.stringify(body));
      };
      later(latencyMs, () => {
        if (!record.credentialsOk) return reply(401, { message: "Authentication failed", status: 401 });
        if (mode === "down") {
          if (modeOptions.reset) return void req.socket.destroy();
          return reply(503, "Service Unavailable");
        }
        if (mode === "malformed") return reply(200, modeOptions.body ?? '{"outcome": "succ');
        const [status, body] = answer(provider, mode === "refusal", record, answers);
        if (mode === "slow") return later(modeOptions.delayMs ?? slowMs, () => reply(status, body));
        reply(status, body);
      });
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  // A test's or a bench's fake never holds the process open by itself.
  server.unref();
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const env: Record<string, string> = {
    TRUSTEDFORM: "on",
    TRUSTEDFORM_SCRIPT_URL: `${origin}/trustedform.js`,
    TRUSTEDFORM_CERT_ORIGIN: origin,
    TRUSTEDFORM_API_KEY: credentials.trustedformApiKey,
    JORNAYA: "on",
    JORNAYA_SCRIPT_URL: `${origin}/leadid.js`,
    JORNAYA_API_URL: origin,
    JORNAYA_ACCOUNT_CODE: credentials.jornayaAccountCode,
    LITIGATOR_API_URL: origin,
    LITIGATOR_API_USER: credentials.litigatorUser,
    LITIGATOR_API_KEY: credentials.litigatorKey,
    TWILIO_LOOKUP_URL: origin,
    TWILIO_ACCOUNT_SID: credentials.twilioAccountSid,
    TWILIO_AUTH_TOKEN: credentials.twilioAuthToken,
    // A production server refuses loopback addresses without this (server/delivery/outbound.ts).
    OUTBOUND_ALLOW: "127.0.0.1",
  };

  return {
    origin,
    certOrigin: origin,
    env,
    credentials,
    answers,
    setMode(provider, mode, modeOptions = {}) {
      modes.set(provider, { mode, options: modeOptions });
    },
    setAnswers(next) {
      Object.assign(answers, next);
    },
    requests,
    count: (provider) => requests.filter((request) => request.provider === provider).length,
    certUrl: () => `${origin}/${randomBytes(20).toString("hex")}`,
    reset() {
      requests.length = 0;
      modes.clear();
      Object.assign(answers, startAnswers);
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function providerFor(method: string, path: string): FakeProvider | undefined {
  if (method === "POST" && CERT_PATH.test(path)) return "trustedform";
  if (method === "GET" && path === "/Authenticate") return "jornaya";
  if (method === "POST" && (path === "/scrub/phone/" || path === "/scrub/phone")) return "litigator";
  if (method === "GET" && LOOKUP_PATH.test(path)) return "twilio";
  return undefined;
}

function basicCredentials(header: string | undefined): { user: string; password: string } | undefined {
  const match = header?.match(/^Basic ([A-Za-z0-9+/=]+)$/);
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon < 0 ? undefined : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

function credentialsMatch(provider: FakeProvider, auth: { user: string; password: string } | undefined, url: URL, credentials: FakeCredentials): boolean {
  switch (provider) {
    case "trustedform":
      return auth?.user === "API" && auth.password === credentials.trustedformApiKey;
    case "jornaya":
      // LeadiD's credential is the account code in the query.
      return url.searchParams.get("lac") === credentials.jornayaAccountCode;
    case "litigator":
      return auth?.user === credentials.litigatorUser && auth.password === credentials.litigatorKey;
    case "twilio":
      return auth?.user === credentials.twilioAccountSid && auth.password === credentials.twilioAuthToken;
  }
}

function parseBody(contentType: string | undefined, raw: string): unknown {
  if (raw === "") return undefined;
  if (contentType?.startsWith("application/json")) {
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      return raw;
    }
  }
  if (contentType?.startsWith("application/x-www-form-urlencoded")) {
    const fields: Record<string, unknown> = {};
    for (const [name, value] of new URLSearchParams(raw)) {
      // The litigator API takes arrays JSON-encoded (type, state); state[]=… is read too.
      const key = name.replace(/\[\d*\]$/, "");
      let parsed: unknown = value;
      if (value.startsWith("[")) {
        try {
          parsed = JSON.parse(value) as unknown;
        } catch {
          parsed = value;
        }
      }
      if (key !== name) fields[key] = [...((fields[key] as unknown[] | undefined) ?? []), value];
      else fields[key] = parsed;
    }
    return fields;
  }
  return raw;
}

/** The provider's answer in its documented shape: [status, body]. */
function answer(provider: FakeProvider, refusal: boolean, request: FakeRequest, answers: FakeAnswers): [number, unknown] {
  const body = (request.body ?? {}) as Record<string, unknown>;
  switch (provider) {
    case "trustedform": {
      if (refusal) {
        return answers.trustedformRefusal === "expired"
          ? [410, { outcome: "failure", reason: "Certificate has expired" }]
          : [404, { outcome: "failure", reason: "Certificate could not be found" }];
      }
      const matchLead = (body.match_lead ?? {}) as Record<string, unknown>;
      const retain = (body.retain ?? {}) as Record<string, unknown>;
      const matched = answers.trustedformMatch;
      return [
        200,
        {
          outcome: matched ? "success" : "failure",
          reason: matched ? null : "Lead did not match the certificate",
          match_lead: {
            email: matchLead.email ?? null,
            phone: matchLead.phone ?? null,
            result: { email_match: matched && matchLead.email !== undefined, phone_match: matched && matchLead.phone !== undefined, success: matched },
          },
          ...(matched
            ? {
                retain: {
                  reference: retain.reference ?? null,
                  vendor: retain.vendor ?? null,
                  results: { expires_at: new Date(Date.now() + 90 * 86_400_000).toISOString(), previously_retained: false },
                },
              }
            : {}),
        },
      ];
    }
    case "jornaya": {
      const authentic = !refusal && answers.authentic ? 1 : 0;
      return [200, { authenticate: { authentic, token: request.query.id ?? "" }, transid: randomUUID() }];
    }
    case "litigator": {
      const phone = String(body.phone_number ?? "");
      const type = String(body.type ?? "tcpa");
      const listed = refusal || (type === "dnc" ? answers.dncMatch : answers.litigatorListed);
      const lists = type === "dnc" ? ["dnc_complainers", ...(Array.isArray(body.state) && body.state.length > 0 ? ["dnc_state"] : [])] : ["tcpa"];
      return [
        200,
        {
          results: {
            phone_number: phone,
            clean: listed ? 0 : 1,
            is_bad_number: listed,
            status_array: listed ? lists : [],
            status: listed ? (type === "dnc" ? "DNC Complainers" : "TCPA") : "Clean",
          },
        },
      ];
    }
    case "twilio": {
      const number = decodeURIComponent(request.path.match(LOOKUP_PATH)?.[1] ?? "");
      if (refusal || !/^\+1\d{10}$/.test(number)) {
        return [200, { calling_country_code: null, country_code: null, phone_number: number, national_format: null, valid: false, validation_errors: ["INVALID_BUT_POSSIBLE"], line_type_intelligence: null }];
      }
      return [
        200,
        {
          calling_country_code: "1",
          country_code: "US",
          phone_number: number,
          national_format: `(${number.slice(2, 5)}) ${number.slice(5, 8)}-${number.slice(8)}`,
          valid: true,
          validation_errors: [],
          line_type_intelligence: { carrier_name: "Fake Wireless", error_code: null, mobile_country_code: "311", mobile_network_code: "480", type: answers.lineType },
          url: `https://lookups.twilio.com/v2/PhoneNumbers/${number}`,
        },
      ];
    }
  }
}

function sendScript(res: http.ServerResponse, text: string): void {
  res
    .writeHead(200, {
      "content-type": "text/javascript; charset=utf-8",
      "cache-control": "no-store",
      // A classic <script src> needs no CORS; this only lets a page with COEP load it too.
      "cross-origin-resource-policy": "cross-origin",
    })
    .end(text);
}

/**
 * Like TrustedForm's certify script: a hidden input (named by the snippet's `field` parameter,
 * xxTrustedFormCertUrl by default) in every form already on the page, all holding one certificate
 * URL on this server; an input already there is filled, not doubled.
 */
function trustedFormScript(origin: string, field: string | null): string {
  const name = field && /^\w{1,64}$/.test(field) ? field : "xxTrustedFormCertUrl";
  return `(function () {
  function hex(bytes) { return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join(""); }
  function write() {
    var url = ${JSON.stringify(origin)} + "/" + hex(crypto.getRandomValues(new Uint8Array(20)));
    for (var i = 0; i < document.forms.length; i++) {
      var form = document.forms[i];
      var input = form.querySelector('input[name="${name}"]');
      if (!input) {
        input = document.createElement("input");
        input.type = "hidden";
        input.name = "${name}";
        input.id = "${name}_" + i;
        form.appendChild(input);
      }
      input.value = url;
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", write); else write();
})();
`;
}

/** Like Jornaya's campaign script: the hidden input id="leadid_token" (in the first form when absent), filled with an upper-case GUID. */
function leadIdScript(): string {
  return `(function () {
  function token() {
    var b = crypto.getRandomValues(new Uint8Array(16)), h = "";
    for (var i = 0; i < 16; i++) h += ("0" + b[i].toString(16)).slice(-2);
    h = h.toUpperCase();
    return h.slice(0, 8) + "-" + h.slice(8, 12) + "-" + h.slice(12, 16) + "-" + h.slice(16, 20) + "-" + h.slice(20);
  }
  function write() {
    var input = document.getElementById("leadid_token");
    if (!input) {
      var form = document.forms[0];
      if (!form) return;
      input = document.createElement("input");
      input.type = "hidden";
      input.id = "leadid_token";
      input.name = "leadid_token";
      form.appendChild(input);
    }
    input.value = token();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", write); else write();
})();
`;
}
