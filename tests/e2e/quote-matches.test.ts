/**
 * The matches step in a real Chromium (issue 13): the built server with a buyer (a local stub
 * playing it) and its delivery worker; after the quote request is stored, the thank-you lists
 * the buyer once it has accepted, with its phone number, and says honestly that no partner took
 * the request when the buyer refused it.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "./helpers";
import { freshPostgresUrl, type FreshPostgres } from "../support/databases";
import { startBuyerStub, type BuyerStub } from "../../tools/buyer-stub";
import { fillContact, fillQuote, type FormScope } from "./quote-form-fill";
import { site } from "../../shared/site";

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
async function sendQuote(phone: string, email: string): Promise<FormScope> {
  const context = await harness.newContext({ viewport: PHONE, isMobile: true });
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
});
