/**
 * Issue 32's targets, held by one phone visitor from an ad (tools/phone-visitor.ts, the walker
 * `npm run bench:phone` times): at 390×664 CSS px with touch, one car and one driver, from
 * `/?zip&sid&tid` to the thank-you with taps and the on-screen keyboard only. Then the same first
 * screens from the keyboard alone.
 *
 * Every screen and the thank-you are checked with axe-core (the engine of Lighthouse's
 * accessibility score) as the visitor meets them, WCAG 2.1 A and AA.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { beforeAll, describe, expect, it } from "vitest";
import type { Frame, Page } from "playwright";
import { collectProblems, expectNoProblems, isSandboxNote, siteOnFreshPostgres, type ProblemCollector } from "./helpers";
import { leadRepository } from "../../server/db/leads";
import { LEAD_REFERENCE_PATTERN } from "../../shared/lead/api";
import { ANNUAL_MILEAGE, COUNT_CHOICES, COVERAGE, INSURED_FOR, LICENSE_STATUS, MARITAL_STATUS, OWNERSHIP, PRIMARY_USE, RESIDENCE, YES_NO } from "../../shared/lead/fields";
import { telUri } from "../../shared/contact";
import { site } from "../../shared/site";
import { PHONE_CONTEXT, PHONE_VISITOR, SCROLLING_SCREEN, quoteFrame, walkPhoneVisitor, type ContactTypo, type PhoneVisitReport } from "../../tools/phone-visitor";

/** axe-core's browser build, evaluated in the frame through the debugging protocol (which no CSP stops). */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** axe's WCAG 2.1 A and AA rules on the frame's document as it stands: each violation as "rule: target". */
async function axeViolations(frame: Frame): Promise<string[]> {
  await frame.evaluate(AXE_SOURCE);
  return frame.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: { id: string; nodes: { target: unknown[] }[] }[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } });
    return result.violations.flatMap((violation) => violation.nodes.map((node) => `${violation.id}: ${node.target.join(" ")}`));
  });
}

/** Issue 32: a one-car, one-driver visitor needs at most this many taps, plus what they type. */
const MAX_TAPS = 25;


// A short minimum fill time: a browser fills the form faster than a person would.
const stored = siteOnFreshPostgres({ LEAD_MIN_FILL_MS: "300" });

/** The stored code of the option a visitor tapped, by the words on its tile. */
function codeOf(options: Readonly<Record<string, string>>, label: string, prefix = false): string {
  const found = Object.entries(options).find(([, text]) => (prefix ? text.startsWith(label) : text === label));
  if (!found) throw new Error(`No option reads "${label}"`);
  return found[0];
}

