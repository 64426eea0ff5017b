/**
 * The matches step in a real Chromium (issue 13): the built server with a buyer (a local stub
 * playing it) and its delivery worker; after the quote request is stored, the thank-you lists
 * the buyer once it has accepted, with its phone number, and says honestly that no partner took
 * the request when the buyer refused it. A repeat within 30 days (a duplicate, linked to the
 * first) says once what is true of the first: who has it, or that no partner took it (issue 42).
 */
import { mkdirSync } from "node:fs";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "./helpers";
import { freshPostgresUrl, type FreshPostgres } from "../support/databases";
import { startBuyerStub, type BuyerStub } from "../../tools/buyer-stub";
import { fillContact, fillQuote } from "./quote-form-fill";
import { site } from "../../shared/site";
import { PHONE_CONTEXT } from "../../tools/phone-visitor";
import type { BrowserContextOptions, Page } from "playwright";

const SECRET = "summit-secret-summit-secret-summit-secret";
const PHONE = { width: 375, height: 740 };
let harness: Harness;
let postgres: FreshPostgres;
let stub: BuyerStub;
let folder: string;

beforeAll(async () => {
  stub = await startBuyerStub({ buyers: { summit: SECRET } });
  postgres = await freshPostgresUrl();
  folder = mkdtempSync(path.join(os.tmpdir(), "quote-matches-"));
  const buyersFile = path.join(folder, "buyers.json");
  writeFileSync(buyersFile, JSON.stringify({ buyers: [{ id: "summit", name: "Summit Auto Insurance", phone: "(415) 555-0101", url: stub.url("summit"), secret: SECRET, price: 18.5 }], sources: [] }));
  harness = await startHarness({ DATABASE_URL: postgres.url, BUYERS_FILE: buyersFile, LEAD_MIN_FILL_MS: "300", CSRF_SECRET: "c".repeat(40) });
}, 90_000);

afterAll(async () => {
  await harness?.close();
  await stub?.stop();
  await postgres?.drop();
  rmSync(folder, { recursive: true, force: true });
});

/** A one-car, one-driver quote sent from rapidfire.html, with its own phone and email. */
async function sendQuote(phone: string, email: string, options: BrowserContextOptions = { viewport: PHONE, isMobile: true }): Promise<Page> {
  const context = await harness.newContext(options);
  const page = await context.newPage();
  await page.goto(harness.url("/rapidfire.html?zip=90210&sid=a1&tid=matches"));
  await page.getByText("Quotes for Beverly Hills, CA 90210.").waitFor();
  await fillQuote(page, { vehicles: 1, drivers: 1 });
  await fillContact(page);
  await page.getByLabel("Phone number", { exact: true }).fill(phone);
  await page.getByLabel("Email address", { exact: true }).fill(email);
  await page.getByRole("checkbox").check();
  await page.getByRole("button", { name: "Get My Quotes" }).click();
  await page.getByRole("heading", { name: "Thank you, Ana!" }).waitFor();
  return page;
}

describe("the matches step", () => {
  it("names the buyer that accepted the request, with its number to call, under the thank-you", async () => {
    const page = await sendQuote("(415) 555-0142", "ana.matches@example.com");
    const matches = page.locator(".rf-matches");
    await expect.poll(() => matches.textContent(), { timeout: 15_000 }).toContain("Summit Auto Insurance");
    await expect(matches.textContent()).resolves.toContain("This company has your request and will contact you:");
    await expect(page.locator(".rf-match-list a").getAttribute("href")).resolves.toBe("tel:+14155550101");
    expect(stub.received("summit").length).toBeGreaterThanOrEqual(1);
  });

  it("says honestly that no partner has taken the request when the buyer refuses it, and gives our number", async () => {
    stub.script("summit", [{ status: 422, body: { reason: "Out of area" } }]);
    const page = await sendQuote("(415) 555-0143", "ana.refused@example.com");
    const matches = page.locator(".rf-matches");
    await expect.poll(() => matches.textContent(), { timeout: 15_000 }).toContain("None of our partners could take your request just now.");
    await expect(matches.textContent()).resolves.toContain(site.phone);
    await expect(page.locator(".rf-match-list").count()).resolves.toBe(0);
  });

  it("says once what is true of the first request when the same visitor asks again within 30 days: no partner took it, or who has it (issue 42)", async () => {
    stub.script("summit", [{ status: 422, body: { reason: "Out of area" } }]);
    const first = await sendQuote("(415) 555-0144", "ana.again@example.com");
    await expect.poll(() => first.locator(".rf-matches").textContent(), { timeout: 15_000 }).toContain("None of our partners could take your request just now.");

    // The repeat, at the phone size of issue 32, with touch.
    const repeat = await sendQuote("(415) 555-0144", "ana.again@example.com", PHONE_CONTEXT);
    const done = repeat.locator(".rf-done");
    await expect.poll(() => repeat.locator(".rf-matches").textContent(), { timeout: 15_000 }).toContain("None of our partners took your earlier request, so no company has it.");
    const words = (await done.innerText()).replace(/\s+/g, " ");
    expect(words).toContain("We already had a request from you in the past 30 days, so we linked this one to it.");
    expect(words).not.toMatch(/working on it|could take your request just now/);
    expect(words.match(/None of our partners/g)).toHaveLength(1);
    // "What happens next" speaks of companies that take the request: gone, as none did.
    await expect(repeat.getByText("What happens next").isVisible()).resolves.toBe(false);
    await expect(repeat.locator(".rf-matches").textContent()).resolves.toContain(site.phone);
    mkdirSync("/work/shots", { recursive: true });
    await repeat.screenshot({ path: "/work/shots/thank-you-repeat.png" });

    // A first request a buyer took: the repeat names it.
    const taken = await sendQuote("(415) 555-0145", "ana.taken@example.com");
    await expect.poll(() => taken.locator(".rf-matches").textContent(), { timeout: 15_000 }).toContain("Summit Auto Insurance");
    const again = await sendQuote("(415) 555-0145", "ana.taken@example.com");
    await expect.poll(() => again.locator(".rf-matches").textContent(), { timeout: 15_000 }).toContain("This company has your earlier request and will contact you:");
    await expect(again.locator(".rf-match-list").textContent()).resolves.toContain("Summit Auto Insurance");
    await expect(again.locator(".rf-done").innerText()).resolves.not.toMatch(/working on it|None of our partners/);
  }, 60_000);
});
