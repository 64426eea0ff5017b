/**
 * The lead-check adapters (server/checks/providers/) against the local fake of the providers'
 * documented APIs (tools/check-fakes.ts): each answer they can give, what they send and where,
 * and the bad input that is never sent anywhere (issue 44, "Bad input").
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Window } from "happy-dom";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loadConfig, type Config } from "../../server/config";
import { setOutboundPolicy } from "../../server/delivery/http-send";
import { NO_EXCEPTIONS, outboundPolicy } from "../../server/delivery/outbound";
import { createLogger } from "../../server/logger";
import { checkCertUrl, createCheckProviders, LEADID_TOKEN, type CheckProviderConfig } from "../../server/checks/providers";
import type { CheckAnswer, CheckInput, CheckKind, CheckProvider } from "../../server/checks/types";
import { startCheckFakes, type CheckFakes, type FakeProvider } from "../../tools/check-fakes";

const TIMEOUT_MS = 1_000;
const silent = createLogger({ NODE_ENV: "test", LOG_LEVEL: "silent" });

let fakes: CheckFakes;
let config: Config;
let providers: Map<CheckKind, CheckProvider>;
/** A server that must never hear from us: the "foreign host" of every look-alike certificate URL. */
let trap: http.Server;
let trapOrigin: string;
const trapped: http.IncomingHttpHeaders[] = [];
/** Every answer the tests saw, to check no detail carries a phone, an email or a key. */
const seen: CheckAnswer[] = [];

const provider = (kind: CheckKind) => {
  const found = providers.get(kind);
  if (!found) throw new Error(`no ${kind} provider`);
  return found;
};

function lead(overrides: Partial<CheckInput> = {}): CheckInput {
  return {
    reference: "LD-CHECK-1",
    phone: "5125550123",
    email: "ana.ruiz@example.com",
    state: "TX",
    trustedFormCertUrl: fakes.certUrl(),
    leadidToken: "A1B2C3D4-E5F6-4A7B-8C9D-0E1F2A3B4C5D",
    ...overrides,
  };
}

async function run(kind: CheckKind, overrides: Partial<CheckInput> = {}, timeoutMs = TIMEOUT_MS): Promise<CheckAnswer> {
  const answer = await provider(kind).run(lead(overrides), timeoutMs);
  seen.push(answer);
  return answer;
}

const FAKE_OF: Record<CheckKind, FakeProvider> = { trustedform: "trustedform", jornaya: "jornaya", litigator: "litigator", dnc: "litigator", line_type: "twilio" };

beforeAll(async () => {
  fakes = await startCheckFakes({ slowMs: 3_000 });
  // The fake's own environment, read as the server reads it: every provider points at the fake.
  config = loadConfig({ NODE_ENV: "test", ...fakes.env });
  providers = createCheckProviders(config);
  // The production rule with the fake's OUTBOUND_ALLOW: loopback is reachable only because the env says so.
  setOutboundPolicy(outboundPolicy({ NODE_ENV: "production", OUTBOUND_ALLOW: config.OUTBOUND_ALLOW }), silent);

  trap = http.createServer((req, res) => {
    trapped.push(req.headers);
    res.writeHead(200, { "content-type": "application/json" }).end('{"outcome":"success","retain":{"results":{}}}');
  });
  await new Promise<void>((resolve) => trap.listen(0, "127.0.0.1", resolve));
  trapOrigin = `http://127.0.0.1:${(trap.address() as AddressInfo).port}`;
});

afterAll(async () => {
  setOutboundPolicy({ enforce: false, allow: NO_EXCEPTIONS }, silent);
  await fakes.close();
  trap.closeAllConnections();
  await new Promise((resolve) => trap.close(resolve));
});

beforeEach(() => fakes.reset());

