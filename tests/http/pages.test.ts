import { beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { parse, type HTMLElement } from "node-html-parser";
import { createTestApp, type TestApp } from "../support/app";
import { carriers, formatPostalAddress, site } from "../../shared/site";
import { LEGAL_LINKS } from "../../shared/routes";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ PUBLIC_BASE_URL: "https://www.example.com" });
});

async function page(path: string) {
  const response = await request(t.app).get(path);
  return { response, doc: parse(response.text) };
}

function attr(element: HTMLElement | null, name: string): string | undefined {
  return element?.getAttribute(name);
}

describe("/zipcode, the landing page", () => {
  it("answers 200 with its own title, description and canonical link", async () => {
    const { response, doc } = await page("/zipcode?sid=a1");
    expect(response.status).toBe(200);
    expect(response.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(doc.querySelector("title")?.text).toBe(`Compare Free Car Insurance Quotes | ${site.productName}`);
    expect(attr(doc.querySelector('meta[name="description"]'), "content")).toMatch(/ZIP code/);
    expect(attr(doc.querySelector('link[rel="canonical"]'), "href")).toBe("https://www.example.com/zipcode");
  });

  it("shows the header logo, the headline and the ZIP form posting to /go by GET", async () => {
    const { doc } = await page("/zipcode");
    expect(attr(doc.querySelector("header a"), "href")).toBe("/zipcode");
    expect(doc.querySelector("header")?.text).toContain(site.productName);
    expect(doc.querySelector("h1")?.text).toBe("Compare Free Car Insurance Quotes");
    const form = doc.querySelector("form.zip-form");
    expect(attr(form, "action")).toBe("/go");
    expect(attr(form, "method")).toBe("get");
    expect(form?.querySelector('button[type="submit"]')?.text).toBe("Get Your Quote →");
  });

  it("renders the ZIP input with native validation only: required, 5 digits, numeric keyboard", async () => {
    const { doc } = await page("/zipcode");
    const input = doc.querySelector("input#zip");
    expect(attr(input, "name")).toBe("zip");
    expect(input?.hasAttribute("required")).toBe(true);
    expect(attr(input, "pattern")).toBe("[0-9]{5}");
    expect(attr(input, "maxlength") ?? attr(input, "maxLength")).toBe("5");
    expect(attr(input, "inputmode") ?? attr(input, "inputMode")).toBe("numeric");
    expect(input?.hasAttribute("title")).toBe(false);
    expect(attr(doc.querySelector('label[for="zip"]'), "for")).toBe("zip");
  });

  it("carries valid sid and tid from the address as hidden inputs", async () => {
    const { doc } = await page("/zipcode?sid=a1&tid=b2");
    expect(attr(doc.querySelector('input[type="hidden"][name="sid"]'), "value")).toBe("a1");
    expect(attr(doc.querySelector('input[type="hidden"][name="tid"]'), "value")).toBe("b2");
  });

  it("adds no campaign inputs without campaign ids, or for invalid ones: only the visit id", async () => {
    const hidden = (doc: Awaited<ReturnType<typeof page>>["doc"]) => doc.querySelectorAll('input[type="hidden"]').map((input) => input.getAttribute("name"));
    expect(hidden((await page("/zipcode")).doc)).toEqual(["vid"]);
    const { doc } = await page("/zipcode?sid=%3Cscript%3E&tid=" + "x".repeat(65));
    expect(hidden(doc)).toEqual(["vid"]);
  });

  it("shows the six carrier wordmarks, each named for assistive technology", async () => {
    const { doc } = await page("/zipcode");
    const logos = doc.querySelectorAll("svg.carrier-logo");
    expect(logos.map((logo) => attr(logo, "aria-label"))).toEqual(carriers.map((carrier) => carrier.name));
    expect(logos.every((logo) => attr(logo, "role") === "img")).toBe(true);
  });

  it("shows the family picture with explicit size and alt text, so nothing shifts", async () => {
    const { doc } = await page("/zipcode");
    const image = doc.querySelector("img.hero-image");
    expect(attr(image, "src")).toMatch(/^data:image\/svg\+xml,/);
    expect(attr(image, "width")).toBe("480");
    expect(attr(image, "height")).toBe("360");
    expect(attr(image, "alt")).toMatch(/family/i);
    const svg = await request(t.app).get("/images/family.svg");
    expect(svg.status).toBe(200);
    expect(svg.headers["content-type"]).toMatch(/image\/svg\+xml/);
  });

  it("shows the three benefit blocks", async () => {
    const { doc } = await page("/zipcode");
    expect(doc.querySelectorAll(".benefit h3").map((heading) => heading.text)).toEqual([
      "Free Quotes",
      "Save up to 50%",
      "Easy 3-Step Process",
    ]);
  });

  it("has a footer with the legal links, the postal address and the monitoring notice", async () => {
    const { doc } = await page("/zipcode");
    const footer = doc.querySelector("footer")!;
    expect(footer.querySelectorAll("a").map((link) => attr(link, "href"))).toEqual([
      "/privacy-policy",
      "/terms-of-use",
      "/privacy-policy#california-rights",
      "/privacy-policy#cookies",
      "/do-not-sell",
      "/do-not-sell?request=revoke_consent",
    ]);
    expect(footer.text).toContain(formatPostalAddress());
    expect(footer.text).toContain("Activity on this site may be monitored or recorded.");
    expect(footer.text).toContain(`© ${new Date().getFullYear()} ${site.productName}`);
  });
});

describe("/, the quote page", () => {
  it("frames the quote form with the validated zip, sid and tid", async () => {
    const { response, doc } = await page("/?zip=90210&sid=a1&tid=b2");
    expect(response.status).toBe(200);
    const frame = doc.querySelector("iframe");
    expect(attr(frame, "src")).toMatch(/^\/rapidfire\.html\?zip=90210&sid=a1&tid=b2&vid=[0-9a-f-]{36}$/);
    expect(attr(frame, "title")).toBe("Car insurance quote form");
    // Scripts, same-origin and forms as specified; popups so the consent text's legal links open
    // in a new tab without losing the form (docs/decisions/006-quote-form.md).
    expect(attr(frame, "sandbox")).toBe("allow-scripts allow-same-origin allow-forms allow-popups allow-popups-to-escape-sandbox");
    expect(doc.querySelector("header")?.text).toContain(site.productName);
  });

  it("passes nothing unvalidated into the frame's address", async () => {
    const { doc } = await page("/?zip=9021&sid=%22%3E%3Cscript%3E&tid=ok");
    expect(attr(doc.querySelector("iframe"), "src")).toMatch(/^\/rapidfire\.html\?tid=ok&vid=[0-9a-f-]{36}$/);
  });

  it("is kept out of search indexes", async () => {
    const { doc } = await page("/?zip=90210");
    expect(attr(doc.querySelector('meta[name="robots"]'), "content")).toBe("noindex");
  });
});

describe("the quote form, rapidfire.html", () => {
  it("is a static page, titled as a rapidfire form, whose only scripts are external files of our own", async () => {
    const response = await request(t.app).get("/rapidfire.html?zip=90210");
    expect(response.status).toBe(200);
    expect(response.headers["content-type"]).toMatch(/text\/html/);
    const doc = parse(response.text);
    expect(doc.querySelector("title")?.text).toMatch(/rapidfire/i);
    expect(doc.querySelector("#rf-app")).not.toBeNull();
    // No nonce placeholder (it is a plain file) and nothing inline for the CSP to refuse.
    expect(response.text).not.toContain("__CSP_NONCE__");
    expect(response.text).not.toMatch(/\sstyle=/);
    const scripts = doc.querySelectorAll("script");
    expect(scripts.length).toBe(1);
    for (const script of scripts) {
      expect(attr(script, "src")).toMatch(/^\/assets\/[\w.-]+\.js$/);
      expect(attr(script, "type")).toBe("module");
      expect(script.text.trim()).toBe("");
    }
    const js = await request(t.app).get(attr(scripts[0]!, "src")!);
    expect(js.status).toBe(200);
    expect(js.headers["cache-control"]).toContain("immutable");
  });

  it("tells visitors without JavaScript how to ask for quotes by phone", async () => {
    const doc = parse((await request(t.app).get("/rapidfire.html")).text);
    expect(doc.querySelector("noscript")?.text).toContain(site.phone);
  });

  it("gets the site's CSP and stays framable by the site only", async () => {
    const response = await request(t.app).get("/rapidfire.html");
    expect(response.headers["content-security-policy"]).toContain("frame-ancestors 'self'");
    expect(response.headers["x-frame-options"]).toBe("SAMEORIGIN");
  });
});

describe("the legal pages", () => {
  it.each([
    ["/privacy-policy", "Auto Insurance Quotes Privacy Policy"],
    ["/terms-of-use", "Terms of Use"],
  ])("%s answers 200, last revised May 24, 2023, with the site header and footer", async (path, heading) => {
    const { response, doc } = await page(path);
    expect(response.status).toBe(200);
    expect(doc.querySelector("h1")?.text).toBe(heading);
    expect(doc.querySelector("main")?.text).toContain("Last revised: May 24, 2023");
    expect(attr(doc.querySelector("header a"), "href")).toBe("/zipcode");
    expect(doc.querySelector("footer")?.text).toContain(site.productName);
    expect(doc.querySelector("main")?.text).toContain(site.contactEmail);
    expect(doc.querySelector("title")?.text).toContain(site.productName);
  });

  it("has the anchors the footer links to", async () => {
    const { doc } = await page("/privacy-policy");
    expect(doc.getElementById("california-rights")).not.toBeNull();
    expect(doc.getElementById("cookies")).not.toBeNull();
  });
});

describe("unknown paths", () => {
  it("render the not-found page with HTTP 404, inside the site's header and legal footer", async () => {
    const { response, doc } = await page("/no/such/page?sid=a1");
    expect(response.status).toBe(404);
    expect(doc.querySelectorAll("h1").map((heading) => heading.text)).toEqual(["404"]);
    expect(attr(doc.querySelector("header a"), "href")).toBe("/zipcode");
    expect(doc.querySelectorAll('footer nav[aria-label="Legal"] a').map((link) => [attr(link, "href"), link.text])).toEqual(LEGAL_LINKS.map((link) => [link.href, link.text]));
    expect(doc.querySelector("footer")?.text).toContain(formatPostalAddress());
    expect(doc.querySelector("main")?.text).toContain("Oops! Page not found");
    const home = doc.querySelectorAll("a").find((link) => link.text === "Return to Home");
    expect(attr(home ?? null, "href")).toBe("/");
    expect(attr(doc.querySelector('meta[name="robots"]'), "content")).toBe("noindex");
    expect(doc.querySelector('link[rel="canonical"]')).toBeNull();
  });

  it("log a not_found event with the path", async () => {
    const response = await request(t.app).get("/missing-page?x=1");
    const line = t.events("not_found").find((entry) => entry.requestId === response.headers["x-request-id"]);
    expect(line).toMatchObject({ event: "not_found", path: "/missing-page", level: "info" });
  });

  it("answer missing files under /assets with the not-found page, logged too", async () => {
    const response = await request(t.app).get("/assets/nope-123.js");
    expect(response.status).toBe(404);
    expect(response.text).toContain("Oops! Page not found");
    expect(t.events("not_found").some((entry) => entry.path === "/assets/nope-123.js")).toBe(true);
  });

  it("get one page however the server answers them: the fixed 404 (a missing file, a refused consent link) is the router's, header and footer included", async () => {
    /** The page's markup, without React's text separators and the router's link marker. */
    const body = (html: string) => /<div class="page">[\s\S]*<\/footer><\/div>/.exec(html.replaceAll("<!-- -->", "").replaceAll(' data-discover="true"', ""))?.[0];
    const head = (html: string) => {
      const doc = parse(html);
      return [doc.querySelector("title")?.text, attr(doc.querySelector('meta[name="description"]'), "content"), attr(doc.querySelector('meta[name="robots"]'), "content")];
    };
    const rendered = await request(t.app).get("/no/such/page");
    expect(body(rendered.text)).toBeDefined();
    for (const path of ["/assets/nope-123.js", "/consent/not-a-certificate"]) {
      const fixed = await request(t.app).get(path);
      expect(fixed.status, path).toBe(404);
      expect(body(fixed.text), path).toBe(body(rendered.text));
      expect(head(fixed.text), path).toEqual(head(rendered.text));
      expect(head(fixed.text), path).toEqual([`Page not found | ${site.productName}`, "The page you were looking for does not exist.", "noindex"]);
    }
  });

  it("never serve the raw SSR template", async () => {
    const response = await request(t.app).get("/index.html");
    expect(response.status).toBe(404);
    expect(response.text).not.toContain("<!--app-html-->");
    expect(response.text).not.toContain("__CSP_NONCE__");
  });
});

describe("HEAD requests", () => {
  it("get the page's status and headers without a body", async () => {
    const ok = await request(t.app).head("/zipcode");
    expect(ok.status).toBe(200);
    expect(ok.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(ok.text ?? "").toBe("");
    expect((await request(t.app).head("/nope")).status).toBe(404);
  });
});

describe("robots.txt", () => {
  it("is served as text and keeps crawlers out of /go", async () => {
    const response = await request(t.app).get("/robots.txt");
    expect(response.status).toBe(200);
    expect(response.headers["content-type"]).toMatch(/text\/plain/);
    expect(response.text).toMatch(/^User-agent: \*$/m);
    expect(response.text).toMatch(/^Disallow: \/go$/m);
  });
});
