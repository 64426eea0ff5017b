/**
 * The landing page renders from its own bytes: its stylesheet is inline (build/inline-stylesheet.ts)
 * rather than a render-blocking <link>, its hero picture is inside the HTML (a data URI), and its
 * hydration bundle is requested only once the page has painted (build/hydrate-after-paint.ts).
 * Lighthouse mobile measured them (`npm run lighthouse`); the browser test of the timing is in
 * tests/e2e/hydration.test.ts.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { parse } from "node-html-parser";
import { createTestApp, type TestApp } from "../support/app";
import { projectRoot } from "../../tools/production-server";
import { scanHtml } from "../../tools/js-weight";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});

const assetsDir = path.join(projectRoot, "dist", "client", "assets");
/** The landing CSS as the build wrote it (the entry's stylesheet, not the quote form's). */
function builtLandingCss(): string {
  const file = readdirSync(assetsDir).find((name) => /^index-.*\.css$/.test(name));
  if (!file) throw new Error(`no index-*.css in ${assetsDir}: run \`npm run build\``);
  return readFileSync(path.join(assetsDir, file), "utf8").trim();
}

async function page(url: string) {
  const response = await request(t.app).get(url).set("Accept-Encoding", "identity");
  return { response, doc: parse(response.text) };
}

describe("the landing page's stylesheet", () => {
  it.each(["/zipcode?sid=a1&tid=lh1", "/zipcode", "/privacy-policy?sid=a1&tid=lh2", "/old-offer"])("%s links no stylesheet and carries the landing CSS inline", async (url) => {
    const { response, doc } = await page(url);
    expect(response.status).toBeLessThan(500);
    expect(doc.querySelectorAll('link[rel="stylesheet"]')).toHaveLength(0);
    const styles = doc.querySelectorAll("head style").map((style) => style.textContent);
    expect(styles).toContain(builtLandingCss());
    expect(styles.join("")).toContain(".hero-inner");
  });

  it("is allowed by the page's CSP: inline styles without a nonce, which would disable 'unsafe-inline'", async () => {
    const { response, doc } = await page("/zipcode?sid=a1&tid=lh3");
    const styleSrc = String(response.headers["content-security-policy"]).split(";").map((part) => part.trim()).find((part) => part.startsWith("style-src "));
    expect(styleSrc).toContain("'unsafe-inline'");
    expect(styleSrc).not.toMatch(/'nonce-|'sha256-/);
    expect(doc.querySelector("head style")?.getAttribute("nonce")).toBeUndefined();
  });
});

describe("the landing page's loading order", () => {
  it("carries the hero picture (its largest element) in the HTML as the SVG file's data URI", async () => {
    const { doc } = await page("/zipcode?sid=a1&tid=lh4");
    const src = doc.querySelector("img.hero-image")?.getAttribute("src") ?? "";
    expect(src).toMatch(/^data:image\/svg\+xml,/);
    const svg = decodeURIComponent(src.slice("data:image/svg+xml,".length));
    const file = readFileSync(path.join(projectRoot, "public", "images", "family.svg"), "utf8");
    expect(svg).toBe(file.replace(/\s+/g, " ").trim());
    // The file is still served for anyone who links to it.
    const served = await request(t.app).get("/images/family.svg");
    expect(served.status).toBe(200);
  });

  it("requests the hydration bundle from an inline loader after the page has loaded, with the response's nonce", async () => {
    const response = await request(t.app).get("/zipcode?sid=a1&tid=lh5");
    const doc = parse(response.text);
    // Nothing the parser would fetch while the page loads: no module script, no module preload.
    expect(doc.querySelectorAll('script[src], link[rel="modulepreload"]')).toHaveLength(0);
    const nonce = /'nonce-([^']+)'/.exec(String(response.headers["content-security-policy"]))?.[1];
    const loaders = doc.querySelectorAll("script").filter((script) => script.text.includes("import("));
    expect(loaders).toHaveLength(1);
    expect(loaders[0]!.getAttribute("nonce")).toBe(nonce);
    const code = loaders[0]!.text;
    expect(code).toMatch(/addEventListener\("load"/);
    expect(code).toContain("first-contentful-paint");
    // It loads the build's real entry, which the server serves.
    const entry = /import\("([^"]+)"\)/.exec(code)?.[1] ?? "";
    expect(entry).toMatch(/^\/assets\/index-[\w-]+\.js$/);
    expect(scanHtml(response.text).scripts).toEqual([entry]);
    const served = await request(t.app).get(entry);
    expect(served.status).toBe(200);
    expect(served.headers["content-type"]).toMatch(/javascript/);
  });

  it("ships React Router's production build, without the components the app never renders (build/react-router-production.ts)", async () => {
    const landing = await request(t.app).get("/zipcode");
    const entry = scanHtml(landing.text).scripts[0] ?? "";
    const code = (await request(t.app).get(entry).buffer(true)).text;
    // The router is in it (one of the invariants its production build keeps)...
    expect(code).toContain("may be used only in the context of a <Router> component");
    // ...but not a development-only warning of React Router's, and NavLink's aria-current (the app has no NavLink).
    expect(code).not.toContain("You rendered descendant <Routes>");
    expect(code).not.toContain("aria-current");
  });
});