describe("createCheckProviders", () => {
  const none: CheckProviderConfig = {
    TRUSTEDFORM_API_KEY: undefined,
    TRUSTEDFORM_CERT_ORIGIN: "https://cert.trustedform.com",
    JORNAYA_API_URL: "https://api.leadid.com",
    JORNAYA_ACCOUNT_CODE: undefined,
    LITIGATOR_API_URL: "https://api.tcpalitigatorlist.com",
    LITIGATOR_API_USER: undefined,
    LITIGATOR_API_KEY: undefined,
    TWILIO_LOOKUP_URL: "https://lookups.twilio.com",
    TWILIO_ACCOUNT_SID: undefined,
    TWILIO_AUTH_TOKEN: undefined,
  };

  it("returns a provider for every kind when all credentials are set, with its stage and caching", () => {
    const summary = [...providers.values()].map(({ kind, name, stage, cachedByPhone }) => ({ kind, name, stage, cachedByPhone }));
    expect(summary).toEqual([
      { kind: "trustedform", name: "trustedform", stage: "post", cachedByPhone: false },
      { kind: "jornaya", name: "jornaya-leadid", stage: "ping", cachedByPhone: false },
      { kind: "litigator", name: "tcpa-litigator-list", stage: "post", cachedByPhone: true },
      { kind: "dnc", name: "tcpa-litigator-list", stage: "post", cachedByPhone: true },
      { kind: "line_type", name: "twilio-lookup", stage: "post", cachedByPhone: true },
    ]);
  });

  it("returns only the providers whose credentials are configured", () => {
    expect([...createCheckProviders(none).keys()]).toEqual([]);
    expect([...createCheckProviders({ ...none, TRUSTEDFORM_API_KEY: "k" }).keys()]).toEqual(["trustedform"]);
    expect([...createCheckProviders({ ...none, JORNAYA_ACCOUNT_CODE: "lac" }).keys()]).toEqual(["jornaya"]);
    // Half a credential is no credential.
    expect([...createCheckProviders({ ...none, LITIGATOR_API_USER: "u" }).keys()]).toEqual([]);
    expect([...createCheckProviders({ ...none, LITIGATOR_API_KEY: "k" }).keys()]).toEqual([]);
    expect([...createCheckProviders({ ...none, LITIGATOR_API_USER: "u", LITIGATOR_API_KEY: "k" }).keys()]).toEqual(["litigator", "dnc"]);
    expect([...createCheckProviders({ ...none, TWILIO_ACCOUNT_SID: "AC1" }).keys()]).toEqual([]);
    expect([...createCheckProviders({ ...none, TWILIO_ACCOUNT_SID: "AC1", TWILIO_AUTH_TOKEN: "t" }).keys()]).toEqual(["line_type"]);
  });
});

