/**
 * The quote form in a real Chromium, inside the quote page's frame, on a 375×740 phone screen:
 * from the landing page with a campaign to a stored lead with two vehicles, two drivers and its
 * consent record (issue 13); field messages focused and announced, Back keeping answers, a
 * vehicle removed, the VIN filling the car in, answers kept across a reload, keyboard-only use,
 * no horizontal scroll on any screen, and no console errors or CSP violations. The server runs on PostgreSQL so the test can read the row.
 * And the page as it arrives: the first step's questions are in rapidfire.html itself, readable
 * without JavaScript, and the script adopts them, keeping what a quick visitor typed first.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, Frame, FrameLocator, Page, Route } from "playwright";
import { collectProblems, expectNoProblems, isSandboxNote, startHarness, waitForHydration, type Harness, type ProblemCollector } from "./helpers";
import { freshPostgresUrl, type FreshPostgres } from "../support/databases";
import { openDatabase, type Database } from "../../server/db/database";
import { leadRepository } from "../../server/db/leads";
import { TEST_LINK_PARAM, testLinkToken } from "../../server/leads/test-link";
import { CONSENT_DISCLOSURE, CONSENT_DISCLOSURE_SHA256 } from "../../shared/consent-disclosure";
import { LEAD_REFERENCE_PATTERN } from "../../shared/lead/api";
import { site } from "../../shared/site";
import { LEGAL_LINKS } from "../../shared/routes";
import { httpGet } from "../../tools/http-get";
import { measureJsWeight } from "../../tools/js-weight";
import { SAVED_KEY } from "../../client/quote-form/saved-answers";
import { DRIVERS, VEHICLES, fillCar, fillContact, fillHistory, fillInsurance, fillPerson, fillQuote, fillUse, heading, next, type FormScope } from "./quote-form-fill";

const PHONE = { width: 375, height: 740 };
let harness: Harness;
let postgres: FreshPostgres;
let db: Database;
/** The servers' CSRF_SECRET: ops test links are signed with it. */
const SITE_SECRET = "e2e-quote-form-site-secret-0123456789abcdef";

beforeAll(async () => {
  postgres = await freshPostgresUrl();
  // A short minimum fill time: the browser fills the form faster than a person would.
  harness = await startHarness({ DATABASE_URL: postgres.url, LEAD_MIN_FILL_MS: "300", CSRF_SECRET: SITE_SECRET });
  db = await openDatabase({ DATABASE_URL: postgres.url, DATA_DIR: "unused" });
}, 90_000);

afterAll(async () => {
  await db?.close();
  await harness?.close();
  await postgres?.drop();
});

interface Visit {
  context: BrowserContext;
  page: Page;
  problems: ProblemCollector;
  form: FrameLocator;
  frame(): Frame;
}

/** From /zipcode?sid=a1&tid=b2, enter a ZIP and land on the quote page with the form framed (or open the quote page at `quotePage`). */
async function arrive(zip = "90210", quotePage?: string): Promise<Visit> {
  const context = await harness.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  const problems = await collectProblems(context, page);
  if (quotePage) {
    await page.goto(harness.url(quotePage));
  } else {
    await page.goto(harness.url("/zipcode?sid=a1&tid=b2"));
    await waitForHydration(page, "#zip");
    await page.locator("#zip").fill(zip);
    await page.getByRole("button", { name: "Get Your Quote" }).click();
    await page.waitForURL((url) => url.pathname === "/");
  }
  const form = page.frameLocator("iframe.quote-frame");
  await form.locator("#rf-form").waitFor();
  const frame = () => page.frames().find((candidate) => new URL(candidate.url()).pathname === "/rapidfire.html")!;
  return { context, page, problems, form, frame };
}

/** The id of the focused element inside the frame. */
const focusedId = (visit: Visit) => visit.frame().evaluate(() => document.activeElement?.id ?? "");

async function expectNoHorizontalScroll(visit: Visit): Promise<void> {
  const widths = await visit.frame().evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
  expect(widths.scroll, "the form scrolls sideways").toBeLessThanOrEqual(widths.client);
  const page = await visit.page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
  expect(page.scroll).toBeLessThanOrEqual(page.client);
}

/** The first screen's heading, and any screen's by its title. */
const firstScreen = (form: FormScope) => heading(form, "Which car?");

