// @vitest-environment happy-dom
/**
 * Sending the quote request, through mount() with a fake server: the answers as typed plus the
 * envelope, the thank-you step, the server's field errors, a lost connection and the form's own
 * retry (more in retry.test.ts), and a second press while the first request travels.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Session } from "../../../client/quote-form/api";
import { CONSENT_DISCLOSURE } from "../../../shared/consent-disclosure";
import { HONEYPOT_FIELD, type LeadSubmitResponse } from "../../../shared/lead/api";
import { LEAD_MESSAGES } from "../../../shared/lead/fields";
import {
  $,
  FORM_URL,
  PAGE_URL,
  REFERENCE,
  control,
  errorText,
  fillAll,
  fillContact,
  fillUpToContact,
  screenShown,
  focusedId,
  liveRegion,
  nextButton,
  openForm,
  pressNext,
  countShown,
  headingShown,
  settle,
  stepShown,
  VID,
} from "./harness";

afterEach(() => {
  document.body.innerHTML = "";
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const STILL_SENDING = "Still sending your request… (we will keep trying)";

/** What the form sends for the answers harness.fillAll() types: as typed, not normalised. */
const TYPED = {
  zip: "90210",
  vehicles: [{ year: "2020", make: "Toyota", model: " Camry ", vin: "", ownership: "finance", primaryUse: "commute", annualMileage: "10k_15k" }],
  drivers: [
    {
      firstName: "Ana",
      lastName: "Diaz-Ortega",
      dateOfBirth: "04/15/1990",
      relationship: "",
      maritalStatus: "single",
      licenseStatus: "active",
      ageFirstLicensed: "16",
      accidents: "0",
      tickets: "0",
      claims: "0",
      dui: "no",
      sr22: "no",
    },
  ],
  currentlyInsured: "yes",
  currentInsurer: "GEICO",
  insuredFor: "1_3y",
  coverage: "standard",
  residence: "rent",
  streetAddress: "123 Main St Apt 4",
  email: "Ana.Diaz@Example.com",
  // Typed as 415.555.0134: the field keeps its digits (issue 42).
  phone: "4155550134",
  consent: true,
};

const bodyOf = (call: readonly unknown[] | undefined) => call?.[1] as Record<string, unknown>;

describe("sending the request", () => {
  it("sends the answers as typed with the envelope, then shows the thank-you with the reference and the phone formatted", async () => {
    const { server } = await openForm();
    await fillAll();
    await pressNext();

    expect(server.submitLead).toHaveBeenCalledTimes(1);
    const [session, body] = server.submitLead.mock.calls[0]!;
    expect(session).toEqual({ csrfToken: "csrf-1", formToken: "form-token-1", disclosure: CONSENT_DISCLOSURE });
    expect(body).toEqual({
      ...TYPED,
      idempotencyKey: expect.stringMatching(UUID),
      formToken: "form-token-1",
      consentVersion: CONSENT_DISCLOSURE.version,
      formUrl: FORM_URL,
      pageUrl: PAGE_URL,
      [HONEYPOT_FIELD]: "",
      sid: "a1",
      tid: "b2",
      vid: VID,
    });
    expect(server.openSession).toHaveBeenCalledTimes(1); // opened with the form, used on submit
    expect(server.sendEvent).toHaveBeenCalledWith({ event: "form_step_completed", step: 3, screen: "contact", zip: "90210", sid: "a1", tid: "b2", vid: VID, ms: 0 });

    expect(document.querySelector("#rf-form")).toBeNull();
    const heading = $("#rf-done-title");
    expect(heading.textContent).toBe("Thank you, Ana!");
    expect(document.activeElement).toBe(heading);
    expect($(".rf-reference").textContent).toBe(REFERENCE);
    const thanks = $(".rf-done").textContent;
    expect(thanks).toContain(`Your quote request is in. Your reference number is ${REFERENCE}.`);
    expect(thanks).toContain("Each company that takes your request contacts you by phone or text at (415) 555-0134, or by email, with its quote.");
    expect(thanks).not.toContain("in the past 30 days");
    // Only true statements (issue 32): nothing says companies are reviewing it before one took it.
    expect(thanks).not.toMatch(/review/i);
    // Our number is a tap to call.
    expect($(".rf-done .rf-call").getAttribute("href")).toBe("tel:+18005550142");
    // No count or bar left over: the form, and with it the question count, is gone.
    expect(document.querySelector(".rf-progress")).toBeNull();
    expect(document.querySelector(".rf-count")).toBeNull();
    // Nor in the live region: the last "Question N of M" is not left to be read under the thank-you.
    await vi.waitFor(() => expect(liveRegion().textContent).toBe(""), { timeout: 5_000 });
  });

  it("sends what a bot typed into the honeypot, and says so kindly when the request is a duplicate", async () => {
    const { server } = await openForm();
    server.submitLead.mockResolvedValueOnce({ status: "created", reference: REFERENCE, duplicate: true });
    await fillAll();
    $<HTMLInputElement>("#rf-website").value = "https://spam.example";
    await pressNext();
    expect(bodyOf(server.submitLead.mock.calls[0])[HONEYPOT_FIELD]).toBe("https://spam.example");
    expect($(".rf-done").textContent).toContain("We already had a request from you in the past 30 days");
  });

  it("shows the thank-you when the server already has this request (a repeated key)", async () => {
    const { server } = await openForm();
    server.submitLead.mockResolvedValueOnce({ status: "already_sent", reference: "LD-AAAA-BBBB" });
    await fillAll();
    await pressNext();
    expect($(".rf-reference").textContent).toBe("LD-AAAA-BBBB");
  });

  it("refuses to send with a step's answer missing: the consent box's message, focused", async () => {
    const { server } = await openForm();
    await fillAll();
    control("consent").click(); // unticked again
    await pressNext();
    expect(server.submitLead).not.toHaveBeenCalled();
    expect(errorText("consent")).toBe(LEAD_MESSAGES.consent);
    expect(focusedId()).toBe("rf-consent");
    expect(control("email").value).toBe("Ana.Diaz@Example.com");
  });
});