describe("TrustedForm", () => {
  it("retains the certificate: one POST to the certificate URL, v4, Basic API:key, our reference and the lead to match", async () => {
    const certUrl = fakes.certUrl();
    const answer = await run("trustedform", { trustedFormCertUrl: certUrl });
    expect(answer).toMatchObject({ status: "ok", outcome: "retained" });
    expect(answer.detail).toMatch(/^retained, kept until \d{4}-\d{2}-\d{2}$/);
    expect(fakes.requests).toHaveLength(1);
    const [request] = fakes.requests;
    expect(request).toMatchObject({ provider: "trustedform", method: "POST", path: new URL(certUrl).pathname, authUser: "API", credentialsOk: true });
    expect(request?.headers["api-version"]).toBe("4.0");
    expect(request?.body).toEqual({ match_lead: { email: "ana.ruiz@example.com", phone: "5125550123" }, retain: { reference: "LD-CHECK-1", vendor: "QuoteRidge" } });
  });

  it("answers a lead that does not match the certificate as failed no_match", async () => {
    fakes.setAnswers({ trustedformMatch: false });
    expect(await run("trustedform")).toMatchObject({ status: "failed", outcome: "no_match" });
  });

  it("answers ActiveProspect's refusals: 404 not_found, 410 expired", async () => {
    fakes.setMode("trustedform", "refusal");
    expect(await run("trustedform")).toMatchObject({ status: "failed", outcome: "not_found" });
    fakes.setAnswers({ trustedformRefusal: "expired" });
    expect(await run("trustedform")).toMatchObject({ status: "failed", outcome: "expired" });
  });

  it("calls nothing for a certificate URL on another host, or not one certificate id", async () => {
    const hex = "a".repeat(40);
    const port = new URL(fakes.origin).port;
    const foreign = [
      `${trapOrigin}/${hex}`,
      `http://localhost:${port}/${hex}`,
      `https://127.0.0.1:${port}/${hex}`,
      `http://127.0.0.1:${port}@127.0.0.1:${new URL(trapOrigin).port}/${hex}`,
      `//127.0.0.1:${port}/${hex}`,
    ];
    for (const url of foreign) expect(await run("trustedform", { trustedFormCertUrl: url }), url).toMatchObject({ status: "failed", outcome: url.startsWith("//") ? "bad_shape" : "foreign_host", latencyMs: 0 });
    const badShape = [
      null,
      "",
      "not a url",
      `${fakes.origin}/${hex.toUpperCase()}`,
      `${fakes.origin}/${hex}0`,
      `${fakes.origin}/${hex.slice(1)}`,
      `${fakes.origin}/${hex}/`,
      `${fakes.origin}/${hex}?`,
      `${fakes.origin}/${hex}?x=1`,
      `${fakes.origin}/${hex}#top`,
      `${fakes.origin}/x/../${hex}`,
      `${fakes.origin}/%61${hex.slice(1)}`,
      `http://API:key@127.0.0.1:${port}/${hex}`,
      ` ${fakes.origin}/${hex}`,
    ];
    for (const url of badShape) expect(await run("trustedform", { trustedFormCertUrl: url }), String(url)).toMatchObject({ status: "failed", outcome: "bad_shape", latencyMs: 0 });
    expect(fakes.count("trustedform")).toBe(0);
    expect(trapped).toHaveLength(0);
  });

  it("sends the key only to TRUSTEDFORM_CERT_ORIGIN: a certificate URL is judged against the configured origin", async () => {
    const elsewhere = createCheckProviders({ ...config, TRUSTEDFORM_CERT_ORIGIN: trapOrigin }).get("trustedform")!;
    // The fake's own certificate URL is foreign to a provider configured for another origin.
    expect(await elsewhere.run(lead(), TIMEOUT_MS)).toMatchObject({ status: "failed", outcome: "foreign_host" });
    expect(fakes.count("trustedform")).toBe(0);
    expect(checkCertUrl(`https://cert.trustedform.com/${"0".repeat(40)}`, "https://cert.trustedform.com")).toEqual({ ok: true, url: `https://cert.trustedform.com/${"0".repeat(40)}` });
    expect(checkCertUrl(`https://cert.trustedform.com.evil.example/${"0".repeat(40)}`, "https://cert.trustedform.com")).toMatchObject({ ok: false, outcome: "foreign_host" });
    expect(checkCertUrl(`http://cert.trustedform.com/${"0".repeat(40)}`, "https://cert.trustedform.com")).toMatchObject({ ok: false, outcome: "foreign_host" });
  });

  it("refuses a lead with neither email nor phone without a call", async () => {
    expect(await run("trustedform", { email: "", phone: "" })).toMatchObject({ status: "failed", outcome: "no_contact" });
    expect(fakes.count("trustedform")).toBe(0);
  });
});

describe("Jornaya LeadiD", () => {
  it("authenticates the token: GET /Authenticate with lac and id", async () => {
    expect(await run("jornaya")).toMatchObject({ status: "ok", outcome: "authentic" });
    expect(fakes.requests[0]).toMatchObject({ provider: "jornaya", method: "GET", path: "/Authenticate", query: { lac: fakes.credentials.jornayaAccountCode, id: "A1B2C3D4-E5F6-4A7B-8C9D-0E1F2A3B4C5D" } });
  });

  it("answers authentic 0 as failed not_authentic", async () => {
    fakes.setAnswers({ authentic: false });
    expect(await run("jornaya")).toMatchObject({ status: "failed", outcome: "not_authentic" });
    fakes.reset();
    fakes.setMode("jornaya", "refusal");
    expect(await run("jornaya")).toMatchObject({ status: "failed", outcome: "not_authentic" });
  });

  it("calls nothing for a token of the wrong shape", async () => {
    for (const token of [null, "", "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d", "A1B2C3D4E5F64A7B8C9D0E1F2A3B4C5D", "A1B2C3D4-E5F6-4A7B-8C9D-0E1F2A3B4C5D ", "A1B2C3D4-E5F6-4A7B-8C9D-0E1F2A3B4C5G", "x&lac=other"]) {
      expect(await run("jornaya", { leadidToken: token }), String(token)).toMatchObject({ status: "failed", outcome: "bad_shape", latencyMs: 0 });
    }
    expect(fakes.count("jornaya")).toBe(0);
    expect(LEADID_TOKEN.test("A1B2C3D4-E5F6-4A7B-8C9D-0E1F2A3B4C5D")).toBe(true);
  });
});

