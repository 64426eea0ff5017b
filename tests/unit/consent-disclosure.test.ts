/**
 * The consent disclosure beside the quote form's checkbox (shared/consent-disclosure.ts): what it
 * must say (TCPA "prior express written consent"), and the versioning that lets a lead's consent
 * be proved word for word years later. The hash test below is THE guard against editing the
 * wording (or the partner list, or the button label) without bumping the version.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  CONSENT_DISCLOSURE,
  CONSENT_DISCLOSURE_SHA256,
  CONSENT_PARTNERS,
  SUBMIT_LABEL,
  disclosureText,
  type DisclosurePart,
} from "../../shared/consent-disclosure";
import { paths } from "../../shared/routes";
import { carriers, site } from "../../shared/site";
import { currentDisclosure, sha256Hex } from "../../server/leads/disclosure";

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
const text = disclosureText();
/** The text with runs of whitespace as single spaces, for phrase checks. */
const flat = text.replace(/\s+/g, " ");


describe("the consent disclosure's version and hash", () => {
  it("matches the recorded SHA-256 for its version", () => {
    expect(
      sha256(text),
      `The consent disclosure's text changed but CONSENT_DISCLOSURE.version (${CONSENT_DISCLOSURE.version}) and ` +
        "CONSENT_DISCLOSURE_SHA256 did not. Edits to the wording, the partner list (shared/site.ts carriers) or " +
        "SUBMIT_LABEL change what visitors agree to: bump the version and record the new hash in " +
        "shared/consent-disclosure.ts, so stored consent records keep pointing at the words those visitors saw.",
    ).toBe(CONSENT_DISCLOSURE_SHA256);
  });

  it("is a positive whole-number version with a lower-case hex SHA-256", () => {
    expect(Number.isInteger(CONSENT_DISCLOSURE.version) && CONSENT_DISCLOSURE.version >= 1).toBe(true);
    expect(CONSENT_DISCLOSURE_SHA256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("is what the server records: currentDisclosure() gives the same version, text and hash", () => {
    expect(currentDisclosure()).toEqual({ version: CONSENT_DISCLOSURE.version, text, sha256: CONSENT_DISCLOSURE_SHA256 });
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("hashes the exact characters: one changed space or quote gives another hash", () => {
    expect(sha256(text.replace("Calls may be recorded.", "Calls may be  recorded."))).not.toBe(CONSENT_DISCLOSURE_SHA256);
    expect(sha256(text.replace("“", '"'))).not.toBe(CONSENT_DISCLOSURE_SHA256);
    expect(sha256(`${text}\n`)).not.toBe(CONSENT_DISCLOSURE_SHA256);
  });
});

describe("disclosureText", () => {
  it("joins plain runs and link texts, without the addresses", () => {
    const parts: DisclosurePart[] = ["I agree to the ", { text: "Terms", href: "/terms-of-use" }, "."];
    expect(disclosureText(parts)).toBe("I agree to the Terms.");
    expect(text).not.toContain(paths.terms);
  });
});

describe("what the disclosure says", () => {
  it("names the business and, by name, every partner on the landing page", () => {
    expect(flat).toContain(site.legalEntity);
    expect(CONSENT_PARTNERS).toEqual(carriers.map((carrier) => carrier.name));
    for (const carrier of carriers) expect(flat, carrier.name).toContain(carrier.name);
    const last = carriers[carriers.length - 1]!.name;
    expect(flat).toContain(`${carriers.slice(0, -1).map((c) => c.name).join(", ")} and ${last}`);
  });

  it("covers contact about car insurance quotes by calls and text messages", () => {
    expect(flat).toMatch(/contact me about car insurance quotes/);
    expect(flat).toMatch(/\bcalls\b/);
    expect(flat).toMatch(/\btext messages\b/);
    expect(flat).toMatch(/phone number and email address I gave/);
  });

  it("says calls and texts may use an autodialer and an artificial or prerecorded voice", () => {
    expect(flat).toMatch(/automatic telephone dialing system/);
    expect(flat).toMatch(/artificial or prerecorded voice/);
  });

  it("says calls may be recorded", () => {
    expect(flat).toMatch(/Calls may be recorded\./);
  });

  it("says consent is not a condition of purchase and can be withdrawn", () => {
    expect(flat).toMatch(/consent is not a condition of buying any goods or services/);
    expect(flat).toMatch(/withdraw it at any time/);
    expect(flat).toMatch(/STOP/);
  });

  it("links to the terms of use and the privacy policy", () => {
    const links = CONSENT_DISCLOSURE.parts.filter((part): part is { text: string; href: string } => typeof part !== "string");
    expect(links).toEqual([
      { text: "Terms of Use", href: paths.terms },
      { text: "Privacy Policy", href: paths.privacy },
    ]);
    expect(paths.terms).toBe("/terms-of-use");
    expect(paths.privacy).toBe("/privacy-policy");
  });

  it("names the submit button by its label, so clicking it is part of the agreement", () => {
    expect(SUBMIT_LABEL).toBe("Get My Quotes");
    expect(flat).toContain(`selecting “${SUBMIT_LABEL}”`);
  });
});
