/**
 * The not-found page is a page of the site (issue 42, item 4): on a 390×664 phone with touch, an
 * unknown address shows the spec's "404", "Oops! Page not found" and "Return to Home" (to `/`)
 * between the site header (its logo to /zipcode) and the legal footer, with HTTP 404. Every way a
 * 404 is answered gives that page: the React router's catch-all, and the server's fixed page
 * (server/pages/error-page.ts) for a missing file under /assets or a refused consent link.
 * Checked like a visitor meets it: landmarks, one h1, the keyboard's order, axe-core's WCAG 2.1
 * A/AA and best-practice rules (contrast included), and nothing cut off or scrolling sideways.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright";
import { isFullyInViewport, startHarness, waitForHydration, type Harness } from "./helpers";
import { LEGAL_LINKS, paths } from "../../shared/routes";
import { site } from "../../shared/site";

const PHONE = { width: 390, height: 664 };

/** axe-core's browser build, evaluated through the debugging protocol (which no CSP stops). */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** Each way the server answers a 404 with a page, and an address that reaches it. */
const NOT_FOUND = [
  ["the router's catch-all", "/no/such/page?sid=a1"],
  ["the fixed page, for a missing file under /assets", "/assets/no-such-file-123.js"],
  ["the fixed page, for a refused consent link", "/consent/not-a-certificate"],
] as const;

let harness: Harness;
let phone: BrowserContext;

beforeAll(async () => {
  harness = await startHarness();
  phone = await harness.newContext({ viewport: PHONE, deviceScaleFactor: 3, isMobile: true, hasTouch: true });
});

afterAll(async () => {
  await harness?.close();
});

async function open(path: string): Promise<{ page: Page; status: number | undefined }> {
  const page = await phone.newPage();
  const response = await page.goto(harness.url(path));
  return { page, status: response?.status() };
}

/** axe's WCAG 2.1 A and AA rules and its best practices (landmarks, one h1) on the page: each violation as "rule: target". */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: { id: string; nodes: { target: unknown[] }[] }[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] } });
    return result.violations.flatMap((violation) => violation.nodes.map((node) => `${violation.id}: ${node.target.join(" ")}`));
  });
}

/** Where the page's parts are on the screen, rounded to the CSS pixel. */
function layoutOf(page: Page) {
  return page.evaluate(() => {
    const box = (selector: string) => {
      const rect = document.querySelector(selector)?.getBoundingClientRect();
      return rect ? [rect.left, rect.top, rect.width, rect.height].map(Math.round) : null;
    };
    return {
      header: box("header"),
      logo: box("header a"),
      heading: box("h1"),
      message: box("main p"),
      home: box("main a"),
      footer: box("footer"),
    };
  });
}

describe.each(NOT_FOUND)("an unknown address on a 390×664 phone with touch: %s", (_way, path) => {
  it("answers 404 with the site's header, the spec's words and link, and the legal footer, in landmarks", async () => {
    const { page, status } = await open(path);
    expect(status).toBe(404);
    const banner = page.getByRole("banner");
    await expect(banner.getByRole("link", { name: `${site.productName} home` }).getAttribute("href")).resolves.toBe(paths.landing);
    const main = page.getByRole("main");
    await expect(page.getByRole("heading", { level: 1 }).allTextContents()).resolves.toEqual(["404"]);
    await expect(main.getByText("Oops! Page not found", { exact: true }).isVisible()).resolves.toBe(true);
    await expect(main.getByRole("link", { name: "Return to Home", exact: true }).getAttribute("href")).resolves.toBe(paths.quote);
    const legal = page.getByRole("contentinfo").getByRole("navigation", { name: "Legal" });
    await expect(legal.getByRole("link").evaluateAll((links) => links.map((link) => [link.getAttribute("href"), link.textContent]))).resolves.toEqual(
      LEGAL_LINKS.map((link) => [link.href, link.text]),
    );
    await expect(page.getByRole("contentinfo").textContent()).resolves.toContain("Activity on this site may be monitored or recorded.");
    await expect(page.title()).resolves.toBe(`Page not found | ${site.productName}`);
    await expect(page.locator('meta[name="robots"]').getAttribute("content")).resolves.toBe("noindex");
    await page.close();
  });

  it("shows the heading, the message and the way home on the first screen, nothing scrolling sideways", async () => {
    const { page } = await open(path);
    for (const selector of ["header a", "h1", "main p", "main a"]) expect(await isFullyInViewport(page, selector), selector).toBe(true);
    const width = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    expect(width.scroll).toBeLessThanOrEqual(width.client);
    // A thumb's target: at least 44 CSS px high.
    const home = await page.getByRole("link", { name: "Return to Home", exact: true }).boundingBox();
    expect(home?.height ?? 0).toBeGreaterThanOrEqual(44);
    await page.close();
  });

  it("passes axe's WCAG 2.1 A/AA checks (contrast included) and its landmark and heading best practices", async () => {
    const { page } = await open(path);
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  it("takes the keyboard from the logo to Return to Home, then through the footer's links", async () => {
    const { page } = await open(path);
    if (path.startsWith("/no/")) await waitForHydration(page, "main a");
    const order: string[] = [];
    for (let step = 0; step < 2 + LEGAL_LINKS.length; step += 1) {
      await page.keyboard.press("Tab");
      order.push(await page.evaluate(() => `${document.activeElement?.closest("header, main, footer")?.tagName.toLowerCase() ?? "?"} ${document.activeElement?.getAttribute("href") ?? ""}`));
    }
    expect(order).toEqual([`header ${paths.landing}`, `main ${paths.quote}`, ...LEGAL_LINKS.map((link) => `footer ${link.href}`)]);
    await page.close();
  });

  it("leads home with a tap on Return to Home, and to the landing page with a tap on the logo", async () => {
    const { page } = await open(path);
    if (path.startsWith("/no/")) await waitForHydration(page, "main a");
    await page.getByRole("link", { name: "Return to Home", exact: true }).tap();
    await page.waitForURL(harness.url(paths.quote));
    await page.locator("iframe.quote-frame").waitFor();
    await page.goto(harness.url(path));
    if (path.startsWith("/no/")) await waitForHydration(page, "header a");
    await page.getByRole("banner").getByRole("link", { name: `${site.productName} home` }).tap();
    await page.waitForURL(harness.url(paths.landing));
    await page.getByRole("heading", { level: 1, name: "Compare Free Car Insurance Quotes" }).waitFor();
    await page.close();
  });
});

describe("every 404 is the same page", () => {
  it("lays the fixed 404 out exactly as the router's: header, heading, message, link and footer in the same places", async () => {
    const rendered = await open("/no/such/page");
    const expected = await layoutOf(rendered.page);
    expect(expected.header).not.toBeNull();
    expect(expected.footer).not.toBeNull();
    for (const [, path] of NOT_FOUND.slice(1)) {
      const fixed = await open(path);
      expect(await layoutOf(fixed.page), path).toEqual(expected);
      await fixed.page.close();
    }
    await rendered.page.close();
  });
});