describe("when the server refuses answers (422)", () => {
  it("takes the visitor to the record a path names (vehicles.1.model), and says so for a list-level answer", async () => {
    const { server } = await openForm();
    await fillUpToContact(2);
    fillContact();
    server.submitLead.mockResolvedValueOnce({ status: "invalid", errors: { "vehicles.1.model": "The server refuses this model." } });
    await pressNext();
    expect(screenShown()).toEqual(["vehicle-model"]);
    expect(headingShown()).toBe("Vehicle 2: Model");
    expect(control("model").value).toBe("F-150");
    expect(errorText("model")).toBe("The server refuses this model.");
    expect(focusedId()).toBe("rf-model");

    // An answer about a whole list (or a record the form cannot show) goes above the buttons.
    const again = await openForm();
    await fillAll();
    again.server.submitLead.mockResolvedValueOnce({ status: "invalid", errors: { drivers: "Add at least one driver (you), and at most 4.", "drivers.1": "Send each driver as an object of answers." } });
    await pressNext();
    expect(screenShown()).toEqual(["drivers"]);
    expect($(".rf-form-error").textContent).toBe("Add at least one driver (you), and at most 4.");
  });

  it("shows its messages on the step they belong to, focuses the first and keeps every answer", async () => {
    const { server } = await openForm();
    server.submitLead.mockResolvedValueOnce({
      status: "invalid",
      errors: { "drivers.0.firstName": "The server refuses this first name.", email: "The server refuses this email." },
    });
    await fillAll();
    await pressNext();

    expect(screenShown()).toEqual(["driver-name"]);
    expect(countShown()).toBe("Question 8 of 23"); // insured today: one more question
    expect(errorText("firstName")).toBe("The server refuses this first name.");
    expect(control("firstName").getAttribute("aria-invalid")).toBe("true");
    expect(errorText("email")).toBe("The server refuses this email.");
    expect(focusedId()).toBe("rf-firstName");
    await vi.waitFor(() => expect(liveRegion().textContent).toBe("2 answers need attention. The first: The server refuses this first name."), { timeout: 5_000 });
    expect(control("firstName").value).toBe("Ana");
    expect(control("email").value).toBe("Ana.Diaz@Example.com");
    expect(nextButton().disabled).toBe(false);
    // Back on the name screen, whose button goes on to the next question, not straight to sending.
    expect(nextButton().textContent).toBe("Next");
    expect(document.querySelector(".rf-done")).toBeNull();
  });

  it("shows a refusal without field errors above the buttons", async () => {
    const { server } = await openForm();
    server.submitLead.mockResolvedValueOnce({ status: "error", error: "Too many requests. Please wait a minute." });
    await fillAll();
    await pressNext();
    expect($(".rf-form-error").textContent).toBe("Too many requests. Please wait a minute.");
    expect(nextButton().disabled).toBe(false);
    expect(document.activeElement, "the send button, ready for another try").toBe(nextButton());
    expect(stepShown()).toEqual([3]);
  });
});

