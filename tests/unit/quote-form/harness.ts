/**
 * Drives the quote form (client/quote-form/mount.ts) in happy-dom the way a visitor does: the
 * page of rapidfire.html around it, fake server calls (recorded by vi.fn), and helpers that type,
 * choose and press Next. The test files set the happy-dom environment.
 */
import { expect, vi, type Mock } from "vitest";
import { ADVANCE_DELAY_MS, mount, type QuoteFormDeps } from "../../../client/quote-form/mount";
import type { DecodedVin, Session } from "../../../client/quote-form/api";
import type { ZipLocation } from "../../../client/quote-form/types";
import type { FunnelEvent } from "../../../shared/funnel-events";
import type { LeadSubmitResponse } from "../../../shared/lead/api";
import { CSRF_HEADER } from "../../../shared/routes";
import { CONSENT_DISCLOSURE, type ShownDisclosure } from "../../../shared/consent-disclosure";
import type { DisclosureAnswers } from "../../../shared/lead/disclosure-answers";

/** The visit id the quote page put in the form's address (shared/campaign.ts). */
export const VID = "6f1c2a4e-8b3d-4f5a-9c7e-1d2b3a4c5e6f";
export const FORM_URL = `https://www.quoteridge.com/rapidfire.html?zip=90210&sid=a1&tid=b2&vid=${VID}`;
export const PAGE_URL = `https://www.quoteridge.com/?zip=90210&sid=a1&tid=b2&vid=${VID}`;
export const REFERENCE = "LD-7K3M-Q9XD";

const PLACES: Record<string, ZipLocation> = {
  "90210": { zip: "90210", city: "Beverly Hills", state: "CA" },
  "10001": { zip: "10001", city: "New York", state: "NY" },
};

/** The catalog's models, for the years and makes the tests choose. */
const MODELS: Record<string, string[]> = {
  "2020 Toyota": ["4Runner", "Camry", "Corolla", "RAV4", "Tacoma"],
  "2018 Ford": ["Escape", "F-150", "Mustang"],
};

/** The catalog's VINs the tests type (a real one: 2003 Honda Accord). */
const VINS: Record<string, DecodedVin> = {
  "1HGCM82633A004352": { vin: "1HGCM82633A004352", year: 2003, make: "Honda", model: "Accord" },
};

export interface Fakes {
  openSession: Mock<() => Promise<Session>>;
  lookUpZip: Mock<(zip: string) => Promise<ZipLocation | null>>;
  listModels: Mock<(year: string, make: string) => Promise<string[]>>;
  decodeVin: Mock<(vin: string) => Promise<DecodedVin | null>>;
  submitLead: Mock<(session: Session, body: Record<string, unknown>) => Promise<LeadSubmitResponse>>;
  /** The consent words for the answers (POST /api/leads/disclosure): the bundled words naming only us, unless a test says otherwise. */
  fetchDisclosure: Mock<(session: Session, body: DisclosureAnswers) => Promise<ShownDisclosure>>;
  sendEvent: Mock<(event: FunnelEvent) => void>;
  /** The form's clock (milliseconds): tests move it forward to make time pass. */
  clock: { ms: number };
}

/** The server, faked: each session has numbered tokens and the bundled disclosure; known ZIPs are 90210 and 10001; every request is stored. */
export function fakeServer(): Fakes {
  let sessions = 0;
  return {
    openSession: vi.fn(async () => {
      sessions += 1;
      return { csrfToken: `csrf-${sessions}`, formToken: `form-token-${sessions}`, disclosure: CONSENT_DISCLOSURE };
    }),
    lookUpZip: vi.fn(async (zip: string) => PLACES[zip] ?? null),
    listModels: vi.fn(async (year: string, make: string) => MODELS[`${year} ${make}`] ?? []),
    decodeVin: vi.fn(async (vin: string) => VINS[vin] ?? null),
    submitLead: vi.fn(async (): Promise<LeadSubmitResponse> => ({ status: "created", reference: REFERENCE, duplicate: false })),
    fetchDisclosure: vi.fn(async (): Promise<ShownDisclosure> => CONSENT_DISCLOSURE),
    sendEvent: vi.fn(),
    clock: { ms: 50_000 },
  };
}

/** rapidfire.html's page around the form: its title and line, and the #rf-app root, in one main. */
export function renderPage(): HTMLElement {
  document.body.innerHTML = `
    <main class="rf" id="rf">
      <h1>Your free car insurance quote</h1>
      <p class="rf-intro">Free, no obligation, about two minutes.</p>
      <div id="rf-app" class="rf-app"></div>
    </main>`;
  return document.getElementById("rf-app")!;
}

/** The wall clock the forms read (for the answers kept across a reload); tests move it. */
export const wall = { ms: Date.UTC(2026, 5, 15, 18) };