describe("the quote form on a phone, from the landing page with a campaign", () => {
  it("completes a 2-vehicle, 2-driver quote in the frame, with no sideways scroll on any screen, and stores every answer with sid, tid, place and consent", async () => {
    const visit = await arrive();
    const { form, page } = visit;
    await form.getByText("Quotes for Beverly Hills, CA 90210.").waitFor();
    await expect(form.getByRole("progressbar").getAttribute("aria-valuenow")).resolves.toBe("1");
    const startedAt = Date.now();

    // The model field suggests the vehicle catalog's models of the chosen year and make.
    await fillCar(form, VEHICLES[0]!);
    await expect.poll(() => form.locator("#rf-model-options option").evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value))).toEqual(
      expect.arrayContaining(["Camry", "Corolla", "RAV4"]),
    );
    await fillQuote(form, { vehicles: 2, drivers: 2 }, () => expectNoHorizontalScroll(visit));
    await expect(form.getByRole("progressbar").getAttribute("aria-valuenow")).resolves.toBe("3");
    await fillContact(form);
    // The consent words show back the number typed, as it will be called (issue 13).
    await expect(form.locator(".rf-consent-phone").textContent()).resolves.toBe("(415) 555-0134");
    await expect(form.locator(".rf-consent label").textContent()).resolves.toContain("Ticking this box is my electronic signature.");
    const consent = form.getByRole("checkbox");
    await expect(consent.isChecked(), "the consent box starts unticked").resolves.toBe(false);
    await expect(form.locator(".rf-consent a[href='/terms-of-use']").count()).resolves.toBe(1);
    await expect(form.locator(".rf-consent a[href='/privacy-policy']").count()).resolves.toBe(1);
    await consent.check();
    await expectNoHorizontalScroll(visit);
    await form.getByRole("button", { name: "Get My Quotes" }).click();

    await form.getByRole("heading", { name: "Thank you, Ana!" }).waitFor();
    // The closing note's "median time to complete the flow" comes from this line (no timed assertion).
    console.log(`quote-form flow: 2 vehicles, 2 drivers completed in ${Date.now() - startedAt} ms`);
    const reference = (await form.locator(".rf-reference").textContent()) ?? "";
    expect(reference).toMatch(LEAD_REFERENCE_PATTERN);
    await expect(form.getByText("What happens next").count()).resolves.toBe(1);
    await expect(form.getByText("(415) 555-0134").count()).resolves.toBe(1);
    await expectNoHorizontalScroll(visit);

    // The visit id the landing page minted, carried through /go and the quote page into the form's address.
    const vid = new URL(visit.frame().url()).searchParams.get("vid")!;
    expect(vid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const visitColumn = await db.builder.selectFrom("leads").select("visitId").where("reference", "=", reference).executeTakeFirst();
    expect(visitColumn?.visitId).toBe(vid);

    const lead = await leadRepository(db).findByReference(reference);
    expect(lead).toMatchObject({
      sid: "a1",
      tid: "b2",
      test: false,
      zip: "90210",
      city: "Beverly Hills",
      state: "CA",
      vehicles: [
        { year: 2020, make: "Toyota", model: "Camry", ownership: "finance", primaryUse: "commute", annualMileage: "10k_15k" },
        { year: 2018, make: "Ford", model: "F-150", ownership: "own", primaryUse: "business", annualMileage: "over_20k" },
      ],
      drivers: [
        { firstName: "Ana", lastName: "Diaz-Ortega", dateOfBirth: "1990-04-15", relationship: "self", maritalStatus: "married", licenseStatus: "active", ageFirstLicensed: 16, accidents: 0, tickets: 0, claims: 0, dui: false, sr22: false },
        { firstName: "Luis", lastName: "Diaz", dateOfBirth: "1988-11-02", relationship: "spouse", maritalStatus: "married", licenseStatus: "active", ageFirstLicensed: 17, accidents: 1, tickets: 0, claims: 0, dui: false, sr22: false },
      ],
      vehicleMake: "Toyota",
      firstName: "Ana",
      currentlyInsured: true,
      currentInsurer: "GEICO",
      insuredFor: "1_3y",
      coverage: "standard",
      residence: "own",
      email: "ana.diaz@example.com",
      phone: "+14155550134",
      duplicateOf: null,
    });
    expect(lead?.consent).toMatchObject({
      disclosureVersion: CONSENT_DISCLOSURE.version,
      disclosureSha256: CONSENT_DISCLOSURE_SHA256,
      checkboxChecked: true,
      // The form's own address and the page that framed it, both with the campaign.
      formUrl: harness.url(`/rapidfire.html?zip=90210&sid=a1&tid=b2&vid=${vid}`),
      pageUrl: harness.url(`/?zip=90210&sid=a1&tid=b2&vid=${vid}`),
    });
    expect(lead?.consent?.userAgent).toMatch(/Chrome/);
    expect(lead?.consent?.ip).toMatch(/127\.0\.0\.1$/);

    // The analysts' funnel, in the server's log: every screen completed, with its step.
    const funnel = () => harness.server.logs.filter((line) => line.campaign && (line.campaign as { tid?: string }).tid === "b2");
    // "Add another" is not a completion of the list: its Next is.
    const screens = ["vehicle", "vehicle-use", "vehicle", "vehicle-use", "vehicles", "driver", "driver-history", "driver", "driver-history", "drivers", "insurance", "contact"];
    await expect.poll(() => funnel().filter((line) => line.event === "form_step_completed").map((line) => line.screen), { timeout: 10_000 }).toEqual(screens);
    expect(funnel().filter((line) => line.event === "form_step_completed").map((line) => line.step)).toEqual([1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3]);
    for (const name of ["quote_page_view", "form_started", "lead_submitted"]) {
      expect(funnel().filter((line) => line.event === name).length, name).toBeGreaterThanOrEqual(1);
    }
    expect(funnel().find((line) => line.event === "lead_submitted")).toMatchObject({ reference, duplicate: false, campaign: { sid: "a1", tid: "b2", vid } });
    expect(JSON.stringify(harness.server.logs)).not.toMatch(/Diaz-Ortega|ana\.diaz@example\.com|4155550134|123 Main St|1990-04-15/);

    await expectNoProblems(page, visit.problems, isSandboxNote);
    await visit.context.close();
  });

  it("shows each problem, focuses the first and announces it; Back and a failed screen keep every answer", async () => {
    const visit = await arrive();
    const { form } = visit;
    await form.getByText("Quotes for Beverly Hills, CA 90210.").waitFor();

    // Next with nothing chosen: messages on the screen's fields, focus on the first.
    await next(form);
    await expect.poll(() => focusedId(visit)).toBe("rf-year");
    await expect(form.locator("#rf-year-error").textContent()).resolves.toBe("Choose the car's model year.");
    await expect(form.getByLabel("Year", { exact: true }).getAttribute("aria-invalid")).resolves.toBe("true");
    await expect(form.getByLabel("Year", { exact: true }).getAttribute("aria-describedby")).resolves.toContain("rf-year-error");
    await expect.poll(() => form.getByRole("status").textContent()).toMatch(/answers need attention/);

    // A message on leaving a field that was filled in wrongly, gone once it is fixed.
    await form.getByLabel("Model", { exact: true }).fill("!!");
    await form.getByLabel("Model", { exact: true }).blur();
    await expect.poll(() => form.locator("#rf-model-error").textContent()).toMatch(/Enter the model/);
    await form.getByLabel("Model", { exact: true }).fill("Camry");
    await expect.poll(() => form.locator("#rf-model-error").textContent()).toBe("");

    // "Why we ask" opens with a tap and says why.
    await form.locator("#rf-field-year summary").click();
    await expect(form.locator("#rf-field-year details p").isVisible()).resolves.toBe(true);

    await fillCar(form, VEHICLES[0]!);
    await next(form);
    await fillUse(form, VEHICLES[0]!);
    await next(form);
    await heading(form, "Your vehicles").waitFor();
    await next(form);
    await heading(form, "About you").waitFor();

    // Under 18: refused on blur with the age message.
    const eighteenYearsAgoTomorrow = new Date();
    eighteenYearsAgoTomorrow.setFullYear(eighteenYearsAgoTomorrow.getFullYear() - 18);
    eighteenYearsAgoTomorrow.setDate(eighteenYearsAgoTomorrow.getDate() + 2);
    const typed = `${String(eighteenYearsAgoTomorrow.getMonth() + 1).padStart(2, "0")}/${String(eighteenYearsAgoTomorrow.getDate()).padStart(2, "0")}/${eighteenYearsAgoTomorrow.getFullYear()}`;
    await form.getByLabel("First name").fill("Sam");
    await form.getByLabel("Date of birth").fill(typed);
    await form.getByLabel("Date of birth").blur();
    await expect.poll(() => form.locator("#rf-dateOfBirth-error").textContent()).toBe("You must be 18 or older to request quotes.");

    // Back through the vehicle screens: every answer still there; forward again: so is the driver's.
    await form.getByRole("button", { name: "Back" }).click();
    await heading(form, "Your vehicles").waitFor();
    await expect(form.locator(".rf-record-name").allTextContents()).resolves.toEqual(["2020 Toyota Camry"]);
    await form.getByRole("button", { name: "Back" }).click();
    await expect(form.getByLabel("Financing it").isChecked()).resolves.toBe(true);
    await form.getByRole("button", { name: "Back" }).click();
    await firstScreen(form).waitFor();
    await expect(form.getByLabel("Model", { exact: true }).inputValue()).resolves.toBe("Camry");
    await expect(form.getByLabel("Make", { exact: true }).inputValue()).resolves.toBe("Toyota");
    for (let i = 0; i < 3; i += 1) await next(form);
    await heading(form, "About you").waitFor();
    await expect(form.getByLabel("First name").inputValue()).resolves.toBe("Sam");

    await fillPerson(form, DRIVERS[0]!);
    await next(form);
    await fillHistory(form, DRIVERS[0]!);
    await next(form);
    await next(form);
    await fillInsurance(form);
    await next(form);
    await fillContact(form);

    // Sending without consent: the box's message, focused; nothing typed is lost.
    await form.getByRole("button", { name: "Get My Quotes" }).click();
    await expect.poll(() => focusedId(visit)).toBe("rf-consent");
    await expect(form.locator("#rf-consent-error").textContent()).resolves.toMatch(/tick the box/);
    await expect(form.getByLabel("Email address", { exact: true }).inputValue()).resolves.toBe("Ana.Diaz@Example.com");
    await expectNoHorizontalScroll(visit);
    await expectNoProblems(visit.page, visit.problems, isSandboxNote);
    await visit.context.close();
  });

  it("removes a vehicle from the list, fills a car in from its VIN, and keeps every answer across a reload; from an ops test link, the lead is a test", async () => {
    // An ops test link (npm run leads -- test-link) opens the quote page; its quote request is a test lead.
    const visit = await arrive("90210", `/?zip=90210&sid=a1&tid=b2&${TEST_LINK_PARAM}=${testLinkToken(SITE_SECRET, new Date(Date.now() + 3_600_000))}`);
    const { form, page } = visit;
    await form.getByText("Quotes for Beverly Hills, CA 90210.").waitFor();
    await fillCar(form, VEHICLES[0]!);
    await next(form);
    await fillUse(form, VEHICLES[0]!);
    await next(form);

    // The second vehicle by its VIN (a real one: 2003 Honda Accord), decoded by the catalog.
    await form.getByRole("button", { name: "Add another vehicle" }).click();
    await heading(form, "Vehicle 2: Which car?").waitFor();
    await form.getByLabel("VIN (optional)").fill("1HGCM82633A004352");
    await expect.poll(() => form.getByLabel("Model", { exact: true }).inputValue()).toBe("Accord");
    await expect(form.getByLabel("Year", { exact: true }).inputValue()).resolves.toBe("2003");
    await expect(form.getByLabel("Make", { exact: true }).inputValue()).resolves.toBe("Honda");
    await expect.poll(() => form.getByRole("status").textContent()).toBe("Filled in from the VIN: 2003 Honda Accord.");
    await next(form);
    await fillUse(form, VEHICLES[1]!);
    await next(form);
    await form.getByRole("button", { name: "Add another vehicle" }).click();
    await fillCar(form, VEHICLES[2]!);
    await next(form);
    await fillUse(form, VEHICLES[2]!);
    await next(form);
    await expect(form.locator(".rf-record-name").allTextContents()).resolves.toEqual(["2020 Toyota Camry", "2003 Honda Accord", "2015 Honda Civic"]);

    // Remove the first: gone from the list, focus on the next one's Edit button.
    await form.getByRole("button", { name: "Remove 2020 Toyota Camry" }).click();
    await expect(form.locator(".rf-record-name").allTextContents()).resolves.toEqual(["2003 Honda Accord", "2015 Honda Civic"]);
    await expect.poll(() => visit.frame().evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Edit 2003 Honda Accord");
    await expect.poll(() => form.getByRole("status").textContent()).toBe("Removed 2020 Toyota Camry.");

    await next(form);
    await fillPerson(form, DRIVERS[0]!);

    // A reload of the tab: the same screen, every answer back (the lists too).
    await visit.frame().evaluate(() => window.location.reload());
    await page.frameLocator("iframe.quote-frame").locator("#rf-form").waitFor();
    const reloaded = page.frameLocator("iframe.quote-frame");
    await heading(reloaded, "About you").waitFor();
    await expect(reloaded.getByLabel("First name").inputValue()).resolves.toBe("Ana");
    await expect(reloaded.getByLabel("Date of birth").inputValue()).resolves.toBe("04/15/1990");
    await reloaded.getByRole("button", { name: "Back" }).click();
    await expect(reloaded.locator(".rf-record-name").allTextContents()).resolves.toEqual(["2003 Honda Accord", "2015 Honda Civic"]);
    // Kept in the tab's sessionStorage only: nothing in localStorage or cookies but the CSRF token.
    await expect(visit.frame().evaluate(() => window.localStorage.length)).resolves.toBe(0);
    await expect(visit.frame().evaluate(() => document.cookie)).resolves.not.toMatch(/Accord|Ana/);

    await reloaded.getByRole("button", { name: "Next" }).click();
    await next(reloaded);
    await fillHistory(reloaded, DRIVERS[0]!);
    await next(reloaded);
    await next(reloaded);
    await fillInsurance(reloaded);
    await next(reloaded);
    await fillContact(reloaded);
    await reloaded.getByRole("checkbox").check();
    await reloaded.getByRole("button", { name: "Get My Quotes" }).click();
    await reloaded.getByRole("heading", { name: "Thank you, Ana!" }).waitFor();
    const reference = (await reloaded.locator(".rf-reference").textContent()) ?? "";
    const lead = await leadRepository(db).findByReference(reference);
    expect(lead?.vehicles.map((vehicle) => [vehicle.year, vehicle.make, vehicle.model, vehicle.vin])).toEqual([
      [2003, "Honda", "Accord", "1HGCM82633A004352"],
      [2015, "Honda", "Civic", undefined],
    ]);
    expect(lead?.drivers).toHaveLength(1);
    expect(lead?.test).toBe(true);
    // Sent: the saved answers are gone.
    await expect(visit.frame().evaluate((key) => window.sessionStorage.getItem(key), SAVED_KEY)).resolves.toBeNull();
    await visit.context.close();
  });

  it("asks again, politely, for a ZIP code that does not exist, and takes a corrected one", async () => {
    const context = await harness.newContext({ viewport: PHONE });
    const page = await context.newPage();
    await page.goto(harness.url("/?zip=99999&sid=a1"));
    const form = page.frameLocator("iframe.quote-frame");
    await expect.poll(() => form.locator("#rf-zip-error").textContent()).toBe("We could not find ZIP code 99999. Please check it and enter it again.");
    await expect(form.getByLabel("ZIP code where the car is kept").isVisible()).resolves.toBe(true);
    await form.getByLabel("ZIP code where the car is kept").fill("10001");
    await fillCar(form, VEHICLES[0]!);
    await next(form);
    await heading(form, "How is it used?").waitFor();
    await form.getByRole("button", { name: "Back" }).click();
    await expect(form.getByText("Quotes for New York, NY 10001.").count()).resolves.toBe(1);
    await context.close();
  });

  it("works with the keyboard alone: Tab order through the first screen, choices by keys, Enter for Next", async () => {
    const visit = await arrive();
    const { form, page } = visit;
    await form.getByText("Quotes for Beverly Hills, CA 90210.").waitFor();
    await form.getByRole("button", { name: "Change ZIP code" }).focus();
    const order: string[] = [];
    for (let i = 0; i < 7; i += 1) {
      await page.keyboard.press("Tab");
      order.push(await visit.frame().evaluate(() => { const active = document.activeElement as HTMLInputElement | null; return active?.name || active?.tagName.toLowerCase() || ""; }));
    }
    // The hidden ZIP field and the honeypot are skipped; each "Why we ask" follows its question.
    expect(order).toEqual(["year", "summary", "make", "summary", "model", "summary", "vin"]);

    await form.getByLabel("Year", { exact: true }).focus();
    await page.keyboard.press("ArrowDown"); // the newest year
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    await page.keyboard.type("Toy"); // type-ahead in the make list
    await page.keyboard.press("Tab"); // its "Why we ask"
    await page.keyboard.press("Tab");
    await page.keyboard.type("Corolla");
    await page.keyboard.press("Enter");
    await heading(form, "How is it used?").waitFor();
    await expect.poll(() => visit.frame().evaluate(() => document.activeElement?.tagName)).toBe("H2");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Space"); // the first ownership choice
    await expect(form.getByLabel("Own it").isChecked()).resolves.toBe(true);
    await form.getByRole("button", { name: "Back" }).click();
    await expect(form.getByLabel("Make", { exact: true }).inputValue()).resolves.toBe("Toyota");
    await visit.context.close();
  });
});

