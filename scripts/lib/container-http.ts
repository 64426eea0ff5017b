/**
 * HTTP from the container test to the stack: a small client that tags every request with a
 * request id the test can find again in the replicas' logs, and the route checks, the same
 * expectations as tests/http but asked through the load balancer.
 */
import { randomUUID } from "node:crypto";
import { parse } from "node-html-parser";
import { scanHtml } from "../../tools/js-weight";

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** The X-Request-Id the response carries. */
  requestId: string;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Send no X-Request-Id, to see the balancer make one. */
  anonymous?: boolean;
}

export class HttpClient {
  private counter = 0;
  /** Every id this client sent, in order. */
  readonly sentIds: string[] = [];

  constructor(
    readonly origin: string,
    /** Prefix of the request ids sent, so the replicas' logs show which requests were ours. */
    readonly idPrefix: string,
  ) {}

  async request(path: string, options: RequestOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...options.headers };
    if (!options.anonymous) {
      const id = `${this.idPrefix}${String((this.counter += 1)).padStart(4, "0")}`;
      headers["x-request-id"] = id;
      this.sentIds.push(id);
    }
    const response = await fetch(`${this.origin}${path}`, {
      method: options.method ?? "GET",
      headers,
      body: options.body,
      redirect: "manual",
      signal: AbortSignal.timeout(15_000),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, requestId: response.headers.get("x-request-id") ?? "" };
  }
}

export class CheckFailure extends Error {}

export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new CheckFailure(message);
}

export interface NamedCheck {
  name: string;
  run(): Promise<void>;
}

/** Runs every check, prints one line each, and returns the failures (all are run either way). */
export async function runChecks(checks: NamedCheck[], print: (line: string) => void): Promise<string[]> {
  const failures: string[] = [];
  for (const { name, run } of checks) {
    try {
      await run();
      print(`  ok    ${name}`);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      failures.push(`${name}: ${message}`);
      print(`  FAIL  ${name}: ${message}`);
    }
  }
  return failures;
}

function html(reply: Reply) {
  return parse(reply.text);
}

function expectStatus(reply: Reply, status: number): void {
  check(reply.status === status, `status ${reply.status}, expected ${status}`);
}

function expectSecurityHeaders(reply: Reply): void {
  const csp = reply.headers.get("content-security-policy") ?? "";
  check(csp.includes("frame-ancestors 'self'"), `content-security-policy without frame-ancestors 'self': ${csp || "(none)"}`);
  check(reply.headers.get("x-frame-options") === "SAMEORIGIN", `x-frame-options is ${reply.headers.get("x-frame-options")}`);
  check(reply.headers.get("x-content-type-options") === "nosniff", `x-content-type-options is ${reply.headers.get("x-content-type-options")}`);
}

