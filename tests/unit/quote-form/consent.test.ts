// @vitest-environment happy-dom
/**
 * The words beside the consent box come from the form's session (client/quote-form/consent.ts):
 * the form shows exactly the stored text the server sent, sends its version, and never sends a
 * consent to words the visitor was not shown.
 */
import { describe, expect, it, vi } from "vitest";
import type { Session } from "../../../client/quote-form/api";
import { CONSENT_CHANGED } from "../../../client/quote-form/consent";
import { NETWORK_ERROR } from "../../../client/quote-form/submit";
import { CONSENT_DISCLOSURE, PHONE_PLACEHOLDER, disclosureParts, disclosureText, type ShownDisclosure } from "../../../shared/consent-disclosure";
import { $, control, errorText, fillAll, focusedId, openForm, pressNext, settle, type } from "./harness";

/** What a server with two buyers sends: another text, another version. */
const BUYERS: ShownDisclosure = { version: 7, parts: disclosureParts(["Acme Insurance Agency", "Beta Auto Insurance"]) };
const sessionWith = (disclosure: ShownDisclosure, n = 1): Session => ({ csrfToken: `csrf-${n}`, formToken: `form-token-${n}`, disclosure });
const labelText = () => $("#rf-field-consent label").textContent;
const bodyOf = (call: readonly unknown[] | undefined) => call?.[1] as Record<string, unknown>;

describe("the consent box's words", () => {
  it("are the session's: the buyers it names, with working links, and its version is sent", async () => {
    const { server } = await openForm(undefined, { openSession: vi.fn(async () => sessionWith(BUYERS)) });
    await settle();
    expect(labelText()).toBe(disclosureText(BUYERS.parts));
    expect(labelText()).toContain("its partners Acme Insurance Agency and Beta Auto Insurance, and licensed insurance agents acting for them");
    const links = [...document.querySelectorAll<HTMLAnchorElement>("#rf-field-consent label a")];
    expect(links.map((link) => [link.textContent, link.getAttribute("href"), link.target, link.rel])).toEqual([
      ["Stop Calls and Texts", "/do-not-sell?request=revoke_consent", "_blank", "noopener"],
      ["Terms of Use", "/terms-of-use", "_blank", "noopener"],
      ["Privacy Policy", "/privacy-policy", "_blank", "noopener"],
    ]);

    await fillAll();
    await pressNext();
    expect(server.submitLead).toHaveBeenCalledTimes(1);
    expect(bodyOf(server.submitLead.mock.calls[0]).consentVersion).toBe(7);
  });

  it("show back the phone number as it is typed, once it is a US number (issue 13)", async () => {
    await openForm();
    await settle();
    const slot = () => $("#rf-field-consent .rf-consent-phone").textContent;
    expect(slot()).toBe(PHONE_PLACEHOLDER);
    type("phone", "212 555");
    expect(slot()).toBe(PHONE_PLACEHOLDER);
    type("phone", "212.555.0188");
    expect(slot()).toBe("(212) 555-0188");
    expect(labelText()).toContain("may call and text me about car insurance quotes at (212) 555-0188 and email me");
    type("phone", "");
    expect(slot()).toBe(PHONE_PLACEHOLDER);
  });

  it("keep the checkbox, its label and its ARIA while the session is on its way", async () => {
    let arrive: (session: Session) => void = () => {};
    await openForm(undefined, { openSession: () => new Promise<Session>((resolve) => (arrive = resolve)) });
    // The bundle's words until then, in the same label.
    expect(labelText()).toBe(disclosureText(CONSENT_DISCLOSURE.parts));
    expect(control("consent").getAttribute("aria-describedby")).toBe("rf-consent-error");
    expect($("#rf-field-consent label").getAttribute("for")).toBe("rf-consent");
    arrive(sessionWith(BUYERS));
    await settle();
    expect(labelText()).toBe(disclosureText(BUYERS.parts));
    expect(control("consent").checked).toBe(false);
    expect(errorText("consent")).toBe("");
  });

  it("untick the box when they change after it was ticked, and send nothing until it is ticked again", async () => {
    const openSession = vi.fn<() => Promise<Session>>().mockRejectedValueOnce(new TypeError("Failed to fetch")).mockResolvedValue(sessionWith(BUYERS, 2));
    const { server } = await openForm(undefined, { openSession });
    await fillAll(); // ticks the box beside the bundle's words
    await pressNext();
    expect(openSession).toHaveBeenCalledTimes(2);
    expect(server.submitLead).not.toHaveBeenCalled();
    // The new words, the number typed shown in them.
    expect(labelText()).toBe(disclosureText(BUYERS.parts).replace(PHONE_PLACEHOLDER, "(415) 555-0134"));
    expect(control("consent").checked).toBe(false);
    expect(errorText("consent")).toBe(CONSENT_CHANGED);
    expect(focusedId()).toBe("rf-consent");

    control("consent").click();
    await pressNext();
    expect(server.submitLead).toHaveBeenCalledTimes(1);
    expect(bodyOf(server.submitLead.mock.calls[0])).toMatchObject({ consentVersion: 7, consent: true, formToken: "form-token-2" });
  });

  it("are sent at once when a late session brings the very words shown", async () => {
    const openSession = vi.fn<() => Promise<Session>>().mockRejectedValueOnce(new TypeError("Failed to fetch")).mockResolvedValue(sessionWith(CONSENT_DISCLOSURE, 2));
    const { server } = await openForm(undefined, { openSession });
    await fillAll();
    await pressNext();
    expect(server.submitLead).toHaveBeenCalledTimes(1);
    expect(bodyOf(server.submitLead.mock.calls[0]).consentVersion).toBe(CONSENT_DISCLOSURE.version);
  });

  it("wait for a session still on its way when the visitor sends, without asking for a second", async () => {
    let arrive: (session: Session) => void = () => {};
    const openSession = vi.fn(() => new Promise<Session>((resolve) => (arrive = resolve)));
    const { server } = await openForm(undefined, { openSession });
    await fillAll();
    await pressNext();
    expect(server.submitLead).not.toHaveBeenCalled();
    arrive(sessionWith(CONSENT_DISCLOSURE));
    await settle();
    expect(openSession).toHaveBeenCalledTimes(1);
    expect(server.submitLead).toHaveBeenCalledTimes(1);
    expect(bodyOf(server.submitLead.mock.calls[0]).consentVersion).toBe(CONSENT_DISCLOSURE.version);
  });

  it("are never sent without a session: no version, no request, and a message", async () => {
    const openSession = vi.fn<() => Promise<Session>>().mockRejectedValue(new TypeError("Failed to fetch"));
    const { server } = await openForm(undefined, { openSession });
    await fillAll();
    await pressNext();
    expect(server.submitLead).not.toHaveBeenCalled();
    expect($(".rf-form-error").textContent).toBe(NETWORK_ERROR);
    expect(control("consent").checked).toBe(true);
  });
});
