/**
 * What a visitor's finger and keyboard meet on the quote form (issue 42), in a real Chromium at
 * 390×664 with touch, the form in the quote page's frame:
 * - a message that appears when a field is left never moves the control the finger is on: every
 *   control of the contact screen is tapped right after a bad value in the field above it, and
 *   the tap does what it says (the box ticks, "Why we ask" opens, the link opens, Next checks);
 * - the numeric fields (date of birth, age first licensed, phone) take digits only as they are
 *   typed, and pasted text keeps its digits.
 */
import { mkdirSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, FrameLocator, Locator, Page } from "playwright";
import { collectProblems, expectNoProblems, isSandboxNote, siteOnFreshPostgres, type ProblemCollector } from "./helpers";
import { DRIVERS, VEHICLES, fillCar, fillQuote, fillUse, next, onScreen } from "./quote-form-fill";
import { PHONE_CONTEXT } from "../../tools/phone-visitor";

// A short minimum fill time: a browser fills the form faster than a person would.
const stored = siteOnFreshPostgres({ LEAD_MIN_FILL_MS: "300" });

/** Where the report's screenshots go (issue 42 asks for them). */
const SHOTS = "/work/shots";

interface Visit {
  context: BrowserContext;
  page: Page;
  problems: ProblemCollector;
  form: FrameLocator;
}

async function open(): Promise<Visit> {
  const context = await stored.harness.newContext(PHONE_CONTEXT);
  const page = await context.newPage();
  const problems = await collectProblems(context, page);
  await page.goto(stored.harness.url("/?zip=90210&sid=taps&tid=taps"));
  const form = page.frameLocator("iframe.quote-frame");
  await form.locator(".rf-next:not([disabled])").waitFor();
  await form.getByText("Quotes for Beverly Hills, CA 90210.").waitFor();
  return { context, page, problems, form };
}

const field = (form: FrameLocator, name: string) => form.locator(`#rf-screen-contact input[name="${name}"]`);
const messageOf = (form: FrameLocator, name: string) => form.locator(`#rf-${name}-error`);
const whyOf = (form: FrameLocator, name: string) => form.locator(`#rf-field-${name} details.rf-why`);
const isOpen = (details: Locator) => details.evaluate((element) => (element as HTMLDetailsElement).open);
const focusedName = (form: FrameLocator) => form.locator(":root").evaluate(() => (document.activeElement as HTMLInputElement | null)?.name ?? "");

const GOOD = { streetAddress: "123 Main St Apt 4", email: "ana.diaz@example.com", phone: "4155550134" } as const;
const BAD = { streetAddress: "Main Street", email: "ana.diaz@example", phone: "415555" } as const;

/**
 * The contact screen as a reload brings it back (the saved answers), every answer good again, no
 * message showing and the box unticked.
 */
async function contactAgain(visit: Visit): Promise<void> {
  await visit.page.reload();
  await visit.form.locator(".rf-next:not([disabled])").waitFor();
  await onScreen(visit.form, "contact");
  for (const [name, value] of Object.entries(GOOD)) await field(visit.form, name).fill(value);
  await expect(visit.form.locator("#rf-screen-contact .rf-error:not(:empty)").count()).resolves.toBe(0);
  await expect(visit.form.getByRole("checkbox").isChecked()).resolves.toBe(false);
}

/** Types `bad` into the field as a visitor does (tap, clear, type), its message not shown yet. */
async function typeBad(visit: Visit, name: string, bad: string): Promise<void> {
  const input = field(visit.form, name);
  await input.tap();
  await input.fill("");
  await visit.page.keyboard.type(bad);
  await expect(messageOf(visit.form, name).textContent()).resolves.toBe("");
}