describe("TCPA Litigator List", () => {
  it("scrubs the phone against the litigator list (type tcpa): clean, or listed as an answer", async () => {
    expect(await run("litigator")).toMatchObject({ status: "ok", outcome: "clean" });
    expect(fakes.requests[0]).toMatchObject({ provider: "litigator", method: "POST", path: "/scrub/phone/", authUser: fakes.credentials.litigatorUser, credentialsOk: true, body: { phone_number: "5125550123", type: "tcpa" } });
    fakes.setAnswers({ litigatorListed: true });
    expect(await run("litigator")).toMatchObject({ status: "ok", outcome: "listed", detail: "on the TCPA litigator list (tcpa)" });
    fakes.reset();
    fakes.setMode("litigator", "refusal");
    expect(await run("litigator")).toMatchObject({ status: "ok", outcome: "listed" });
  });

  it("scrubs DNC with the lead's state list (type dnc, state): clean, or dnc_match as an answer", async () => {
    expect(await run("dnc", { state: "CA" })).toMatchObject({ status: "ok", outcome: "clean" });
    expect(fakes.requests[0]?.body).toEqual({ phone_number: "5125550123", type: "dnc", state: ["CA"] });
    fakes.setAnswers({ dncMatch: true });
    expect(await run("dnc", { state: "CA" })).toMatchObject({ status: "ok", outcome: "dnc_match", detail: "on a DNC list (dnc_complainers, dnc_state)" });
    // The litigator list is a separate answer.
    expect(await run("litigator")).toMatchObject({ status: "ok", outcome: "clean" });
  });

  it("calls nothing for a phone that is not ten digits, or a DNC scrub without a state", async () => {
    for (const phone of ["", "512555012", "15125550123", "512-555-0123", "+15125550123", "51255501２3"]) {
      expect(await run("litigator", { phone }), phone).toMatchObject({ status: "failed", outcome: "unreadable_phone", latencyMs: 0 });
      expect(await run("dnc", { phone }), phone).toMatchObject({ status: "failed", outcome: "unreadable_phone", latencyMs: 0 });
    }
    expect(await run("dnc", { state: "" })).toMatchObject({ status: "failed", outcome: "unreadable_state" });
    expect(await run("dnc", { state: "tx" })).toMatchObject({ status: "failed", outcome: "unreadable_state" });
    expect(fakes.count("litigator")).toBe(0);
  });
});

describe("Twilio Lookup", () => {
  it("looks up the line type: GET /v2/PhoneNumbers/+1… with Fields=line_type_intelligence, Basic SID:token", async () => {
    expect(await run("line_type")).toMatchObject({ status: "ok", outcome: "mobile" });
    expect(fakes.requests[0]).toMatchObject({ provider: "twilio", method: "GET", path: "/v2/PhoneNumbers/%2B15125550123", query: { Fields: "line_type_intelligence" }, authUser: fakes.credentials.twilioAccountSid, credentialsOk: true });
    for (const lineType of ["landline", "fixedVoip", "nonFixedVoip", "tollFree"]) {
      fakes.setAnswers({ lineType });
      expect(await run("line_type")).toMatchObject({ status: "ok", outcome: lineType });
    }
    fakes.setAnswers({ lineType: "satellite" });
    expect(await run("line_type")).toMatchObject({ status: "ok", outcome: "unknown", detail: "an undocumented line type (satellite)" });
  });

  it("answers valid:false as failed invalid_phone", async () => {
    fakes.setMode("twilio", "refusal");
    expect(await run("line_type")).toMatchObject({ status: "failed", outcome: "invalid_phone", detail: "Twilio says the number is not valid (INVALID_BUT_POSSIBLE)" });
  });

  it("answers a valid number without a line type as unavailable", async () => {
    fakes.setMode("twilio", "malformed", { body: JSON.stringify({ valid: true, line_type_intelligence: { type: null, error_code: 60607 } }) });
    expect(await run("line_type")).toMatchObject({ status: "unavailable", outcome: "no_line_type", detail: "no line type (Twilio error 60607)" });
  });

  it("calls nothing for a phone that is not ten digits", async () => {
    for (const phone of ["", "512555012", "15125550123", "512 555 0123"]) {
      expect(await run("line_type", { phone }), phone).toMatchObject({ status: "failed", outcome: "unreadable_phone", latencyMs: 0 });
    }
    expect(fakes.count("twilio")).toBe(0);
  });
});

