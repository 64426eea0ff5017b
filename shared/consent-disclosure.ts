/**
 * The consent disclosure shown beside the quote form's consent checkbox: the one place its
 * wording lives. The form renders it, the server stores which version a visitor agreed to (and
 * the text itself, once per version, in consent_disclosures), so a lead's consent can be proved
 * word for word years later (TCPA, 47 U.S.C. § 227; our privacy policy keeps consent records
 * for 5 years).
 *
 * Changing anything that changes the text (the wording, the partner list in site.ts, the button
 * label) requires a new `version` and a new CONSENT_DISCLOSURE_SHA256: tests/unit and the server's
 * start-up check refuse a changed text under an old version.
 */
import { carriers, site } from "./site";
import { paths } from "./routes";

/** A run of plain text, or a link. */
export type DisclosurePart = string | { text: string; href: string };

/** The submit button's label: the disclosure names it, so it is part of what is agreed to. */
export const SUBMIT_LABEL = "Get My Quotes";

function listOf(names: readonly string[]): string {
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

/** The partners the visitor agrees may contact them, by name. */
export const CONSENT_PARTNERS: readonly string[] = carriers.map((carrier) => carrier.name);

export const CONSENT_DISCLOSURE: { version: number; parts: readonly DisclosurePart[] } = {
  version: 1,
  parts: [
    `By ticking this box and selecting “${SUBMIT_LABEL}”, I agree that ${site.legalEntity} and its partners ` +
      `${listOf(CONSENT_PARTNERS)}, and licensed insurance agents acting for them, may contact me about car insurance ` +
      "quotes at the phone number and email address I gave above, including by calls and text messages made with an " +
      "automatic telephone dialing system or an artificial or prerecorded voice. Calls may be recorded. Message and " +
      "data rates may apply. My consent is not a condition of buying any goods or services, and I can withdraw it at " +
      "any time (reply STOP to a text, or tell the caller). I agree to the ",
    { text: "Terms of Use", href: paths.terms },
    " and have read the ",
    { text: "Privacy Policy", href: paths.privacy },
    ".",
  ],
};

/** The disclosure as plain text: exactly what is hashed and stored. */
export function disclosureText(parts: readonly DisclosurePart[] = CONSENT_DISCLOSURE.parts): string {
  return parts.map((part) => (typeof part === "string" ? part : part.text)).join("");
}

/**
 * SHA-256 (hex) of disclosureText() for CONSENT_DISCLOSURE.version. Recorded by hand when the
 * version is bumped, so an edit without a bump fails the tests instead of reaching production.
 */
export const CONSENT_DISCLOSURE_SHA256 = "ec6ccb1d3ae36e4b1a256222db7e1d9fd339bbb2ac53e59901d84c80f1face22";