describe("a message shown on leaving a field never costs the tap that left it (issue 42, item 1)", () => {
  let visit: Visit;

  beforeAll(async () => {
    visit = await open();
    await fillQuote(visit.form, { vehicles: 1, drivers: 1 });
  }, 90_000);

  /**
   * Each control of the contact screen, in order, with the field above it and what its tap does.
   * The street address has no field above it on this screen, and a field's own "Why we ask" is
   * in its block: moving there shows no message (checks.ts), so the field before counts.
   */
  const cases: { control: string; above: keyof typeof BAD; tap(form: FrameLocator): Locator; landed(visit: Visit, tapped: Promise<unknown>): Promise<void> }[] = [
    {
      control: "the email field",
      above: "streetAddress",
      tap: (form) => field(form, "email"),
      landed: async ({ form }) => expect(focusedName(form)).resolves.toBe("email"),
    },
    {
      control: "the email's Why we ask",
      above: "streetAddress",
      tap: (form) => whyOf(form, "email").locator("summary"),
      landed: async ({ form }) => expect(isOpen(whyOf(form, "email"))).resolves.toBe(true),
    },
    {
      control: "the phone field",
      above: "email",
      tap: (form) => field(form, "phone"),
      landed: async ({ form }) => expect(focusedName(form)).resolves.toBe("phone"),
    },
    {
      control: "the phone's Why we ask",
      above: "email",
      tap: (form) => whyOf(form, "phone").locator("summary"),
      landed: async ({ form }) => expect(isOpen(whyOf(form, "phone"))).resolves.toBe(true),
    },
    {
      control: "the consent box",
      above: "phone",
      tap: (form) => form.getByRole("checkbox"),
      landed: async ({ form }) => expect(form.getByRole("checkbox").isChecked()).resolves.toBe(true),
    },
    {
      control: "the consent's Terms of Use link",
      above: "phone",
      tap: (form) => form.locator(".rf-consent a[href='/terms-of-use']"),
      landed: async (_visit, tapped) => {
        const popup = (await tapped) as Page;
        expect(new URL(popup.url()).pathname).toBe("/terms-of-use");
        await popup.close();
      },
    },
    {
      control: "Get My Quotes",
      above: "phone",
      tap: (form) => form.getByRole("button", { name: "Get My Quotes" }),
      // Its own check ran: the box's message too, which leaving the phone field never shows.
      landed: async ({ form }) => expect.poll(() => messageOf(form, "consent").textContent()).toContain("tick the box to agree"),
    },
  ];

  for (const { control, above, tap, landed } of cases) {
    it(`taps ${control} right after a bad ${above}, and the tap lands; the message shows after it`, async () => {
      await contactAgain(visit);
      await typeBad(visit, above, BAD[above]);
      const target = tap(visit.form);
      // A link opens a new tab: wait for it from before the tap.
      const tapped = control.includes("link") ? visit.context.waitForEvent("page", { timeout: 5_000 }) : Promise.resolve();
      await target.tap();
      await landed(visit, tapped);
      await expect.poll(() => messageOf(visit.form, above).textContent()).not.toBe("");
    });
  }

  it("ticks the box after a bad email and a 6-digit phone, twice out of two, and Get My Quotes shows those two messages only", async () => {
    for (let round = 0; round < 2; round += 1) {
      await contactAgain(visit);
      await typeBad(visit, "email", BAD.email);
      await visit.page.keyboard.press("Enter");
      await expect.poll(() => focusedName(visit.form)).toBe("phone");
      await visit.page.keyboard.press("ControlOrMeta+A");
      await visit.page.keyboard.type(BAD.phone);
      await visit.form.getByRole("checkbox").tap();
      await expect(visit.form.getByRole("checkbox").isChecked(), `round ${round + 1}`).resolves.toBe(true);
    }
    await visit.form.getByRole("button", { name: "Get My Quotes" }).tap();
    await expect.poll(() => focusedName(visit.form)).toBe("email");
    const shown = await visit.form.locator("#rf-screen-contact .rf-error:not(:empty)").allTextContents();
    expect(shown).toEqual(["Enter an email address like name@example.com.", "Enter a 10-digit US phone number, like (415) 555-0134."]);
    mkdirSync(SHOTS, { recursive: true });
    await visit.page.screenshot({ path: `${SHOTS}/contact-errors.png` });
    await expectNoProblems(visit.page, visit.problems, isSandboxNote);
  });
});

describe("numeric fields take digits only as they are typed (issue 42, item 3)", () => {
  const value = (form: FrameLocator, label: string) => form.getByLabel(label, { exact: true }).inputValue();

  it("keeps only the digits of the date of birth, the age first licensed and the phone, typed or pasted", async () => {
    const { form, page, problems } = await open();
    await fillCar(form, VEHICLES[0]!);
    await fillUse(form, VEHICLES[0]!);
    await next(form);
    await onScreen(form, "driver-name");
    await form.getByLabel("First name").fill(DRIVERS[0]!.firstName);
    await form.getByLabel("Last name").fill(DRIVERS[0]!.lastName);
    await next(form);

    // The date of birth: letters never show; a dash or a space is the slash the field puts in anyway.
    await onScreen(form, "driver-birth");
    const birth = form.getByLabel("Date of birth", { exact: true });
    await birth.tap();
    await page.keyboard.type("04a15-1990");
    await expect(value(form, "Date of birth")).resolves.toBe("04/15/1990");
    await birth.fill("");
    await page.keyboard.insertText("04.15.1990");
    await expect(value(form, "Date of birth")).resolves.toBe("04/15/1990");
    // Pasted as a computer writes it: year first.
    await birth.fill("");
    await page.keyboard.insertText("1990-04-15");
    await expect(value(form, "Date of birth")).resolves.toBe("04/15/1990");
    await next(form);

    await onScreen(form, "driver-marital");
    await form.getByLabel("Married", { exact: true }).click();
    await onScreen(form, "driver-license");
    await form.locator('input[name="licenseStatus"][value="active"]').click();
    await onScreen(form, "driver-licensed-age");
    const age = form.getByLabel("Age when first licensed", { exact: true });
    await age.tap();
    await page.keyboard.type("1y6.");
    await expect(age.inputValue()).resolves.toBe("16");
    await age.fill("");
    await page.keyboard.insertText("16 years");
    await expect(age.inputValue()).resolves.toBe("16");
    await next(form);
    await onScreen(form, "driver-accidents");
    await expectNoProblems(page, problems, isSandboxNote);
  });

  it("keeps the phone's digits as typed and as pasted, and the number is accepted", async () => {
    const visit = await open();
    const { form, page } = visit;
    await fillQuote(form, { vehicles: 1, drivers: 1 });
    const phone = form.getByLabel("Phone number", { exact: true });
    await phone.tap();
    await page.keyboard.type("(415) 555-O134");
    await expect(phone.inputValue()).resolves.toBe("415555134");
    await phone.fill("");
    await page.keyboard.type("(415) 555-0134");
    await expect(phone.inputValue()).resolves.toBe("4155550134");
    // A character typed in the middle goes, and the caret stays where it was.
    await phone.evaluate((input: HTMLInputElement) => input.setSelectionRange(3, 3));
    await page.keyboard.type("-");
    await expect(phone.evaluate((input: HTMLInputElement) => [input.value, input.selectionStart])).resolves.toEqual(["4155550134", 3]);
    await phone.fill("");
    await page.keyboard.insertText("+1 (415) 555-0134");
    await expect(phone.inputValue()).resolves.toBe("14155550134");
    // The consent words read the number back as it will be called.
    await expect(form.locator(".rf-consent-phone").textContent()).resolves.toBe("(415) 555-0134");
    await expectNoProblems(page, visit.problems, isSandboxNote);
  });
});

