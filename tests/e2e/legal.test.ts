/**
 * The legal pages in a real Chromium: clean hydration of the lazy routes (no errors, no
 * replaced markup), the table of contents, anchors from the address bar and from the landing
 * page's footer, the tables on a phone, and client-side navigation that loads the lazy chunk.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright";
import {
  collectProblems,
  expectNoProblems,
  hasWindowMarker,
  isFullyInViewport,
  setWindowMarker,
  startHarness,
  waitForHydration,
  type Harness,
} from "./helpers";

let harness: Harness;
let desktop: BrowserContext;
let phone: BrowserContext;

const PHONE = { width: 375, height: 740 };
const PRIVACY_TITLE = "Auto Insurance Quotes Privacy Policy";

beforeAll(async () => {
  harness = await startHarness();
  desktop = await harness.newContext({ viewport: { width: 1280, height: 800 } });
  phone = await harness.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
});

afterAll(async () => {
  await harness?.close();
});

const REMOVED_KEY = "__e2eRemovedContent";

/**
 * Records every element of the page's content that is removed from the document from the very
 * start. Hydration keeps the server's nodes; a mismatch makes React replace them (the "flash").
 */
async function recordRemovedContent(context: BrowserContext): Promise<void> {
  await context.addInitScript((key: string) => {
    const removed: string[] = [];
    (window as unknown as Record<string, string[]>)[key] = removed;
    new MutationObserver((records) => {
      for (const record of records) {
        for (const node of record.removedNodes) {
          if (node instanceof Element && /^(MAIN|H1|H2|H3|NAV|TABLE|P|DIV|HEADER|FOOTER)$/.test(node.tagName)) {
            removed.push(`${node.tagName}${node.id ? `#${node.id}` : ""}.${node.className}`);
          }
        }
      }
    }).observe(document, { childList: true, subtree: true });
  }, REMOVED_KEY);
}

async function removedContent(page: Page): Promise<string[]> {
  return page.evaluate((key: string) => (window as unknown as Record<string, string[]>)[key] ?? [], REMOVED_KEY);
}


/** JavaScript files the page requested, in order. */
function trackScripts(page: Page): string[] {
  const scripts: string[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.pathname.endsWith(".js")) scripts.push(url.pathname);
  });
  return scripts;
}

function tocLinks(page: Page) {
  return page.getByRole("navigation", { name: "On this page" }).getByRole("link");
}

describe("hydration of the lazy legal routes", () => {
  it.each(["/privacy-policy", "/terms-of-use"])("%s hydrates without errors or warnings and keeps the server's markup", async (path) => {
    const context = await harness.newContext();
    await recordRemovedContent(context);
    const page = await context.newPage();
    const problems = await collectProblems(context, page);
    const response = await page.goto(harness.url(path));
    expect(response?.status()).toBe(200);
    await waitForHydration(page, "main");
    await waitForHydration(page, ".legal-body");
    // Give React a moment to report a late mismatch, if there were one.
    await page.waitForTimeout(300);
    expect(await removedContent(page), "elements React replaced instead of hydrating").toEqual([]);
    await expectNoProblems(page, problems);
    await context.close();
  });
});

