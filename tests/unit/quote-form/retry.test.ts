// @vitest-environment happy-dom
/**
 * When the server cannot store the request just now (503 while its database restarts or fails
 * over, or no answer at all), the form sends the same request again by itself (issue 10): the
 * same idempotency key and session, after Retry-After, saying politely that it is still sending,
 * for about 90 s; then the network message, and the next press tries again with the same key.
 * Driven through mount() with the real submitLead over a faked fetch, on fake timers.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { retryAfterMs, submitLead } from "../../../client/quote-form/api";
import { NETWORK_ERROR, RETRY_POLICY, STILL_SENDING, retryDelay } from "../../../client/quote-form/submit";
import { SUBMIT_LABEL } from "../../../shared/consent-disclosure";
import {
  $,
  REFERENCE,
  control,
  created,
  fakeLeadsEndpoint,
  fillAll,
  nextButton,
  offline,
  openForm,
  refused,
  stepShown,
  unavailable,
  type LeadReply,
} from "./harness";

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  document.body.innerHTML = "";
});

const formMessage = () => $(".rf-form-error");
const thanksShown = () => document.querySelector(".rf-done") !== null;

/** A form filled in (on real timers), then fake timers, then Send pressed and its first try answered. */
async function sendWith(...replies: LeadReply[]) {
  const endpoint = fakeLeadsEndpoint(...replies);
  const { server } = await openForm(undefined, { submitLead });
  await fillAll();
  vi.useFakeTimers();
  nextButton().click();
  await vi.advanceTimersByTimeAsync(0);
  return { endpoint, server };
}

function expectStillSending(): void {
  expect(formMessage().textContent).toBe(STILL_SENDING);
  expect(formMessage().getAttribute("role"), "a polite status, not an alert").toBe("status");
  expect(nextButton().disabled).toBe(true);
  expect(nextButton().textContent).toBe("Sending…");
  expect($("#rf-form").getAttribute("aria-busy")).toBe("true");
  expect(thanksShown()).toBe(false);
}

describe("a 503 while the database is away", () => {
  it("says it is still sending, then sends the same request again after Retry-After and thanks once", async () => {
    const { endpoint, server } = await sendWith(unavailable("2"), created);
    expect(endpoint.bodies).toHaveLength(1);
    expectStillSending();
    expect(control("email").value, "the answers stay in the form").toBe("Ana.Diaz@Example.com");

    await vi.advanceTimersByTimeAsync(1_999);
    expect(endpoint.bodies).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(endpoint.bodies).toHaveLength(2);

    const [first, second] = endpoint.bodies;
    expect(second).toEqual(first);
    expect(second!.idempotencyKey).toBe(first!.idempotencyKey);
    expect(second!.formToken).toBe("form-token-1");
    expect(endpoint.csrfTokens).toEqual(["csrf-1", "csrf-1"]);
    expect(server.openSession, "the same session").toHaveBeenCalledTimes(1);

    expect($(".rf-reference").textContent).toBe(REFERENCE);
    expect(document.querySelectorAll(".rf-done")).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(endpoint.bodies, "nothing more is sent").toHaveLength(2);
  });

  it("waits as long as Retry-After says (up to 10 s), never less than its own back-off", async () => {
    const { endpoint } = await sendWith(unavailable("7"), unavailable("1"), unavailable("60"), created);
    await vi.advanceTimersByTimeAsync(6_999);
    expect(endpoint.bodies).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(endpoint.bodies).toHaveLength(2);
    // Retry-After 1 s, but the second retry backs off 4 s.
    await vi.advanceTimersByTimeAsync(3_999);
    expect(endpoint.bodies).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(endpoint.bodies).toHaveLength(3);
    // Retry-After 60 s: capped at 10 s.
    await vi.advanceTimersByTimeAsync(9_999);
    expect(endpoint.bodies).toHaveLength(3);
    expectStillSending();
    await vi.advanceTimersByTimeAsync(1);
    expect(endpoint.bodies).toHaveLength(4);
    expect($(".rf-reference").textContent).toBe(REFERENCE);
    expect(new Set(endpoint.bodies.map((body) => body.idempotencyKey)).size).toBe(1);
  });

  it("retries a 503 that is not ours (a load balancer's page, no JSON, no Retry-After) after 2 s", async () => {
    const { endpoint } = await sendWith(() => new Response("<h1>503 Service Unavailable</h1>", { status: 503, headers: { "content-type": "text/html" } }), created);
    expectStillSending();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(endpoint.bodies).toHaveLength(2);
    expect($(".rf-reference").textContent).toBe(REFERENCE);
  });
});

