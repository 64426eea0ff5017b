/**
 * The consent disclosure shown beside the quote form's consent checkbox: the one place its
 * wording lives. A visitor's consent must be provable word for word years later (TCPA,
 * 47 U.S.C. § 227; our privacy policy keeps consent records for 5 years), and a lead may only
 * ever go to the companies the words named (docs/decisions/010-consent-disclosure-and-certificate.md).
 *
 * Two things make up the text a visitor sees:
 * - the wording, CONSENT_TEMPLATE, with a slot for the partners' names, and (since version 4) a
 *   form of its own for a visitor no partner could take: "QuoteRidge may call…". Its `version` and
 *   CONSENT_TEMPLATE_SHA256 guard edits of the words: tests/unit and the server's start-up check
 *   refuse changed words under an old version and hash.
 * - the partners named in the slot: the buyers that could take this visitor's lead, worked out by
 *   the server from the visitor's answers (docs/decisions/039-disclosure-per-visitor.md); never a
 *   company that is not a partner.
 *
 * The version a visitor agrees to is the database's (server/consent/disclosures.ts): one per
 * distinct full text, so each list of buyers is a version by itself. The form shows the text the
 * server sends for the visitor's answers (POST /api/leads/disclosure), and sends that version back.
 */
import { site } from "./site";
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
 * The wording of version 3 (issue 16; 2026-11-26 until version 4), kept word for word for the
 * records made under it. Only companies (and licensed agents acting for them) that may contact the
 * visitor about quotes are named: nothing about selling or sharing the request with anyone else.
 * Version 3 says what the auction does (some named companies see the answers without contact
 * details first, and only those that offer a quote get the contact details) and how to withdraw
 * consent (STOP, the caller, or the Stop Calls and Texts page), on top of version 2's terms. It
 * always named partners: with no buyer it named the landing page's carriers, which issue 44 ended.
 */
export const CONSENT_TEMPLATE_V3: { version: 3; parts: readonly TemplatePart[] } = {
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

/** The sentences both forms of version 4 share, from the electronic signature to the end. */
const V4_TERMS: readonly TemplatePart[] = [
  "Ticking this box is my electronic signature. Calls may be recorded. Message and data rates may apply. Msg frequency " +
    "varies. Reply HELP for help, STOP to opt out. My consent is not a condition of buying any goods or services: I can " +
    `get quotes without it by calling ${site.phone}, and I can withdraw it at any time by replying STOP, telling the ` +
    "caller, or on the ",
  { text: "Stop Calls and Texts", href: paths.stopCalls },
  " page. I agree to the ",
  { text: "Terms of Use", href: paths.terms },
  " and have read the ",
  { text: "Privacy Policy", href: paths.privacy },
  ".",
];

/**
 * The wording (version 4, issue 44): the companies named are exactly those that could take this
 * visitor's request (server/leads/disclosure.ts), with us. Only companies (and licensed agents
 * acting for them) that may contact the visitor about quotes are named: nothing about selling or
 * sharing the request with anyone else. Two forms:
 * - `parts`, with partners: "I agree that QuoteRidge and A, B and C, and licensed insurance agents
 *   acting for them, may call…", and the auction's sentence (some of these companies may see the
 *   answers without contact details first; only those that offer a quote get them);
 * - `alone`, when no partner could take the request: "I agree that QuoteRidge may call…", with no
 *   auction sentence (no other company sees anything).
 * Both keep every term of version 3: the phone shown back, autodialer and prerecorded voice, the
 * electronic signature, rates, HELP/STOP, not a condition of purchase with our number, withdrawal
 * with the Stop Calls and Texts link, the terms and the privacy policy.
 */
export const CONSENT_TEMPLATE: { version: number; parts: readonly TemplatePart[]; alone: readonly TemplatePart[] } = {
  version: 4,
  parts: [
    `By ticking this box and selecting “${SUBMIT_LABEL}”, I agree that ${site.legalEntity} and `,
    PARTNERS_SLOT,
    ", and licensed insurance agents acting for them, may call and text me about car insurance quotes at ",
    PHONE_SLOT,
    " and email me at the address I gave, including by calls and texts made with an automatic telephone dialing system " +
      "or an artificial or prerecorded voice. Some of these companies may first see my answers without my name, phone " +
      "number, email or street address, to decide whether to offer me a quote; only those that do receive my contact " +
      "details. ",
    ...V4_TERMS,
  ],
  alone: [
    `By ticking this box and selecting “${SUBMIT_LABEL}”, I agree that ${site.legalEntity} may call and text me about car ` +
      "insurance quotes at ",
    PHONE_SLOT,
    " and email me at the address I gave, including by calls and texts made with an automatic telephone dialing system " +
      "or an artificial or prerecorded voice. ",
    ...V4_TERMS,
  ],
};

/**
 * SHA-256 (hex) of consentTemplateText(): both forms of the words, the partners' slot marked (the
 * phone's shows its placeholder). Recorded by hand when CONSENT_TEMPLATE.version is bumped, so an
 * edit without a bump fails the tests and the start-up.
 */
export const CONSENT_TEMPLATE_SHA256 = "638c7a83532c17371e7247244dab177c09f7716ee0f3fb94f2c51a208d5522a8";

/** "A", "A and B", "A, B and C". */
export function listOf(names: readonly string[]): string {
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

/** The form of the current wording for these partners: naming them, or us alone when there are none. */
export function wordingFor(partners: readonly string[]): readonly TemplatePart[] {
  return partners.length > 0 ? CONSENT_TEMPLATE.parts : CONSENT_TEMPLATE.alone;
}

/** The wording with these partners named; neighbouring runs of text are joined into one. */
export function disclosureParts(partners: readonly string[], template: readonly TemplatePart[] = wordingFor(partners)): DisclosurePart[] {
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

/**
 * The words alone, the slot shown as "{partners}": what CONSENT_TEMPLATE_SHA256 is the hash of.
 * Without `template`, the current wording's two forms (with partners, then alone) on two lines.
 */
export function consentTemplateText(template?: readonly TemplatePart[]): string {
  if (template) return disclosureText(disclosureParts(["{partners}"], template));
  return `${consentTemplateText(CONSENT_TEMPLATE.parts)}\n${consentTemplateText(CONSENT_TEMPLATE.alone)}`;
}

/**
 * The disclosure naming no partner, only us: what a visitor no buyer could take agrees to. It is
 * version 1 in any database that showed it first (every test store); the form's bundle carries it
 * as the text to show until the server sends the visitor's own words.
 */
export const CONSENT_DISCLOSURE: ShownDisclosure = { version: 1, parts: disclosureParts([]) };

/** SHA-256 (hex) of CONSENT_DISCLOSURE's text (the wording of version 4, naming us alone). */
export const CONSENT_DISCLOSURE_SHA256 = "c92b137e95aac60f570ccead3014cfa31cfd39df30932b878a064d46607e45d6";