describe("the table of contents", () => {
  it("scrolls to every section of the privacy policy", async () => {
    const page = await desktop.newPage();
    await page.goto(harness.url("/privacy-policy"));
    await waitForHydration(page, "main");
    const links = tocLinks(page);
    const count = await links.count();
    expect(count).toBe(18);
    for (let index = 0; index < count; index += 1) {
      const link = links.nth(index);
      const href = (await link.getAttribute("href"))!;
      expect(href).toMatch(/^#[a-z][a-z0-9-]*$/);
      await link.click();
      await page.waitForURL(harness.url(`/privacy-policy${href}`));
      await expect.poll(() => isFullyInViewport(page, href), { timeout: 3_000, message: `${href} in view` }).toBe(true);
    }
    await page.close();
  });

  it("scrolls to the sections of the terms of use on a phone", async () => {
    const page = await phone.newPage();
    await page.goto(harness.url("/terms-of-use"));
    await waitForHydration(page, "main");
    for (const name of ["14. Limitation of Liability", "16. Binding Arbitration and Class-Action Waiver", "20. Contact Us"]) {
      const link = tocLinks(page).filter({ hasText: name });
      const href = (await link.getAttribute("href"))!;
      await link.click();
      await expect.poll(() => isFullyInViewport(page, href), { timeout: 3_000, message: `${href} in view` }).toBe(true);
      await expect.poll(() => page.locator(href).textContent(), { timeout: 5_000 }).toBe(name);
    }
    await page.close();
  });

  it("works from the keyboard", async () => {
    const page = await desktop.newPage();
    await page.goto(harness.url("/privacy-policy"));
    await waitForHydration(page, "main");
    const first = tocLinks(page).first();
    await first.focus();
    await page.keyboard.press("Tab");
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe("2. Changes to This Policy");
    await tocLinks(page).filter({ hasText: "16. California Privacy Rights" }).focus();
    await page.keyboard.press("Enter");
    await page.waitForURL(harness.url("/privacy-policy#california-rights"));
    await expect.poll(() => isFullyInViewport(page, "#california-rights"), { timeout: 3_000 }).toBe(true);
    await page.close();
  });
});

describe("anchors", () => {
  for (const [name, context] of [
    ["a phone", () => phone],
    ["a desktop", () => desktop],
  ] as const) {
    it.each(["#california-rights", "#cookies"])(`opening /privacy-policy%s directly on ${name} shows that section, also after hydration`, async (hash) => {
      const page = await context().newPage();
      await page.goto(harness.url(`/privacy-policy${hash}`));
      await expect.poll(() => isFullyInViewport(page, hash), { timeout: 3_000 }).toBe(true);
      await waitForHydration(page, "main");
      await page.waitForTimeout(200);
      expect(await isFullyInViewport(page, hash)).toBe(true);
      await page.close();
    });
  }

  it.each([
    ["California Privacy Rights", "#california-rights", "16. California Privacy Rights"],
    ["Cookie Policy", "#cookies", "Cookies, Pixels and Similar Technologies"],
  ])("the /zipcode footer's %s link lands on %s (client-side, on a phone)", async (linkName, hash, heading) => {
    const page = await phone.newPage();
    await page.goto(harness.url("/zipcode"));
    await waitForHydration(page, "footer a");
    await setWindowMarker(page);
    await page.getByRole("navigation", { name: "Legal" }).getByRole("link", { name: linkName, exact: true }).click();
    await page.waitForURL(harness.url(`/privacy-policy${hash}`));
    await expect.poll(() => page.locator(hash).textContent(), { timeout: 5_000 }).toBe(heading);
    await expect.poll(() => isFullyInViewport(page, hash), { timeout: 3_000 }).toBe(true);
    expect(await hasWindowMarker(page)).toBe(true);
    await page.close();
  });
});

describe("tables on a phone", () => {
  it("stack into labelled cards at 375 px, without horizontal scrolling", async () => {
    const page = await phone.newPage();
    await page.goto(harness.url("/privacy-policy#categories-collected"));
    const layout = await page.evaluate(() => {
      const table = document.querySelector<HTMLTableElement>('table:has(caption)')!;
      const categories = [...document.querySelectorAll("table")].find((candidate) => candidate.caption?.textContent?.includes("past 12 months"))!;
      const cell = categories.querySelector("tbody td")!;
      return {
        viewport: window.innerWidth,
        pageWidth: document.documentElement.scrollWidth,
        bodyWidth: document.body.scrollWidth,
        widestTable: Math.max(...[...document.querySelectorAll("table")].map((candidate) => candidate.getBoundingClientRect().right)),
        widestCell: Math.max(...[...document.querySelectorAll("table th, table td")].map((candidate) => candidate.getBoundingClientRect().right)),
        cellDisplay: getComputedStyle(cell).display,
        label: cell.getAttribute("data-label"),
        labelContent: getComputedStyle(cell, "::before").content,
        labelHeight: (() => {
          const range = cell.getBoundingClientRect();
          return range.height;
        })(),
        headerHeight: categories.tHead!.getBoundingClientRect().height,
        captionVisible: categories.caption!.getBoundingClientRect().height > 0,
        firstTableHasCaption: Boolean(table.caption),
      };
    });
    expect(layout.pageWidth).toBeLessThanOrEqual(layout.viewport);
    expect(layout.bodyWidth).toBeLessThanOrEqual(layout.viewport);
    expect(layout.widestTable).toBeLessThanOrEqual(layout.viewport);
    expect(layout.widestCell).toBeLessThanOrEqual(layout.viewport);
    expect(layout.cellDisplay).toBe("block");
    expect(layout.label).toBe("Examples");
    expect(layout.labelContent).toContain("Examples");
    expect(layout.headerHeight).toBeLessThanOrEqual(1);
    expect(layout.captionVisible).toBe(true);
    // The same row reads as "Category" on top, then label and value pairs.
    const card = page.locator("table tbody tr", { hasText: "Biometric information" });
    await expect(card.locator("th").textContent()).resolves.toBe("Biometric information");
    await expect(card.locator('td[data-label="Sold or shared"]').textContent()).resolves.toBe("No");
    // Blocks on screen, still a table to assistive technology: Chromium's accessibility tree
    // gives the native elements their table roles (the markup carries no ARIA role; HTML forbids
    // one on a native table's rows and cells).
    await page.evaluate(() => {
      const categories = [...document.querySelectorAll("table")].find((candidate) => candidate.caption?.textContent?.includes("past 12 months"))!;
      categories.setAttribute("data-test-table", "categories");
    });
    const cdp = await page.context().newCDPSession(page);
    const { root } = await cdp.send("DOM.getDocument", { depth: 0 });
    const roleOf = async (selector: string) => {
      const { nodeId } = await cdp.send("DOM.querySelector", { nodeId: root.nodeId, selector });
      const { nodes } = await cdp.send("Accessibility.getPartialAXTree", { nodeId, fetchRelatives: false });
      return nodes[0]?.role?.value;
    };
    const table = '[data-test-table="categories"]';
    await expect(roleOf(table)).resolves.toBe("table");
    await expect(roleOf(`${table} thead th`)).resolves.toBe("columnheader");
    await expect(roleOf(`${table} tbody tr`)).resolves.toBe("row");
    await expect(roleOf(`${table} tbody th`)).resolves.toBe("rowheader");
    await expect(roleOf(`${table} tbody td`)).resolves.toBe("cell");
    await cdp.detach();
    await page.close();
  });

  it("are normal tables on a wide screen", async () => {
    const page = await desktop.newPage();
    await page.goto(harness.url("/privacy-policy#categories-collected"));
    const layout = await page.evaluate(() => {
      const categories = [...document.querySelectorAll("table")].find((candidate) => candidate.caption?.textContent?.includes("past 12 months"))!;
      return {
        display: getComputedStyle(categories).display,
        cellDisplay: getComputedStyle(categories.querySelector("tbody td")!).display,
        headerHeight: categories.tHead!.getBoundingClientRect().height,
        labelContent: getComputedStyle(categories.querySelector("tbody td")!, "::before").content,
        overflow: document.documentElement.scrollWidth - window.innerWidth,
      };
    });
    expect(layout).toMatchObject({ display: "table", cellDisplay: "table-cell", labelContent: "none", overflow: 0 });
    expect(layout.headerHeight).toBeGreaterThan(20);
    await page.close();
  });
});

describe("client-side navigation", () => {
  it("opens the privacy policy from /zipcode without a page load, fetching its chunk only then", async () => {
    const context = await harness.newContext();
    const page = await context.newPage();
    const problems = await collectProblems(context, page);
    const scripts = trackScripts(page);
    await page.goto(harness.url("/zipcode"));
    await waitForHydration(page, "footer a");
    await page.waitForLoadState("networkidle");
    const atLoad = [...scripts];
    await setWindowMarker(page);
    await page.getByRole("navigation", { name: "Legal" }).getByRole("link", { name: "Privacy Policy", exact: true }).click();
    await page.waitForURL(harness.url("/privacy-policy"));
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent(), { timeout: 5_000 }).toBe(PRIVACY_TITLE);
    expect(await hasWindowMarker(page)).toBe(true);
    const fetchedLater = scripts.slice(atLoad.length).filter((script) => !atLoad.includes(script));
    expect(fetchedLater.length, "the legal chunk was fetched on navigation").toBeGreaterThan(0);
    // The page arrived complete and styled: contents, the categories table, the legal stylesheet.
    await expect(tocLinks(page).count()).resolves.toBe(18);
    await expect(page.locator("table caption", { hasText: "past 12 months" }).count()).resolves.toBe(1);
    await expect(page.locator(".legal-toc").evaluate((nav) => getComputedStyle(nav).backgroundColor)).resolves.toBe("rgb(243, 247, 251)");
    await expect.poll(() => page.evaluate(() => window.scrollY), { timeout: 3_000 }).toBe(0);
    await expectNoProblems(page, problems);
    await context.close();
  });

  it("follows links inside the legal text client-side, to pages and to sections", async () => {
    const page = await desktop.newPage();
    await page.goto(harness.url("/privacy-policy"));
    await waitForHydration(page, ".legal-body");
    await setWindowMarker(page);
    await page.locator(".legal-body").getByRole("link", { name: "Terms of Use", exact: true }).first().click();
    await page.waitForURL(harness.url("/terms-of-use"));
    // The address changes as the navigation commits; React paints the new page in a transition.
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent(), { timeout: 5_000 }).toBe("Terms of Use");
    expect(await hasWindowMarker(page)).toBe(true);
    await page.locator(".legal-body").getByRole("link", { name: "Opting Out", exact: true }).click();
    await page.waitForURL(harness.url("/privacy-policy#opting-out"));
    await expect.poll(() => isFullyInViewport(page, "#opting-out"), { timeout: 3_000 }).toBe(true);
    expect(await hasWindowMarker(page)).toBe(true);
    await page.close();
  });
});