/** Mounts a form on a fresh page, as if opened at rapidfire.html + search. */
export async function openForm(search = `?zip=90210&sid=a1&tid=b2&vid=${VID}`, overrides: Partial<QuoteFormDeps> = {}, { reload = false } = {}) {
  const server = fakeServer();
  // A new tab has an empty sessionStorage; a reload (of the same tab) keeps it.
  if (!reload) window.sessionStorage.clear();
  const root = renderPage();
  const { clock, ...calls } = server;
  const form = mount(root, { ...calls, now: () => clock.ms, wallClock: () => wall.ms, location: { href: FORM_URL, search }, pageUrl: () => PAGE_URL, ...overrides });
  await form.ready;
  return { server, root };
}

/** Lets the form's awaits (fake calls that resolve at once) run to their end. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 3; i += 1) await new Promise((resolve) => setTimeout(resolve, 0));
}

export const $ = <T extends HTMLElement = HTMLElement>(selector: string) => {
  const element = document.querySelector<T>(selector);
  if (!element) throw new Error(`${selector} is missing`);
  return element;
};
export const control = <T extends HTMLElement = HTMLInputElement>(field: string) => $<T>(`#rf-${field}`);
export const block = (field: string) => $(`#rf-field-${field}`);
export const errorText = (field: string) => $(`#rf-${field}-error`).textContent;
export const progress = () => $(".rf-progress");
export const nextButton = () => $<HTMLButtonElement>(".rf-next");
export const backButton = () => $<HTMLButtonElement>(".rf-back");
/** The screen showing, by its id (shared/lead/fields.ts, FORM_SCREENS). */
export const screenShown = () => [...document.querySelectorAll<HTMLElement>(".rf-step")].filter((screen) => !screen.hidden).map((screen) => screen.id.replace("rf-screen-", ""));
/** "Question 5 of 24", as the form shows it. */
export const countShown = () => $(".rf-count").textContent;
/** The step (1–3) the showing screen belongs to. */
export const stepShown = () => [...document.querySelectorAll<HTMLElement>(".rf-step")].filter((screen) => !screen.hidden).map((screen) => Number(screen.dataset.step));
export const headingShown = () => document.querySelector<HTMLElement>(".rf-step:not([hidden]) h2")?.textContent ?? "";
export const liveRegion = () => $('[role="status"]');
export const focusedId = () => (document.activeElement as HTMLElement | null)?.id ?? "";

/** Types into a text field (one input event, as a paste would). */
export function type(field: string, value: string): void {
  const input = control(field);
  input.focus();
  input.value = value;
  input.dispatchEvent(new Event("input", { bubbles: true }));
}

/** Chooses one option of a group as the keyboard does (Space on it): chosen, the screen stays. */
export function choose(field: string, value: string): void {
  const radio = $<HTMLInputElement>(`input[name="${field}"][value="${value}"]`);
  radio.focus();
  radio.click();
}

/** Taps one option of a group, as a finger does (pointerdown, then the click), and lets the form go on. */
export async function tap(field: string, value: string): Promise<void> {
  const option = $<HTMLInputElement>(`input[name="${field}"][value="${value}"]`).closest("label")!;
  option.dispatchEvent(new Event("pointerdown", { bubbles: true }));
  option.click();
  // The form shows the choice for a moment before it goes on.
  await new Promise((resolve) => setTimeout(resolve, ADVANCE_DELAY_MS + 20));
  await settle();
}

/** Presses Next (or, on the last screen, the submit button) and lets the form finish. */
export async function pressNext(): Promise<void> {
  nextButton().click();
  await settle();
}

/** Presses a list's button for a record: "Edit", "Remove" (by the record's place, from 0) or the Add button. */
export async function pressListButton(action: "edit" | "remove", index: number): Promise<void> {
  $<HTMLButtonElement>(`.rf-step:not([hidden]) .rf-${action}[data-index="${index}"]`).click();
  await settle();
}
export async function pressAdd(): Promise<void> {
  $<HTMLButtonElement>(".rf-step:not([hidden]) .rf-add").click();
  await settle();
}
/** The records a list shows, by name. */
export const listed = () => [...document.querySelectorAll(".rf-step:not([hidden]) .rf-record-name")].map((name) => name.textContent);

/** Answers the screen showing with one choice and presses Next. */
export async function answer(field: string, value: string): Promise<void> {
  choose(field, value);
  await pressNext();
}

/** Types into the screen's text field and presses Next. */
async function typeAndNext(field: string, value: string): Promise<void> {
  type(field, value);
  await pressNext();
}

/** The car's screens (year, make, model), ending on the ownership question. */
export async function fillCar(year = "2020", make = "Toyota", model = " Camry "): Promise<void> {
  await answer("year", year);
  await answer("make", make);
  await typeAndNext("model", model);
  expect(screenShown()).toEqual(["vehicle-ownership"]);
}

/** The car's use (ownership, use, miles), ending on the vehicles list. */
export async function fillUse(): Promise<void> {
  await answer("ownership", "finance");
  await answer("primaryUse", "commute");
  await answer("annualMileage", "10k_15k");
}

