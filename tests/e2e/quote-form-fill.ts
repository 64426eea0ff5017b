/**
 * Fills the quote form (one question per screen, issue 32) the way a visitor does, for the
 * browser tests: a choice is tapped and the form goes on by itself; a typed answer is followed by
 * Next. A scope is the framed form (a FrameLocator) or rapidfire.html opened on its own (a Page).
 */
import type { FrameLocator } from "playwright";

export type FormScope = Pick<FrameLocator, "getByLabel" | "getByRole" | "getByText" | "locator">;

export interface VehicleAnswers {
  year: string;
  make: string;
  model: string;
  /** The ownership and use choices' labels, the mileage's value. */
  ownership: string;
  use: string;
  mileage: string;
}

export interface DriverAnswers {
  firstName: string;
  lastName: string;
  /** As typed, digit by digit: "04151990" (the field adds the slashes). */
  birth: string;
  /** For drivers after the first: the relationship's value. */
  relationship?: string;
  /** The marital status's value. */
  marital: string;
  licensedAt: string;
  /** The accidents choice's label: "None", "1", "2", "3 or more". */
  accidents?: string;
}

export const VEHICLES: readonly VehicleAnswers[] = [
  { year: "2020", make: "Toyota", model: "Camry", ownership: "Financing it", use: "Commuting to work or school", mileage: "10k_15k" },
  { year: "2018", make: "Ford", model: "F-150", ownership: "Own it", use: "Business", mileage: "over_20k" },
  { year: "2015", make: "Honda", model: "Civic", ownership: "Leasing it", use: "Personal use and errands", mileage: "under_5k" },
];

export const DRIVERS: readonly DriverAnswers[] = [
  { firstName: "Ana", lastName: "Diaz-Ortega", birth: "04151990", marital: "married", licensedAt: "16", accidents: "None" },
  { firstName: "Luis", lastName: "Diaz", birth: "11021988", relationship: "spouse", marital: "married", licensedAt: "17", accidents: "1" },
  { firstName: "Eva", lastName: "Diaz", birth: "01022008", relationship: "child", marital: "single", licensedAt: "16", accidents: "None" },
];

export const next = (form: FormScope) => form.getByRole("button", { name: "Next" }).click();
export const heading = (form: FormScope, name: string | RegExp) => form.getByRole("heading", { name, exact: typeof name === "string" });

/** The screen showing (shared/lead/fields.ts, FORM_SCREENS), by its id. */
export async function screenShown(form: FormScope): Promise<string> {
  const id = (await form.locator(".rf-step:not([hidden])").getAttribute("id")) ?? "";
  return id.replace("rf-screen-", "");
}

/** Waits until the screen `id` is the one showing. */
export async function onScreen(form: FormScope, id: string): Promise<void> {
  await form.locator(`#rf-screen-${id}:not([hidden])`).waitFor();
}

/**
 * Answers a one-question screen by tapping (clicking) the option with this value, as a visitor
 * does; the form goes on by itself, so this waits for the screen to go. A long list's option not
 * shown is found through its filter box first.
 */
export async function answer(form: FormScope, screen: string, field: string, value: string): Promise<void> {
  await onScreen(form, screen);
  const option = form.locator(`#rf-screen-${screen} input[name="${field}"][value="${value}"]`);
  if (!(await option.isVisible())) {
    await form.locator(`#rf-screen-${screen} .rf-filter`).fill(value);
  }
  await option.click();
  await form.locator(`#rf-screen-${screen}[hidden]`).waitFor({ state: "attached" });
}

/** Types a screen's one text answer and presses Next. */
export async function typeAnswer(form: FormScope, screen: string, label: string, text: string): Promise<void> {
  await onScreen(form, screen);
  await form.getByLabel(label, { exact: true }).fill(text);
  await next(form);
  await form.locator(`#rf-screen-${screen}[hidden]`).waitFor({ state: "attached" });
}

/** The car's year, make and model (a screen each), ending on "Do you own, finance or lease it?". */
export async function fillCar(form: FormScope, vehicle: VehicleAnswers): Promise<void> {
  await answer(form, "vehicle-year", "year", vehicle.year);
  await answer(form, "vehicle-make", "make", vehicle.make);
  await typeAnswer(form, "vehicle-model", "Model", vehicle.model);
}

