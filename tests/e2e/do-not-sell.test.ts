import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectProblems, hasWindowMarker, setWindowMarker, startHarness, waitForHydration, type Harness } from "./helpers";
import { paths } from "../../shared/routes";
import { openDatabase } from "../../server/db/database";
import { privacyRequestRepository } from "../../server/db/privacy-requests";

const dataDir = mkdtempSync(path.join(os.tmpdir(), "e2e-do-not-sell-"));
let harness: Harness;
const references: Array<{ reference: string; email: string; gpc: boolean; requestType?: string }> = [];
const STOP_TITLE = "Stop calls and texts | QuoteRidge";
const DO_NOT_SELL_TITLE = "Do Not Sell or Share My Personal Information | QuoteRidge";
const REVOKE_LABEL = "Stop calls and texts: I revoke my consent to be contacted about my quote requests";
/** What the Do Not Sell face says before anything is sent (issue 42; Cal. Code Regs. tit. 11, §7026(f)). */
const OPT_OUT_DEADLINE = "we stop selling and sharing your personal information within 15 business days";

beforeAll(async () => {
  harness = await startHarness({ DATA_DIR: dataDir });
});
afterAll(async () => {
  await harness?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("the Do Not Sell form in a real browser", () => {
  it("sends in place with JavaScript: confirmation on the page, a toast, no reload, no console errors", async () => {
    const context = await harness.newContext();
    const page = await context.newPage();
    const problems = await collectProblems(context, page);
    await page.goto(harness.url("/do-not-sell"));
    await waitForHydration(page);
    await page.evaluate(() => ((window as unknown as { __marker?: number }).__marker = 1));
    await page.getByLabel("Do not sell or share my personal information").check();
    await page.getByLabel("Email address").fill("js.visitor@example.com");
    await page.getByRole("button", { name: "Send request" }).click();
    const received = page.getByTestId("privacy-received");
    await received.waitFor();
    const reference = (await received.locator(".reference").textContent())!;
    expect(reference).toMatch(/^PR-/);
    await page.locator("[aria-live]").getByText(`Your reference is ${reference}`).waitFor();
    expect(await page.evaluate(() => (window as unknown as { __marker?: number }).__marker)).toBe(1);
    expect(problems.consoleProblems).toEqual([]);
    expect(problems.pageErrors).toEqual([]);
    expect(await problems.cspViolations(page)).toEqual([]);
    references.push({ reference, email: "js.visitor@example.com", gpc: false });
    await context.close();
  });

  it("shows field messages, focuses the summary and keeps what was typed", async () => {
    const context = await harness.newContext();
    const page = await context.newPage();
    await page.goto(harness.url("/do-not-sell"));
    await waitForHydration(page);
    await page.getByLabel("Delete my personal information").check();
    await page.getByLabel("Email address").fill("not-an-email");
    await page.getByRole("button", { name: "Send request" }).click();
    const summary = page.getByTestId("error-summary");
    await summary.waitFor();
    expect(await summary.textContent()).toContain("Enter an email address like name@example.com.");
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe("error-summary");
    expect(await page.getByLabel("Email address").inputValue()).toBe("not-an-email");
    expect(await page.getByLabel("Email address").getAttribute("aria-invalid")).toBe("true");
    expect(await page.getByLabel("Delete my personal information").isChecked()).toBe(true);
    await context.close();
  });

  it("works without JavaScript: posts, redirects to the confirmation with the reference", async () => {
    const context = await harness.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(harness.url("/do-not-sell"));
    await page.getByLabel("Tell me what personal information you have about me").check();
    await page.getByLabel("Phone number").fill("(415) 555-0177");
    await page.getByRole("button", { name: "Send request" }).click();
    await page.waitForURL(/\/do-not-sell\?received=PR-/);
    const reference = new URL(page.url()).searchParams.get("received")!;
    expect(await page.getByTestId("privacy-received").textContent()).toContain(reference);
    references.push({ reference, email: "", gpc: false });
    await context.close();
  });

  it("shows field messages without JavaScript too (422 page with the values kept)", async () => {
    const context = await harness.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(harness.url("/do-not-sell"));
    await page.getByLabel("Email address").fill("kept@example.com");
    const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === "POST"), page.getByRole("button", { name: "Send request" }).click()]);
    expect(response.status()).toBe(422);
    await page.getByTestId("error-summary").waitFor();
    expect(await page.getByLabel("Email address").inputValue()).toBe("kept@example.com");
    await context.close();
  });

  it("honours Global Privacy Control: shows 'Opt-out request honored' and stores the signal", async () => {
    const context = await harness.newContext({ extraHTTPHeaders: { "Sec-GPC": "1" } });
    const page = await context.newPage();
    await page.goto(harness.url("/do-not-sell"));
    await waitForHydration(page);
    expect(await page.getByTestId("gpc-status").textContent()).toContain("Opt-out request honored");
    await page.getByLabel("Do not sell or share my personal information").check();
    await page.getByLabel("Email address").fill("gpc.visitor@example.com");
    await page.getByRole("button", { name: "Send request" }).click();
    const reference = (await page.getByTestId("privacy-received").locator(".reference").textContent())!;
    references.push({ reference, email: "gpc.visitor@example.com", gpc: true });
    const plain = await harness.newContext();
    const other = await plain.newPage();
    await other.goto(harness.url("/do-not-sell"));
    expect(await other.getByTestId("gpc-status").count()).toBe(0);
    await plain.close();
    await context.close();
  });

  it("reaches the form from the landing page's footer as a full page load with its COOP header, and fits a 375 px screen", async () => {
    const context = await harness.newContext({ viewport: { width: 375, height: 740 } });
    const page = await context.newPage();
    const landing = await page.goto(harness.url("/zipcode"));
    expect(landing?.headers()["cross-origin-opener-policy"], "the landing page is an open page (decision 025)").toBeUndefined();
    await waitForHydration(page, "footer a");
    await setWindowMarker(page);
    // The landing page's document has no COOP, so the hydrated router hands this navigation to the browser.
    const formPage = page.waitForResponse((response) => new URL(response.url()).pathname === "/do-not-sell" && response.request().resourceType() === "document");
    await page.getByRole("link", { name: "Do Not Sell or Share My Personal Information" }).click();
    expect((await formPage).headers()["cross-origin-opener-policy"]).toBe("same-origin");
    await page.waitForURL(/\/do-not-sell$/);
    await page.getByRole("heading", { name: "Do Not Sell or Share My Personal Information" }).waitFor();
    expect(await hasWindowMarker(page), "a new document, not a client-side navigation").toBe(false);
    expect(await page.locator('input[name="_csrf"]').inputValue()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    await page.getByLabel("Correct my personal information").check();
    await page.getByLabel("Email address").fill("client.nav@example.com");
    await page.getByLabel(/What should we correct/).fill("My last name is misspelled.");
    await page.getByRole("button", { name: "Send request" }).click();
    const reference = (await page.getByTestId("privacy-received").locator(".reference").textContent())!;
    references.push({ reference, email: "client.nav@example.com", gpc: false });
    await context.close();
  });

  it("stays client-side between pages of a document served with COOP: the form, the privacy policy and back", async () => {
    const context = await harness.newContext();
    const page = await context.newPage();
    await page.goto(harness.url("/do-not-sell"));
    await waitForHydration(page, "footer a");
    await setWindowMarker(page);
    await page.getByRole("navigation", { name: "Legal" }).getByRole("link", { name: "Privacy Policy", exact: true }).click();
    await page.waitForURL(harness.url("/privacy-policy"));
    await page.getByRole("navigation", { name: "Legal" }).getByRole("link", { name: "Do Not Sell or Share My Personal Information", exact: true }).click();
    await page.waitForURL(/\/do-not-sell$/);
    await page.getByRole("heading", { name: "Do Not Sell or Share My Personal Information" }).waitFor();
    expect(await hasWindowMarker(page), "the same document throughout").toBe(true);
    await context.close();
  });

  it('takes a phone visitor from the footer\'s "Stop Calls and Texts" to a page of its own, the revocation chosen, and sends it', async () => {
    const context = await harness.newContext({ viewport: { width: 390, height: 664 }, hasTouch: true, isMobile: true });
    const page = await context.newPage();
    const problems = await collectProblems(context, page);
    await page.goto(harness.url("/zipcode"));
    await waitForHydration(page, "footer a");
    await page.getByRole("navigation", { name: "Legal" }).getByRole("link", { name: "Stop Calls and Texts", exact: true }).tap();
    await page.waitForURL(harness.url(paths.stopCalls));
    await page.getByRole("heading", { level: 1, name: "Stop calls and texts", exact: true }).waitFor();
    await waitForHydration(page, "form");
    await expect(page.title()).resolves.toBe(STOP_TITLE);
    await expect(page.getByLabel(REVOKE_LABEL).isChecked()).resolves.toBe(true);
    await expect(page.locator("main").textContent()).resolves.toContain("up to 10 business days to stop calling and texting you");
    await page.getByLabel("Email address").fill("stop.calls@example.com");
    await page.getByRole("button", { name: "Send request" }).tap();
    const received = page.getByTestId("privacy-received");
    await received.waitFor();
    await expect(received.textContent()).resolves.toContain("Your consent to be called and texted about your quote requests is revoked");
    // Still the same page, under the same heading and title.
    expect(page.url()).toBe(harness.url(paths.stopCalls));
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Stop calls and texts");
    await expect(page.title()).resolves.toBe(STOP_TITLE);
    references.push({ reference: (await received.locator(".reference").textContent())!, email: "stop.calls@example.com", gpc: false, requestType: "revoke_consent" });
    expect(problems.consoleProblems).toEqual([]);
    expect(problems.pageErrors).toEqual([]);
    await context.close();
  });

  it("changes face with the address without a reload: Do Not Sell to Stop calls and texts and back, heading, title and choice together", async () => {
    const context = await harness.newContext();
    const page = await context.newPage();
    await page.goto(harness.url("/do-not-sell"));
    await waitForHydration(page, "footer a");
    await setWindowMarker(page);
    const timings = page.getByTestId("request-timings");
    await expect(timings.textContent()).resolves.toContain(OPT_OUT_DEADLINE);
    const legal = page.getByRole("navigation", { name: "Legal" });
    await legal.getByRole("link", { name: "Stop Calls and Texts", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Stop calls and texts", exact: true }).waitFor();
    await expect.poll(() => page.title()).toBe(STOP_TITLE);
    await expect.poll(() => page.getByLabel(REVOKE_LABEL).isChecked()).toBe(true);
    // That face speaks of its own request's deadline, not the Do Not Sell list.
    await expect.poll(() => timings.count()).toBe(0);
    await expect(page.locator("main").textContent()).resolves.toContain("up to 10 business days to stop calling and texting you");
    await legal.getByRole("link", { name: "Do Not Sell or Share My Personal Information", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Do Not Sell or Share My Personal Information", exact: true }).waitFor();
    await expect.poll(() => page.title()).toBe(DO_NOT_SELL_TITLE);
    await expect(page.getByLabel(REVOKE_LABEL).isChecked()).resolves.toBe(false);
    await expect(timings.textContent()).resolves.toContain(OPT_OUT_DEADLINE);
    expect(await hasWindowMarker(page), "client-side navigation throughout").toBe(true);
    await context.close();
  });

  it("sends a revocation without JavaScript and confirms it on the Stop calls and texts page", async () => {
    const context = await harness.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(harness.url(paths.stopCalls));
    await expect(page.title()).resolves.toBe(STOP_TITLE);
    await page.getByLabel("Phone number").fill("(415) 555-0178");
    await page.getByRole("button", { name: "Send request" }).click();
    await page.waitForURL(/\/do-not-sell\?request=revoke_consent&received=PR-/);
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Stop calls and texts");
    const received = page.getByTestId("privacy-received");
    await expect(received.textContent()).resolves.toContain("revoked from now on");
    references.push({ reference: new URL(page.url()).searchParams.get("received")!, email: "", gpc: false, requestType: "revoke_consent" });
    await context.close();
  });

  it("has stored every confirmed request, with its GPC flag", async () => {
    await harness.server.stop();
    const db = await openDatabase({ DATA_DIR: dataDir });
    try {
      const repository = privacyRequestRepository(db);
      for (const expected of references) {
        const stored = await repository.findByReference(expected.reference);
        expect(stored, expected.reference).toBeDefined();
        expect(stored!.gpc).toBe(expected.gpc);
        if (expected.email) expect(stored!.email).toBe(expected.email);
        if (expected.requestType) expect(stored!.requestType).toBe(expected.requestType);
      }
      expect(await repository.count()).toBe(references.length);
    } finally {
      await db.close();
    }
  });
});
