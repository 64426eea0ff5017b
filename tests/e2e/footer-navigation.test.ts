/**
 * The footer's legal links: each navigates client-side to its page or section, and the
 * document title follows the route (titles come from the route handles in client/routes.tsx).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright";
import { hasWindowMarker, isFullyInViewport, setWindowMarker, startHarness, waitForHydration, type Harness } from "./helpers";

let harness: Harness;
let desktop: BrowserContext;
let phone: BrowserContext;

const LANDING_TITLE = "Compare Free Car Insurance Quotes | QuoteRidge";
const PRIVACY_TITLE = "Auto Insurance Quotes Privacy Policy | QuoteRidge";
const TERMS_TITLE = "Terms of Use | QuoteRidge";

beforeAll(async () => {
  harness = await startHarness();
  desktop = await harness.newContext();
  phone = await harness.newContext({ viewport: { width: 375, height: 740 } });
});

afterAll(async () => {
  await harness?.close();
});

async function openLanding(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  await page.goto(harness.url("/zipcode"));
  await waitForHydration(page, "footer a");
  expect(await page.title()).toBe(LANDING_TITLE);
  return page;
}

async function clickFooterLink(page: Page, name: string): Promise<void> {
  await setWindowMarker(page);
  await page.getByRole("navigation", { name: "Legal" }).getByRole("link", { name, exact: true }).click();
}

describe("footer links from the landing page", () => {
  it("opens the privacy policy client-side and retitles the document", async () => {
    const page = await openLanding(desktop);
    await clickFooterLink(page, "Privacy Policy");
    await page.waitForURL(harness.url("/privacy-policy"));
    await expect.poll(() => page.title(), { timeout: 5_000 }).toBe(PRIVACY_TITLE);
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent(), { timeout: 5_000 }).toBe("Auto Insurance Quotes Privacy Policy");
    expect(await hasWindowMarker(page)).toBe(true);
    await page.close();
  });

  it("opens the terms of use client-side and retitles the document", async () => {
    const page = await openLanding(desktop);
    await clickFooterLink(page, "Terms of Use");
    await page.waitForURL(harness.url("/terms-of-use"));
    await expect.poll(() => page.title(), { timeout: 5_000 }).toBe(TERMS_TITLE);
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent(), { timeout: 5_000 }).toBe("Terms of Use");
    expect(await hasWindowMarker(page)).toBe(true);
    await page.close();
  });

  it("opens the California privacy rights section of the privacy policy", async () => {
    const page = await openLanding(desktop);
    await clickFooterLink(page, "California Privacy Rights");
    await page.waitForURL(harness.url("/privacy-policy#california-rights"));
    await page.locator("#california-rights").waitFor();
    await expect.poll(() => page.locator("#california-rights").textContent(), { timeout: 5_000 }).toContain("California Privacy Rights");
    await expect.poll(() => page.title(), { timeout: 5_000 }).toBe(PRIVACY_TITLE);
    expect(await hasWindowMarker(page)).toBe(true);
    await page.close();
  });

  it("opens the cookies section of the privacy policy", async () => {
    const page = await openLanding(desktop);
    await clickFooterLink(page, "Cookie Policy");
    await page.waitForURL(harness.url("/privacy-policy#cookies"));
    await page.locator("#cookies").waitFor();
    await expect.poll(() => page.locator("#cookies").textContent(), { timeout: 5_000 }).toContain("Cookies");
    await expect.poll(() => page.title(), { timeout: 5_000 }).toBe(PRIVACY_TITLE);
    expect(await hasWindowMarker(page)).toBe(true);
    await page.close();
  });

  it("gives the landing page its title back after navigating back", async () => {
    const page = await openLanding(desktop);
    await clickFooterLink(page, "Terms of Use");
    await expect.poll(() => page.title(), { timeout: 5_000 }).toBe(TERMS_TITLE);
    await page.goBack();
    await page.waitForURL(harness.url("/zipcode"));
    await expect.poll(() => page.title(), { timeout: 5_000 }).toBe(LANDING_TITLE);
    expect(await hasWindowMarker(page)).toBe(true);
    await page.close();
  });
});

// On a phone the footer is far below the fold, so the visitor has scrolled down to reach it.
// After the click they must see what they asked for: the top of the new page, or the section.
describe("where a footer link leaves the visitor on a phone", () => {
  it("shows the top of the terms of use, not the old scroll position", async () => {
    const page = await openLanding(phone);
    await page.getByRole("navigation", { name: "Legal" }).scrollIntoViewIfNeeded();
    expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(0);
    await clickFooterLink(page, "Terms of Use");
    await page.waitForURL(harness.url("/terms-of-use"));
    await page.getByRole("heading", { level: 1, name: "Terms of Use" }).waitFor();
    await expect.poll(() => page.evaluate(() => window.scrollY), { timeout: 3_000 }).toBe(0);
    await page.close();
  });

  it("scrolls the California privacy rights section into view", async () => {
    const page = await openLanding(phone);
    await page.getByRole("navigation", { name: "Legal" }).scrollIntoViewIfNeeded();
    await clickFooterLink(page, "California Privacy Rights");
    await page.waitForURL(harness.url("/privacy-policy#california-rights"));
    await page.locator("#california-rights").waitFor();
    await expect.poll(() => isFullyInViewport(page, "#california-rights"), { timeout: 3_000 }).toBe(true);
    await page.close();
  });

  it("scrolls the cookies section into view", async () => {
    const page = await openLanding(phone);
    await page.getByRole("navigation", { name: "Legal" }).scrollIntoViewIfNeeded();
    await clickFooterLink(page, "Cookie Policy");
    await page.waitForURL(harness.url("/privacy-policy#cookies"));
    await page.locator("#cookies").waitFor();
    await expect.poll(() => isFullyInViewport(page, "#cookies"), { timeout: 3_000 }).toBe(true);
    await page.close();
  });

  // Control for the two tests above: the same check passes when the browser itself handles the anchor.
  it("shows the California privacy rights section when the address is opened directly", async () => {
    const page = await phone.newPage();
    await page.goto(harness.url("/privacy-policy#california-rights"));
    await expect.poll(() => isFullyInViewport(page, "#california-rights"), { timeout: 3_000 }).toBe(true);
    await page.close();
  });
});
