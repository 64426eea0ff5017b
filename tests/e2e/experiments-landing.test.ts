/**
 * A landing page experiment in a real Chromium on a phone (issue 45): the variant's headline and
 * button are in the HTML of the first paint (no flash of the control), hydration keeps them with
 * no console warning, and a navigation inside the site back to the landing page shows them again.
 * The app runs in this process (tests/support/app.ts) so the test can give it a running experiment.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext } from "playwright";
import { createTestApp, listenOnLoopback, type LoopbackServer, type TestApp } from "../support/app";
import { launchChromium } from "../support/browser";
import { collectProblems, expectNoProblems, hasWindowMarker, setWindowMarker, waitForHydration } from "./helpers";
import { PHONE_CONTEXT } from "../../tools/phone-visitor";
import { experimentSchema, type Experiment } from "../../server/experiments/schema";
import { newVisitorId, variantFor } from "../../server/experiments/assign";
import { EXPERIMENT_COOKIE, KNOBS } from "../../shared/experiments";

/** A phone's browser: Playwright's own agent says HeadlessChrome, which the site treats as a bot (the control, no cookie). */
const PHONE_AGENT = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36";
const HEADLINE = "Car Insurance Quotes in Two Minutes";
const BUTTON = "See My Rates";

const test: Experiment = experimentSchema.parse({
  id: "headline-e2e",
  name: "Headline in the browser",
  hypothesis: "A headline naming the time it takes gets more ZIP codes entered",
  status: "running",
  variants: [
    { id: "control", name: "Control", share: 50 },
    { id: "minutes", name: "Two minutes", share: 50, values: { "landing.headline": HEADLINE, "landing.buttonText": BUTTON } },
  ],
  startAt: "2020-01-01T00:00:00Z",
});

function idIn(variant: string): string {
  for (;;) {
    const id = newVisitorId();
    if (variantFor(test, id).id === variant) return id;
  }
}

let t: TestApp;
let server: LoopbackServer;
let browser: Browser;

beforeAll(async () => {
  [t, browser] = await Promise.all([createTestApp({}, { experiments: () => [test] }), launchChromium()]);
  server = await listenOnLoopback(t.app);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await t?.services.close();
});

async function phoneWithCookie(id: string | undefined): Promise<BrowserContext> {
  const context = await browser.newContext({ ...PHONE_CONTEXT, userAgent: PHONE_AGENT });
  context.setDefaultTimeout(10_000);
  if (id) await context.addCookies([{ name: EXPERIMENT_COOKIE, value: id, url: server.origin, httpOnly: true, sameSite: "Lax" }]);
  return context;
}

describe("a landing page experiment on a phone (390×664, touch)", () => {
  it.each([
    ["minutes", HEADLINE, BUTTON],
    ["control", KNOBS["landing.headline"].control, KNOBS["landing.buttonText"].control],
  ])("shows the %s variant's headline in the first paint's HTML and keeps it after hydration, without a warning", async (variant, headline, button) => {
    const context = await phoneWithCookie(idIn(variant));
    const page = await context.newPage();
    const problems = await collectProblems(context, page);
    const response = await page.goto(`${server.origin}/zipcode?sid=a1&tid=E2E1`);
    // The document as the server sent it: what the browser paints before any script runs.
    const served = (await response!.text()).match(/<h1>([^<]*)<\/h1>/)?.[1];
    expect(served).toBe(headline);
    await waitForHydration(page, "main");
    await expect.poll(() => page.locator("h1").textContent()).toBe(headline);
    expect((await page.locator(".zip-form button[type=submit]").textContent())?.trim()).toBe(`${button} →`);
    await expectNoProblems(page, problems);
    await context.close();
  });

  it("shows the variant again after a navigation inside the site and back to the landing page", async () => {
    const context = await phoneWithCookie(idIn("minutes"));
    const page = await context.newPage();
    const problems = await collectProblems(context, page);
    await page.goto(`${server.origin}/zipcode`);
    await waitForHydration(page, "main");
    await setWindowMarker(page);
    await page.getByRole("link", { name: "Privacy Policy" }).first().tap();
    await page.waitForURL(`${server.origin}/privacy-policy`);
    await page.locator(".site-header a.logo-link").tap();
    await page.waitForURL(`${server.origin}/zipcode`);
    await expect.poll(() => page.locator("h1").textContent()).toBe(HEADLINE);
    // The document that showed the landing page knows its variant: no page load was needed.
    expect(await hasWindowMarker(page)).toBe(true);
    await expectNoProblems(page, problems);
    await context.close();
  });

  it("loads the landing page in full from a document that never showed it, so the visitor's variant is the server's", async () => {
    const context = await phoneWithCookie(idIn("minutes"));
    const page = await context.newPage();
    const problems = await collectProblems(context, page);
    await page.goto(`${server.origin}/terms-of-use`);
    await waitForHydration(page, "main");
    await setWindowMarker(page);
    await page.locator(".site-header a.logo-link").tap();
    await page.waitForURL(`${server.origin}/zipcode`);
    await expect.poll(() => page.locator("h1").textContent()).toBe(HEADLINE);
    expect(await hasWindowMarker(page)).toBe(false);
    await expectNoProblems(page, problems);
    await context.close();
  });
});