describe("one phone visitor from an ad, at 390×664 with touch (issue 32)", () => {
  let page: Page;
  let problems: ProblemCollector;
  let report: PhoneVisitReport;
  const accessibility = new Map<string, string[]>();

  beforeAll(async () => {
    const context = await stored.harness.newContext(PHONE_CONTEXT);
    page = await context.newPage();
    problems = await collectProblems(context, page);
    report = await walkPhoneVisitor(page, {
      origin: stored.harness.server.origin,
      sid: "ad-sid",
      tid: "ad-tid",
      inspect: async (frame, screen) => void accessibility.set(screen, await axeViolations(frame)),
    });
  }, 120_000);

  it("passes axe's WCAG 2.1 A and AA checks on every screen and on the thank-you", () => {
    expect([...accessibility.keys()]).toContain("done");
    expect(accessibility.size).toBe(report.records.length + 1);
    for (const [screen, violations] of accessibility) expect(violations, screen).toEqual([]);
  });

  it("reaches the thank-you, one question per screen, with no scroll and every screen but the contact one in view", () => {
    expect(report.stuck).toBeUndefined();
    expect(report.thankYou).toBe(true);
    expect(report.records.map((record) => record.id)).toContain("insured-for");
    expect(report.questionScrolls, "scrolls on question screens").toBe(0);
    expect(report.notFitting, "screens whose heading, controls or Next lie out of view").toEqual([]);
    for (const record of report.records.filter((screen) => !screen.scrollAllowed)) expect(record.outOfView, record.id).toEqual([]);
    // Every scroll there was belongs to the contact screen, where the consent text may take room.
    expect(report.records.filter((record) => record.scrolls > 0).map((record) => record.id)).toEqual(report.scrolls > 0 ? [SCROLLING_SCREEN] : []);
    expect(report.screens).toBe(report.records.length);
  });

  it("never puts a fixed or sticky element over the focused control", () => {
    expect(report.overlaps).toEqual([]);
  });

  it(`takes at most ${MAX_TAPS} taps, plus the characters typed`, () => {
    expect(report.taps).toBeLessThanOrEqual(MAX_TAPS);
    const typed = [PHONE_VISITOR.driver.firstName, PHONE_VISITOR.driver.lastName, PHONE_VISITOR.driver.birth, PHONE_VISITOR.driver.licensedAt, PHONE_VISITOR.street, PHONE_VISITOR.email, PHONE_VISITOR.phone];
    expect(report.chars).toBe(typed.join("").length);
  });

  it("focuses each new screen's heading and moves the count on every screen", () => {
    const [first, ...advanced] = report.records;
    expect(first?.focusOnHeading).toBeNull();
    for (const record of advanced) {
      expect(record.focusOnHeading, `heading focused on ${record.id}`).toBe(true);
      expect(record.countChanged, `count moved on ${record.id}`).toBe(true);
    }
    for (const record of report.records) expect(record.count, record.id).toMatch(/^Question \d+ of \d+$/);
    // The last screen is the last question: the count tells the truth about what is left.
    const last = report.records.at(-1)!;
    expect(last.id).toBe("contact");
    const [, at, of] = /^Question (\d+) of (\d+)$/.exec(last.count)!;
    expect(at).toBe(of);
  });

  it("thanks the visitor with the reference and our number to tap, and leaves no count, bar or claim of review behind", async () => {
    const frame = quoteFrame(page);
    expect(report.reference).toMatch(LEAD_REFERENCE_PATTERN);
    const done = frame.locator(".rf-done");
    await expect(done.locator(".rf-reference").textContent()).resolves.toBe(report.reference);
    await expect(done.locator(`a[href="${telUri(site.phone)}"]`).count()).resolves.toBeGreaterThanOrEqual(1);
    await expect(frame.locator("[role=progressbar]:visible, .rf-count:visible, .rf-step:visible, .rf-next:visible").count()).resolves.toBe(0);
    // On the screen, that is: the live region keeps the last thing it announced, out of sight.
    const onScreen = frame.getByText(/\bsteps?\b|Question \d+ of \d+/i).filter({ visible: true }).and(frame.locator(":not(.rf-visually-hidden)"));
    await expect(onScreen.count()).resolves.toBe(0);
    const words = await done.innerText();
    expect(words).not.toMatch(/review/i);
    expect(words).not.toMatch(/companies (and agents )?(are )?(looking at|working on) your request/i);
    await expectNoProblems(page, problems, isSandboxNote);
  });

  it("stores every answer the visitor gave, with the ad's campaign and place", async () => {
    const lead = await leadRepository(stored.db).findByReference(report.reference ?? "");
    const { vehicle, driver } = PHONE_VISITOR;
    const count = (label: string) => Number(codeOf(COUNT_CHOICES, label));
    expect(lead).toMatchObject({
      sid: "ad-sid",
      tid: "ad-tid",
      zip: PHONE_VISITOR.zip,
      city: "Beverly Hills",
      state: "CA",
      vehicles: [
        {
          year: Number(vehicle.year),
          make: vehicle.make,
          model: vehicle.model,
          ownership: codeOf(OWNERSHIP, vehicle.ownership),
          primaryUse: codeOf(PRIMARY_USE, vehicle.use),
          annualMileage: codeOf(ANNUAL_MILEAGE, vehicle.mileage),
        },
      ],
      drivers: [
        {
          firstName: driver.firstName,
          lastName: driver.lastName,
          dateOfBirth: `${driver.birth.slice(4)}-${driver.birth.slice(0, 2)}-${driver.birth.slice(2, 4)}`,
          relationship: "self",
          maritalStatus: codeOf(MARITAL_STATUS, driver.marital),
          licenseStatus: codeOf(LICENSE_STATUS, driver.license),
          ageFirstLicensed: Number(driver.licensedAt),
          accidents: count(driver.accidents),
          tickets: count(driver.tickets),
          claims: count(driver.claims),
          dui: codeOf(YES_NO, driver.dui) === "yes",
          sr22: codeOf(YES_NO, driver.sr22) === "yes",
        },
      ],
      // The insurer's name answered "insured today?" (issue 32: inferred, not asked).
      currentlyInsured: true,
      currentInsurer: PHONE_VISITOR.insurer,
      insuredFor: codeOf(INSURED_FOR, PHONE_VISITOR.insuredFor),
      coverage: codeOf(COVERAGE, PHONE_VISITOR.coverage, true),
      residence: codeOf(RESIDENCE, PHONE_VISITOR.residence),
      streetAddress: PHONE_VISITOR.street,
      email: PHONE_VISITOR.email,
      phone: `+1${PHONE_VISITOR.phone}`,
    });
    expect(lead?.drivers).toHaveLength(1);
    expect(lead?.vehicles).toHaveLength(1);
    expect(lead?.consent).toMatchObject({ checkboxChecked: true });
  });
});

