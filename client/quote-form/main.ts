/**
 * The quote form (rapidfire.html, framed by the quote page /): three steps, checked field by
 * field with the shared rules, sent once as JSON to POST /api/leads. Everything typed stays in
 * the page's own inputs, so Back and a failed submit lose nothing. No framework: it must stay
 * small and start fast on a phone.
 */
import "./rapidfire.css";
import { parseCampaignSearch, sanitizeZipInput, zipSchema } from "../../shared/campaign";
import { HONEYPOT_FIELD, LEAD_FIELDS, LEAD_STEPS, checkLeadFields, type LeadErrors, type LeadField, type RawLead } from "../../shared/lead";
import { CONSENT_DISCLOSURE, SUBMIT_LABEL } from "../../shared/consent-disclosure";
import { formatUsPhone } from "../../shared/contact";
import { randomId } from "../../shared/random-id";
import { site } from "../../shared/site";
import { lookUpZip, openSession, sendEvent, submitLead, type Session } from "./api";
import { buildField, errorIdOf, fieldIdOf, idOf } from "./fields";
import { byId, h } from "./dom";
import type { ZipLocation } from "./types";

const { zip: zipFromAddress, campaign } = parseCampaignSearch(new URLSearchParams(window.location.search));
const STEP_COUNT = LEAD_STEPS.length;

/** One per form: a double-click or a retry sends the same key, so only one lead is ever stored. */
const idempotencyKey = randomId();
let session: Promise<Session> | undefined;
let step = 0;
let started = false;
let submitting = false;
/** ZIP → place (null: no such ZIP), so each ZIP is looked up once. */
const places = new Map<string, ZipLocation | null>();

const app = byId("rf-app");
const progress = app.closest("main")!.querySelector<HTMLElement>(".rf-progress")!;
const live = h("p", { class: "rf-visually-hidden", role: "status", "aria-live": "polite" });
const formError = h("p", { class: "rf-form-error", role: "alert" });
const backButton = h("button", { type: "button", class: "rf-back" }, "Back");
const nextButton = h("button", { type: "submit", class: "rf-next" }, "Next");
const placeText = h("span", {});
const changeZipButton = h("button", { type: "button", class: "rf-link-button" }, "Change ZIP code");
const placeSummary = h("p", { class: "rf-place", hidden: true }, placeText, " ", changeZipButton);
const steps = LEAD_STEPS.map((definition, index) =>
  h(
    "fieldset",
    { class: "rf-step", id: `rf-step-${index + 1}`, hidden: index > 0 },
    h("legend", {}, h("h2", { tabindex: "-1" }, `Step ${index + 1} of ${STEP_COUNT}: ${definition.title}`)),
    index === 0 ? placeSummary : null,
    ...definition.fields.map(buildField),
  ),
);
const form = h(
  "form",
  { id: "rf-form", novalidate: true, "aria-label": "Car insurance quote request" },
  // Off-screen and out of the tab order: people never fill it; form-filling bots do.
  h("div", { class: "rf-hp", "aria-hidden": "true" }, h("label", { for: "rf-website" }, "Leave this empty"), h("input", { id: "rf-website", name: HONEYPOT_FIELD, tabindex: "-1", autocomplete: "off" })),
  ...steps,
  formError,
  h("div", { class: "rf-nav" }, backButton, nextButton),
);
app.append(live, form);

const input = (field: LeadField) => byId<HTMLInputElement>(idOf(field));
const controlsOf = (field: LeadField) => [...form.querySelectorAll<HTMLInputElement | HTMLSelectElement>(`[name="${field}"]`)];
const fieldBlock = (field: LeadField) => byId(fieldIdOf(field));

function readRaw(): RawLead {
  const raw: RawLead = {};
  for (const field of LEAD_FIELDS) {
    const controls = controlsOf(field);
    const first = controls[0];
    if (!first) continue;
    if (first instanceof HTMLInputElement && first.type === "checkbox") raw[field] = first.checked;
    else if (first instanceof HTMLInputElement && first.type === "radio") raw[field] = (controls as HTMLInputElement[]).find((radio) => radio.checked)?.value ?? "";
    else raw[field] = first.value;
  }
  return raw;
}

function showError(field: LeadField, message: string | undefined): void {
  byId(errorIdOf(field)).textContent = message ?? "";
  for (const control of controlsOf(field)) {
    if (message) control.setAttribute("aria-invalid", "true");
    else control.removeAttribute("aria-invalid");
  }
}

const hasError = (field: LeadField) => byId(errorIdOf(field)).textContent !== "";

// --- ZIP code and its place ------------------------------------------------------------------

async function placeOf(zip: string): Promise<ZipLocation | null | undefined> {
  if (places.has(zip)) return places.get(zip);
  try {
    const place = await lookUpZip(zip);
    places.set(zip, place);
    return place;
  } catch {
    return undefined; // unreachable: the server checks it again on submit
  }
}

