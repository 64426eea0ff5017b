/**
 * The Do Not Sell page's action in the browser (no server context): it sends the form to
 * POST /api/privacy-requests and turns each answer of the API's envelope into what the page shows.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ActionFunctionArgs } from "react-router-dom";
import { action, type DoNotSellActionData } from "../../client/pages/do-not-sell-data";

afterEach(() => {
  vi.unstubAllGlobals();
});

async function submitWith(reply: Response): Promise<{ data: DoNotSellActionData; sent: { url: string; init: RequestInit } }> {
  const fetchMock = vi.fn(async () => reply);
  vi.stubGlobal("fetch", fetchMock);
  const body = new URLSearchParams({ _csrf: "token", submissionId: "00000000-0000-4000-8000-000000000001", requestType: "access", email: "pat@example.com" });
  const request = new Request("http://localhost/do-not-sell", { method: "POST", body });
  const data = (await action({ request, context: undefined, params: {} } as unknown as ActionFunctionArgs)) as DoNotSellActionData;
  const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
  return { data, sent: { url, init } };
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

describe("the Do Not Sell action with JavaScript", () => {
  it("sends the fields as JSON with the CSRF header, and shows the reference of a 201", async () => {
    const { data, sent } = await submitWith(json(201, { reference: "PR-7K3M-Q9XD", dueAt: "2026-01-01T00:00:00.000Z" }));
    // The type sent comes back too, so the confirmation speaks of that request (a revocation has its own words).
    expect(data).toEqual({ received: "PR-7K3M-Q9XD", dueAt: "2026-01-01T00:00:00.000Z", requestType: "access" });
    expect(sent.url).toBe("/api/privacy-requests");
    expect((sent.init.headers as Record<string, string>)["x-csrf-token"]).toBe("token");
    expect(JSON.parse(String(sent.init.body))).toEqual({ requestType: "access", email: "pat@example.com", submissionId: "00000000-0000-4000-8000-000000000001" });
  });

  it("shows the first reference for a 409 envelope", async () => {
    const { data } = await submitWith(json(409, { status: "error", error: "We already received this request.", reference: "PR-7K3M-Q9XD" }));
    expect(data).toEqual({ duplicateOf: "PR-7K3M-Q9XD" });
  });

  it("shows field messages and keeps the values for a 422 envelope", async () => {
    const { data } = await submitWith(json(422, { status: "invalid", errors: { email: "Enter an email address like name@example.com." } }));
    expect(data).toEqual({ errors: { email: "Enter an email address like name@example.com." }, values: { requestType: "access", email: "pat@example.com" } });
  });

  it.each([
    [403, "Your session has expired. Reload the page and send the form again."],
    [429, "Too many requests from your connection. Please wait a few minutes and try again."],
    [400, "This form has expired. Reload the page and try again."],
  ])("shows the envelope's message for a %i", async (status, error) => {
    const { data } = await submitWith(json(status, { status: "error", error }));
    expect(data).toEqual({ formError: error });
  });

  it("shows a general message for an answer that is not the envelope (a proxy's HTML page)", async () => {
    const { data } = await submitWith(new Response("<html>502 Bad Gateway</html>", { status: 502, headers: { "Content-Type": "text/html" } }));
    expect(data).toEqual({ formError: "Something went wrong. Please try again in a moment." });
  });
});