describe("one typo on the contact screen, corrected (issue 42)", () => {
  /** The clean walk's taps, for the comparison (the same walk as above, without inspection). */
  let clean: PhoneVisitReport;
  beforeAll(async () => {
    const context = await stored.harness.newContext(PHONE_CONTEXT);
    clean = await walkPhoneVisitor(await context.newPage(), { origin: stored.harness.server.origin, sid: "typo-sid", tid: "clean" });
    await context.close();
  }, 120_000);

  for (const typo of ["phone", "email"] as const satisfies readonly ContactTypo[]) {
    it(`takes exactly one tap more when the ${typo} is left short, the box tapped, and the ${typo} finished: the tap back into it`, async () => {
      const context = await stored.harness.newContext(PHONE_CONTEXT);
      const page = await context.newPage();
      const report = await walkPhoneVisitor(page, { origin: stored.harness.server.origin, sid: "typo-sid", tid: typo, typo });
      console.log(`phone walk: ${clean.taps} taps without a typo; ${report.taps} with the ${typo} corrected`);
      expect(report.stuck).toBeUndefined();
      expect(report.thankYou).toBe(true);
      expect(clean.thankYou).toBe(true);
      expect(report.taps).toBe(clean.taps + 1);
      expect(report.chars).toBe(clean.chars);
      expect(report.questionScrolls).toBe(0);
      const contact = (walk: PhoneVisitReport) => walk.records.find((record) => record.id === SCROLLING_SCREEN)!;
      expect(contact(report).taps).toBe(contact(clean).taps + 1);
      // Stored as the visitor meant it, with their consent: the box's tap was not lost.
      const lead = await leadRepository(stored.db).findByReference(report.reference ?? "");
      expect(lead).toMatchObject({ email: PHONE_VISITOR.email, phone: `+1${PHONE_VISITOR.phone}` });
      expect(lead?.consent).toMatchObject({ checkboxChecked: true });
      await context.close();
    }, 60_000);
  }
});