function showPlace(place: ZipLocation | null): void {
  if (place) placeText.textContent = `Quotes for ${place.city}, ${place.state} ${place.zip}.`;
  placeSummary.hidden = place === null;
  fieldBlock("zip").hidden = place !== null;
}

const unknownZip = (zip: string) => `We could not find ZIP code ${zip}. Please check it and enter it again.`;

changeZipButton.addEventListener("click", () => {
  showPlace(null);
  input("zip").focus();
  input("zip").select();
});

input("zip").addEventListener("input", () => {
  const zip = input("zip");
  const digits = sanitizeZipInput(zip.value);
  if (digits !== zip.value) zip.value = digits;
});

// --- Checking fields -------------------------------------------------------------------------

const visibleFields = (index: number) => (LEAD_STEPS[index]?.fields ?? []).filter((field) => !fieldBlock(field).hidden || field === "zip");

/** Checks fields with the shared rules (and the ZIP against the directory); shows each message. */
async function check(fields: readonly LeadField[]): Promise<LeadErrors> {
  const { errors, values } = checkLeadFields(readRaw(), fields);
  if (fields.includes("zip") && !errors.zip && typeof values.zip === "string") {
    const place = await placeOf(values.zip);
    if (place === null) errors.zip = unknownZip(values.zip);
    else if (place) showPlace(place);
  }
  for (const field of fields) showError(field, errors[field]);
  if (errors.zip) showPlace(null);
  return errors;
}

function focusField(field: LeadField): void {
  const controls = controlsOf(field);
  const target = (controls as HTMLInputElement[]).find((control) => "checked" in control && control.checked) ?? controls[0];
  target?.focus();
}

function announce(message: string): void {
  live.textContent = "";
  // A fresh text node after a tick, so screen readers announce a repeat of the same message.
  window.setTimeout(() => (live.textContent = message), 50);
}

const fieldOf = (target: EventTarget | null): LeadField | undefined => {
  const name = target instanceof HTMLInputElement || target instanceof HTMLSelectElement ? target.name : "";
  return (LEAD_FIELDS as readonly string[]).includes(name) ? (name as LeadField) : undefined;
};

// On leaving a field: its message (only once something was entered, or to update a shown one).
form.addEventListener("focusout", (event) => {
  const field = fieldOf(event.target);
  if (!field || field === "consent") return;
  const next = (event as FocusEvent).relatedTarget;
  if (next instanceof Node && fieldBlock(field).contains(next)) return; // moving between one group's radios
  const raw = readRaw()[field];
  if ((raw === "" || raw === undefined) && !hasError(field)) return;
  void check([field]).then((errors) => {
    const message = errors[field];
    if (message) announce(message);
  });
});

// While a message shows, it goes away as soon as the answer is fixed.
form.addEventListener("input", (event) => onEdit(event.target));
form.addEventListener("change", (event) => onEdit(event.target));

function onEdit(target: EventTarget | null): void {
  const field = fieldOf(target);
  if (!field) return;
  if (!started) {
    started = true;
    sendEvent({ event: "form_started", ...context() });
  }
  if (field === "currentlyInsured") toggleInsurer();
  if (field === "dateOfBirth") formatDate(target as HTMLInputElement);
  if (hasError(field) && field !== "zip") void check([field]);
}

function toggleInsurer(): void {
  const insured = readRaw().currentlyInsured === "yes";
  fieldBlock("currentInsurer").hidden = !insured;
  if (!insured) showError("currentInsurer", undefined);
}

