/**
 * The quote form in a real Chromium, inside the quote page's frame, on a 375×740 phone screen:
 * from the landing page with a campaign to a stored lead with its consent record; field messages
 * focused and announced, Back keeping answers, keyboard-only use, no horizontal scroll, and no
 * console errors or CSP violations. The server runs on PostgreSQL so the test can read the row.
 * And the page as it arrives: the first step's questions are in rapidfire.html itself, readable
 * without JavaScript, and the script adopts them, keeping what a quick visitor typed first.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, Frame, FrameLocator, Page, Route } from "playwright";
import { collectProblems, expectNoProblems, isSandboxNote, startHarness, waitForHydration, type Harness, type ProblemCollector } from "./helpers";
import { freshPostgresUrl, type FreshPostgres } from "../support/databases";
import { openDatabase, type Database } from "../../server/db/database";
import { leadRepository } from "../../server/db/leads";
import { CONSENT_DISCLOSURE, CONSENT_DISCLOSURE_SHA256 } from "../../shared/consent-disclosure";
import { LEAD_REFERENCE_PATTERN } from "../../shared/lead/api";
import { site } from "../../shared/site";
import { httpGet } from "../../tools/http-get";
import { measureJsWeight } from "../../tools/js-weight";

const PHONE = { width: 375, height: 740 };
let harness: Harness;
let postgres: FreshPostgres;
let db: Database;

beforeAll(async () => {
  postgres = await freshPostgresUrl();
  // A short minimum fill time: the browser fills the form faster than a person would.
  harness = await startHarness({ DATABASE_URL: postgres.url, LEAD_MIN_FILL_MS: "300" });
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

/** From /zipcode?sid=a1&tid=b2, enter a ZIP and land on the quote page with the form framed. */
async function arrive(zip = "90210"): Promise<Visit> {
  const context = await harness.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  const problems = await collectProblems(context, page);
  await page.goto(harness.url("/zipcode?sid=a1&tid=b2"));
  await waitForHydration(page, "#zip");
  await page.locator("#zip").fill(zip);
  await page.getByRole("button", { name: "Get Your Quote" }).click();
  await page.waitForURL((url) => url.pathname === "/");
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

/** The form, framed or opened on its own: both find its fields the same way. */
type FormScope = Pick<FrameLocator, "getByLabel" | "getByRole" | "getByText" | "locator">;

async function fillVehicle(form: FormScope): Promise<void> {
  await form.getByLabel("Year").selectOption("2020");
  await form.getByLabel("Make").selectOption("Toyota");
  await form.getByLabel("Model").fill("Camry");
  await form.getByLabel("Financing it").check();
  await form.getByLabel("Commuting to work or school").check();
}

async function fillDriver(form: FormScope): Promise<void> {
  await form.getByLabel("First name").fill("Ana");
  await form.getByLabel("Last name").fill("Diaz-Ortega");
  // Typed digit by digit: the field adds the slashes.
  await form.getByLabel("Date of birth").fill("");
  await form.getByLabel("Date of birth").pressSequentially("04151990");
  await form.getByLabel("Driver's license status").selectOption("active");
  await form.getByRole("group", { name: /Accidents, tickets/ }).getByLabel("None").check();
  await form.getByRole("group", { name: "Is the car insured today?" }).getByLabel("Yes").check();
  await form.getByLabel("Current insurance company").selectOption("GEICO");
}

async function fillContact(form: FormScope): Promise<void> {
  await form.getByLabel("Street address").fill("123 Main St Apt 4");
  // exact: the consent box's label (the disclosure) mentions "the phone number and email address".
  await form.getByLabel("Email address", { exact: true }).fill("Ana.Diaz@Example.com");
  await form.getByLabel("Phone number", { exact: true }).fill("(415) 555-0134");
}

const stepHeading = (form: FormScope, step: number) => form.getByRole("heading", { name: new RegExp(`^Step ${step} of 3`) });

describe("the quote form on a phone, from the landing page with a campaign", () => {
  it("completes all three steps in the frame, shows the reference, and stores the lead with sid, tid, place and consent", async () => {
    const visit = await arrive();
    const { form, page } = visit;
    await form.getByText("Quotes for Beverly Hills, CA 90210.").waitFor();
    await expect(form.getByRole("progressbar").getAttribute("aria-valuenow")).resolves.toBe("1");
    await expectNoHorizontalScroll(visit);

    await fillVehicle(form);
    // The model field suggests the vehicle catalog's models of the chosen year and make (issue 13).
    await expect.poll(() => form.locator("#rf-model-options option").evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value))).toEqual(
      expect.arrayContaining(["Camry", "Corolla", "RAV4"]),
    );
    await form.getByRole("button", { name: "Next" }).click();
    await stepHeading(form, 2).waitFor();
    await expect.poll(() => focusedId(visit).then(async () => visit.frame().evaluate(() => document.activeElement?.tagName))).toBe("H2");
    await expect(form.getByRole("progressbar").getAttribute("aria-valuenow")).resolves.toBe("2");
    await fillDriver(form);
    await expect(form.getByLabel("Date of birth").inputValue()).resolves.toBe("04/15/1990");
    await expectNoHorizontalScroll(visit);
    await form.getByRole("button", { name: "Next" }).click();

    await stepHeading(form, 3).waitFor();
    await fillContact(form);
    const consent = form.getByRole("checkbox");
    await expect(consent.isChecked(), "the consent box starts unticked").resolves.toBe(false);
    await expect(form.locator(".rf-consent a[href='/terms-of-use']").count()).resolves.toBe(1);
    await expect(form.locator(".rf-consent a[href='/privacy-policy']").count()).resolves.toBe(1);
    await consent.check();
    await expectNoHorizontalScroll(visit);
    await form.getByRole("button", { name: "Get My Quotes" }).click();

    await form.getByRole("heading", { name: "Thank you, Ana!" }).waitFor();
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
      zip: "90210",
      city: "Beverly Hills",
      state: "CA",
      vehicleYear: 2020,
      vehicleMake: "Toyota",
      vehicleModel: "Camry",
      ownership: "finance",
      primaryUse: "commute",
      firstName: "Ana",
      lastName: "Diaz-Ortega",
      dateOfBirth: "1990-04-15",
      currentlyInsured: true,
      currentInsurer: "GEICO",
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
    expect(Math.abs(lead!.consent!.consentedAt.getTime() - Date.now())).toBeLessThan(60_000);

    // The analysts' funnel, in the server's log, with the campaign and request ids.
    const funnel = () => harness.server.logs.filter((line) => line.campaign && (line.campaign as { tid?: string }).tid === "b2");
    await expect.poll(() => funnel().filter((line) => line.event === "form_step_completed").map((line) => line.step)).toEqual([1, 2, 3]);
    for (const name of ["quote_page_view", "form_started", "lead_submitted"]) {
      expect(funnel().filter((line) => line.event === name).length, name).toBeGreaterThanOrEqual(1);
    }
    expect(funnel().find((line) => line.event === "lead_submitted")).toMatchObject({ reference, duplicate: false, campaign: { sid: "a1", tid: "b2", vid } });
    // Every funnel event of this visit carries its visit id; the steps with the time since the form opened.
    const visitEvents = funnel().filter((line) => (line.campaign as { vid?: string }).vid === vid);
    for (const name of ["campaign_hit", "zip_submitted", "quote_page_view", "form_started", "form_step_completed", "lead_submitted"]) {
      expect(visitEvents.some((line) => line.event === name), name).toBe(true);
    }
    for (const step of visitEvents.filter((line) => line.event === "form_step_completed")) expect(step.ms).toEqual(expect.any(Number));
    expect(JSON.stringify(harness.server.logs)).not.toMatch(/Diaz-Ortega|ana\.diaz@example\.com|4155550134|123 Main St|1990-04-15/);

    await expectNoProblems(page, visit.problems, isSandboxNote);
    await visit.context.close();
  });

  it("shows each problem, focuses the first and announces it; Back and a failed step keep every answer", async () => {
    const visit = await arrive();
    const { form } = visit;
    await form.getByText("Quotes for Beverly Hills, CA 90210.").waitFor();

    // Next with nothing chosen: messages on the step's fields, focus on the first.
    await form.getByRole("button", { name: "Next" }).click();
    await expect.poll(() => focusedId(visit)).toBe("rf-vehicleYear");
    await expect(form.locator("#rf-vehicleYear-error").textContent()).resolves.toBe("Choose the car's model year.");
    await expect(form.getByLabel("Year").getAttribute("aria-invalid")).resolves.toBe("true");
    await expect(form.getByLabel("Year").getAttribute("aria-describedby")).resolves.toContain("rf-vehicleYear-error");
    await expect.poll(() => form.getByRole("status").textContent()).toMatch(/answers need attention/);

    // A message on leaving a field that was filled in wrongly, gone once it is fixed.
    await form.getByLabel("Model").fill("!!");
    await form.getByLabel("Model").blur();
    await expect.poll(() => form.locator("#rf-vehicleModel-error").textContent()).toMatch(/Enter the model/);
    await form.getByLabel("Model").fill("Camry");
    await expect.poll(() => form.locator("#rf-vehicleModel-error").textContent()).toBe("");

    await fillVehicle(form);
    await form.getByRole("button", { name: "Next" }).click();
    await stepHeading(form, 2).waitFor();

    // Under 18: refused on blur with the age message.
    const eighteenYearsAgoTomorrow = new Date();
    eighteenYearsAgoTomorrow.setFullYear(eighteenYearsAgoTomorrow.getFullYear() - 18);
    eighteenYearsAgoTomorrow.setDate(eighteenYearsAgoTomorrow.getDate() + 2);
    const typed = `${String(eighteenYearsAgoTomorrow.getMonth() + 1).padStart(2, "0")}/${String(eighteenYearsAgoTomorrow.getDate()).padStart(2, "0")}/${eighteenYearsAgoTomorrow.getFullYear()}`;
    await form.getByLabel("First name").fill("Sam");
    await form.getByLabel("Date of birth").fill(typed);
    await form.getByLabel("Date of birth").blur();
    await expect.poll(() => form.locator("#rf-dateOfBirth-error").textContent()).toBe("You must be 18 or older to request quotes.");

    // Back: step 1 still holds every answer; forward again: so does step 2.
    await form.getByRole("button", { name: "Back" }).click();
    await stepHeading(form, 1).waitFor();
    await expect(form.getByLabel("Model").inputValue()).resolves.toBe("Camry");
    await expect(form.getByLabel("Make").inputValue()).resolves.toBe("Toyota");
    await expect(form.getByLabel("Financing it").isChecked()).resolves.toBe(true);
    await form.getByRole("button", { name: "Next" }).click();
    await stepHeading(form, 2).waitFor();
    await expect(form.getByLabel("First name").inputValue()).resolves.toBe("Sam");

    await fillDriver(form);
    await form.getByRole("button", { name: "Next" }).click();
    await stepHeading(form, 3).waitFor();
    await fillContact(form);

    // Sending without consent: the box's message, focused; nothing typed is lost.
    await form.getByRole("button", { name: "Get My Quotes" }).click();
    await expect.poll(() => focusedId(visit)).toBe("rf-consent");
    await expect(form.locator("#rf-consent-error").textContent()).resolves.toMatch(/tick the box/);
    await expect(form.getByLabel("Email address", { exact: true }).inputValue()).resolves.toBe("Ana.Diaz@Example.com");
    await expect(form.getByLabel("Street address").inputValue()).resolves.toBe("123 Main St Apt 4");
    await expectNoHorizontalScroll(visit);
    await expectNoProblems(visit.page, visit.problems, isSandboxNote);
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
    await fillVehicle(form);
    await form.getByRole("button", { name: "Next" }).click();
    await stepHeading(form, 2).waitFor();
    await expect(form.getByText("Quotes for New York, NY 10001.").count()).resolves.toBe(1);
    await context.close();
  });

  it("works with the keyboard alone: Tab order through step 1, choices by keys, Enter for Next", async () => {
    const visit = await arrive();
    const { form, page } = visit;
    await form.getByText("Quotes for Beverly Hills, CA 90210.").waitFor();
    await form.getByRole("button", { name: "Change ZIP code" }).focus();
    const order: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      await page.keyboard.press("Tab");
      order.push(await visit.frame().evaluate(() => (document.activeElement as HTMLInputElement | null)?.name ?? ""));
    }
    // The hidden ZIP field and the honeypot are skipped; one stop per radio group.
    expect(order).toEqual(["vehicleYear", "vehicleMake", "vehicleModel", "ownership", "primaryUse"]);

    await form.getByLabel("Year").focus();
    await page.keyboard.press("ArrowDown"); // the newest year
    await page.keyboard.press("Tab");
    await page.keyboard.type("Toy"); // type-ahead in the make list
    await page.keyboard.press("Tab");
    await page.keyboard.type("Corolla");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Space"); // the first ownership choice
    await page.keyboard.press("Tab");
    await page.keyboard.press("Space");
    await form.getByLabel("Model").focus();
    await page.keyboard.press("Enter");
    await stepHeading(form, 2).waitFor();
    await expect(form.getByLabel("Make").inputValue()).resolves.toBe("Toyota");
    await expect(form.getByLabel("Own it").isChecked()).resolves.toBe(true);
    await visit.context.close();
  });
});