describe("the first screens from the keyboard alone, on the same phone", () => {
  /** What has focus in the form: the element, and for a radio its group and whether it is chosen. */
  const focused = (frame: Frame) =>
    frame.evaluate(() => {
      const active = document.activeElement;
      const input = active instanceof HTMLInputElement ? active : null;
      return { tag: active?.tagName ?? "", name: input?.name ?? "", value: input?.value ?? "", checked: input?.checked ?? false, screen: active?.closest("fieldset.rf-step")?.id ?? "" };
    });
  const showing = (frame: Frame) => frame.evaluate(() => document.querySelector("fieldset.rf-step:not([hidden])")?.id ?? "");
  const chosen = (frame: Frame, name: string) => frame.evaluate((field) => document.querySelector<HTMLInputElement>(`input[name="${field}"]:checked`)?.value ?? "", name);
  const count = (frame: Frame) => frame.locator(".rf-count").textContent();
  /** Well past the 150 ms a tapped choice waits before going on (client/quote-form/mount.ts, ADVANCE_DELAY_MS). */
  const pastAdvance = () => new Promise((resolve) => setTimeout(resolve, 500));

  /** Arrow keys until `value` is chosen in the focused group, never leaving `screen`. */
  async function arrowTo(page: Page, frame: Frame, screen: string, name: string, value: string): Promise<void> {
    for (let presses = 0; (await chosen(frame, name)) !== value; presses += 1) {
      if (presses > 60) throw new Error(`${value} never came with the arrow keys`);
      await page.keyboard.press("ArrowRight");
      const now = await focused(frame);
      expect(now).toMatchObject({ name, checked: true, screen });
    }
    await pastAdvance();
    expect(await showing(frame), "an arrow key chose, it did not go on").toBe(screen);
  }

  /** Enter goes on: the next screen shows, its heading has focus, and the count moved. */
  async function enterTo(page: Page, frame: Frame, screen: string): Promise<void> {
    const before = await count(frame);
    await page.keyboard.press("Enter");
    await frame.locator(`fieldset#${screen}`).waitFor();
    await expect.poll(() => focused(frame)).toMatchObject({ tag: "H2", screen });
    expect(await count(frame)).not.toBe(before);
  }

  it("moves within a choice with the arrows without leaving the screen, chooses with Space, and goes on with Enter", async () => {
    const context = await stored.harness.newContext(PHONE_CONTEXT);
    const page = await context.newPage();
    await page.goto(stored.harness.url(`/?zip=${PHONE_VISITOR.zip}&sid=kb-sid&tid=kb-tid`));
    await page.locator("iframe.quote-frame").waitFor();
    await expect.poll(() => page.frames().some((candidate) => candidate.url().includes("/rapidfire.html"))).toBe(true);
    const frame = quoteFrame(page);
    await frame.locator(".rf-next:not([disabled])").waitFor();
    await frame.locator(".rf-place:not([hidden])").waitFor();

    // Tab from the top of the page into the form, to the year's choices.
    for (let presses = 0; (await focused(frame)).name !== "year"; presses += 1) {
      if (presses > 30) throw new Error("Tab never reached the year's choices");
      await page.keyboard.press("Tab");
    }
    await arrowTo(page, frame, "rf-screen-vehicle-year", "year", PHONE_VISITOR.vehicle.year);
    await enterTo(page, frame, "rf-screen-vehicle-make");

    await page.keyboard.press("Tab");
    expect(await focused(frame)).toMatchObject({ name: "make", screen: "rf-screen-vehicle-make" });
    await arrowTo(page, frame, "rf-screen-vehicle-make", "make", PHONE_VISITOR.vehicle.make);
    await enterTo(page, frame, "rf-screen-vehicle-model");

    await page.keyboard.press("Tab");
    expect(await focused(frame)).toMatchObject({ name: "model", screen: "rf-screen-vehicle-model" });
    await page.keyboard.type(PHONE_VISITOR.vehicle.model);
    await enterTo(page, frame, "rf-screen-vehicle-ownership");

    // Space chooses the focused option; only Enter goes on.
    await page.keyboard.press("Tab");
    await page.keyboard.press("Space");
    expect(await focused(frame)).toMatchObject({ name: "ownership", checked: true });
    await pastAdvance();
    expect(await showing(frame)).toBe("rf-screen-vehicle-ownership");
    await enterTo(page, frame, "rf-screen-vehicle-use");
    await context.close();
  });
});
