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
/**
 * Where the visitor's phone number goes (issue 13). The stored text holds PHONE_PLACEHOLDER; the
 * form shows the number being typed in its place ("at (212) 555-0188"), and the consent record
 * keeps that number, so the words shown are the stored text with the record's phone put in
 * (the consent certificate says so).
 */
export const PHONE_SLOT = { slot: "phone" } as const;
export const PHONE_PLACEHOLDER = "the phone number I entered above";
export type TemplatePart = DisclosurePart | typeof PARTNERS_SLOT | typeof PHONE_SLOT;

/** A disclosure as the form shows it: the version the server stored its text under, and the text. */
export interface ShownDisclosure {
  version: number;
  parts: readonly DisclosurePart[];
}

/** The submit button's label: the disclosure names it, so it is part of what is agreed to. */
export const SUBMIT_LABEL = "Get My Quotes";

/**
 * The wording of version 1 (2026-11-22 to 2026-11-24), kept word for word: the records made under
 * it are read and explained with it (tests/db/consent-records.test.ts).
 */
export const CONSENT_TEMPLATE_V1: { version: 1; parts: readonly TemplatePart[] } = {
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
 * The wording of version 2 (issue 13; 2026-11-24 to 2026-11-26), kept word for word for the
 * records made under it: the phone number shown back, the box as the visitor's electronic
 * signature (E-SIGN Act, 15 U.S.C. § 7001), the text-message terms (CTIA), and our number to get
 * quotes without consenting.
 */
export const CONSENT_TEMPLATE_V2: { version: 2; parts: readonly TemplatePart[] } = {
  version: 2,
  parts: [
    `By ticking this box and selecting “${SUBMIT_LABEL}”, I agree that ${site.legalEntity} and its partners `,
    PARTNERS_SLOT,
    ", and licensed insurance agents acting for them, may call and text me about car insurance quotes at ",
    PHONE_SLOT,
    " and email me at the address I gave, including by calls and texts made with an automatic telephone dialing system " +
      "or an artificial or prerecorded voice. Ticking this box is my electronic signature. Calls may be recorded. " +
      "Message and data rates may apply. Msg frequency varies. Reply HELP for help, STOP to opt out. My consent is not " +
      `a condition of buying any goods or services: I can get quotes without it by calling ${site.phone}, and I can ` +
      "withdraw it at any time. I agree to the ",
    { text: "Terms of Use", href: paths.terms },
    " and have read the ",
    { text: "Privacy Policy", href: paths.privacy },
    ".",
  ],
};

/**
 * The wording. Only companies (and licensed agents acting for them) that may contact the visitor
 * about quotes are named: nothing about selling or sharing the request with anyone else. Version
 * 3 (issue 16) says what the auction does (some named companies see the answers without contact
 * details first, and only those that offer a quote get the contact details) and how to withdraw
 * consent (STOP, the caller, or the Stop Calls and Texts page), on top of version 2's terms.
 */
export const CONSENT_TEMPLATE: { version: number; parts: readonly TemplatePart[] } = {
  version: 3,
  parts: [
    `By ticking this box and selecting “${SUBMIT_LABEL}”, I agree that ${site.legalEntity} and its partners `,
    PARTNERS_SLOT,
    ", and licensed insurance agents acting for them, may call and text me about car insurance quotes at ",
    PHONE_SLOT,
    " and email me at the address I gave, including by calls and texts made with an automatic telephone dialing system " +
      "or an artificial or prerecorded voice. Some of these companies may first see my answers without my name, phone " +
      "number, email or street address, to decide whether to offer me a quote; only those that do receive my contact " +
      "details. Ticking this box is my electronic signature. Calls may be recorded. " +
      "Message and data rates may apply. Msg frequency varies. Reply HELP for help, STOP to opt out. My consent is not " +
      `a condition of buying any goods or services: I can get quotes without it by calling ${site.phone}, and I can ` +
      "withdraw it at any time by replying STOP, telling the caller, or on the ",
    { text: "Stop Calls and Texts", href: paths.stopCalls },
    " page. I agree to the ",
    { text: "Terms of Use", href: paths.terms },
    " and have read the ",
    { text: "Privacy Policy", href: paths.privacy },
    ".",
  ],
};

/**
 * SHA-256 (hex) of consentTemplateText(): the words with the partners' slot marked (the phone's shows its placeholder). Recorded by hand when
 * CONSENT_TEMPLATE.version is bumped, so an edit without a bump fails the tests and the start-up.
 */
export const CONSENT_TEMPLATE_SHA256 = "7fc43d99c7c82e11fc3c1bb2f865e41a7a4f75dad27ab6a17e551a5d820a87aa";

/** "A", "A and B", "A, B and C". */
export function listOf(names: readonly string[]): string {
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

/** The wording with these partners named; neighbouring runs of text are joined into one. */
export function disclosureParts(partners: readonly string[], template: readonly TemplatePart[] = CONSENT_TEMPLATE.parts): DisclosurePart[] {
  const parts: DisclosurePart[] = [];
  for (const part of template) {
    const piece = part === PARTNERS_SLOT ? listOf(partners) : part === PHONE_SLOT ? PHONE_PLACEHOLDER : (part as DisclosurePart);
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
 * The disclosure without BUYERS_FILE: the carriers named. It is version 1 in any database that
 * showed it first (every test store); the form's bundle carries it as the text to show until its
 * session arrives.
 */
export const CONSENT_DISCLOSURE: ShownDisclosure = { version: 1, parts: disclosureParts(CONSENT_PARTNERS) };

/** SHA-256 (hex) of CONSENT_DISCLOSURE's text (the wording of version 3; a store that showed earlier words first keeps them under their versions and stores these as the next). */
export const CONSENT_DISCLOSURE_SHA256 = "080328fad0e02f792c84f33ce5e621ca6cc9f06f727ddf02c936f5eea9a0bed2";
