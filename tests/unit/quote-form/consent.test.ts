// @vitest-environment happy-dom
/**
 * The words beside the consent box are the visitor's own (client/quote-form/consent.ts, mount.ts;
 * docs/decisions/039-disclosure-per-visitor.md): asked of the server for the answers they depend on
 * when the form reaches the box, and again when those answers change or the server says they
 * changed. The form shows exactly the stored text the server sent, sends its version, and never
 * sends a consent to words the visitor was not shown.
 */
import { describe, expect, it, vi } from "vitest";
import type { Session, SubmitReply } from "../../../client/quote-form/api";
import { CONSENT_CHANGED } from "../../../client/quote-form/consent";
import { NETWORK_ERROR } from "../../../client/quote-form/submit";
import { CONSENT_DISCLOSURE, PHONE_PLACEHOLDER, disclosureParts, disclosureText, type ShownDisclosure } from "../../../shared/consent-disclosure";
import type { DisclosureAnswers } from "../../../shared/lead/disclosure-answers";
import { $, PAGE_URL, answer, backButton, control, errorText, fillAll, fillContact, fillUpToContact, focusedId, openForm, pressNext, screenShown, settle, type } from "./harness";

/** The words naming two buyers that could take the request: another text, another version. */
const BUYERS: ShownDisclosure = { version: 7, parts: disclosureParts(["Acme Insurance Agency", "Beta Auto Insurance"]) };
const labelText = () => $("#rf-field-consent label").textContent;
const bodyOf = (call: readonly unknown[] | undefined) => call?.[1] as Record<string, unknown>;
const wordsFor = (words: ShownDisclosure) => vi.fn(async (_session: Session, _body: DisclosureAnswers) => words);

