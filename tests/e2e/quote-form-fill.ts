/**
 * Fills the quote form (issue 13's screens) the way a visitor does, for the browser tests: a
 * scope is the framed form (a FrameLocator) or rapidfire.html opened on its own (a Page).
 */
import type { FrameLocator } from "playwright";

export type FormScope = Pick<FrameLocator, "getByLabel" | "getByRole" | "getByText" | "locator">;

export interface VehicleAnswers {
  year: string;
  make: string;
  model: string;
  /** The ownership radio's label. */
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
  marital: string;
  licensedAt: string;
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

/** The "Which car?" screen's answers (not Next). */
export async function fillCar(form: FormScope, vehicle: VehicleAnswers): Promise<void> {
  await form.getByLabel("Year", { exact: true }).selectOption(vehicle.year);
  await form.getByLabel("Make", { exact: true }).selectOption(vehicle.make);
  await form.getByLabel("Model", { exact: true }).fill(vehicle.model);
}

/** The "How is it used?" screen's answers (not Next). */
export async function fillUse(form: FormScope, vehicle: VehicleAnswers): Promise<void> {
  await form.getByLabel(vehicle.ownership).check();
  await form.getByLabel(vehicle.use).check();
  await form.getByLabel("About how many miles a year?").selectOption(vehicle.mileage);
}

export async function fillPerson(form: FormScope, driver: DriverAnswers): Promise<void> {
  await form.getByLabel("First name").fill(driver.firstName);
  await form.getByLabel("Last name").fill(driver.lastName);
  await form.getByLabel("Date of birth").fill("");
  await form.getByLabel("Date of birth").pressSequentially(driver.birth);
  if (driver.relationship) await form.getByLabel("Relationship to you").selectOption(driver.relationship);
  await form.getByLabel("Marital status").selectOption(driver.marital);
}

export async function fillHistory(form: FormScope, driver: DriverAnswers): Promise<void> {
  await form.getByLabel("Driver's license status").selectOption("active");
  await form.getByLabel("Age when first licensed").fill(driver.licensedAt);
  await form.getByRole("group", { name: "Accidents in the past 3 years" }).getByLabel(driver.accidents ?? "None", { exact: true }).check();
  await form.getByRole("group", { name: "Tickets or violations in the past 3 years" }).getByLabel("None", { exact: true }).check();
  await form.getByRole("group", { name: "Insurance claims in the past 3 years" }).getByLabel("None", { exact: true }).check();
  await form.getByRole("group", { name: "A DUI or DWI in the past 7 years?" }).getByLabel("No", { exact: true }).check();
  await form.getByRole("group", { name: "Does your state require an SR-22 filing?" }).getByLabel("No", { exact: true }).check();
}

export async function fillInsurance(form: FormScope): Promise<void> {
  await form.getByRole("group", { name: "Do you have car insurance today?" }).getByLabel("Yes", { exact: true }).check();
  await form.getByLabel("Current insurance company").selectOption("GEICO");
  await form.getByLabel("Insured without a break for").selectOption("1_3y");
  await form.getByLabel(/^Standard:/).check();
  await form.getByLabel("I own my home").check();
}

export async function fillContact(form: FormScope): Promise<void> {
  await form.getByLabel("Street address", { exact: true }).fill("123 Main St Apt 4");
  // exact: the consent box's label (the disclosure) mentions "the phone number and email address".
  await form.getByLabel("Email address", { exact: true }).fill("Ana.Diaz@Example.com");
  await form.getByLabel("Phone number", { exact: true }).fill("(415) 555-0134");
}

/**
 * From the first screen (the ZIP already known) to the contact screen: `vehicles` cars and
 * `drivers` drivers, then the insurance screen. `check` runs on every screen (e.g. no sideways scroll).
 */
export async function fillQuote(form: FormScope, counts: { vehicles: number; drivers: number }, check: () => Promise<void> = async () => {}): Promise<void> {
  for (let i = 0; i < counts.vehicles; i += 1) {
    if (i > 0) await form.getByRole("button", { name: "Add another vehicle" }).click();
    await fillCar(form, VEHICLES[i]!);
    await check();
    await next(form);
    await fillUse(form, VEHICLES[i]!);
    await check();
    await next(form);
    await heading(form, "Your vehicles").waitFor();
    await check();
  }
  await next(form);
  for (let i = 0; i < counts.drivers; i += 1) {
    if (i > 0) await form.getByRole("button", { name: "Add another driver" }).click();
    await fillPerson(form, DRIVERS[i]!);
    await check();
    await next(form);
    await fillHistory(form, DRIVERS[i]!);
    await check();
    await next(form);
    await heading(form, "Your drivers").waitFor();
    await check();
  }
  await next(form);
  await fillInsurance(form);
  await check();
  await next(form);
  await heading(form, "How to reach you").waitFor();
}
