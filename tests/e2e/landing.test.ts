/**
 * The landing page's ZIP field in a real browser: what typing and pasting leave in it, native
 * validation blocking a bad submit, the "Why?" toggletip and tooltip, and the invalid-ZIP fallback from /go.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright";
import { hasWindowMarker, isFullyInViewport, setWindowMarker, startHarness, waitForHydration, type Harness } from "./helpers";

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

/**
 * "Why?" is a toggletip (decision 029): an HTML popover its button opens and closes on a tap, a
 * click, Enter or Space, which Escape or a second tap closes; the browser does all of it, with no
 * script. A mouse hover also shows the text as a Radix tooltip, whose code
 * (client/components/TooltipButton.tsx) is a chunk of its own, loaded on the first mouse hover
 * only (client/components/LazyTooltip.tsx). Rolldown names a chunk after its module, so its
 * requests are recognisable by name.
 */
const TOOLTIP_CHUNK = /\/assets\/TooltipButton-[\w-]+\.js$/;
const WHY_NAME = "Why we ask for your ZIP code";
const WHY_TEXT = "Rates depend on where your car is parked. Your ZIP code shows us the insurers that serve your area.";
/** Issue 32: a phone with its browser bars. */
const PHONE = { hasTouch: true, isMobile: true, viewport: { width: 390, height: 664 } };

/** Every request for the tooltip's chunk this page makes from now on. */
function watchTooltipChunk(page: Page): string[] {
  const requests: string[] = [];
  page.on("request", (request) => {
    if (TOOLTIP_CHUNK.test(new URL(request.url()).pathname)) requests.push(request.url());
  });
  return requests;
}

/** Opens the landing page with the watch in place before the first request, and lets it settle. */
async function openWatchedLanding(on: BrowserContext = context): Promise<{ page: Page; chunkRequests: string[] }> {
  const page = await on.newPage();
  const chunkRequests = watchTooltipChunk(page);
  await page.goto(harness.url("/zipcode"));
  await waitForHydration(page, "#zip");
  await page.waitForLoadState("networkidle");
  return { page, chunkRequests };
}

/** Whether the toggletip is showing, as the browser knows it (the popover's own state). */
const toggletipOpen = (page: Page) => page.evaluate(() => document.getElementById("zip-why-text")?.matches(":popover-open") ?? false);

/** What Chromium tells assistive technology about the "Why?" button: its name and expanded state. */
async function whyAsAnnounced(page: Page): Promise<{ role?: string; name?: string; expanded?: boolean }> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { root } = (await cdp.send("DOM.getDocument")) as { root: { nodeId: number } };
    const { nodeId } = (await cdp.send("DOM.querySelector", { nodeId: root.nodeId, selector: ".zip-why" })) as { nodeId: number };
    const { nodes } = (await cdp.send("Accessibility.getPartialAXTree", { nodeId, fetchRelatives: false })) as {
      nodes: Array<{ role?: { value: string }; name?: { value: string }; properties?: Array<{ name: string; value: { value: unknown } }> }>;
    };
    const node = nodes[0]!;
    const expanded = node.properties?.find((property) => property.name === "expanded")?.value.value;
    return { role: node.role?.value, name: node.name?.value, expanded: typeof expanded === "boolean" ? expanded : undefined };
  } finally {
    await cdp.detach();
  }
}

/** Asked of the document, not of a located element: a swap to the Radix trigger replaces the button. */
const whyHasFocus = (page: Page) => page.evaluate((name) => document.activeElement?.getAttribute("aria-label") === name, WHY_NAME);

