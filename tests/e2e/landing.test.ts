/**
 * The landing page's ZIP field in a real browser: what typing and pasting leave in it, native
 * validation blocking a bad submit, the "why" tooltip, and the invalid-ZIP fallback from /go.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright";
import { hasWindowMarker, setWindowMarker, startHarness, waitForHydration, type Harness } from "./helpers";

let harness: Harness;
let context: BrowserContext;

beforeAll(async () => {
  harness = await startHarness();
  context = await harness.newContext();
});

afterAll(async () => {
  await harness?.close();
});

async function openLanding(query = ""): Promise<Page> {
  const page = await context.newPage();
  await page.goto(harness.url(`/zipcode${query}`));
  await waitForHydration(page, "#zip");
  return page;
}

describe("ZIP field typing rules", () => {
  let page: Page;
  beforeAll(async () => {
    page = await openLanding();
  });
  afterAll(async () => {
    await page.close();
  });

  const zip = () => page.locator("#zip");

  async function clearAndFocus(): Promise<void> {
    await zip().fill("");
    await zip().focus();
  }

  it("asks phones for the numeric keypad", async () => {
    await expect(zip().getAttribute("inputmode")).resolves.toBe("numeric");
  });

  it("keeps only the digits when the visitor types letters and dashes", async () => {
    await clearAndFocus();
    await page.keyboard.type("12a3-4");
    expect(await zip().inputValue()).toBe("1234");
  });

  it("keeps only the first 5 digits when the visitor types more", async () => {
    await clearAndFocus();
    await page.keyboard.type("9021012345");
    expect(await zip().inputValue()).toBe("90210");
  });

  it("keeps only the first 5 digits when more are pasted", async () => {
    await clearAndFocus();
    await page.keyboard.insertText("9021012345");
    expect(await zip().inputValue()).toBe("90210");
    await zip().fill("1234567890");
    expect(await zip().inputValue()).toBe("12345");
  });

  // The sanitizer strips non-digits "as the visitor types or pastes" (ZipForm.tsx). A paste is a
  // single input event, so every digit of the pasted text must survive, not just those within
  // the first 5 characters.
  it("keeps every digit of a pasted value that contains letters and dashes", async () => {
    await clearAndFocus();
    await page.keyboard.insertText("12a3-4");
    expect(await zip().inputValue()).toBe("1234");
    await zip().fill("12a3-4");
    expect(await zip().inputValue()).toBe("1234");
  });

  it("keeps a pasted ZIP code that has punctuation or spaces around it", async () => {
    await clearAndFocus();
    await page.keyboard.insertText(" 90210");
    expect(await zip().inputValue()).toBe("90210");
    await zip().fill("(90210)");
    expect(await zip().inputValue()).toBe("90210");
  });
});

describe("native validation", () => {
  /**
   * Fills the field, clicks submit and reports what the browser did. Playwright's click waits
   * for any navigation it triggers to start, and a submission fires `submit` synchronously, so
   * a page that still has its marker, its URL and no `submit` event did not submit.
   */
  async function trySubmit(value: string) {
    const page = await openLanding();
    await page.locator("#zip").fill(value);
    await page.evaluate(() => {
      const state = { invalid: 0, submitted: 0 };
      (window as unknown as { __e2eForm: typeof state }).__e2eForm = state;
      document.getElementById("zip")!.addEventListener("invalid", () => (state.invalid += 1));
      document.addEventListener("submit", () => (state.submitted += 1), true);
    });
    await setWindowMarker(page);
    const goRequests: string[] = [];
    page.on("request", (request) => {
      if (new URL(request.url()).pathname === "/go") goRequests.push(request.url());
    });
    await page.getByRole("button", { name: "Get Your Quote" }).click();
    const result = {
      url: page.url(),
      sameDocument: await hasWindowMarker(page),
      form: await page.evaluate(() => (window as unknown as { __e2eForm: { invalid: number; submitted: number } }).__e2eForm),
      valid: await page.locator("#zip").evaluate((input: HTMLInputElement) => input.validity.valid),
      goRequests,
    };
    await page.close();
    return result;
  }

  it("does not submit a 3-digit ZIP code", async () => {
    const result = await trySubmit("123");
    expect(result.valid).toBe(false);
    expect(result.form).toEqual({ invalid: 1, submitted: 0 });
    expect(result.sameDocument).toBe(true);
    expect(result.url).toBe(harness.url("/zipcode"));
    expect(result.goRequests).toEqual([]);
  });

  it("does not submit an empty ZIP code", async () => {
    const result = await trySubmit("");
    expect(result.valid).toBe(false);
    expect(result.form).toEqual({ invalid: 1, submitted: 0 });
    expect(result.sameDocument).toBe(true);
    expect(result.url).toBe(harness.url("/zipcode"));
    expect(result.goRequests).toEqual([]);
  });
});

describe("invalid-ZIP fallback", () => {
  it("sends the visitor back to the landing page with a notice, the campaign id kept and the field focused", async () => {
    const page = await context.newPage();
    const response = await page.goto(harness.url("/go?zip=12&sid=a1"));
    const redirect = response?.request().redirectedFrom();
    expect(redirect?.url()).toBe(harness.url("/go?zip=12&sid=a1"));
    expect((await redirect?.response())?.status()).toBe(303);
    // The server sends ?sid=a1&vid=…&error=invalid-zip (the visit goes on); the page then drops the flag from the address.
    await page.waitForURL(/\/zipcode\?sid=a1&vid=[0-9a-f-]{36}$/);
    const toast = page.locator("[aria-live]").getByText("Please enter a valid 5-digit ZIP code.");
    await toast.waitFor({ state: "visible" });
    await expect.poll(() => page.evaluate(() => document.activeElement?.id), { timeout: 5_000 }).toBe("zip");
    // The campaign id still rides along with the next submit.
    await expect(page.locator('form input[type="hidden"][name="sid"]').inputValue()).resolves.toBe("a1");
    await page.close();
  });
});

describe("ZIP tooltip", () => {
  it("explains why we ask for the ZIP code when the button gets keyboard focus, and hides on Escape", async () => {
    const page = await openLanding();
    const tooltip = page.getByRole("tooltip");
    await expect(tooltip.count()).resolves.toBe(0);
    const why = page.getByRole("button", { name: "Why we ask for your ZIP code" });
    // Tab through the page until the button has focus (the header logo comes first).
    for (let presses = 0; presses < 10; presses += 1) {
      await page.keyboard.press("Tab");
      if (await why.evaluate((button) => button === document.activeElement)) break;
    }
    await expect(why.evaluate((button) => button === document.activeElement)).resolves.toBe(true);
    await tooltip.waitFor({ state: "attached" });
    await expect(tooltip.textContent()).resolves.toMatch(/ZIP code/);
    await expect(page.locator(".tooltip").isVisible()).resolves.toBe(true);
    await page.keyboard.press("Escape");
    await tooltip.waitFor({ state: "detached" });
    await expect(page.locator(".tooltip").count()).resolves.toBe(0);
    // Focus stays on the button: Escape closes the tooltip, it does not move the visitor.
    await expect(why.evaluate((button) => button === document.activeElement)).resolves.toBe(true);
    await page.close();
  });
});
