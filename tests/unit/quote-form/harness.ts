/**
 * Drives the quote form (client/quote-form/mount.ts) in happy-dom the way a visitor does: the
 * page of rapidfire.html around it, fake server calls (recorded by vi.fn), and helpers that type,
 * choose and press Next. The test files set the happy-dom environment.
 */
import { expect, vi, type Mock } from "vitest";
import { mount, type QuoteFormDeps } from "../../../client/quote-form/mount";
import type { Session } from "../../../client/quote-form/api";
import type { ZipLocation } from "../../../client/quote-form/types";
import type { FunnelEvent } from "../../../shared/funnel-events";
import type { LeadSubmitResponse } from "../../../shared/lead/api";
import type { LeadField } from "../../../shared/lead/fields";
import { CSRF_HEADER } from "../../../shared/routes";
import { CONSENT_DISCLOSURE } from "../../../shared/consent-disclosure";

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

export interface Fakes {
  openSession: Mock<() => Promise<Session>>;
  lookUpZip: Mock<(zip: string) => Promise<ZipLocation | null>>;
  listModels: Mock<(year: string, make: string) => Promise<string[]>>;
  submitLead: Mock<(session: Session, body: Record<string, unknown>) => Promise<LeadSubmitResponse>>;
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
    submitLead: vi.fn(async (): Promise<LeadSubmitResponse> => ({ status: "created", reference: REFERENCE, duplicate: false })),
    sendEvent: vi.fn(),
    clock: { ms: 50_000 },
  };
}

/** rapidfire.html's page around the form: the progress bar and the #rf-app root, in one main. */
export function renderPage(): HTMLElement {
  document.body.innerHTML = `
    <main class="rf" id="rf">
      <div class="rf-progress" role="progressbar" aria-valuemin="1" aria-valuemax="3" aria-valuenow="1" aria-valuetext="Step 1 of 3" aria-label="Progress">
        <div class="rf-progress-bar" id="rf-progress-bar"></div>
      </div>
      <div id="rf-app" class="rf-app"></div>
    </main>`;
  return document.getElementById("rf-app")!;
}

/** Mounts a form on a fresh page, as if opened at rapidfire.html + search. */
export async function openForm(search = `?zip=90210&sid=a1&tid=b2&vid=${VID}`, overrides: Partial<QuoteFormDeps> = {}) {
  const server = fakeServer();
  const root = renderPage();
  const { clock, ...calls } = server;
  const form = mount(root, { ...calls, now: () => clock.ms, location: { href: FORM_URL, search }, pageUrl: () => PAGE_URL, ...overrides });
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
export const control = <T extends HTMLElement = HTMLInputElement>(field: LeadField) => $<T>(`#rf-${field}`);
export const block = (field: LeadField) => $(`#rf-field-${field}`);
export const errorText = (field: LeadField) => $(`#rf-${field}-error`).textContent;
export const progress = () => $(".rf-progress");
export const nextButton = () => $<HTMLButtonElement>(".rf-next");
export const backButton = () => $<HTMLButtonElement>(".rf-back");
export const stepShown = () => [1, 2, 3].filter((step) => !$(`#rf-step-${step}`).hidden);
export const liveRegion = () => $('[role="status"]');
export const focusedId = () => (document.activeElement as HTMLElement | null)?.id ?? "";

/** Types into a text field (one input event, as a paste would). */
export function type(field: LeadField, value: string): void {
  const input = control(field);
  input.focus();
  input.value = value;
  input.dispatchEvent(new Event("input", { bubbles: true }));
}

/** Chooses an option from a list. */
export function select(field: LeadField, value: string): void {
  const list = control<HTMLSelectElement>(field);
  list.focus();
  list.value = value;
  expect(list.value, `${field} has the option ${value}`).toBe(value);
  list.dispatchEvent(new Event("input", { bubbles: true }));
  list.dispatchEvent(new Event("change", { bubbles: true }));
}

/** Clicks one radio of a group. */
export function choose(field: LeadField, value: string): void {
  $<HTMLInputElement>(`input[name="${field}"][value="${value}"]`).click();
}

/** Presses Next (or, on the last step, the submit button) and lets the form finish. */
export async function pressNext(): Promise<void> {
  nextButton().click();
  await settle();
}

export function fillVehicle(): void {
  select("vehicleYear", "2020");
  select("vehicleMake", "Toyota");
  type("vehicleModel", " Camry ");
  choose("ownership", "finance");
  choose("primaryUse", "commute");
}

export function fillDriver(insured: "yes" | "no" = "yes"): void {
  type("firstName", "Ana");
  type("lastName", "Diaz-Ortega");
  type("dateOfBirth", "04151990"); // the field adds the slashes
  select("licenseStatus", "active");
  choose("incidents", "none");
  choose("currentlyInsured", insured);
  if (insured === "yes") select("currentInsurer", "GEICO");
}

export function fillContact(): void {
  type("streetAddress", "123 Main St Apt 4");
  type("email", "Ana.Diaz@Example.com");
  type("phone", "415.555.0134");
  control("consent").click();
}

/** Fills all three steps and stops on the last, ready to send. */
export async function fillAll(): Promise<void> {
  fillVehicle();
  await pressNext();
  fillDriver();
  await pressNext();
  fillContact();
  expect(stepShown()).toEqual([3]);
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
