/**
 * The consent disclosure shown beside the quote form's consent checkbox: the one place its
 * wording lives. A visitor's consent must be provable word for word years later (TCPA,
 * 47 U.S.C. § 227; our privacy policy keeps consent records for 5 years), and a lead may only
 * ever go to the companies the words named (docs/decisions/010-consent-disclosure-and-certificate.md).
 *
 * Two things make up the text a visitor sees:
 * - the wording, CONSENT_TEMPLATE, with a slot for the partners' names. Its `version` and
 *   CONSENT_TEMPLATE_SHA256 guard edits of the words: tests/unit and the server's start-up check
 *   refuse changed words under an old version and hash.
 * - the partners named in the slot: the buyers of BUYERS_FILE when it lists any, else the
 *   carriers of shared/site.ts (CONSENT_DISCLOSURE below, the text before buyers existed).
 *
 * The version a visitor agrees to is the database's (server/consent/disclosures.ts): one per
 * distinct full text, so a new buyer list is a new version by itself. The form shows the text the
 * server sends with its session, and sends that version back.
 */
import { carriers, site } from "./site";
import { paths } from "./routes";

/** A run of plain text, or a link. */
export type DisclosurePart = string | { text: string; href: string };

/** Where the partners' names go in the wording. */
export const PARTNERS_SLOT = { slot: "partners" } as const;
export type TemplatePart = DisclosurePart | typeof PARTNERS_SLOT;

/** A disclosure as the form shows it: the version the server stored its text under, and the text. */
export interface ShownDisclosure {
  version: number;
  parts: readonly DisclosurePart[];
}

/** The submit button's label: the disclosure names it, so it is part of what is agreed to. */
export const SUBMIT_LABEL = "Get My Quotes";

/**
 * The wording. Only companies (and licensed agents acting for them) that may contact the visitor
 * about quotes are named: nothing about selling or sharing the request with anyone else.
 */
export const CONSENT_TEMPLATE: { version: number; parts: readonly TemplatePart[] } = {
  version: 1,
  parts: [
    `By ticking this box and selecting “${SUBMIT_LABEL}”, I agree that ${site.legalEntity} and its partners `,
    PARTNERS_SLOT,
    ", and licensed insurance agents acting for them, may contact me about car insurance " +
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

/**
 * SHA-256 (hex) of consentTemplateText(): the words with the slot marked. Recorded by hand when
 * CONSENT_TEMPLATE.version is bumped, so an edit without a bump fails the tests and the start-up.
 */
export const CONSENT_TEMPLATE_SHA256 = "ecd7cae256b8c195406f6dd84d471eeb770201b75a9205fb9b355c6fd5658272";

/** "A", "A and B", "A, B and C". */
export function listOf(names: readonly string[]): string {
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

/** The wording with these partners named; neighbouring runs of text are joined into one. */
export function disclosureParts(partners: readonly string[], template: readonly TemplatePart[] = CONSENT_TEMPLATE.parts): DisclosurePart[] {
  const parts: DisclosurePart[] = [];
  for (const part of template) {
    const piece = part === PARTNERS_SLOT ? listOf(partners) : (part as DisclosurePart);
    const last = parts[parts.length - 1];
    if (typeof piece === "string" && typeof last === "string") parts[parts.length - 1] = last + piece;
    else parts.push(piece);
  }
  return parts;
}

/** The disclosure as plain text: exactly what is hashed and stored. */
export function disclosureText(parts: readonly DisclosurePart[] = CONSENT_DISCLOSURE.parts): string {
  return parts.map((part) => (typeof part === "string" ? part : part.text)).join("");
}

/** The words alone, the slot shown as "{partners}": what CONSENT_TEMPLATE_SHA256 is the hash of. */
export function consentTemplateText(template: readonly TemplatePart[] = CONSENT_TEMPLATE.parts): string {
  return disclosureText(disclosureParts(["{partners}"], template));
}

/** The partners named when BUYERS_FILE names no buyer: the carriers on the landing page. */
export const CONSENT_PARTNERS: readonly string[] = carriers.map((carrier) => carrier.name);

/**
 * The disclosure without BUYERS_FILE: the carriers named. It was the only text before buyers
 * existed, stored as version 1, and it is version 1 in any database that showed it first (every
 * test store); the form's bundle carries it as the text to show until its session arrives.
 */
export const CONSENT_DISCLOSURE: ShownDisclosure = { version: 1, parts: disclosureParts(CONSENT_PARTNERS) };

/** SHA-256 (hex) of CONSENT_DISCLOSURE's text (unchanged since version 1). */
export const CONSENT_DISCLOSURE_SHA256 = "ec6ccb1d3ae36e4b1a256222db7e1d9fd339bbb2ac53e59901d84c80f1face22";
