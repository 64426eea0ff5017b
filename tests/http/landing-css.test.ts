/**
 * The landing page renders from its own bytes: its stylesheet is inline (build/inline-stylesheet.ts)
 * rather than a render-blocking <link>, its hero picture is inside the HTML (a data URI), and its
 * hydration bundle is fetched at low priority (build/script-priority.ts). Lighthouse mobile measured both (`npm run lighthouse`).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { parse } from "node-html-parser";
import { createTestApp, type TestApp } from "../support/app";
import { projectRoot } from "../../tools/production-server";

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

  it("fetches the hydration bundle at low priority: the server-rendered page works without it", async () => {
    const { doc } = await page("/zipcode?sid=a1&tid=lh5");
    const scripts = doc.querySelectorAll('script[type="module"][src], link[rel="modulepreload"]');
    expect(scripts.length).toBeGreaterThan(0);
    for (const script of scripts) expect(script.getAttribute("fetchpriority")).toBe("low");
  });
});