/** Types "04151990" as "04/15/1990"; leaves alone a date typed with its own slashes ("4/5/1990"). */
function formatDate(control: HTMLInputElement): void {
  const value = control.value;
  if (!/^[\d/]*$/.test(value) || value.split("/").slice(0, -1).some((part) => part.length !== 2)) return;
  const digits = value.replace(/\//g, "").slice(0, 8);
  const formatted = [digits.slice(0, 2), digits.slice(2, 4), digits.slice(4)].filter(Boolean).join("/");
  // "04/" typed by hand stays as it is; anything else takes the formatted form.
  if (formatted !== value && value !== `${formatted}/`) control.value = formatted;
}

// --- Steps -----------------------------------------------------------------------------------

/** The ZIP (when valid) and the campaign ids, for the funnel events. */
function context() {
  const zip = input("zip").value || zipFromAddress;
  return { ...(zip && zipSchema.safeParse(zip).success ? { zip } : {}), ...campaign };
}

function showStep(index: number, focusHeading = true): void {
  step = index;
  steps.forEach((section, i) => (section.hidden = i !== index));
  backButton.hidden = index === 0;
  nextButton.textContent = index === STEP_COUNT - 1 ? SUBMIT_LABEL : "Next";
  progress.dataset.step = String(index + 1);
  progress.setAttribute("aria-valuenow", String(index + 1));
  progress.setAttribute("aria-valuetext", `Step ${index + 1} of ${STEP_COUNT}: ${LEAD_STEPS[index]?.title ?? ""}`);
  formError.textContent = "";
  if (focusHeading) {
    window.scrollTo(0, 0);
    steps[index]?.querySelector("h2")?.focus();
  }
}

/** Shows the first invalid field of the earliest step with errors, focused, and says how many. */
function revealErrors(errors: LeadErrors): void {
  const first = LEAD_FIELDS.find((field) => errors[field]);
  if (!first) return;
  const index = LEAD_STEPS.findIndex((definition) => definition.fields.includes(first));
  if (index !== step) showStep(index, false);
  for (const [field, message] of Object.entries(errors)) showError(field as LeadField, message);
  const count = Object.keys(errors).length;
  focusField(first);
  announce(count === 1 ? `One answer needs attention: ${errors[first]}` : `${count} answers need attention. The first: ${errors[first]}`);
}

backButton.addEventListener("click", () => showStep(Math.max(0, step - 1)));

form.addEventListener("submit", (event) => {
  event.preventDefault();
  void next();
});

async function next(): Promise<void> {
  if (submitting) return;
  const errors = await check(visibleFields(step));
  if (Object.keys(errors).length > 0) {
    revealErrors(errors);
    return;
  }
  sendEvent({ event: "form_step_completed", step: step + 1, ...context() });
  if (step < STEP_COUNT - 1) showStep(step + 1);
  else await send();
}

// --- Sending ---------------------------------------------------------------------------------

function parentAddress(): string {
  try {
    if (window.parent !== window) return window.parent.location.href;
  } catch {
    // A cross-origin parent (the CSP's frame-ancestors forbids it, but never fail on it).
  }
  return document.referrer || window.location.href;
}

function setBusy(busy: boolean): void {
  submitting = busy;
  nextButton.disabled = busy;
  form.setAttribute("aria-busy", String(busy));
  nextButton.textContent = busy ? "Sending…" : SUBMIT_LABEL;
}

async function send(): Promise<void> {
  const { values, errors } = checkLeadFields(readRaw(), LEAD_FIELDS);
  if (Object.keys(errors).length > 0) {
    revealErrors(errors);
    return;
  }
  setBusy(true);
  formError.textContent = "";
  try {
    const current = await (session ??= openSession());
    const reply = await submitLead(current, {
      ...values,
      idempotencyKey,
      formToken: current.formToken,
      consentVersion: CONSENT_DISCLOSURE.version,
      formUrl: window.location.href,
      pageUrl: parentAddress(),
      [HONEYPOT_FIELD]: byId<HTMLInputElement>("rf-website").value,
      ...campaign,
    });
    if (reply.status === "created") return showThanks(reply.reference, reply.duplicate, values);
    if (reply.status === "already_sent") return showThanks(reply.reference, false, values);
    if (reply.status === "invalid") revealErrors(reply.errors);
    else {
      formError.textContent = reply.error;
      nextButton.focus();
    }
  } catch {
    session = undefined; // fetch a fresh one on the next try
    formError.textContent = "We could not reach our server. Check your connection and try again: your answers are kept.";
    nextButton.focus();
  } finally {
    if (submitting) setBusy(false);
  }
}

function showThanks(reference: string, duplicate: boolean, values: Partial<Record<LeadField, unknown>>): void {
  submitting = false;
  const phone = typeof values.phone === "string" ? formatUsPhone(values.phone) : "your phone";
  const heading = h("h2", { tabindex: "-1" }, `Thank you, ${String(values.firstName ?? "")}!`);
  const done = h(
    "section",
    { class: "rf-done", "aria-labelledby": "rf-done-title" },
    heading,
    h("p", {}, "Your quote request is in. Your reference number is ", h("strong", { class: "rf-reference" }, reference), "."),
    duplicate
      ? h("p", {}, "We already had a request from you in the past 30 days, so we linked this one to it: partners who have it are working on it, and there is no need to send it again.")
      : null,
    h("h3", {}, "What happens next"),
    h(
      "ol",
      {},
      h("li", {}, "Insurance companies and agents who serve your ZIP code review your request, usually within minutes."),
      h("li", {}, `They contact you by phone or text at ${phone}, or by email, with their quotes.`),
      h("li", {}, "Compare the offers. Quotes are free and you are never obliged to buy."),
    ),
    h("p", { class: "rf-note" }, `Questions? Call ${site.phone} and give your reference number.`),
  );
  heading.id = "rf-done-title";
  form.replaceWith(done);
  progress.dataset.step = "done";
  progress.setAttribute("aria-valuenow", String(STEP_COUNT));
  progress.setAttribute("aria-valuetext", "Request sent");
  window.scrollTo(0, 0);
  heading.focus();
}

// --- Start -----------------------------------------------------------------------------------

async function start(): Promise<void> {
  showStep(0, false);
  fieldBlock("currentInsurer").hidden = true;
  session = openSession();
  session.catch(() => (session = undefined));
  if (!zipFromAddress) return;
  input("zip").value = zipFromAddress;
  const place = await placeOf(zipFromAddress);
  if (place) showPlace(place);
  else if (place === null) showError("zip", unknownZip(zipFromAddress));
}

void start();
