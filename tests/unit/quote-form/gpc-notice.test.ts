// @vitest-environment happy-dom
/**
 * The Global Privacy Control notice on the quote form's last step: shown, above the consent box,
 * only when the browser sends GPC (navigator.globalPrivacyControl === true), so the visitor knows
 * before submitting that the request is not sold and still goes to the companies named.
 */
import { afterEach, describe, expect, it } from "vitest";
import { GPC_NOTICE, GPC_NOTICE_ID, gpcNotice } from "../../../client/quote-form/gpc-notice";
import { $, block, fillAll, openForm, pressNext, stepShown } from "./harness";

function setGpc(value: unknown): void {
  Object.defineProperty(navigator, "globalPrivacyControl", { value, configurable: true });
}

afterEach(() => {
  document.body.innerHTML = "";
  delete (navigator as { globalPrivacyControl?: unknown }).globalPrivacyControl;
});

describe("gpcNotice", () => {
  it("is a note saying the signal is honored, only for a browser whose signal is exactly true", () => {
    const notice = gpcNotice({ globalPrivacyControl: true })!;
    expect(notice.getAttribute("role")).toBe("note");
    expect(notice.id).toBe(GPC_NOTICE_ID);
    expect(notice.textContent).toBe(GPC_NOTICE);
    expect(GPC_NOTICE).toMatch(/opt-out signal .* is honored: we will not sell your information/);
    expect(GPC_NOTICE).toMatch(/still goes to the companies named below/);
    for (const value of [undefined, false, "1", 1, null]) expect(gpcNotice({ globalPrivacyControl: value })).toBeNull();
  });
});

describe("the quote form", () => {
  it("shows the notice on the last step, just above the consent box, when the browser sends GPC", async () => {
    setGpc(true);
    await openForm();
    const notice = $(`#${GPC_NOTICE_ID}`);
    expect(notice.closest("fieldset")?.id).toBe("rf-screen-contact");
    expect(notice.nextElementSibling).toBe(block("consent"));
    expect(notice.closest("[hidden]")).not.toBeNull(); // on step 3, not before

    await fillAll();
    expect(stepShown()).toEqual([3]);
    expect(notice.closest("[hidden]")).toBeNull();
    expect(document.querySelectorAll('[role="note"]')).toHaveLength(1);
  });

  it("shows no notice without the signal, and sends the form the same either way", async () => {
    setGpc(false);
    const { server } = await openForm();
    expect(document.getElementById(GPC_NOTICE_ID)).toBeNull();
    await fillAll();
    await pressNext();
    expect(server.submitLead).toHaveBeenCalledTimes(1);
    expect(Object.keys(server.submitLead.mock.calls[0]![1])).not.toContain("gpc");
  });

  it("sends a GPC visitor's form like any other", async () => {
    setGpc(true);
    const { server } = await openForm();
    await fillAll();
    await pressNext();
    expect(server.submitLead).toHaveBeenCalledTimes(1);
  });
});