describe.each(["trustedform", "jornaya", "litigator", "dnc", "line_type"] as const)("%s when the provider misbehaves", (kind) => {
  const fake = () => FAKE_OF[kind];

  it("is unavailable (timeout) past the time limit, within the limit", async () => {
    fakes.setMode(fake(), "slow", { delayMs: 2_000 });
    const answer = await run(kind, {}, 200);
    expect(answer).toMatchObject({ status: "unavailable", outcome: "timeout" });
    expect(answer.latencyMs).toBeGreaterThanOrEqual(150);
    expect(answer.latencyMs).toBeLessThan(1_000);
  });

  it("answers a slow provider within the limit as usual", async () => {
    fakes.setMode(fake(), "slow", { delayMs: 100 });
    const answer = await run(kind);
    expect(answer.status).not.toBe("unavailable");
    expect(answer.latencyMs).toBeGreaterThanOrEqual(90);
  });

  it("is unavailable (down) on a 503 and on a dropped connection", async () => {
    fakes.setMode(fake(), "down");
    expect(await run(kind)).toMatchObject({ status: "unavailable", outcome: "down", detail: "HTTP 503" });
    fakes.setMode(fake(), "down", { reset: true });
    expect(await run(kind)).toMatchObject({ status: "unavailable", outcome: "down" });
  });

  it("is unavailable (malformed) on an answer it cannot read, never a crash", async () => {
    fakes.setMode(fake(), "malformed");
    expect(await run(kind)).toMatchObject({ status: "unavailable", outcome: "malformed" });
    for (const body of ['{"surprise": true}', "[]", "null", "<html>Bad gateway</html>", '{"authenticate": {"authentic": 2}, "results": {"clean": "maybe"}, "valid": "yes", "outcome": "great"}']) {
      fakes.setMode(fake(), "malformed", { body });
      expect(await run(kind), body).toMatchObject({ status: "unavailable", outcome: "malformed" });
    }
  });

  it("is unavailable (refused_credentials) when the provider refuses our credentials", async () => {
    const wrong = createCheckProviders({
      ...config,
      TRUSTEDFORM_API_KEY: "wrong",
      JORNAYA_ACCOUNT_CODE: "wrong",
      LITIGATOR_API_KEY: "wrong",
      TWILIO_AUTH_TOKEN: "wrong",
    }).get(kind)!;
    const answer = await wrong.run(lead(), TIMEOUT_MS);
    seen.push(answer);
    expect(answer).toMatchObject({ status: "unavailable", outcome: "refused_credentials" });
    expect(fakes.requests.at(-1)?.credentialsOk).toBe(false);
  });

  it("is unavailable (down) when nothing listens, and never throws", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const gone = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const nowhere = createCheckProviders({ ...config, TRUSTEDFORM_CERT_ORIGIN: gone, JORNAYA_API_URL: gone, LITIGATOR_API_URL: gone, TWILIO_LOOKUP_URL: gone }).get(kind)!;
    const answer = await nowhere.run(lead({ trustedFormCertUrl: `${gone}/${"b".repeat(40)}` }), TIMEOUT_MS);
    expect(answer).toMatchObject({ status: "unavailable", outcome: "down", detail: "ECONNREFUSED" });
  });
});