describe("the consent box's words", () => {
  it("are the server's for the visitor's answers: the buyers it names, with working links, and its version is sent", async () => {
    const fetchDisclosure = wordsFor(BUYERS);
    const { server } = await openForm(undefined, { fetchDisclosure });
    await settle();
    // Not before the box's screen: the answers are not all given yet.
    expect(fetchDisclosure).not.toHaveBeenCalled();
    expect(labelText()).toBe(disclosureText(CONSENT_DISCLOSURE.parts));
    await fillAll();
    expect(fetchDisclosure).toHaveBeenCalledTimes(1);
    // Only what the words depend on: no name, no contact detail, the vehicles counted.
    expect(fetchDisclosure.mock.calls[0]?.[1]).toEqual({
      answers: {
        zip: "90210",
        currentlyInsured: "yes",
        insuredFor: "1_3y",
        coverage: "standard",
        residence: "rent",
        vehicles: 1,
        drivers: [{ dateOfBirth: "04/15/1990", accidents: "0", tickets: "0", claims: "0", dui: "no", sr22: "no" }],
      },
      pageUrl: PAGE_URL,
    });
    expect(fetchDisclosure.mock.calls[0]?.[0]).toMatchObject({ csrfToken: "csrf-1" });
    expect(labelText()).toBe(disclosureText(BUYERS.parts).replace(PHONE_PLACEHOLDER, "(415) 555-0134"));
    expect(labelText()).toContain("QuoteRidge Media, LLC and Acme Insurance Agency and Beta Auto Insurance, and licensed insurance agents acting for them");
    const links = [...document.querySelectorAll<HTMLAnchorElement>("#rf-field-consent label a")];
    expect(links.map((link) => [link.textContent, link.getAttribute("href"), link.target, link.rel])).toEqual([
      ["Stop Calls and Texts", "/do-not-sell?request=revoke_consent", "_blank", "noopener"],
      ["Terms of Use", "/terms-of-use", "_blank", "noopener"],
      ["Privacy Policy", "/privacy-policy", "_blank", "noopener"],
    ]);

    await pressNext();
    expect(server.submitLead).toHaveBeenCalledTimes(1);
    expect(bodyOf(server.submitLead.mock.calls[0]).consentVersion).toBe(7);
    // The same answers: no second ask.
    expect(fetchDisclosure).toHaveBeenCalledTimes(1);
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

  it("keep the checkbox, its label and its ARIA while the words are on their way", async () => {
    let arrive: (words: ShownDisclosure) => void = () => {};
    await openForm(undefined, { fetchDisclosure: () => new Promise<ShownDisclosure>((resolve) => (arrive = resolve)) });
    await fillUpToContact();
    // The bundle's words until then (naming only us), in the same label.
    expect(labelText()).toBe(disclosureText(CONSENT_DISCLOSURE.parts));
    expect(control("consent").getAttribute("aria-describedby")).toBe("rf-consent-error");
    expect($("#rf-field-consent label").getAttribute("for")).toBe("rf-consent");
    arrive(BUYERS);
    await settle();
    expect(labelText()).toBe(disclosureText(BUYERS.parts));
    expect(control("consent").checked).toBe(false);
    expect(errorText("consent")).toBe("");
  });

  it("untick the box when they change after it was ticked, and send nothing until it is ticked again", async () => {
    const fetchDisclosure = vi.fn<(session: Session, body: DisclosureAnswers) => Promise<ShownDisclosure>>().mockRejectedValueOnce(new TypeError("Failed to fetch")).mockResolvedValue(BUYERS);
    const { server } = await openForm(undefined, { fetchDisclosure });
    await fillAll(); // ticks the box beside the bundle's words
    await pressNext();
    expect(fetchDisclosure).toHaveBeenCalledTimes(2);
    expect(server.submitLead).not.toHaveBeenCalled();
    // The new words, the number typed shown in them.
    expect(labelText()).toBe(disclosureText(BUYERS.parts).replace(PHONE_PLACEHOLDER, "(415) 555-0134"));
    expect(control("consent").checked).toBe(false);
    expect(errorText("consent")).toBe(CONSENT_CHANGED);
    expect(focusedId()).toBe("rf-consent");

    control("consent").click();
    await pressNext();
    expect(server.submitLead).toHaveBeenCalledTimes(1);
    expect(bodyOf(server.submitLead.mock.calls[0])).toMatchObject({ consentVersion: 7, consent: true });
  });

  it("are sent at once when a late answer brings the very words shown", async () => {
    const fetchDisclosure = vi.fn<(session: Session, body: DisclosureAnswers) => Promise<ShownDisclosure>>().mockRejectedValueOnce(new TypeError("Failed to fetch")).mockResolvedValue(CONSENT_DISCLOSURE);
    const { server } = await openForm(undefined, { fetchDisclosure });
    await fillAll();
    await pressNext();
    expect(server.submitLead).toHaveBeenCalledTimes(1);
    expect(bodyOf(server.submitLead.mock.calls[0]).consentVersion).toBe(CONSENT_DISCLOSURE.version);
  });

  it("wait for words still on their way when the visitor sends, without asking twice", async () => {
    let arrive: (words: ShownDisclosure) => void = () => {};
    const fetchDisclosure = vi.fn(() => new Promise<ShownDisclosure>((resolve) => (arrive = resolve)));
    const { server } = await openForm(undefined, { fetchDisclosure });
    await fillAll();
    await pressNext();
    expect(server.submitLead).not.toHaveBeenCalled();
    arrive(CONSENT_DISCLOSURE);
    await settle();
    expect(fetchDisclosure).toHaveBeenCalledTimes(1);
    expect(server.submitLead).toHaveBeenCalledTimes(1);
    expect(bodyOf(server.submitLead.mock.calls[0]).consentVersion).toBe(CONSENT_DISCLOSURE.version);
  });

  it("are never sent without the words for the answers: no version, no request, and a message", async () => {
    const fetchDisclosure = vi.fn<(session: Session, body: DisclosureAnswers) => Promise<ShownDisclosure>>().mockRejectedValue(new TypeError("Failed to fetch"));
    const { server } = await openForm(undefined, { fetchDisclosure });
    await fillAll();
    await pressNext();
    expect(server.submitLead).not.toHaveBeenCalled();
    expect($(".rf-form-error").textContent).toBe(NETWORK_ERROR);
    expect(control("consent").checked).toBe(true);
  });

  it("are asked again when an answer they depend on changed, and the old words' version is never sent", async () => {
    const OWNERS: ShownDisclosure = { version: 9, parts: disclosureParts(["Owners Auto"]) };
    const fetchDisclosure = vi.fn(async (_session: Session, body: DisclosureAnswers) => (body.answers.residence === "own" ? OWNERS : BUYERS));
    const { server } = await openForm(undefined, { fetchDisclosure });
    await fillUpToContact();
    expect(labelText()).toContain("Acme Insurance Agency");
    // Back to the home question: the visitor owns it after all.
    backButton().click();
    await settle();
    expect(screenShown()).toEqual(["residence"]);
    await answer("residence", "own");
    expect(screenShown()).toEqual(["contact"]);
    expect(fetchDisclosure).toHaveBeenCalledTimes(2);
    expect(labelText()).toContain("QuoteRidge Media, LLC and Owners Auto, and licensed");
    fillContact();
    await pressNext();
    expect(bodyOf(server.submitLead.mock.calls[0]).consentVersion).toBe(9);
  });

  it("come again, in place, when the server refuses the version sent (409): the box unticked, nothing sent until ticked again", async () => {
    const fetchDisclosure = vi.fn<(session: Session, body: DisclosureAnswers) => Promise<ShownDisclosure>>().mockResolvedValueOnce(CONSENT_DISCLOSURE).mockResolvedValue(BUYERS);
    const stale = "We have updated the wording beside the consent box. Read it, tick the box again, and send the form again.";
    const submitLead = vi
      .fn<(session: Session, body: Record<string, unknown>) => Promise<SubmitReply>>()
      .mockResolvedValueOnce({ status: "stale_disclosure", error: stale })
      .mockResolvedValue({ status: "created", reference: "LD-7K3M-Q9XD", duplicate: false });
    await openForm(undefined, { fetchDisclosure, submitLead });
    await fillAll();
    await pressNext();
    await settle();
    expect(submitLead).toHaveBeenCalledTimes(1);
    expect(bodyOf(submitLead.mock.calls[0]).consentVersion).toBe(CONSENT_DISCLOSURE.version);
    expect(fetchDisclosure).toHaveBeenCalledTimes(2);
    expect(labelText()).toContain("Acme Insurance Agency");
    expect(control("consent").checked).toBe(false);
    expect(errorText("consent")).toBe(CONSENT_CHANGED);
    expect($(".rf-form-error").textContent).toBe(stale);
    expect(focusedId()).toBe("rf-consent");

    control("consent").click();
    await pressNext();
    expect(submitLead).toHaveBeenCalledTimes(2);
    expect(bodyOf(submitLead.mock.calls[1]).consentVersion).toBe(7);
  });
});