describe("no answer at all (offline, or the server restarting)", () => {
  it("backs off 2, 4, 8, then 10 s, with the same key and session, until it gets through", async () => {
    const { endpoint, server } = await sendWith(offline, offline, offline, offline, offline, created);
    const times = [0];
    for (let elapsed = 0; endpoint.bodies.length < 6 && elapsed < 60_000; ) {
      await vi.advanceTimersByTimeAsync(1_000);
      elapsed += 1_000;
      if (endpoint.bodies.length > times.length) times.push(elapsed);
    }
    expect(times).toEqual([0, 2_000, 6_000, 14_000, 24_000, 34_000]);
    expect(new Set(endpoint.bodies.map((body) => body.idempotencyKey)).size).toBe(1);
    expect(server.openSession).toHaveBeenCalledTimes(1);
    expect($(".rf-reference").textContent).toBe(REFERENCE);
  });
});

describe("giving up after about 90 s", () => {
  it("shows the network message, keeps every answer, and the next press sends the same key again", async () => {
    const { endpoint } = await sendWith(unavailable("2"));
    await vi.advanceTimersByTimeAsync(RETRY_POLICY.budgetMs - 1);
    // Tries at 0, 2, 6, 14, 24, …, 84 s; one more at 94 s would pass the budget.
    expect(endpoint.bodies).toHaveLength(11);
    expect(formMessage().textContent).toBe(NETWORK_ERROR);
    expect(formMessage().getAttribute("role")).toBe("alert");
    expect(nextButton().disabled).toBe(false);
    expect(nextButton().textContent).toBe(SUBMIT_LABEL);
    expect(document.activeElement, "the send button, ready for another try").toBe(nextButton());
    expect($("#rf-form").getAttribute("aria-busy")).toBe("false");
    expect(stepShown()).toEqual([3]);
    expect(control("email").value).toBe("Ana.Diaz@Example.com");
    expect(control("phone").value).toBe("4155550134");
    expect(control("consent").checked).toBe(true);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(endpoint.bodies, "it stopped").toHaveLength(11);

    endpoint.replies.splice(0, endpoint.replies.length, created);
    nextButton().click();
    await vi.advanceTimersByTimeAsync(0);
    expect(endpoint.bodies).toHaveLength(12);
    expect(endpoint.bodies[11]!.idempotencyKey).toBe(endpoint.bodies[0]!.idempotencyKey);
    expect($(".rf-reference").textContent).toBe(REFERENCE);
  });
});

describe("other answers keep their behaviour", () => {
  it("a 429 is shown at once as an alert, and nothing is sent again by itself", async () => {
    const { endpoint } = await sendWith(refused(429, "Too many requests from your connection. Please wait a few minutes and try again."));
    expect(formMessage().textContent).toBe("Too many requests from your connection. Please wait a few minutes and try again.");
    expect(formMessage().getAttribute("role")).toBe("alert");
    expect(nextButton().disabled).toBe(false);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(endpoint.bodies).toHaveLength(1);
  });

  it("a 503 followed by a refusal shows the refusal, not the still-sending status", async () => {
    const { endpoint } = await sendWith(unavailable("2"), refused(400, "This form is out of date. Reload the page and send it again."));
    await vi.advanceTimersByTimeAsync(2_000);
    expect(endpoint.bodies).toHaveLength(2);
    expect(formMessage().textContent).toBe("This form is out of date. Reload the page and send it again.");
    expect(formMessage().getAttribute("role")).toBe("alert");
  });
});

describe("the policy's arithmetic", () => {
  it("backs off 2, 4, 8, 10, 10 s; Retry-After is a floor, 10 s the ceiling", () => {
    expect([1, 2, 3, 4, 5].map((retry) => retryDelay(retry, undefined))).toEqual([2_000, 4_000, 8_000, 10_000, 10_000]);
    expect(retryDelay(1, 5_000)).toBe(5_000);
    expect(retryDelay(3, 2_000)).toBe(8_000);
    expect(retryDelay(1, 120_000)).toBe(10_000);
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    const now = Date.parse("2026-11-23T12:00:00Z");
    expect(retryAfterMs("2", now)).toBe(2_000);
    expect(retryAfterMs(" 0 ", now)).toBe(0);
    expect(retryAfterMs("Mon, 23 Nov 2026 12:00:05 GMT", now)).toBe(5_000);
    expect(retryAfterMs("Mon, 23 Nov 2026 11:59:00 GMT", now)).toBe(0);
    expect(retryAfterMs(null, now)).toBeUndefined();
    expect(retryAfterMs("soon", now)).toBeUndefined();
    expect(retryAfterMs("-3", now)).toBeUndefined();
  });
});