describe("what leaves the server", () => {
  it("refuses an address the outbound policy forbids, as unavailable, without a request", async () => {
    setOutboundPolicy(outboundPolicy({ NODE_ENV: "production" }), silent);
    try {
      const answer = await run("line_type");
      expect(answer).toMatchObject({ status: "unavailable", outcome: "outbound_refused" });
    } finally {
      setOutboundPolicy(outboundPolicy({ NODE_ENV: "production", OUTBOUND_ALLOW: config.OUTBOUND_ALLOW }), silent);
    }
    expect(fakes.count("twilio")).toBe(0);
  });

  it("adds the fake's fixed latency to every answer (a bench's provider round trip)", async () => {
    const slowFakes = await startCheckFakes({ latencyMs: 50 });
    try {
      const line = createCheckProviders(loadConfig({ NODE_ENV: "test", ...slowFakes.env })).get("line_type")!;
      const answer = await line.run(lead(), TIMEOUT_MS);
      expect(answer).toMatchObject({ status: "ok", outcome: "mobile" });
      expect(answer.latencyMs).toBeGreaterThanOrEqual(45);
      expect(slowFakes.count("twilio")).toBe(1);
    } finally {
      await slowFakes.close();
    }
  });

  it("never puts a phone, an email or a credential in an answer's detail", () => {
    expect(seen.length).toBeGreaterThan(50);
    const secrets = ["5125550123", "555-0123", "ana.ruiz@example.com", "example.com", ...Object.values(fakes.credentials)];
    for (const answer of seen) for (const secret of secrets) expect(answer.detail, `${answer.outcome}: ${answer.detail}`).not.toContain(secret);
  });
});

describe("the form scripts", () => {
  async function script(path: string) {
    const response = await fetch(`${fakes.origin}${path}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
    return response.text();
  }

  function runIn(text: string, html: string) {
    const window = new Window();
    window.document.body.innerHTML = html;
    // The script reads `document` and `crypto` as a page's globals.
    new Function("document", "crypto", text)(window.document, globalThis.crypto);
    return window.document;
  }

  it("trustedform.js writes xxTrustedFormCertUrl into the page's forms: a certificate URL the adapter accepts", async () => {
    const text = await script("/trustedform.js");
    const document = runIn(text, '<form id="quote"><input name="phone"></form><form id="other"></form>');
    const input = document.querySelector('#quote input[name="xxTrustedFormCertUrl"]') as unknown as { type: string; value: string } | null;
    expect(input?.type).toBe("hidden");
    expect(checkCertUrl(input?.value ?? null, config.TRUSTEDFORM_CERT_ORIGIN)).toMatchObject({ ok: true });
    // Like TrustedForm's own script: every form gets the one certificate URL.
    const values = [...document.querySelectorAll('input[name="xxTrustedFormCertUrl"]')].map((element) => (element as unknown as { value: string }).value);
    expect(values).toEqual([input?.value, input?.value]);
    // The snippet's `field` names the input.
    const named = runIn(await script("/trustedform.js?field=cert_url&use_tagged_consent=true&l=1"), "<form></form>");
    expect((named.querySelector('input[name="cert_url"]') as unknown as { value: string } | null)?.value).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{40}$/);
    // An input already there is filled, not doubled.
    const again = runIn(text, '<form><input type="hidden" name="xxTrustedFormCertUrl" value=""></form>');
    expect(again.querySelectorAll('input[name="xxTrustedFormCertUrl"]')).toHaveLength(1);
    expect((again.querySelector('input[name="xxTrustedFormCertUrl"]') as unknown as { value: string }).value).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{40}$/);
    expect(fakes.requests).toHaveLength(0);
  });

  it("leadid.js writes leadid_token: a token the adapter accepts", async () => {
    const text = await script("/leadid.js");
    const document = runIn(text, "<form></form>");
    const input = document.getElementById("leadid_token") as unknown as { type: string; name: string; value: string } | null;
    expect(input).toMatchObject({ type: "hidden", name: "leadid_token" });
    expect(input?.value).toMatch(LEADID_TOKEN);
  });
});