/** The first screen's questions, by the names a visitor (and a screen reader) finds them. */
const STEP_ONE_QUESTIONS = ["ZIP code where the car is kept", "Year", "Make", "Model", "VIN (optional)"];

describe("rapidfire.html as it arrives, before and without its script", () => {
  it("shows the first screen's questions, labelled and in order, with JavaScript off, and the phone note", async () => {
    const context = await harness.newContext({ viewport: PHONE, javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(harness.url("/rapidfire.html?zip=90210&sid=a1&tid=b2"));
    await expect(firstScreen(page).isVisible()).resolves.toBe(true);
    await expect(page.locator("#rf-screen-vehicle .rf-step-of").textContent()).resolves.toBe("Step 1 of 3");
    for (const name of STEP_ONE_QUESTIONS) await expect(page.getByLabel(name, { exact: true }).isVisible(), name).resolves.toBe(true);
    await expect(page.getByLabel("Year", { exact: true }).locator("option").count()).resolves.toBeGreaterThan(20);
    // Only the first screen shows; the later ones wait for the script.
    await expect(page.getByLabel("First name").isVisible()).resolves.toBe(false);
    // (Playwright's text locators skip <noscript>, so the note is found by its class.)
    const note = page.locator(".rf-noscript");
    await expect(note.isVisible()).resolves.toBe(true);
    await expect(note.textContent()).resolves.toContain(site.phone);
    // Nothing to send without the script, so no button to send with.
    await expect(page.getByRole("button", { name: "Next" }).isDisabled()).resolves.toBe(true);

    // Keyboard: the notice at collection's two links first (before any question), the honeypot
    // skipped, then the questions in the order they read.
    const order: string[] = [];
    for (let i = 0; i < 10; i += 1) {
      await page.keyboard.press("Tab");
      const focused = page.locator(":focus");
      order.push((await focused.getAttribute("name")) ?? (await focused.getAttribute("href")) ?? (await focused.evaluate((element) => element.tagName.toLowerCase())));
    }
    expect(order).toEqual(["/privacy-policy#notice-at-collection", "/do-not-sell", "zip", "summary", "year", "summary", "make", "summary", "model", "summary"]);
    await context.close();
  });

  it("keeps what was typed before the script loaded, adopts the same elements, and the request still goes through", async () => {
    const context = await harness.newContext({ viewport: PHONE });
    const page = await context.newPage();
    const problems = await collectProblems(context, page);
    // The form's script is held back until the visitor has answered the first screen.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let held = 0;
    await context.route(/\/assets\/rapidfire-[\w-]+\.js$/, async (route: Route) => {
      held += 1;
      await released;
      await route.continue();
    });
    await page.goto(harness.url("/rapidfire.html?zip=90210&sid=a1&tid=early-typist"), { waitUntil: "commit" });
    await page.getByLabel("Model", { exact: true }).waitFor();
    const stepOne = await page.locator("#rf-screen-vehicle").elementHandle();
    await fillCar(page, VEHICLES[0]!);
    await expect(page.getByRole("button", { name: "Next" }).isDisabled()).resolves.toBe(true);
    expect(held, "the script was still on its way").toBe(1);

    release();
    await expect.poll(() => page.getByRole("button", { name: "Next" }).isEnabled()).toBe(true);
    await page.getByText("Quotes for Beverly Hills, CA 90210.").waitFor();
    // The same screen element, still in the page: enhanced, not rebuilt.
    await expect(page.evaluate((element) => element === document.getElementById("rf-screen-vehicle") && element.isConnected, stepOne)).resolves.toBe(true);
    await expect(page.getByLabel("Model", { exact: true }).inputValue()).resolves.toBe("Camry");
    await expect(page.getByLabel("Make", { exact: true }).inputValue()).resolves.toBe("Toyota");
    await expect(page.getByLabel("Year", { exact: true }).inputValue()).resolves.toBe("2020");

    await next(page);
    await fillUse(page, VEHICLES[0]!);
    await next(page);
    await next(page);
    await fillPerson(page, DRIVERS[0]!);
    await next(page);
    await fillHistory(page, DRIVERS[0]!);
    await next(page);
    await next(page);
    await fillInsurance(page);
    await next(page);
    await fillContact(page);
    await page.getByRole("checkbox").check();
    await page.getByRole("button", { name: "Get My Quotes" }).click();
    await page.getByRole("heading", { name: "Thank you, Ana!" }).waitFor();
    const reference = (await page.locator(".rf-reference").textContent()) ?? "";
    await expect(leadRepository(db).findByReference(reference)).resolves.toMatchObject({ tid: "early-typist", vehicleYear: 2020, vehicleMake: "Toyota", vehicleModel: "Camry", ownership: "finance" });
    // The answers came before the script: the funnel still has the form's start, once.
    const started = () => harness.server.logs.filter((line) => line.event === "form_started" && (line.campaign as { tid?: string } | undefined)?.tid === "early-typist");
    await expect.poll(() => started().length).toBe(1);
    await expectNoProblems(page, problems);
    await context.close();
  });

  it("loads at most 35 KB of JavaScript (gzip) for the form", async () => {
    const page = await httpGet(harness.url("/rapidfire.html"));
    const weight = await measureJsWeight(harness.server.origin, "/rapidfire.html", page.body.toString("utf8"));
    expect(weight.atLoad.files.length).toBeGreaterThan(0);
    expect(weight.inlineScripts.count).toBe(0);
    expect(weight.atLoad.gzipBytes).toBeLessThanOrEqual(35 * 1024);
  });
});

describe("the notice at collection and the legal links (issue 14)", () => {
  it("opens the policy's notice section in a new tab from the form, keeping the answers, and the links under the frame lead to the legal pages", async () => {
    const visit = await arrive();
    await fillCar(visit.form, VEHICLES[0]!);
    const notice = visit.form.locator(".rf-collection-notice");
    await expect(notice.isVisible()).resolves.toBe(true);
    const opened = visit.context.waitForEvent("page");
    await notice.getByRole("link", { name: "Notice at collection" }).click();
    const policy = await opened;
    await policy.waitForLoadState("load");
    expect(new URL(policy.url()).pathname + new URL(policy.url()).hash).toBe("/privacy-policy#notice-at-collection");
    await policy.locator("#notice-at-collection").waitFor();
    await expect(policy.locator("#notice-at-collection").textContent()).resolves.toBe("Notice at Collection");
    const box = await policy.locator("#notice-at-collection").boundingBox();
    expect(box, "the notice's heading is on screen").not.toBeNull();
    expect(box!.y).toBeGreaterThanOrEqual(0);
    expect(box!.y).toBeLessThan(PHONE.height);
    await policy.close();
    // The form is still where the visitor left it.
    await expect(visit.form.getByLabel("Model", { exact: true }).inputValue()).resolves.toBe(VEHICLES[0]!.model);
    // The frame's own legal links, at the end of the form page, open in a new tab too.
    const frameLinks = visit.form.locator('body > footer nav[aria-label="Legal"] a');
    await expect(frameLinks.count()).resolves.toBe(LEGAL_LINKS.length);
    await expect(frameLinks.first().getAttribute("target")).resolves.toBe("_blank");
    // Under the frame, the quote page's own links navigate the page.
    await waitForHydration(visit.page, "footer.quote-footer a");
    await visit.page.locator("footer.quote-footer").getByRole("link", { name: "Do Not Sell or Share My Personal Information" }).click();
    await visit.page.waitForURL((url) => url.pathname === "/do-not-sell");
    // A client-side navigation: the address changes before the lazy page has rendered, so wait for its heading.
    await visit.page.getByRole("heading", { level: 1, name: "Do Not Sell or Share My Personal Information", exact: true }).waitFor();
    await expectNoProblems(visit.page, visit.problems, isSandboxNote);
    await visit.context.close();
  });
});