/** The first step's questions, by the names a visitor (and a screen reader) finds them. */
const STEP_ONE_QUESTIONS = ["ZIP code where the car is kept", "Year", "Make", "Model"];
const STEP_ONE_GROUPS = ["Do you own, finance or lease it?", "What is it mostly used for?"];

describe("rapidfire.html as it arrives, before and without its script", () => {
  it("shows the first step's questions, labelled and in order, with JavaScript off, and the phone note", async () => {
    const context = await harness.newContext({ viewport: PHONE, javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(harness.url("/rapidfire.html?zip=90210&sid=a1&tid=b2"));
    await expect(stepHeading(page, 1).isVisible()).resolves.toBe(true);
    for (const name of STEP_ONE_QUESTIONS) await expect(page.getByLabel(name, { exact: true }).isVisible(), name).resolves.toBe(true);
    for (const name of STEP_ONE_GROUPS) {
      await expect(page.getByRole("group", { name }).getByRole("radio").first().isVisible(), name).resolves.toBe(true);
    }
    await expect(page.getByLabel("Year").locator("option").count()).resolves.toBeGreaterThan(20);
    // Only the first step shows; the later ones wait for the script.
    await expect(page.getByLabel("First name").isVisible()).resolves.toBe(false);
    // (Playwright's text locators skip <noscript>, so the note is found by its class.)
    const note = page.locator(".rf-noscript");
    await expect(note.isVisible()).resolves.toBe(true);
    await expect(note.textContent()).resolves.toContain(site.phone);
    // Nothing to send without the script, so no button to send with.
    await expect(page.getByRole("button", { name: "Next" }).isDisabled()).resolves.toBe(true);

    // Keyboard: the honeypot is skipped, then the questions in the order they read.
    const order: string[] = [];
    for (let i = 0; i < 6; i += 1) {
      await page.keyboard.press("Tab");
      order.push((await page.locator(":focus").getAttribute("name")) ?? "");
    }
    expect(order).toEqual(["zip", "vehicleYear", "vehicleMake", "vehicleModel", "ownership", "primaryUse"]);
    await context.close();
  });

  it("keeps what was typed before the script loaded, adopts the same elements, and the request still goes through", async () => {
    const context = await harness.newContext({ viewport: PHONE });
    const page = await context.newPage();
    const problems = await collectProblems(context, page);
    // The form's script is held back until the visitor has answered step 1.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let held = 0;
    await context.route(/\/assets\/rapidfire-[\w-]+\.js$/, async (route: Route) => {
      held += 1;
      await released;
      await route.continue();
    });
    await page.goto(harness.url("/rapidfire.html?zip=90210&sid=a1&tid=early-typist"), { waitUntil: "commit" });
    await page.getByLabel("Model").waitFor();
    const stepOne = await page.locator("#rf-step-1").elementHandle();
    await fillVehicle(page);
    await expect(page.getByRole("button", { name: "Next" }).isDisabled()).resolves.toBe(true);
    expect(held, "the script was still on its way").toBe(1);

    release();
    await expect.poll(() => page.getByRole("button", { name: "Next" }).isEnabled()).toBe(true);
    await page.getByText("Quotes for Beverly Hills, CA 90210.").waitFor();
    // The same step element, still in the page: enhanced, not rebuilt.
    await expect(page.evaluate((element) => element === document.getElementById("rf-step-1") && element.isConnected, stepOne)).resolves.toBe(true);
    await expect(page.getByLabel("Model").inputValue()).resolves.toBe("Camry");
    await expect(page.getByLabel("Make").inputValue()).resolves.toBe("Toyota");
    await expect(page.getByLabel("Year").inputValue()).resolves.toBe("2020");
    await expect(page.getByLabel("Financing it").isChecked()).resolves.toBe(true);

    await page.getByRole("button", { name: "Next" }).click();
    await stepHeading(page, 2).waitFor();
    await fillDriver(page);
    await page.getByRole("button", { name: "Next" }).click();
    await stepHeading(page, 3).waitFor();
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