describe("a lost connection", () => {
  it("keeps the answers, says it is still sending, and tries again by itself with the same idempotency key and session", async () => {
    const { server } = await openForm();
    server.submitLead.mockRejectedValueOnce(new TypeError("Failed to fetch"));
    await fillAll();
    vi.useFakeTimers();
    try {
      nextButton().click();
      await vi.advanceTimersByTimeAsync(0);

      // More in tests/unit/quote-form/retry.test.ts; the network message comes after ~90 s.
      expect($(".rf-form-error").textContent).toBe(STILL_SENDING);
      expect(nextButton().disabled).toBe(true);
      expect($("#rf-form").getAttribute("aria-busy")).toBe("true");
      expect(stepShown()).toEqual([3]);
      for (const field of ["email", "phone", "streetAddress"] as const) expect(control(field).value).toBe(TYPED[field]);
      expect(control("consent").checked).toBe(true);

      await vi.advanceTimersByTimeAsync(2_000);
      expect(server.submitLead).toHaveBeenCalledTimes(2);
      const [first, second] = server.submitLead.mock.calls.map(bodyOf);
      expect(second!.idempotencyKey).toBe(first!.idempotencyKey);
      expect(second!.idempotencyKey).toMatch(UUID);
      // The same session: a fresh form token would date the form from now and be refused as too fast.
      expect(server.openSession).toHaveBeenCalledTimes(1);
      expect(second!.formToken).toBe("form-token-1");
      expect($(".rf-reference").textContent).toBe(REFERENCE);
    } finally {
      vi.useRealTimers();
    }
  });

  it("opens a session on submit when the one asked for on opening could not be had", async () => {
    const openSession = vi
      .fn<() => Promise<Session>>()
      .mockRejectedValueOnce(new TypeError("Failed to fetch"))
      .mockResolvedValue({ csrfToken: "csrf-late", formToken: "form-token-late", disclosure: CONSENT_DISCLOSURE });
    const { server } = await openForm(undefined, { openSession });
    await fillAll();
    await pressNext();
    expect(openSession).toHaveBeenCalledTimes(2);
    expect(server.submitLead.mock.calls[0]?.[0]).toEqual({ csrfToken: "csrf-late", formToken: "form-token-late", disclosure: CONSENT_DISCLOSURE });
    expect(bodyOf(server.submitLead.mock.calls[0]).formToken).toBe("form-token-late");
  });
});

describe("pressing send twice", () => {
  it("sends once: the button is busy while the request travels, and a second submit does nothing", async () => {
    const { server } = await openForm();
    let answer: (reply: LeadSubmitResponse) => void = () => {};
    server.submitLead.mockImplementationOnce(() => new Promise((resolve) => (answer = resolve)));
    await fillAll();

    await pressNext();
    expect(server.submitLead).toHaveBeenCalledTimes(1);
    expect(nextButton().disabled).toBe(true);
    expect(nextButton().textContent).toBe("Sending…");
    expect($("#rf-form").getAttribute("aria-busy")).toBe("true");

    await pressNext(); // the disabled button
    $<HTMLFormElement>("#rf-form").requestSubmit(); // Enter in a field, whatever the button's state
    await settle();
    expect(server.submitLead).toHaveBeenCalledTimes(1);

    answer({ status: "created", reference: REFERENCE, duplicate: false });
    await settle();
    expect($(".rf-reference").textContent).toBe(REFERENCE);
    expect(server.submitLead).toHaveBeenCalledTimes(1);
  });
});