/** The car's ownership, use and miles, ending on the vehicles list. */
export async function fillUse(form: FormScope, vehicle: VehicleAnswers): Promise<void> {
  await onScreen(form, "vehicle-ownership");
  await form.getByLabel(vehicle.ownership).click();
  await onScreen(form, "vehicle-use");
  await form.getByLabel(vehicle.use).click();
  await answer(form, "vehicle-mileage", "annualMileage", vehicle.mileage);
  await onScreen(form, "vehicles");
}

/** The driver's name and date of birth (typed digit by digit), and another driver's relationship, ending on the marital status. */
export async function fillPerson(form: FormScope, driver: DriverAnswers): Promise<void> {
  await onScreen(form, "driver-name");
  await form.getByLabel("First name").fill(driver.firstName);
  await form.getByLabel("Last name").fill(driver.lastName);
  await next(form);
  await onScreen(form, "driver-birth");
  await form.getByLabel("Date of birth").fill("");
  await form.getByLabel("Date of birth").pressSequentially(driver.birth);
  await next(form);
  if (driver.relationship) await answer(form, "driver-relationship", "relationship", driver.relationship);
  await onScreen(form, "driver-marital");
}

const COUNTS: Readonly<Record<string, string>> = { None: "0", "1": "1", "2": "2", "3 or more": "3" };

/** The driver's marital status, license, age first licensed and record, ending on the drivers list. */
export async function fillHistory(form: FormScope, driver: DriverAnswers): Promise<void> {
  await answer(form, "driver-marital", "maritalStatus", driver.marital);
  await answer(form, "driver-license", "licenseStatus", "active");
  await typeAnswer(form, "driver-licensed-age", "Age when first licensed", driver.licensedAt);
  await answer(form, "driver-accidents", "accidents", COUNTS[driver.accidents ?? "None"]!);
  await answer(form, "driver-tickets", "tickets", "0");
  await answer(form, "driver-claims", "claims", "0");
  await answer(form, "driver-dui", "dui", "no");
  await answer(form, "driver-sr22", "sr22", "no");
  await onScreen(form, "drivers");
}

/** Insured with GEICO for 1 to 3 years, standard coverage, a homeowner; ending on the contact screen. */
export async function fillInsurance(form: FormScope): Promise<void> {
  await answer(form, "insurer", "currentInsurer", "GEICO");
  await answer(form, "insured-for", "insuredFor", "1_3y");
  await onScreen(form, "coverage");
  await form.getByLabel(/^Standard:/).click();
  await onScreen(form, "residence");
  await form.getByLabel("I own my home").click();
  await onScreen(form, "contact");
}

export async function fillContact(form: FormScope): Promise<void> {
  await form.getByLabel("Street address", { exact: true }).fill("123 Main St Apt 4");
  // exact: the consent box's label (the disclosure) mentions "the phone number and email address".
  await form.getByLabel("Email address", { exact: true }).fill("Ana.Diaz@Example.com");
  await form.getByLabel("Phone number", { exact: true }).fill("(415) 555-0134");
}

/**
 * From the first screen (the ZIP already known) to the contact screen: `vehicles` cars and
 * `drivers` drivers, then the household's screens. `check` runs on every list screen and at the end (e.g. no sideways scroll).
 */
export async function fillQuote(form: FormScope, counts: { vehicles: number; drivers: number }, check: () => Promise<void> = async () => {}): Promise<void> {
  for (let i = 0; i < counts.vehicles; i += 1) {
    if (i > 0) await form.getByRole("button", { name: "Add another vehicle" }).click();
    await fillCar(form, VEHICLES[i]!);
    await check();
    await fillUse(form, VEHICLES[i]!);
    await heading(form, "Your vehicles").waitFor();
    await check();
  }
  await next(form);
  for (let i = 0; i < counts.drivers; i += 1) {
    if (i > 0) await form.getByRole("button", { name: "Add another driver" }).click();
    await fillPerson(form, DRIVERS[i]!);
    await check();
    await fillHistory(form, DRIVERS[i]!);
    await heading(form, "Your drivers").waitFor();
    await check();
  }
  await next(form);
  await fillInsurance(form);
  await check();
}
