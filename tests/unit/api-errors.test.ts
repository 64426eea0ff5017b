/**
 * The API's one error handler (server/api/errors.ts): which answer each kind of error gets, and
 * what is logged. The HTTP tests (tests/http/api-pipeline.test.ts) cover it through the app.
 */
import { describe, expect, it } from "vitest";
import { HttpError, clientErrorStatus } from "../../server/http/http-error";
import { envelopeOf } from "../../server/api/errors";
import { fakeExchange } from "../support/api-exchange";

describe("envelopeOf", () => {
  it("writes status, the visitor's message, then any extra fields", () => {
    expect(JSON.stringify(envelopeOf(new HttpError(409, "Already.", { reference: "PR-AAAA-BBBB" })))).toBe(
      '{"status":"error","error":"Already.","reference":"PR-AAAA-BBBB"}',
    );
  });

  it("never lets extra fields replace status or error", () => {
    expect(envelopeOf(new HttpError(400, "Visible.", { status: "created", error: "hidden", other: 1 }))).toEqual({ status: "error", error: "Visible.", other: 1 });
  });

  it("answers field errors as { status: invalid, errors } (422)", () => {
    const error = HttpError.invalid({ email: "Enter an email address." });
    expect(error.status).toBe(422);
    expect(JSON.stringify(envelopeOf(error))).toBe('{"status":"invalid","errors":{"email":"Enter an email address."}}');
  });
});

describe("clientErrorStatus", () => {
  it.each([
    [new HttpError(403, "x"), 403],
    [Object.assign(new Error("too big"), { status: 413, type: "entity.too.large" }), 413],
    [{ statusCode: 400 }, 400],
    [new HttpError(503, "x"), undefined],
    [new Error("boom"), undefined],
    ["a string", undefined],
    [null, undefined],
  ])("%o → %s", (error, status) => {
    expect(clientErrorStatus(error)).toBe(status);
  });
});

describe("apiErrors", () => {
  it("answers an HttpError as it says, no-store, without logging (the code that threw logs what matters)", () => {
    const { sent, log, handle } = fakeExchange();
    handle(new HttpError(415, "Send JSON."));
    expect(sent).toEqual({ status: 415, body: { status: "error", error: "Send JSON." }, headers: { "cache-control": "no-store" } });
    expect(log.warn).not.toHaveBeenCalled();
    expect(log.error).not.toHaveBeenCalled();
  });

  it("keeps a Cache-Control the handler chose (an unknown ZIP code is cacheable)", () => {
    const { sent, handle } = fakeExchange({ "cache-control": "public, max-age=86400" });
    handle(new HttpError(404, "We could not find ZIP code 99999."));
    expect(sent.headers["cache-control"]).toBe("public, max-age=86400");
  });

  it("answers another library's 4xx with its status and our message, logged as a client error", () => {
    const { sent, log, handle } = fakeExchange();
    const error = Object.assign(new Error("request aborted"), { status: 400 });
    handle(error);
    expect(sent.status).toBe(400);
    expect(sent.body).toEqual({ status: "error", error: expect.any(String) });
    expect(JSON.stringify(sent.body)).not.toContain("aborted");
    expect(log.warn).toHaveBeenCalledWith({ err: error, status: 400 }, "client error");
  });

  it("answers anything else with a 500 that says nothing of the cause, and logs it as an error", () => {
    const { sent, log, handle } = fakeExchange();
    const error = new Error("connection refused to 10.0.0.5:5432");
    handle(error);
    expect(sent.status).toBe(500);
    expect(sent.body).toEqual({ status: "error", error: "Something went wrong on our side. Please try again in a moment." });
    expect(log.error).toHaveBeenCalledWith({ err: error }, "request failed");
  });

  it("passes the error on when the answer has already started", () => {
    const { sent, next, handle } = fakeExchange({}, true);
    const error = new HttpError(400, "x");
    handle(error);
    expect(next).toHaveBeenCalledWith(error);
    expect(sent.status).toBeUndefined();
  });
});