/** The site's routes as tests/http expects them, asked through `lb`. */
export function routeChecks(lb: HttpClient): NamedCheck[] {
  return [
    {
      name: "/zipcode: 200, the headline and the ZIP form, security headers",
      async run() {
        const reply = await lb.request("/zipcode?sid=a1");
        expectStatus(reply, 200);
        check(reply.headers.get("content-type") === "text/html; charset=utf-8", `content-type ${reply.headers.get("content-type")}`);
        const doc = html(reply);
        check(doc.querySelector("h1")?.text === "Compare Free Car Insurance Quotes", `h1 is ${doc.querySelector("h1")?.text}`);
        check(doc.querySelector("form.zip-form button[type=submit]")?.text.includes("Get Your Quote"), "no Get Your Quote button");
        expectSecurityHeaders(reply);
      },
    },
    {
      name: "/?zip=90210&sid=a1&tid=b2: 200, frames /rapidfire.html with the campaign",
      async run() {
        const reply = await lb.request("/?zip=90210&sid=a1&tid=b2");
        expectStatus(reply, 200);
        const src = html(reply).querySelector("iframe")?.getAttribute("src");
        // The visit id minted for this view rides along (docs/analytics.md).
        check(/^\/rapidfire\.html\?zip=90210&sid=a1&tid=b2&vid=[0-9a-f-]{36}$/.test(src ?? ""), `iframe src is ${src}`);
      },
    },
    {
      name: "/rapidfire.html: 200, the quote form's page and script, framable by the site only",
      async run() {
        const reply = await lb.request("/rapidfire.html?zip=90210");
        expectStatus(reply, 200);
        const doc = html(reply);
        check(/rapidfire/i.test(doc.querySelector("title")?.text ?? ""), `title is ${doc.querySelector("title")?.text}`);
        check(doc.querySelector("#rf-app") !== null, "no #rf-app, where the form's steps go");
        expectSecurityHeaders(reply);
        const src = doc.querySelector("script[src]")?.getAttribute("src");
        check(src, "no script");
        expectStatus(await lb.request(src), 200);
      },
    },
    {
      name: "/privacy-policy: 200, with #california-rights and #cookies",
      async run() {
        const reply = await lb.request("/privacy-policy");
        expectStatus(reply, 200);
        const doc = html(reply);
        check(doc.getElementById("california-rights") !== null, "no #california-rights");
        check(doc.getElementById("cookies") !== null, "no #cookies");
      },
    },
    {
      name: "/terms-of-use: 200",
      async run() {
        const reply = await lb.request("/terms-of-use");
        expectStatus(reply, 200);
        check(html(reply).querySelector("h1")?.text === "Terms of Use", `h1 is ${html(reply).querySelector("h1")?.text}`);
      },
    },
    {
      name: "an unknown path: 404, Oops! Page not found, security headers",
      async run() {
        const reply = await lb.request("/no/such/page");
        expectStatus(reply, 404);
        check(reply.text.includes("Oops! Page not found"), "no not-found text");
        expectSecurityHeaders(reply);
      },
    },
    {
      name: "/go with a valid ZIP: 303 to /?zip=90210&sid=a1&tid=b2&vid=…",
      async run() {
        const reply = await lb.request("/go?zip=90210&sid=a1&tid=b2");
        expectStatus(reply, 303);
        check(/^\/\?zip=90210&sid=a1&tid=b2&vid=[0-9a-f-]{36}$/.test(reply.headers.get("location") ?? ""), `location is ${reply.headers.get("location")}`);
      },
    },
    {
      name: "/go with a bad ZIP: 303 back to /zipcode with the error flag",
      async run() {
        const reply = await lb.request("/go?zip=abc");
        expectStatus(reply, 303);
        check(/^\/zipcode\?vid=[0-9a-f-]{36}&error=invalid-zip$/.test(reply.headers.get("location") ?? ""), `location is ${reply.headers.get("location")}`);
      },
    },
    {
      name: "hashed assets: immutable for a year, compressed by the app through the balancer",
      async run() {
        const page = await lb.request("/zipcode");
        // The entry the page's inline loader imports once it has painted (build/hydrate-after-paint.ts).
        const src = scanHtml(page.text).scripts.find((script) => script.startsWith("/assets/"));
        check(src, "no /assets/ script on /zipcode");
        const reply = await lb.request(src, { headers: { "accept-encoding": "gzip" } });
        expectStatus(reply, 200);
        check(reply.headers.get("cache-control") === "public, max-age=31536000, immutable", `cache-control ${reply.headers.get("cache-control")}`);
        check(reply.headers.get("content-encoding") === "gzip", `content-encoding ${reply.headers.get("content-encoding")}`);
      },
    },
    {
      name: "/healthz and /readyz: 200",
      async run() {
        const health = await lb.request("/healthz");
        expectStatus(health, 200);
        check(JSON.parse(health.text).status === "ok", `/healthz says ${health.text}`);
        const ready = await lb.request("/readyz");
        expectStatus(ready, 200);
        check(JSON.parse(ready.text).status === "ready", `/readyz says ${ready.text}`);
      },
    },
    {
      name: "request ids: the visitor's is kept, else (none, or not an id) the balancer makes one",
      async run() {
        const own = await lb.request("/robots.txt");
        check(own.requestId === lb.sentIds.at(-1), `sent ${lb.sentIds.at(-1)}, got back ${own.requestId}`);
        for (const headers of [{}, { "x-request-id": "not an id!" }] as Array<Record<string, string>>) {
          const made = await lb.request("/robots.txt", { anonymous: true, headers });
          check(/^[0-9a-f]{32}$/.test(made.requestId), `expected nginx's 32-hex $request_id, got ${made.requestId}`);
        }
      },
    },
  ];
}

export interface PrivacySubmission {
  reference: string;
  submissionId: string;
  /** Request ids of the session request (token issued) and of the submission (token checked). */
  sessionRequestId: string;
  submitRequestId: string;
}

/** A privacy request as the page's script sends it: a CSRF session, then the JSON submission. */
export async function submitPrivacyRequest(
  client: HttpClient,
  options: { submissionId?: string; betweenRequests?: () => Promise<void> } = {},
): Promise<{ status: number; body: Record<string, unknown>; submission: PrivacySubmission }> {
  const submissionId = options.submissionId ?? randomUUID();
  const session = await client.request("/api/privacy-requests/session");
  check(session.status === 200, `session: status ${session.status}`);
  const { csrfToken } = JSON.parse(session.text) as { csrfToken?: unknown };
  check(typeof csrfToken === "string", "session: no csrfToken");
  const cookie = session.headers
    .getSetCookie()
    .map((line) => line.split(";")[0]!)
    .find((pair) => pair.startsWith("qr_csrf="));
  check(cookie, "session: no qr_csrf cookie");
  await options.betweenRequests?.();
  const reply = await client.request("/api/privacy-requests", {
    method: "POST",
    headers: { "content-type": "application/json", "x-csrf-token": csrfToken, cookie },
    body: JSON.stringify({ submissionId, requestType: "access", email: "someone@example.com" }),
  });
  const body = JSON.parse(reply.text) as Record<string, unknown>;
  return {
    status: reply.status,
    body,
    submission: { reference: String(body.reference ?? ""), submissionId, sessionRequestId: session.requestId, submitRequestId: reply.requestId },
  };
}
