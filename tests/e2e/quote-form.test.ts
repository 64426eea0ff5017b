/**
 * The quote form in a real Chromium, inside the quote page's frame, on a 390×664 phone screen with touch:
 * from the landing page with a campaign to a stored lead with two vehicles, two drivers and its
 * consent record (issue 13); field messages focused and announced, Back keeping answers, a
 * vehicle removed, the VIN filling the car in, answers kept across a reload, keyboard-only use,
 * no horizontal scroll on any screen, and no console errors or CSP violations. The server runs on PostgreSQL so the test can read the row.
 * And the page as it arrives: the first step's questions are in rapidfire.html itself, readable
 * without JavaScript, and the script adopts them, keeping what a quick visitor typed first.
 */
import { describe, expect, it } from "vitest";
import type { BrowserContext, Frame, FrameLocator, Page, Route } from "playwright";
import { collectProblems, expectNoProblems, isSandboxNote, siteOnFreshPostgres, waitForHydration, type ProblemCollector } from "./helpers";
import { leadRepository } from "../../server/db/leads";
import { TEST_LINK_PARAM, testLinkToken } from "../../server/leads/test-link";
import { CONSENT_DISCLOSURE, CONSENT_DISCLOSURE_SHA256 } from "../../shared/consent-disclosure";
import { LEAD_REFERENCE_PATTERN } from "../../shared/lead/api";
import { site } from "../../shared/site";
import { LEGAL_LINKS } from "../../shared/routes";
import { httpGet } from "../../tools/http-get";
import { measureJsWeight } from "../../tools/js-weight";
import { SAVED_KEY } from "../../client/quote-form/saved-answers";
import { DRIVERS, VEHICLES, answer, fillCar, fillContact, fillHistory, fillInsurance, fillPerson, fillQuote, fillUse, heading, next, onScreen, screenShown, type FormScope } from "./quote-form-fill";

/** A phone with its browser bars (issue 32). */
const PHONE = { width: 390, height: 664 };
/** The servers' CSRF_SECRET: ops test links are signed with it. */
const SITE_SECRET = "e2e-quote-form-site-secret-0123456789abcdef";

// A short minimum fill time: a browser fills the form faster than a person would.
const stored = siteOnFreshPostgres({ LEAD_MIN_FILL_MS: "300", CSRF_SECRET: SITE_SECRET });

interface Visit {
  context: BrowserContext;
  page: Page;
  problems: ProblemCollector;
  form: FrameLocator;
  frame(): Frame;
}

