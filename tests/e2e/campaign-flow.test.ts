/**
 * The lead flow end to end: landing page → /go (303) → quote page → framed quote form, with
 * the campaign ids (sid, tid) carried the whole way; with JavaScript on and off.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, Page, Response } from "playwright";
import { startHarness, waitForHydration, type Harness } from "./helpers";

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});

afterAll(async () => {
  await harness?.close();
});

/** Types the ZIP, clicks "Get Your Quote" and returns the /go response and the page's final response. */
async function submitZip(page: Page, zip: string): Promise<{ go: Response; final: Response | null }> {
  await page.locator("#zip").fill(zip);
  const goResponse = page.waitForResponse((response) => new URL(response.url()).pathname === "/go");
  const landed = page.waitForURL((url) => url.pathname === "/");
  await page.getByRole("button", { name: "Get Your Quote" }).click();
  const go = await goResponse;
  await landed;
  await page.waitForLoadState("load");
  const final = await go.request().redirectedTo()?.response() ?? null;
  return { go, final };
}

function quoteFrame(page: Page) {
  return page.locator("iframe.quote-frame");
}

describe("with JavaScript", () => {
  let context: BrowserContext;
  beforeAll(async () => {
    context = await harness.newContext();
  });
  afterAll(async () => {
    await context.close();
  });

  it("keeps sid and tid when the ZIP is submitted, through the /go redirect to the quote page and its frame", async () => {
    const page = await context.newPage();
    await page.goto(harness.url("/zipcode?sid=a1&tid=b2"));
    await waitForHydration(page, "#zip");
    const { go, final } = await submitZip(page, "90210");

    expect(new URL(go.url()).search).toBe("?zip=90210&sid=a1&tid=b2");
    expect(go.status()).toBe(303);
    expect(await go.headerValue("location")).toBe("/?zip=90210&sid=a1&tid=b2");
    expect(final?.status()).toBe(200);
    expect(page.url()).toBe(harness.url("/?zip=90210&sid=a1&tid=b2"));

    await expect(quoteFrame(page).getAttribute("src")).resolves.toBe("/rapidfire.html?zip=90210&sid=a1&tid=b2");
    const framed = page.frameLocator("iframe.quote-frame");
    await framed.locator(".rf-place").filter({ hasText: "Beverly Hills, CA 90210" }).waitFor();
    await expect(framed.locator("#rf-zip").inputValue()).resolves.toBe("90210");
    await page.close();
  });

  it("adds no sid or tid when the address had none", async () => {
    const page = await context.newPage();
    await page.goto(harness.url("/zipcode"));
    await waitForHydration(page, "#zip");
    await expect(page.locator('form input[type="hidden"]').count()).resolves.toBe(0);
    const { go } = await submitZip(page, "90210");

    expect(await go.headerValue("location")).toBe("/?zip=90210");
    expect(page.url()).toBe(harness.url("/?zip=90210"));
    await expect(quoteFrame(page).getAttribute("src")).resolves.toBe("/rapidfire.html?zip=90210");
    const framed = page.frameLocator("iframe.quote-frame");
    await framed.locator(".rf-place").filter({ hasText: "Beverly Hills, CA 90210" }).waitFor();
    await page.close();
  });
});

describe("without JavaScript", () => {
  let context: BrowserContext;
  beforeAll(async () => {
    context = await harness.newContext({ javaScriptEnabled: false });
  });
  afterAll(async () => {
    await context.close();
  });

  it("submits the server-rendered form to /go and lands on the quote page with zip, sid and tid", async () => {
    const page = await context.newPage();
    await page.goto(harness.url("/zipcode?sid=a1&tid=b2"));
    // Proof that no page script runs: React never hydrates, so it never tags the DOM.
    await expect(page.locator("#zip").evaluate((input) => Object.keys(input))).resolves.toEqual([]);
    const { go } = await submitZip(page, "90210");

    expect(go.status()).toBe(303);
    expect(new URL(go.url()).search).toBe("?zip=90210&sid=a1&tid=b2");
    expect(page.url()).toBe(harness.url("/?zip=90210&sid=a1&tid=b2"));
    // The server-rendered frame already points at the form with the validated values.
    await expect(quoteFrame(page).getAttribute("src")).resolves.toBe("/rapidfire.html?zip=90210&sid=a1&tid=b2");
    await page.close();
  });
});