/** Every vehicle screen, ending on the vehicles list. */
export async function fillVehicle(year?: string, make?: string, model?: string): Promise<void> {
  await fillCar(year, make, model);
  await fillUse();
  expect(screenShown()).toEqual(["vehicles"]);
}

/** The driver's name and date of birth, and for another driver the relationship, ending on the marital status. */
export async function fillPerson(first = "Ana", last = "Diaz-Ortega", birth = "04151990", relationship?: string): Promise<void> {
  type("firstName", first);
  await typeAndNext("lastName", last);
  await typeAndNext("dateOfBirth", birth); // the field adds the slashes
  if (relationship) await answer("relationship", relationship);
  expect(screenShown()).toEqual(["driver-marital"]);
}

/** The rest of a driver's screens, marital status to SR-22, ending on the drivers list. */
export async function fillHistory(): Promise<void> {
  await answer("maritalStatus", "single");
  await answer("licenseStatus", "active");
  await typeAndNext("ageFirstLicensed", "16");
  await answer("accidents", "0");
  await answer("tickets", "0");
  await answer("claims", "0");
  await answer("dui", "no");
  await answer("sr22", "no");
}

/** Every driver screen, ending on the drivers list. */
export async function fillDriver(first?: string, last?: string, birth?: string, relationship?: string): Promise<void> {
  await fillPerson(first, last, birth, relationship);
  await fillHistory();
  expect(screenShown()).toEqual(["drivers"]);
}

/** The household's screens (insurer, how long, coverage, home), ending on the contact screen. */
export async function fillInsurance(insured: "yes" | "no" = "yes"): Promise<void> {
  if (insured === "yes") {
    await answer("currentInsurer", "GEICO");
    await answer("insuredFor", "1_3y");
  } else await answer("currentlyInsured", "no");
  await answer("coverage", "standard");
  await answer("residence", "rent");
}

export function fillContact(): void {
  type("streetAddress", "123 Main St Apt 4");
  type("email", "Ana.Diaz@Example.com");
  type("phone", "415.555.0134");
  control("consent").click();
}

/** Fills the vehicles (a 2020 Toyota Camry, then a 2018 Ford F-150), one driver and the insurance, and stops on the contact screen. */
export async function fillUpToContact(vehicles: 1 | 2 = 1): Promise<void> {
  await fillVehicle();
  if (vehicles === 2) {
    await pressAdd();
    await fillVehicle("2018", "Ford", "F-150");
  }
  await pressNext();
  await fillDriver();
  await pressNext();
  await fillInsurance();
  expect(screenShown()).toEqual(["contact"]);
}

/** Fills every screen (one vehicle, one driver) and stops on the last, ready to send. */
export async function fillAll(): Promise<void> {
  await fillUpToContact();
  fillContact();
}

/** A reply of POST /api/leads, made afresh for each request (a Response is read once). */
export type LeadReply = () => Response | Promise<Response>;

const jsonReply = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json; charset=utf-8", ...headers } });

/** 201: stored. */
export const created: LeadReply = () => jsonReply(201, { status: "created", reference: REFERENCE, duplicate: false });
/** 503 from our API (its database is away), with Retry-After when given. */
export const unavailable =
  (retryAfter?: string): LeadReply =>
  () =>
    jsonReply(503, { status: "error", error: "We could not save your request just yet." }, retryAfter === undefined ? {} : { "retry-after": retryAfter });
/** A JSON refusal of another status (e.g. 429). */
export const refused =
  (status: number, error: string): LeadReply =>
  () =>
    jsonReply(status, { status: "error", error });
/** No answer at all: fetch rejects, as browsers do offline. */
export const offline: LeadReply = () => Promise.reject(new TypeError("Failed to fetch"));

export interface LeadsEndpoint {
  /** The parsed body of every POST so far. */
  bodies: Array<Record<string, unknown>>;
  /** Each POST's CSRF header. */
  csrfTokens: Array<string | undefined>;
  /** The replies still to give; the last one repeats. Tests may push more. */
  replies: LeadReply[];
}

/**
 * The form's real submitLead (client/quote-form/api.ts) over a faked global fetch: each POST
 * gets the next reply (the last repeats). Pass `submitLead` from api.ts to openForm to use it;
 * vi.unstubAllGlobals() restores fetch.
 */
export function fakeLeadsEndpoint(...replies: LeadReply[]): LeadsEndpoint {
  const endpoint: LeadsEndpoint = { bodies: [], csrfTokens: [], replies };
  vi.stubGlobal(
    "fetch",
    vi.fn(async (_url: RequestInfo | URL, init?: RequestInit) => {
      endpoint.bodies.push(JSON.parse(String(init?.body)) as Record<string, unknown>);
      endpoint.csrfTokens.push((init?.headers as Record<string, string> | undefined)?.[CSRF_HEADER]);
      const reply = endpoint.replies.length > 1 ? endpoint.replies.shift()! : endpoint.replies[0]!;
      return reply();
    }),
  );
  return endpoint;
}