describe("ZIP \"Why?\" toggletip", () => {
  it("on a phone (390×664, touch): a tap shows the text in view, a second tap hides it, and no tooltip code loads", async () => {
    const phone = await harness.newContext(PHONE);
    const { page, chunkRequests } = await openWatchedLanding(phone);
    const why = page.getByRole("button", { name: WHY_NAME });
    const text = page.getByText(WHY_TEXT);
    await expect(text.isVisible()).resolves.toBe(false);
    await expect(whyAsAnnounced(page)).resolves.toEqual({ role: "button", name: WHY_NAME, expanded: false });

    await why.tap();
    await expect.poll(() => toggletipOpen(page)).toBe(true);
    await expect(text.isVisible()).resolves.toBe(true);
    await expect(isFullyInViewport(page, "#zip-why-text"), "the whole text is on the screen").resolves.toBe(true);
    // It opens next to its button (anchor positioning), not over the ZIP field below the label row.
    const [whyBox, textBox, zipBox] = await Promise.all([why.boundingBox(), text.boundingBox(), page.locator("#zip").boundingBox()]);
    expect(textBox!.y).toBeGreaterThanOrEqual(whyBox!.y + whyBox!.height);
    expect(textBox!.y).toBeLessThan(zipBox!.y + zipBox!.height);
    // Screen readers hear the button as expanded, and the text is a status (read when it appears).
    await expect(whyAsAnnounced(page)).resolves.toEqual({ role: "button", name: WHY_NAME, expanded: true });
    await expect(page.getByRole("status").filter({ hasText: WHY_TEXT }).count()).resolves.toBe(1);

    await why.tap();
    await expect.poll(() => toggletipOpen(page)).toBe(false);
    await expect(text.isVisible()).resolves.toBe(false);
    await expect(whyAsAnnounced(page)).resolves.toMatchObject({ expanded: false });

    // Escape closes it too, and the visitor stays on the button.
    await why.tap();
    await expect.poll(() => toggletipOpen(page)).toBe(true);
    await page.keyboard.press("Escape");
    await expect.poll(() => toggletipOpen(page)).toBe(false);
    await expect(whyHasFocus(page)).resolves.toBe(true);

    await page.waitForTimeout(500);
    await expect(page.getByRole("tooltip").count()).resolves.toBe(0);
    expect(chunkRequests, "a phone never loads the tooltip's code").toEqual([]);
    await phone.close();
  });

  it("from the keyboard: Tab reaches it, Enter opens it, Escape closes it with focus kept, Space opens it", async () => {
    const phone = await harness.newContext(PHONE);
    const { page, chunkRequests } = await openWatchedLanding(phone);
    // Tab through the page until the button has focus (the header logo comes first).
    for (let presses = 0; presses < 10; presses += 1) {
      await page.keyboard.press("Tab");
      if (await whyHasFocus(page)) break;
    }
    await expect(whyHasFocus(page)).resolves.toBe(true);
    // Focus alone shows nothing: the button says what it is, Enter opens it.
    await expect(toggletipOpen(page)).resolves.toBe(false);
    await page.keyboard.press("Enter");
    await expect.poll(() => toggletipOpen(page)).toBe(true);
    await expect(page.getByText(WHY_TEXT).isVisible()).resolves.toBe(true);
    await page.keyboard.press("Escape");
    await expect.poll(() => toggletipOpen(page)).toBe(false);
    await expect(whyHasFocus(page), "Escape closes the text, it does not move the visitor").resolves.toBe(true);
    await page.keyboard.press("Space");
    await expect.poll(() => toggletipOpen(page)).toBe(true);
    // The next Tab goes on to the ZIP field, as the page reads.
    await page.keyboard.press("Tab");
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe("zip");
    expect(chunkRequests, "the keyboard never loads the tooltip's code").toEqual([]);
    await phone.close();
  });

  it("works before the page hydrates, and without JavaScript at all", async () => {
    const noScript = await harness.newContext({ ...PHONE, javaScriptEnabled: false });
    const page = await noScript.newPage();
    await page.goto(harness.url("/zipcode"));
    const why = page.getByRole("button", { name: WHY_NAME });
    await expect(why.textContent()).resolves.toBe("Why?");
    await expect(why.getAttribute("type")).resolves.toBe("button");
    await why.tap();
    await expect.poll(() => toggletipOpen(page)).toBe(true);
    await expect(page.getByText(WHY_TEXT).isVisible()).resolves.toBe(true);
    await why.tap();
    await expect.poll(() => toggletipOpen(page)).toBe(false);
    await noScript.close();
  });

  it("with a mouse: hovering loads the tooltip's code once and shows the hint; a click pins the toggletip instead", async () => {
    const { page, chunkRequests } = await openWatchedLanding();
    expect(chunkRequests, "the tooltip's code is not part of the page load").toEqual([]);
    const why = page.getByRole("button", { name: WHY_NAME });
    const tooltip = page.getByRole("tooltip");
    // One move onto the button and no more: the hover that loaded the code must still count.
    await why.hover();
    await tooltip.waitFor({ state: "attached" });
    expect(chunkRequests).toHaveLength(1);
    await expect(tooltip.textContent()).resolves.toBe(WHY_TEXT);
    await expect(page.locator(".tooltip").isVisible()).resolves.toBe(true);
    // The trigger points assistive technology at the tooltip while it is open, as Radix does.
    const describedBy = await why.getAttribute("aria-describedby");
    expect(describedBy).toBeTruthy();
    await expect(page.locator(`[id="${describedBy}"]`).textContent()).resolves.toMatch(/ZIP code/);

    // A click: the tooltip goes, the toggletip stays open, and the hint does not come back over it.
    await why.click();
    await tooltip.waitFor({ state: "detached" });
    await expect.poll(() => toggletipOpen(page)).toBe(true);
    await page.mouse.move(0, 0, { steps: 5 });
    await why.hover();
    await page.waitForTimeout(1_200);
    await expect(tooltip.count()).resolves.toBe(0);
    await why.click();
    await expect.poll(() => toggletipOpen(page)).toBe(false);

    // Away in several moves: Radix lets the pointer travel towards the tooltip, so it checks
    // the moves after the pointer left the button, not the one that left it.
    await page.mouse.move(0, 0, { steps: 5 });
    // Hovering again shows the hint again, with the code already loaded.
    await why.hover();
    await tooltip.waitFor({ state: "attached" });
    expect(chunkRequests).toHaveLength(1);
    await page.close();
  });
});

