/**
 * Phone-sized screens. `/` on a 390×664 phone with touch (a 390 px phone with its browser bars):
 * the header, then the quote form's frame down to the bottom of the screen, nothing fixed or
 * sticky over it, the page itself never scrolling, and the legal links once, at the end of the
 * form (issue 32). On 375×740: the frame is named and sandboxed, and no page scrolls sideways.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright";
import { startHarness, type Harness } from "./helpers";
import { LEGAL_LINKS } from "../../shared/routes";

const PHONE = { width: 375, height: 740 };
const SMALL_PHONE = { width: 390, height: 664 };

let harness: Harness;
let context: BrowserContext;
let touchPhone: BrowserContext;

beforeAll(async () => {
  harness = await startHarness();
  context = await harness.newContext({ viewport: PHONE, deviceScaleFactor: 2, hasTouch: true });
  touchPhone = await harness.newContext({ viewport: SMALL_PHONE, deviceScaleFactor: 3, hasTouch: true, isMobile: true });
});

afterAll(async () => {
  await harness?.close();
});

async function open(path: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(harness.url(path));
  return page;
}

function horizontalOverflow(page: Page) {
  return page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
  }));
}

/** How often each of these texts is the text of a link in the document (any link, anywhere); runs in the page. */
function linkCounts(texts: string[]): Record<string, number> {
  const links = [...document.querySelectorAll("a")].map((link) => link.textContent?.trim());
  return Object.fromEntries(texts.map((text) => [text, links.filter((linkText) => linkText === text).length]));
}

describe("/ on a 390×664 phone with touch", () => {
  it("is the header, then the frame down to the bottom of the screen: the page does not scroll and nothing is fixed over the form", async () => {
    const page = await touchPhone.newPage();
    await page.goto(harness.url("/?zip=90210&sid=a1&tid=b2"));
    await page.frameLocator("iframe.quote-frame").locator(".rf-place").waitFor();
    const layout = await page.evaluate(() => {
      const header = document.querySelector("header.site-header")!.getBoundingClientRect();
      const frame = document.querySelector("iframe.quote-frame")!.getBoundingClientRect();
      const pinned = [...document.querySelectorAll("*")]
        .filter((element) => ["fixed", "sticky"].includes(getComputedStyle(element).position))
        .map((element) => `${element.tagName.toLowerCase()}.${element.className}`);
      return {
        innerHeight: window.innerHeight,
        innerWidth: window.innerWidth,
        scrollHeight: document.scrollingElement!.scrollHeight,
        headerTop: header.top,
        headerBottom: header.bottom,
        headerPosition: getComputedStyle(document.querySelector("header.site-header")!).position,
        frame: { top: frame.top, bottom: frame.bottom, left: frame.left, width: frame.width },
        pinned,
      };
    });
    expect(layout.innerHeight).toBe(SMALL_PHONE.height);
    expect(layout.scrollHeight, "the outer document never scrolls: the form scrolls in its frame").toBeLessThanOrEqual(layout.innerHeight);
    expect(layout.pinned, "nothing fixed or sticky in the page").toEqual([]);
    expect(layout.headerPosition).toBe("static");
    expect(layout.headerTop).toBe(0);
    expect(Math.abs(layout.frame.top - layout.headerBottom)).toBeLessThanOrEqual(1);
    expect(Math.abs(layout.frame.bottom - layout.innerHeight)).toBeLessThanOrEqual(1);
    expect([layout.frame.left, layout.frame.width]).toEqual([0, layout.innerWidth]);
    // The hidden heading names the page for assistive technology.
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Your free car insurance quote");
    await page.close();
  });

  it("shows each legal link once across the page and its frame: at the end of the form", async () => {
    const page = await touchPhone.newPage();
    await page.goto(harness.url("/?zip=90210"));
    const form = page.frameLocator("iframe.quote-frame");
    await form.locator(".rf-place").waitFor();
    const texts = LEGAL_LINKS.map((link) => link.text);
    const none = Object.fromEntries(texts.map((text) => [text, 0]));
    await expect(page.evaluate(linkCounts, texts)).resolves.toEqual(none);
    await expect(page.getByRole("navigation", { name: "Legal" }).count()).resolves.toBe(0);
    // In the frame: one Legal navigation, after the form's content, holding each link once.
    const legal = form.getByRole("navigation", { name: "Legal" });
    await expect(legal.count()).resolves.toBe(1);
    await expect(legal.getByRole("link").allTextContents()).resolves.toEqual(texts);
    const afterTheForm = await legal.evaluate((nav) =>
      [...document.querySelectorAll("main, form")].every((element) => (element.compareDocumentPosition(nav) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0),
    );
    expect(afterTheForm).toBe(true);
    await page.close();
  });
});

describe("on a 375×740 phone screen", () => {
  it("names and sandboxes the quote form frame", async () => {
    const page = await open("/?zip=90210");
    const frame = page.locator("iframe.quote-frame");
    await expect(frame.getAttribute("title")).resolves.toBe("Car insurance quote form");
    await expect(frame.getAttribute("sandbox")).resolves.toBe("allow-scripts allow-same-origin allow-forms allow-popups allow-popups-to-escape-sandbox");
    await expect(page.getByTitle("Car insurance quote form").count()).resolves.toBe(1);
    await page.close();
  });

  for (const path of ["/zipcode", "/?zip=90210", "/privacy-policy", "/terms-of-use"]) {
    it(`does not scroll sideways on ${path}`, async () => {
      const page = await open(path);
      await page.waitForLoadState("load");
      const { scrollWidth, clientWidth } = await horizontalOverflow(page);
      expect(clientWidth).toBe(PHONE.width);
      expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
      await page.close();
    });
  }
});
