/**
 * A phone-sized screen (375×740): the quote form frame fills the screen below the header, and
 * no page scrolls sideways.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright";
import { startHarness, type Harness } from "./helpers";

const PHONE = { width: 375, height: 740 };

let harness: Harness;
let context: BrowserContext;

beforeAll(async () => {
  harness = await startHarness();
  context = await harness.newContext({ viewport: PHONE, deviceScaleFactor: 2, hasTouch: true });
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

describe("on a 375×740 phone screen", () => {
  it("lets the quote form frame fill the screen between the header and the legal links", async () => {
    const page = await open("/?zip=90210&sid=a1&tid=b2");
    const frame = page.locator("iframe.quote-frame");
    await page.frameLocator("iframe.quote-frame").locator(".rf-place").waitFor();
    const frameBox = await frame.boundingBox();
    const headerBox = await page.locator("header.site-header").boundingBox();
    expect(frameBox).not.toBeNull();
    expect(headerBox).not.toBeNull();
    const viewportHeight = await page.evaluate(() => window.innerHeight);
    expect(viewportHeight).toBe(PHONE.height);
    // Starts where the header ends, ends where the legal links start, which end at the bottom of
    // the screen; spans the full width.
    const footerBox = await page.locator("footer.quote-footer").boundingBox();
    expect(footerBox).not.toBeNull();
    expect(Math.abs(frameBox!.y - (headerBox!.y + headerBox!.height))).toBeLessThanOrEqual(2);
    expect(Math.abs(frameBox!.y + frameBox!.height - footerBox!.y)).toBeLessThanOrEqual(2);
    expect(Math.abs(footerBox!.y + footerBox!.height - viewportHeight)).toBeLessThanOrEqual(2);
    expect(frameBox!.height).toBeGreaterThan(450);
    for (const link of await page.locator("footer.quote-footer a").all()) await expect(link.isVisible()).resolves.toBe(true);
    expect(frameBox!.width).toBe(PHONE.width);
    // The page itself does not scroll: the form scrolls inside its frame.
    const scroll = await page.evaluate(() => ({
      scrollHeight: document.documentElement.scrollHeight,
      clientHeight: document.documentElement.clientHeight,
    }));
    expect(scroll.scrollHeight).toBeLessThanOrEqual(scroll.clientHeight);
    await page.close();
  });

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