/** From /zipcode?sid=a1&tid=b2, enter a ZIP and land on the quote page with the form framed (or open the quote page at `quotePage`). */
async function arrive(zip = "90210", quotePage?: string): Promise<Visit> {
  const context = await stored.harness.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  const problems = await collectProblems(context, page);
  if (quotePage) {
    await page.goto(stored.harness.url(quotePage));
  } else {
    await page.goto(stored.harness.url("/zipcode?sid=a1&tid=b2"));
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
const firstScreen = (form: FormScope) => heading(form, "What year is your car?");

describe("the quote form on a phone, from the landing page with a campaign", () => {
  it("completes a 2-vehicle, 2-driver quote in the frame, with no sideways scroll on any screen, and stores every answer with sid, tid, place and consent", async () => {
    const visit = await arrive();
    const { form, page } = visit;
    await form.getByText("Quotes for Beverly Hills, CA 90210.").waitFor();
    await expect(form.getByRole("progressbar").getAttribute("aria-valuetext")).resolves.toBe("Question 1 of 22");
    const startedAt = Date.now();

    // The model screen offers the vehicle catalog's models of the chosen year and make, as taps.
    await answer(form, "vehicle-year", "year", VEHICLES[0]!.year);
    await answer(form, "vehicle-make", "make", VEHICLES[0]!.make);
    await expect.poll(() => form.locator("#rf-model-options button").allTextContents()).toEqual(expect.arrayContaining(["Camry", "Corolla"]));
    await form.getByRole("button", { name: "Back" }).click();
    await form.getByRole("button", { name: "Back" }).click();
    await fillQuote(form, { vehicles: 2, drivers: 2 }, () => expectNoHorizontalScroll(visit));
    // Two cars, two drivers (the second asked how they are related), insured: 6 + 6 + 1 + 10 + 11 + 1 + 5.
    await expect(form.getByRole("progressbar").getAttribute("aria-valuetext")).resolves.toBe("Question 40 of 40");
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
    const visitColumn = await stored.db.builder.selectFrom("leads").select("visitId").where("reference", "=", reference).executeTakeFirst();
    expect(visitColumn?.visitId).toBe(vid);

    const lead = await leadRepository(stored.db).findByReference(reference);
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
      formUrl: stored.harness.url(`/rapidfire.html?zip=90210&sid=a1&tid=b2&vid=${vid}`),
      pageUrl: stored.harness.url(`/?zip=90210&sid=a1&tid=b2&vid=${vid}`),
    });
    expect(lead?.consent?.userAgent).toMatch(/Chrome/);
    expect(lead?.consent?.ip).toMatch(/127\.0\.0\.1$/);

    // The analysts' funnel, in the server's log: every screen completed, with its step.
    const funnel = () => stored.harness.server.logs.filter((line) => line.campaign && (line.campaign as { tid?: string }).tid === "b2");
    // "Add another" is not a completion of the list: its Next is. One event per question answered.
    const car = ["vehicle-year", "vehicle-make", "vehicle-model", "vehicle-ownership", "vehicle-use", "vehicle-mileage"];
    const record = ["driver-accidents", "driver-tickets", "driver-claims", "driver-dui", "driver-sr22"];
    const driver = (other: boolean) => ["driver-name", "driver-birth", ...(other ? ["driver-relationship"] : []), "driver-marital", "driver-license", "driver-licensed-age", ...record];
    // (The first car's year and make were answered twice: the test went back from the model screen.)
    const screens = ["vehicle-year", "vehicle-make", ...car, ...car, "vehicles", ...driver(false), ...driver(true), "drivers", "insurer", "insured-for", "coverage", "residence", "contact"];
    await expect.poll(() => funnel().filter((line) => line.event === "form_step_completed").map((line) => line.screen), { timeout: 10_000 }).toEqual(screens);
    expect(funnel().filter((line) => line.event === "form_step_completed").map((line) => line.step)).toEqual(screens.map((screen) => (screen.startsWith("vehicle") ? 1 : screen === "contact" ? 3 : 2)));
    for (const name of ["quote_page_view", "form_started", "lead_submitted"]) {
      expect(funnel().filter((line) => line.event === name).length, name).toBeGreaterThanOrEqual(1);
    }
    expect(funnel().find((line) => line.event === "lead_submitted")).toMatchObject({ reference, duplicate: false, campaign: { sid: "a1", tid: "b2", vid } });
    expect(JSON.stringify(stored.harness.server.logs)).not.toMatch(/Diaz-Ortega|ana\.diaz@example\.com|4155550134|123 Main St|1990-04-15/);

    await expectNoProblems(page, visit.problems, isSandboxNote);
    await visit.context.close();
  });

  it("shows each problem, focuses the first and announces it; Back and a failed screen keep every answer", async () => {
    const visit = await arrive();
    const { form } = visit;
    await form.getByText("Quotes for Beverly Hills, CA 90210.").waitFor();

    // Next with nothing chosen: the question's message, focus on its first choice.
    await next(form);
    await expect.poll(() => focusedId(visit)).toBe("rf-year");
    await expect(form.locator("#rf-year-error").textContent()).resolves.toBe("Choose the car's model year.");
    await expect(form.locator("#rf-year").getAttribute("aria-invalid")).resolves.toBe("true");
    await expect(form.getByRole("group", { name: "Year", exact: true }).getAttribute("aria-describedby")).resolves.toContain("rf-year-error");
    await expect.poll(() => form.getByRole("status").first().textContent()).toMatch(/answer needs attention/);

    // "Why we ask" opens with a tap and says why; a second tap closes it.
    await form.locator("#rf-field-year summary").tap();
    await expect(form.locator("#rf-field-year details p").isVisible()).resolves.toBe(true);
    await form.locator("#rf-field-year summary").tap();
    await expect(form.locator("#rf-field-year details p").isVisible()).resolves.toBe(false);

    await answer(form, "vehicle-year", "year", "2020");
    await answer(form, "vehicle-make", "make", "Toyota");
    // A message on leaving a field that was filled in wrongly, gone once it is fixed.
    await form.getByLabel("Model", { exact: true }).fill("!!");
    await form.getByLabel("Model", { exact: true }).blur();
    await expect.poll(() => form.locator("#rf-model-error").textContent()).toMatch(/Enter the model/);
    await form.getByLabel("Model", { exact: true }).fill("Camry");
    await expect.poll(() => form.locator("#rf-model-error").textContent()).toBe("");
    await next(form);
    await fillUse(form, VEHICLES[0]!);
    await next(form);
    await heading(form, "What is your name?").waitFor();
    await form.getByLabel("First name").fill("Sam");
    await form.getByLabel("Last name").fill("Diaz");
    await next(form);

    // Under 18: refused on Next with the age message.
    const eighteenYearsAgoTomorrow = new Date();
    eighteenYearsAgoTomorrow.setFullYear(eighteenYearsAgoTomorrow.getFullYear() - 18);
    eighteenYearsAgoTomorrow.setDate(eighteenYearsAgoTomorrow.getDate() + 2);
    const typed = `${String(eighteenYearsAgoTomorrow.getMonth() + 1).padStart(2, "0")}/${String(eighteenYearsAgoTomorrow.getDate()).padStart(2, "0")}/${eighteenYearsAgoTomorrow.getFullYear()}`;
    await form.getByLabel("Date of birth").fill(typed);
    await next(form);
    await expect.poll(() => form.locator("#rf-dateOfBirth-error").textContent()).toBe("You must be 18 or older to request quotes.");
    await expect.poll(() => focusedId(visit)).toBe("rf-dateOfBirth");

    // Back through the vehicle screens: every answer still there; forward again: so is the driver's.
    for (let i = 0; i < 2; i += 1) await form.getByRole("button", { name: "Back" }).click();
    await heading(form, "Your vehicles").waitFor();
    await expect(form.locator(".rf-record-name").allTextContents()).resolves.toEqual(["2020 Toyota Camry"]);
    for (let i = 0; i < 3; i += 1) await form.getByRole("button", { name: "Back" }).click();
    await onScreen(form, "vehicle-ownership");
    await expect(form.getByLabel("Financing it").isChecked()).resolves.toBe(true);
    for (let i = 0; i < 3; i += 1) await form.getByRole("button", { name: "Back" }).click();
    await firstScreen(form).waitFor();
    await expect(form.locator('input[name="year"][value="2020"]').isChecked()).resolves.toBe(true);
    for (let i = 0; i < 7; i += 1) await next(form);
    await heading(form, "What is your name?").waitFor();
    await expect(form.getByLabel("First name").inputValue()).resolves.toBe("Sam");

    await form.getByLabel("First name").fill("Ana");
    await next(form);
    await onScreen(form, "driver-birth");
    await form.getByLabel("Date of birth").fill("04/15/1990");
    await next(form);
    await fillHistory(form, DRIVERS[0]!);
    await next(form);
    await fillInsurance(form);
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
    await fillUse(form, VEHICLES[0]!);

    // The second vehicle by its VIN (a real one: 2003 Honda Accord), decoded by the catalog: behind its link.
    await form.getByRole("button", { name: "Add another vehicle" }).click();
    await heading(form, "Vehicle 2: Model year").waitFor();
    await expect(form.getByLabel("VIN (optional)").isVisible()).resolves.toBe(false);
    await form.getByRole("button", { name: "Have the VIN? Fill in the car from it" }).click();
    await form.getByLabel("VIN (optional)").fill("1HGCM82633A004352");
    // The year, make and model are answered: on to the next question, saying both.
    await onScreen(form, "vehicle-ownership");
    await expect.poll(() => form.locator('p[role="status"]').first().textContent()).toBe("Filled in from the VIN: 2003 Honda Accord. Question 10 of 28");
    await expect(form.getByLabel("Model", { exact: true }).inputValue()).resolves.toBe("Accord");
    await expect(form.locator('input[name="year"][value="2003"]').isChecked()).resolves.toBe(true);
    await expect(form.locator('input[name="make"][value="Honda"]').isChecked()).resolves.toBe(true);
    await fillUse(form, VEHICLES[1]!);
    await form.getByRole("button", { name: "Add another vehicle" }).click();
    await fillCar(form, VEHICLES[2]!);
    await fillUse(form, VEHICLES[2]!);
    await expect(form.locator(".rf-record-name").allTextContents()).resolves.toEqual(["2020 Toyota Camry", "2003 Honda Accord", "2015 Honda Civic"]);

    // Remove the first: gone from the list, focus on the next one's Edit button.
    await form.getByRole("button", { name: "Remove 2020 Toyota Camry" }).click();
    await expect(form.locator(".rf-record-name").allTextContents()).resolves.toEqual(["2003 Honda Accord", "2015 Honda Civic"]);
    await expect.poll(() => visit.frame().evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Edit 2003 Honda Accord");
    await expect.poll(() => form.getByRole("status").textContent()).toBe("Removed 2020 Toyota Camry.");

    await next(form);
    await fillPerson(form, DRIVERS[0]!);
    await form.getByRole("button", { name: "Back" }).click();
    await onScreen(form, "driver-birth");

    // A reload of the tab: the same screen, every answer back (the lists too).
    await visit.frame().evaluate(() => window.location.reload());
    await page.frameLocator("iframe.quote-frame").locator("#rf-form").waitFor();
    const reloaded = page.frameLocator("iframe.quote-frame");
    await heading(reloaded, "What is your date of birth?").waitFor();
    await expect(reloaded.getByLabel("Date of birth").inputValue()).resolves.toBe("04/15/1990");
    await reloaded.getByRole("button", { name: "Back" }).click();
    await expect(reloaded.getByLabel("First name").inputValue()).resolves.toBe("Ana");
    await reloaded.getByRole("button", { name: "Back" }).click();
    await expect(reloaded.locator(".rf-record-name").allTextContents()).resolves.toEqual(["2003 Honda Accord", "2015 Honda Civic"]);
    // Kept in the tab's sessionStorage only: nothing in localStorage or cookies but the CSRF token.
    await expect(visit.frame().evaluate(() => window.localStorage.length)).resolves.toBe(0);
    await expect(visit.frame().evaluate(() => document.cookie)).resolves.not.toMatch(/Accord|Ana/);

    for (let i = 0; i < 3; i += 1) await next(reloaded);
    await fillHistory(reloaded, DRIVERS[0]!);
    await next(reloaded);
    await fillInsurance(reloaded);
    await fillContact(reloaded);
    await reloaded.getByRole("checkbox").check();
    await reloaded.getByRole("button", { name: "Get My Quotes" }).click();
    await reloaded.getByRole("heading", { name: "Thank you, Ana!" }).waitFor();
    const reference = (await reloaded.locator(".rf-reference").textContent()) ?? "";
    const lead = await leadRepository(stored.db).findByReference(reference);
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

  it("never ticks the consent box by itself: after a reload of the form, Back to it within the frame, or Back to the quote page", async () => {
    const visit = await arrive();
    const { form, page } = visit;
    await form.getByText("Quotes for Beverly Hills, CA 90210.").waitFor();
    await fillQuote(form, { vehicles: 1, drivers: 1 });
    await fillContact(form);
    const screen = await screenShown(form);
    const ticked = () => form.getByRole("checkbox").isChecked();
    /** Ticks the box, as the visitor does, and waits until the page shown again has its form back on that screen. */
    const tickThen = async (leave: () => Promise<unknown>, comeBack: () => Promise<unknown>) => {
      await form.getByRole("checkbox").check();
      await expect(ticked()).resolves.toBe(true);
      await leave();
      await comeBack();
      await form.locator("#rf-form").waitFor();
      await onScreen(form, screen);
      // Past `pageshow`, when the browser has put back whatever it restores.
      await expect.poll(() => visit.frame().evaluate(() => document.readyState)).toBe("complete");
    };

    // A reload of the form: the answers come back, the box does not.
    await tickThen(
      () => visit.frame().evaluate(() => window.location.reload()),
      () => page.waitForFunction(() => document.querySelector("iframe")?.contentDocument?.readyState === "complete"),
    );
    await expect(ticked(), "ticked again after a reload").resolves.toBe(false);

    // Away to the terms inside the frame, then Back (the frame's own history).
    await tickThen(
      async () => {
        await visit.frame().evaluate(() => window.location.assign("/terms-of-use"));
        await page.waitForFunction(() => document.querySelector("iframe")?.contentWindow?.location.pathname === "/terms-of-use");
      },
      // The joint session history's Back, which here is the frame's.
      () => page.evaluate(() => window.history.back()),
    );
    await expect(ticked(), "ticked again after Back within the frame").resolves.toBe(false);

    // Away from the quote page, then Back to it (the back/forward cache, where the browser may use it).
    await tickThen(
      () => page.goto(stored.harness.url("/terms-of-use")),
      () => page.goBack(),
    );
    await expect(ticked(), "ticked again after Back to the quote page").resolves.toBe(false);

    // The visitor ticks it again, and it holds.
    await form.getByRole("checkbox").check();
    await expect(ticked()).resolves.toBe(true);
    await visit.context.close();
  });

  it("asks again, politely, for a ZIP code that does not exist, and takes a corrected one", async () => {
    const context = await stored.harness.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    await page.goto(stored.harness.url("/?zip=99999&sid=a1"));
    const form = page.frameLocator("iframe.quote-frame");
    await expect.poll(() => form.locator("#rf-zip-error").textContent()).toBe("We could not find ZIP code 99999. Please check it and enter it again.");
    await expect(form.getByLabel("ZIP code where the car is kept").isVisible()).resolves.toBe(true);
    // Tapping a year does not go on past a ZIP that is still wrong.
    await form.locator('label.rf-option:has(input[value="2020"])').tap();
    await page.waitForTimeout(400);
    await expect(screenShown(form)).resolves.toBe("vehicle-year");
    await form.getByLabel("ZIP code where the car is kept").fill("10001");
    await next(form);
    await heading(form, "What make is it?").waitFor();
    await form.getByRole("button", { name: "Back" }).click();
    await expect(form.getByText("Quotes for New York, NY 10001.").count()).resolves.toBe(1);
    await context.close();
  });

  it("works with the keyboard alone: Tab order through the first screen, arrows choose without leaving, Enter for Next", async () => {
    const visit = await arrive();
    const { form, page } = visit;
    await form.getByText("Quotes for Beverly Hills, CA 90210.").waitFor();
    await form.getByRole("button", { name: "Change ZIP code" }).focus();
    const focused = () =>
      visit.frame().evaluate(() => {
        const active = document.activeElement as HTMLInputElement | null;
        return active?.name || active?.className || active?.tagName.toLowerCase() || "";
      });
    const order: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      await page.keyboard.press("Tab");
      order.push(await focused());
    }
    // The hidden ZIP field and the honeypot are skipped: the year's choices (one stop), its filter
    // box, "Why we ask", the VIN's link, then Next.
    expect(order).toEqual(["year", "rf-filter", "summary", "rf-link-button rf-vin-link", "rf-next"]);

    // Arrow keys choose within the group and never leave the screen; Enter goes on.
    await form.locator('input[name="year"]').first().focus();
    await page.keyboard.press("ArrowRight");
    await page.keyboard.press("ArrowRight");
    await page.waitForTimeout(400);
    await expect(screenShown(form)).resolves.toBe("vehicle-year");
    await expect(form.locator('input[name="year"]:checked').getAttribute("value")).resolves.toBe(String(new Date().getFullYear() - 1));
    await page.keyboard.press("Enter");
    await heading(form, "What make is it?").waitFor();
    await expect.poll(() => visit.frame().evaluate(() => document.activeElement?.tagName)).toBe("H2");
    // The filter box: type, and Enter takes the one match left.
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    await page.keyboard.type("Toy");
    await page.keyboard.press("Enter");
    await heading(form, "Which model is it?").waitFor();
    await page.keyboard.press("Tab");
    await page.keyboard.type("Corolla");
    await page.keyboard.press("Enter");
    await heading(form, "Do you own, finance or lease it?").waitFor();
    await expect.poll(() => visit.frame().evaluate(() => document.activeElement?.tagName)).toBe("H2");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Space"); // the first ownership choice: chosen, still here
    await expect(form.getByLabel("Own it").isChecked()).resolves.toBe(true);
    await expect(screenShown(form)).resolves.toBe("vehicle-ownership");
    await form.getByRole("button", { name: "Back" }).click();
    await form.getByRole("button", { name: "Back" }).click();
    await expect(form.locator('input[name="make"][value="Toyota"]').isChecked()).resolves.toBe(true);
    await visit.context.close();
  });
});

/** The first screen's questions, by the names a visitor (and a screen reader) finds them. */
const STEP_ONE_QUESTIONS = ["2020", "2013"];

describe("rapidfire.html as it arrives, before and without its script", () => {
  it("shows the first screen's questions, labelled and in order, with JavaScript off, and the phone note", async () => {
    const context = await stored.harness.newContext({ viewport: PHONE, javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(stored.harness.url("/rapidfire.html?zip=90210&sid=a1&tid=b2"));
    await expect(firstScreen(page).isVisible()).resolves.toBe(true);
    await expect(page.locator(".rf-count").textContent()).resolves.toMatch(/^Question 1 of \d+$/);
    for (const name of STEP_ONE_QUESTIONS) await expect(page.getByLabel(name, { exact: true }).isVisible(), name).resolves.toBe(true);
    // An ad visitor comes with a ZIP: its line holds the field's place until the script fills it in.
    await expect(page.getByText("Quotes for your ZIP code.").isVisible()).resolves.toBe(true);
    await expect(page.getByLabel("ZIP code where the car is kept").isVisible()).resolves.toBe(false);
    // Every model year is in the page; the newest show as taps, the rest behind the filter.
    await expect(page.locator('input[name="year"]').count()).resolves.toBeGreaterThan(40);
    await expect(page.getByRole("group", { name: "Year", exact: true }).getByRole("radio").count()).resolves.toBe(15);
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
    expect(order).toEqual(["/privacy-policy#notice-at-collection", "/do-not-sell", "button", "year", "input", "summary", "button", "/privacy-policy", "/terms-of-use", "/privacy-policy#california-rights"]);
    await context.close();
  });

  it("keeps what was typed before the script loaded, adopts the same elements, and the request still goes through", async () => {
    const context = await stored.harness.newContext({ viewport: PHONE });
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
    await page.goto(stored.harness.url("/rapidfire.html?zip=90210&sid=a1&tid=early-typist"), { waitUntil: "commit" });
    await page.getByLabel("2020", { exact: true }).waitFor();
    const stepOne = await page.locator("#rf-screen-vehicle-year").elementHandle();
    await page.getByLabel("2020", { exact: true }).check();
    await expect(page.getByRole("button", { name: "Next" }).isDisabled()).resolves.toBe(true);
    expect(held, "the script was still on its way").toBe(1);

    release();
    await expect.poll(() => page.getByRole("button", { name: "Next" }).isEnabled()).toBe(true);
    await page.getByText("Quotes for Beverly Hills, CA 90210.").waitFor();
    // The same screen element, still in the page: enhanced, not rebuilt.
    await expect(page.evaluate((element) => element === document.getElementById("rf-screen-vehicle-year") && element.isConnected, stepOne)).resolves.toBe(true);
    await expect(page.getByLabel("2020", { exact: true }).isChecked()).resolves.toBe(true);

    await next(page);
    await answer(page, "vehicle-make", "make", "Toyota");
    await page.getByLabel("Model", { exact: true }).fill("Camry");
    await next(page);
    await fillUse(page, VEHICLES[0]!);
    await next(page);
    await fillPerson(page, DRIVERS[0]!);
    await fillHistory(page, DRIVERS[0]!);
    await next(page);
    await fillInsurance(page);
    await fillContact(page);
    await page.getByRole("checkbox").check();
    await page.getByRole("button", { name: "Get My Quotes" }).click();
    await page.getByRole("heading", { name: "Thank you, Ana!" }).waitFor();
    const reference = (await page.locator(".rf-reference").textContent()) ?? "";
    await expect(leadRepository(stored.db).findByReference(reference)).resolves.toMatchObject({ tid: "early-typist", vehicleYear: 2020, vehicleMake: "Toyota", vehicleModel: "Camry", ownership: "finance" });
    // The answers came before the script: the funnel still has the form's start, once.
    const started = () => stored.harness.server.logs.filter((line) => line.event === "form_started" && (line.campaign as { tid?: string } | undefined)?.tid === "early-typist");
    await expect.poll(() => started().length).toBe(1);
    await expectNoProblems(page, problems);
    await context.close();
  });

  it("loads at most 35,000 B of JavaScript (gzip) for the form", async () => {
    const page = await httpGet(stored.harness.url("/rapidfire.html"));
    const weight = await measureJsWeight(stored.harness.server.origin, "/rapidfire.html", page.body.toString("utf8"));
    expect(weight.atLoad.files.length).toBeGreaterThan(0);
    expect(weight.inlineScripts.count).toBe(0);
    expect(weight.atLoad.gzipBytes).toBeLessThanOrEqual(35_000);
  });
});

describe("the notice at collection and the legal links (issue 14)", () => {
  it("opens the policy's notice section in a new tab from the form, keeping the answers, with the legal links once, at the end of the form", async () => {
    const visit = await arrive();
    // An answer given, and back on the first screen, where the notice is.
    await answer(visit.form, "vehicle-year", "year", "2020");
    await visit.form.getByRole("button", { name: "Back" }).click();
    await onScreen(visit.form, "vehicle-year");
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
    await expect(visit.form.getByLabel("2020", { exact: true }).isChecked()).resolves.toBe(true);
    // The frame's own legal links, at the end of the form page, open in a new tab too.
    const frameLinks = visit.form.locator('body > footer nav[aria-label="Legal"] a');
    await expect(frameLinks.count()).resolves.toBe(LEGAL_LINKS.length);
    await expect(frameLinks.first().getAttribute("target")).resolves.toBe("_blank");
    // The quote page has no legal links of its own under the frame any more: the form's are the only ones (issue 32).
    await expect(visit.page.getByRole("navigation", { name: "Legal" }).count()).resolves.toBe(0);
    await expectNoProblems(visit.page, visit.problems, isSandboxNote);
    await visit.context.close();
  });
});
