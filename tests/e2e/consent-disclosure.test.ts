/**
 * The consent words per visitor in a real Chromium (issue 44 item 6,
 * docs/decisions/039-disclosure-per-visitor.md): the built server with three buyers (one for
 * California and Oregon, one for Texas, one paused), and the text beside the consent box on the
 * contact screen names exactly the buyers serving the ZIP's state, with QuoteRidge; QuoteRidge
 * alone where none does; never the landing page's carriers nor the paused buyer. A request sent
 * under those words is stored and goes to the buyer they named.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright";
import { startHarness, type Harness } from "./helpers";
import { freshPostgresUrl, type FreshPostgres } from "../support/databases";
import { startBuyerStub, type BuyerStub } from "../../tools/buyer-stub";
import { fillContact, fillQuote } from "./quote-form-fill";
import { carriers, site } from "../../shared/site";

const SECRET = "west-secret-west-secret-west-secret-0123";
const PHONE = { width: 390, height: 664 };
let harness: Harness;
let postgres: FreshPostgres;
let stub: BuyerStub;
let folder: string;

beforeAll(async () => {
  stub = await startBuyerStub({ buyers: { west: SECRET, texas: SECRET, paused: SECRET } });
  postgres = await freshPostgresUrl();
  folder = mkdtempSync(path.join(os.tmpdir(), "consent-disclosure-"));
  const buyersFile = path.join(folder, "buyers.json");
  const buyer = (id: string, name: string, more: Record<string, unknown>) => ({ id, name, url: stub.url(id), secret: SECRET, price: 12, ...more });
  writeFileSync(
    buyersFile,
    JSON.stringify({
      buyers: [
        buyer("west", "West Coast Auto Insurance", { states: ["CA", "OR"] }),
        buyer("texas", "Lone Star Auto Insurance", { states: ["TX"] }),
        buyer("paused", "Paused Insurance Agency", { status: "paused" }),
      ],
      sources: [],
    }),
  );
  harness = await startHarness({ DATABASE_URL: postgres.url, BUYERS_FILE: buyersFile, LEAD_MIN_FILL_MS: "300", CSRF_SECRET: "d".repeat(40) });
}, 90_000);

afterAll(async () => {
  await harness?.close();
  await stub?.stop();
  await postgres?.drop();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

/** The statuses of the form's asks for its words (POST /api/leads/disclosure), per page. */
const asks = new WeakMap<Page, number[]>();

/** The form at `zip`, filled (one car, one driver) up to the contact screen. */
async function reachContact(zip: string, place: string): Promise<Page> {
  const context = await harness.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  const statuses: number[] = [];
  asks.set(page, statuses);
  page.on("response", (response) => {
    if (new URL(response.url()).pathname === "/api/leads/disclosure") statuses.push(response.status());
  });
  await page.goto(harness.url(`/rapidfire.html?zip=${zip}&sid=a1&tid=words`));
  await page.getByText(`Quotes for ${place} ${zip}.`).waitFor();
  await fillQuote(page, { vehicles: 1, drivers: 1 });
  return page;
}

const label = (page: Page) => page.locator("#rf-field-consent label");
const agreed = (names: string) => `I agree that ${site.legalEntity} and ${names}, and licensed insurance agents acting for them, may call and text me`;

describe("the consent words on the contact screen", () => {
  it("name exactly the buyer serving California, and a request under them goes to it", async () => {
    const page = await reachContact("90210", "Beverly Hills, CA");
    await expect.poll(() => label(page).textContent(), { timeout: 10_000 }).toContain(agreed("West Coast Auto Insurance"));
    const words = (await label(page).textContent()) ?? "";
    for (const name of ["Lone Star Auto Insurance", "Paused Insurance Agency", ...carriers.map((carrier) => carrier.name)]) expect(words).not.toContain(name);
    expect(words).toContain("Some of these companies may first see my answers");

    await fillContact(page);
    await page.getByRole("checkbox").check();
    await page.getByRole("button", { name: "Get My Quotes" }).click();
    await page.getByRole("heading", { name: "Thank you, Ana!" }).waitFor();
    await expect.poll(() => stub.received("west").length, { timeout: 15_000 }).toBeGreaterThanOrEqual(1);
    expect(stub.received("texas")).toHaveLength(0);
    expect(stub.received("paused")).toHaveLength(0);
  });

  it("name exactly the buyer serving Texas for a Dallas ZIP", async () => {
    const page = await reachContact("75201", "Dallas, TX");
    await expect.poll(() => label(page).textContent(), { timeout: 10_000 }).toContain(agreed("Lone Star Auto Insurance"));
    const words = (await label(page).textContent()) ?? "";
    for (const name of ["West Coast Auto Insurance", "Paused Insurance Agency", ...carriers.map((carrier) => carrier.name)]) expect(words).not.toContain(name);
  });

  it("name QuoteRidge alone where no buyer serves the state", async () => {
    const page = await reachContact("10001", "New York, NY");
    // The same words as the page started with: wait for the server's answer before reading them.
    await expect.poll(() => asks.get(page), { timeout: 10_000 }).toEqual([200]);
    const words = (await label(page).textContent()) ?? "";
    expect(words).toContain(`I agree that ${site.legalEntity} may call and text me`);
    for (const name of ["West Coast Auto Insurance", "Lone Star Auto Insurance", "Paused Insurance Agency", "licensed insurance agents", ...carriers.map((carrier) => carrier.name)]) expect(words).not.toContain(name);
  });
});