/**
 * The zod schemas that validate an address's campaign ids (shared/campaign.ts) are not part of
 * the first load: the server validated the address and its route loader's data carries the
 * result (client/visit-id.ts). The loader imports them when it runs in the browser, for a
 * navigation inside the site. zod's code is recognised by its `_zod` internals.
 */
function watchZod(page: Page): string[] {
  const withZod: string[] = [];
  page.on("response", (response) => {
    const url = new URL(response.url());
    if (!url.pathname.endsWith(".js")) return;
    void response.text().then(
      (body) => {
        if (body.includes("_zod")) withZod.push(url.pathname);
      },
      () => undefined,
    );
  });
  return withZod;
}

describe("campaign validation code", () => {
  it("is not loaded with the landing page, whose form still carries the validated ids; a navigation inside the site loads it", async () => {
    const page = await context.newPage();
    const withZod = watchZod(page);
    await page.goto(harness.url("/zipcode?sid=aff7&tid=click-9&sid2=x"));
    await waitForHydration(page, "#zip");
    await page.waitForLoadState("networkidle");
    expect(withZod, "no validation code at load").toEqual([]);
    await expect(page.locator('input[type="hidden"][name="sid"]').getAttribute("value")).resolves.toBe("aff7");
    await expect(page.locator('input[type="hidden"][name="tid"]').getAttribute("value")).resolves.toBe("click-9");
    const visitId = await page.locator('input[type="hidden"][name="vid"]').getAttribute("value");
    expect(visitId).toMatch(/^[0-9a-f-]{36}$/);

    // To a legal page and back, inside the site: the landing page's loader runs in the browser.
    await page.getByRole("link", { name: "Privacy Policy" }).first().click();
    await page.waitForURL(/\/privacy-policy$/);
    await page.goBack();
    await page.waitForURL(/\/zipcode\?/);
    await expect.poll(() => withZod.length).toBeGreaterThan(0);
    await expect(page.locator('input[type="hidden"][name="sid"]').getAttribute("value")).resolves.toBe("aff7");
    await expect(page.locator('input[type="hidden"][name="tid"]').getAttribute("value")).resolves.toBe("click-9");
    // The same visit: the id the page showed is kept.
    await expect(page.locator('input[type="hidden"][name="vid"]').getAttribute("value")).resolves.toBe(visitId);
    await page.close();
  });
});
