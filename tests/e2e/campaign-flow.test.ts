/**
 * The lead flow end to end: landing page → /go (303) → quote page → framed quote form, with
 * the campaign ids (sid, tid) and the visit id the landing page minted (vid) carried the whole
 * way; with JavaScript on and off.
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The visit id in the landing page's HTML as the server sent it (before any script ran). */
async function servedVisitId(response: Response | null): Promise<string> {
  const match = /<input type="hidden" name="vid" value="([^"]+)"/.exec((await response?.text()) ?? "");
  expect(match, "the landing page has a hidden vid input").not.toBeNull();
  return match![1]!;
}

/** The landing form's hidden vid as the page holds it now. */
const hiddenVid = (page: Page) => page.locator('form input[type="hidden"][name="vid"]').inputValue();

describe("with JavaScript", () => {
  let context: BrowserContext;
  beforeAll(async () => {
    context = await harness.newContext();
  });
  afterAll(async () => {
    await context.close();
  });

  it("keeps sid, tid and the minted visit id when the ZIP is submitted, through the /go redirect to the quote page and its frame", async () => {
    const page = await context.newPage();
    const landing = await page.goto(harness.url("/zipcode?sid=a1&tid=b2"));
    const vid = await servedVisitId(landing);
    expect(vid).toMatch(UUID);
    await waitForHydration(page, "#zip");
    // Hydration keeps the server's visit id (typing re-renders the form: a different one would show here).
    const { go, final } = await submitZip(page, "90210");
    const carried = `?zip=90210&sid=a1&tid=b2&vid=${vid}`;

    expect(new URL(go.url()).search).toBe(carried);
    expect(go.status()).toBe(303);
    expect(await go.headerValue("location")).toBe(`/${carried}`);
    expect(final?.status()).toBe(200);
    expect(page.url()).toBe(harness.url(`/${carried}`));

    await expect(quoteFrame(page).getAttribute("src")).resolves.toBe(`/rapidfire.html${carried}`);
    const framed = page.frameLocator("iframe.quote-frame");
    await framed.locator(".rf-place").filter({ hasText: "Beverly Hills, CA 90210" }).waitFor();
    await expect(framed.locator("#rf-zip").inputValue()).resolves.toBe("90210");

    // The server's events of this visit, joined by its id: the click (its entry), the ZIP, the quote page view.
    const ofVisit = () => harness.server.logs.filter((line) => (line.campaign as { vid?: string } | undefined)?.vid === vid);
    await expect.poll(() => ofVisit().some((line) => line.event === "quote_page_view")).toBe(true);
    const events = ofVisit().map((line) => line.event);
    expect(events.slice(0, 2)).toEqual(["campaign_hit", "zip_submitted"]);
    // The landing page started the visit; the quote page (its address carries the vid) did not start another.
    const entries = ofVisit().filter((line) => line.event === "campaign_hit" && line.entry === true);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ path: "/zipcode", campaign: { sid: "a1", tid: "b2", vid } });
    await page.close();
  });

  it("adds no sid or tid when the address had none, only the visit id", async () => {
    const page = await context.newPage();
    const vid = await servedVisitId(await page.goto(harness.url("/zipcode")));
    await waitForHydration(page, "#zip");
    await expect(page.locator('form input[type="hidden"]').evaluateAll((inputs) => inputs.map((input) => input.getAttribute("name")))).resolves.toEqual(["vid"]);
    const { go } = await submitZip(page, "90210");

    expect(await go.headerValue("location")).toBe(`/?zip=90210&vid=${vid}`);
    expect(page.url()).toBe(harness.url(`/?zip=90210&vid=${vid}`));
    await expect(quoteFrame(page).getAttribute("src")).resolves.toBe(`/rapidfire.html?zip=90210&vid=${vid}`);
    const framed = page.frameLocator("iframe.quote-frame");
    await framed.locator(".rf-place").filter({ hasText: "Beverly Hills, CA 90210" }).waitFor();
    await page.close();
  });

  it("keeps the visit id when the visitor reads a legal page and comes back (client-side navigation)", async () => {
    const page = await context.newPage();
    const vid = await servedVisitId(await page.goto(harness.url("/zipcode?sid=a1")));
    await waitForHydration(page, "#zip");
    await page.getByRole("link", { name: "Privacy Policy", exact: true }).first().click();
    await page.waitForURL(harness.url("/privacy-policy"));
    await page.goBack();
    await page.waitForURL(harness.url("/zipcode?sid=a1"));
    await expect.poll(() => hiddenVid(page)).toBe(vid);
    const { go } = await submitZip(page, "10001");
    expect(new URL(go.url()).searchParams.get("vid")).toBe(vid);
    await page.close();
  });

  it("gives two visitors of the same link different visit ids", async () => {
    const first = await context.newPage();
    const second = await context.newPage();
    const a = await servedVisitId(await first.goto(harness.url("/zipcode?sid=same&tid=same")));
    const b = await servedVisitId(await second.goto(harness.url("/zipcode?sid=same&tid=same")));
    expect(b).not.toBe(a);
    await waitForHydration(second, "#zip");
    await expect(hiddenVid(second)).resolves.toBe(b);
    await first.close();
    await second.close();
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

  it("submits the server-rendered form to /go and lands on the quote page with zip, sid, tid and the visit id", async () => {
    const page = await context.newPage();
    const vid = await servedVisitId(await page.goto(harness.url("/zipcode?sid=a1&tid=b2")));
    // Proof that no page script runs: React never hydrates, so it never tags the DOM.
    await expect(page.locator("#zip").evaluate((input) => Object.keys(input))).resolves.toEqual([]);
    const { go } = await submitZip(page, "90210");

    expect(go.status()).toBe(303);
    expect(new URL(go.url()).search).toBe(`?zip=90210&sid=a1&tid=b2&vid=${vid}`);
    expect(page.url()).toBe(harness.url(`/?zip=90210&sid=a1&tid=b2&vid=${vid}`));
    // The server-rendered frame already points at the form with the validated values.
    await expect(quoteFrame(page).getAttribute("src")).resolves.toBe(`/rapidfire.html?zip=90210&sid=a1&tid=b2&vid=${vid}`);
    await page.close();
  });
});
