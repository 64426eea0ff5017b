import { beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { parse } from "node-html-parser";
import { createTestApp, type TestApp } from "../support/app";
import { scanHtml } from "../../tools/js-weight";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});

function directives(csp: string | undefined): Map<string, string[]> {
  return new Map(
    (csp ?? "")
      .split(";")
      .map((part) => part.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name, ...values]) => [name!, values]),
  );
}

function nonceFrom(csp: string | undefined): string {
  const match = /'nonce-([^']+)'/.exec(directives(csp).get("script-src")!.join(" "));
  if (!match) throw new Error(`no nonce in ${csp}`);
  return match[1]!;
}

describe("Content-Security-Policy", () => {
  it("allows scripts only from this site and this response's nonce: no unsafe-inline, no unsafe-eval", async () => {
    const response = await request(t.app).get("/zipcode");
    const csp = directives(response.headers["content-security-policy"]);
    const scriptSrc = csp.get("script-src")!;
    expect(scriptSrc).toContain("'self'");
    expect(scriptSrc.some((value) => value.startsWith("'nonce-"))).toBe(true);
    expect(scriptSrc).not.toContain("'unsafe-inline'");
    expect(scriptSrc).not.toContain("'unsafe-eval'");
    expect(csp.get("script-src-attr")).toEqual(["'none'"]);
    expect(csp.get("object-src")).toEqual(["'none'"]);
    expect(csp.get("base-uri")).toEqual(["'self'"]);
    expect(csp.get("frame-src")).toEqual(["'self'"]);
    expect(csp.get("frame-ancestors")).toEqual(["'self'"]);
    expect(csp.get("connect-src")).toEqual(["'self'"]);
  });

  it("puts the nonce on every script the server emits (Vite's tags, React's, the router's hydration data)", async () => {
    const response = await request(t.app).get("/zipcode?sid=a1");
    const nonce = nonceFrom(response.headers["content-security-policy"]);
    const doc = parse(response.text);
    const scripts = doc.querySelectorAll("script");
    expect(scripts.length).toBeGreaterThanOrEqual(2);
    for (const script of scripts) expect(script.getAttribute("nonce")).toBe(nonce);
    expect(scripts.some((script) => script.text.includes("__staticRouterHydrationData"))).toBe(true);
    // Vite's entry, imported by the inline loader once the page has painted (build/hydrate-after-paint.ts).
    expect(scripts.some((script) => /import\("\/assets\/[^"]+\.js"\)/.test(script.text))).toBe(true);
    expect(response.text).not.toContain("__CSP_NONCE__");
  });

  it("uses a fresh nonce of at least 128 bits for every response", async () => {
    const nonces = new Set<string>();
    for (let index = 0; index < 20; index += 1) {
      const response = await request(t.app).get(index % 2 ? "/zipcode" : "/nope");
      const nonce = nonceFrom(response.headers["content-security-policy"]);
      expect(Buffer.from(nonce, "base64").length).toBeGreaterThanOrEqual(16);
      nonces.add(nonce);
    }
    expect(nonces.size).toBe(20);
  });

  it("does not expose the nonce in the router's hydration data", async () => {
    const response = await request(t.app).get("/zipcode");
    const nonce = nonceFrom(response.headers["content-security-policy"]);
    const data = parse(response.text).querySelectorAll("script").find((script) => script.text.includes("__staticRouterHydrationData"));
    expect(data?.text).not.toContain(nonce);
  });
});

describe("other security headers", () => {
  it.each(["/zipcode", "/nope", "/rapidfire.html", "/robots.txt", "/go?zip=12345", "/healthz"])("are on %s", async (path) => {
    const response = await request(t.app).get(path);
    expect(response.headers["x-frame-options"]).toBe("SAMEORIGIN");
    expect(response.headers["strict-transport-security"]).toMatch(/max-age=\d{8,}; includeSubDomains/);
    expect(response.headers["x-content-type-options"]).toBe("nosniff");
    expect(response.headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
    expect(response.headers["content-security-policy"]).toContain("frame-ancestors 'self'");
    expect(response.headers["x-powered-by"]).toBeUndefined();
  });
});

describe("caching and compression", () => {
  it("serves hashed assets as immutable for a year, compressed", async () => {
    const html = await request(t.app).get("/zipcode");
    const [src] = scanHtml(html.text).scripts;
    expect(src).toMatch(/^\/assets\//);
    const asset = await request(t.app).get(src!).set("Accept-Encoding", "gzip");
    expect(asset.status).toBe(200);
    expect(asset.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(asset.headers["content-encoding"]).toBe("gzip");
  });

  it("does not let browsers reuse HTML without asking, and compresses it", async () => {
    const response = await request(t.app).get("/zipcode").set("Accept-Encoding", "gzip");
    expect(response.headers["cache-control"]).toBe("no-cache");
    expect(response.headers["content-encoding"]).toBe("gzip");
    expect((await request(t.app).get("/rapidfire.html")).headers["cache-control"]).toBe("no-cache");
  });

  it("caches other public files briefly", async () => {
    const response = await request(t.app).get("/robots.txt");
    expect(response.headers["cache-control"]).toBe("public, max-age=300");
  });
});

describe("the security header set (helmet's, computed once at start-up)", () => {
  const SECURITY_HEADERS = [
    "content-security-policy",
    "cross-origin-opener-policy",
    "cross-origin-resource-policy",
    "origin-agent-cluster",
    "referrer-policy",
    "strict-transport-security",
    "x-content-type-options",
    "x-dns-prefetch-control",
    "x-download-options",
    "x-frame-options",
    "x-permitted-cross-domain-policies",
    "x-xss-protection",
  ];
  /**
   * A response's security headers, its script sources (the nonce, or a page's script hashes once
   * it is served as one text for everyone: fixed-pages.test.ts) replaced so responses compare equal.
   */
  const headersOf = (response: request.Response) =>
    Object.fromEntries(SECURITY_HEADERS.map((name) => [name, String(response.headers[name]).replace(/( '(nonce|sha256)-[^']+')+/, " 'SCRIPTS'")]));

  it("is on every kind of answer, identical but for the nonce: rendered and cached pages, 404, files, probes, the API, 405", async () => {
    const answers = [
      await request(t.app).get("/?sid=hdr1"),
      await request(t.app).get("/?sid=hdr2"), // from the cache
      await request(t.app).get("/no-such-page-for-headers"),
      await request(t.app).get("/robots.txt"),
      await request(t.app).get("/healthz"),
      await request(t.app).get("/api/no-such-endpoint"),
      await request(t.app).delete("/"),
    ];
    const [first, ...others] = answers.map(headersOf);
    for (const name of SECURITY_HEADERS) expect(first![name], name).not.toBe("undefined");
    for (const other of others) expect(other).toEqual(first);
    expect(first!["x-frame-options"]).toBe("SAMEORIGIN");
    expect(first!["strict-transport-security"]).toBe("max-age=31536000; includeSubDomains");
    expect(first!["cross-origin-opener-policy"]).toBe("same-origin");
  });

  it("leaves Cross-Origin-Opener-Policy off the open pages only (landing, privacy policy, terms), the rest of the set unchanged", async () => {
    const isolated = headersOf(await request(t.app).get("/?sid=coop0"));
    const { "cross-origin-opener-policy": coop, ...rest } = isolated;
    expect(coop).toBe("same-origin");
    for (const open of ["/zipcode", "/zipcode?sid=coop1&tid=t1", "/privacy-policy", "/terms-of-use?sid=coop2"]) {
      const response = await request(t.app).get(open);
      expect(response.status, open).toBe(200);
      expect(response.headers["cross-origin-opener-policy"], open).toBeUndefined();
      const { "cross-origin-opener-policy": none, ...others } = headersOf(response);
      expect(none).toBe("undefined");
      expect(others, open).toEqual(rest);
    }
    // Everything else keeps it: the quote page, the request form, a 404, the quote form's frame, files, the API.
    for (const other of ["/", "/do-not-sell", "/zipcode/extra", "/privacy-policy.html", "/rapidfire.html", "/robots.txt", "/api/no-such-endpoint"]) {
      expect((await request(t.app).get(other)).headers["cross-origin-opener-policy"], other).toBe("same-origin");
    }
  });
});
