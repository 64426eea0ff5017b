/**
 * The consent disclosure beside the quote form's checkbox (shared/consent-disclosure.ts): what it
 * must say (TCPA "prior express written consent"), whom it names (the buyers that could take the
 * visitor's request, with us; only us when none could: never the landing page's carriers), and the versioning that lets a lead's consent be proved word for word years
 * later. The wording's hash test below is THE guard against editing the words (or the button
 * label) without bumping CONSENT_TEMPLATE.version; the stored version of each full text is the
 * database's (tests/db/consent-records.test.ts).
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  CONSENT_DISCLOSURE,
  CONSENT_DISCLOSURE_SHA256,
  CONSENT_TEMPLATE,
  CONSENT_TEMPLATE_SHA256,
  CONSENT_TEMPLATE_V1,
  CONSENT_TEMPLATE_V2,
  CONSENT_TEMPLATE_V3,
  PHONE_PLACEHOLDER,
  SUBMIT_LABEL,
  consentTemplateText,
  disclosureParts,
  disclosureText,
  listOf,
  type DisclosurePart,
} from "../../shared/consent-disclosure";
import { paths } from "../../shared/routes";
import { carriers, site } from "../../shared/site";
import { TemplateChangedError, buyersToName, checkTemplate, disclosureFor, quoteRidgeOnlyDisclosure, sha256Hex } from "../../server/leads/disclosure";
import { buyersFileSchema, type LiveSettings } from "../../server/delivery/buyers";
import { offerFacts } from "../../server/delivery/offer";

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
const text = disclosureText();
/** The text with runs of whitespace as single spaces, for phrase checks. */
const flat = text.replace(/\s+/g, " ");


describe("the consent disclosure's version and hash", () => {
  it("keeps the wording's recorded SHA-256 for its version", () => {
    expect(
      sha256(consentTemplateText()),
      `The consent disclosure's words changed but CONSENT_TEMPLATE.version (${CONSENT_TEMPLATE.version}) and ` +
        "CONSENT_TEMPLATE_SHA256 did not. Edits to the wording or SUBMIT_LABEL change what visitors agree to: bump " +
        "the version and record the new hash in shared/consent-disclosure.ts (the server refuses to start otherwise).",
    ).toBe(CONSENT_TEMPLATE_SHA256);
    expect(() => checkTemplate()).not.toThrow();
  });

  it("keeps the text naming only us (no buyer could take the request) as recorded", () => {
    expect(
      sha256(text),
      "The text naming only us changed: the wording's `alone` form or shared/site.ts. " +
        "Stored records are safe (the database versions every text), but record the new CONSENT_DISCLOSURE_SHA256 on purpose.",
    ).toBe(CONSENT_DISCLOSURE_SHA256);
    expect(CONSENT_DISCLOSURE.version).toBe(1);
  });

  it("is a positive whole-number wording version with lower-case hex SHA-256s", () => {
    expect(Number.isInteger(CONSENT_TEMPLATE.version) && CONSENT_TEMPLATE.version >= 1).toBe(true);
    expect(CONSENT_TEMPLATE_SHA256).toMatch(/^[0-9a-f]{64}$/);
    expect(CONSENT_DISCLOSURE_SHA256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("refuses to start when the words change without a new version and hash, in either form", () => {
    for (const form of ["parts", "alone"] as const) {
      const original = CONSENT_TEMPLATE[form];
      CONSENT_TEMPLATE[form] = [...original.slice(0, -1), " and agree to receive newsletters."];
      try {
        expect(() => checkTemplate()).toThrow(TemplateChangedError);
        expect(() => checkTemplate()).toThrow(/bump CONSENT_TEMPLATE\.version and CONSENT_TEMPLATE_SHA256/);
      } finally {
        CONSENT_TEMPLATE[form] = original;
      }
    }
  });

  it("is what the server records without buyers: quoteRidgeOnlyDisclosure() gives version 1, the same text and hash, and no buyer", () => {
    expect(quoteRidgeOnlyDisclosure()).toMatchObject({ version: CONSENT_DISCLOSURE.version, text, sha256: CONSENT_DISCLOSURE_SHA256, parts: CONSENT_DISCLOSURE.parts, buyerIds: [] });
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
  it("names only the business when no buyer could take the request: never the landing page's carriers (issue 44)", () => {
    expect(flat).toContain(`I agree that ${site.legalEntity} may call and text me`);
    for (const carrier of carriers) expect(flat, carrier.name).not.toContain(carrier.name);
    expect(flat).not.toMatch(/partner|licensed insurance agents|these companies/);
  });

  it("covers calls and texts about car insurance quotes at the phone number typed, and email", () => {
    expect(flat).toMatch(/may call and text me about car insurance quotes at the phone number I entered above and email me at the address I gave/);
    expect(flat).toMatch(/\bcalls and texts\b/);
    expect(flat).toContain(PHONE_PLACEHOLDER);
  });

  it("makes the box the visitor's electronic signature, gives the text-message terms, and our number to get quotes without consenting (issue 13)", () => {
    expect(flat).toContain("Ticking this box is my electronic signature.");
    expect(flat).toContain("Msg frequency varies. Reply HELP for help, STOP to opt out.");
    expect(flat).toContain("Message and data rates may apply.");
    expect(flat).toContain(`I can get quotes without it by calling ${site.phone}`);
  });

  it("keeps versions 1's, 2's and 3's words as they were, for the records made under them", () => {
    expect(CONSENT_TEMPLATE_V1.version).toBe(1);
    expect(sha256(consentTemplateText(CONSENT_TEMPLATE_V1.parts))).toBe("ecd7cae256b8c195406f6dd84d471eeb770201b75a9205fb9b355c6fd5658272");
    expect(CONSENT_TEMPLATE_V2.version).toBe(2);
    expect(sha256(consentTemplateText(CONSENT_TEMPLATE_V2.parts))).toBe("eb1f7fe5156158566b96d72e37235b5a4061fbab280fe8e22c129fa3cedf3b7b");
    expect(CONSENT_TEMPLATE_V3.version).toBe(3);
    expect(sha256(consentTemplateText(CONSENT_TEMPLATE_V3.parts))).toBe("7fc43d99c7c82e11fc3c1bb2f865e41a7a4f75dad27ab6a17e551a5d820a87aa");
    expect(CONSENT_TEMPLATE.version).toBe(4);
  });

  it("says some named companies may see the answers without contact details first, and only those offering a quote get them (issue 16), only when it names any", () => {
    expect(flat).not.toContain("Some of these companies");
    expect(disclosureFor([{ id: "a", name: "A" }]).text).toContain("Some of these companies may first see my answers without my name, phone number, email or street address, to decide whether to offer me a quote; only those that do receive my contact details.");
  });

  it("says calls and texts may use an autodialer and an artificial or prerecorded voice", () => {
    expect(flat).toMatch(/automatic telephone dialing system/);
    expect(flat).toMatch(/artificial or prerecorded voice/);
  });

  it("says calls may be recorded", () => {
    expect(flat).toMatch(/Calls may be recorded\./);
  });

  it("says consent is not a condition of purchase and can be withdrawn, linking the Stop Calls and Texts page", () => {
    expect(flat).toMatch(/consent is not a condition of buying any goods or services/);
    expect(flat).toMatch(/withdraw it at any time by replying STOP, telling the caller, or on the Stop Calls and Texts page/);
    expect(CONSENT_TEMPLATE.parts).toContainEqual({ text: "Stop Calls and Texts", href: "/do-not-sell?request=revoke_consent" });
  });

  it("links to the Stop Calls and Texts page, the terms of use and the privacy policy", () => {
    const links = CONSENT_DISCLOSURE.parts.filter((part): part is { text: string; href: string } => typeof part !== "string");
    expect(links).toEqual([
      { text: "Stop Calls and Texts", href: paths.stopCalls },
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

describe("the companies named", () => {
  const ACME = { id: "acme", name: "Acme Insurance Agency" };
  const BETA = { id: "beta-auto", name: "Beta Auto Insurance" };
  const CEDAR = { id: "cedar", name: "Cedar & Sons Insurance" };

  it("are the buyers of BUYERS_FILE, by name and in order, and their ids are the buyers a lead may go to", () => {
    const draft = disclosureFor([ACME, BETA, CEDAR]);
    expect(draft.text).toContain(`I agree that ${site.legalEntity} and Acme Insurance Agency, Beta Auto Insurance and Cedar & Sons Insurance, and licensed insurance agents acting for them, may call and text me`);
    expect(draft.buyerIds).toEqual(["acme", "beta-auto", "cedar"]);
    expect(draft.partnerNames).toEqual([ACME.name, BETA.name, CEDAR.name]);
    for (const carrier of carriers) expect(draft.text).not.toContain(carrier.name);
    expect(draft.sha256).toBe(sha256(draft.text));
    expect(disclosureText(draft.parts)).toBe(draft.text);
  });

  it("change the text and its hash, never the wording's version and hash", () => {
    const one = disclosureFor([ACME]);
    const two = disclosureFor([ACME, BETA]);
    const reordered = disclosureFor([BETA, ACME]);
    expect(new Set([one.sha256, two.sha256, reordered.sha256, CONSENT_DISCLOSURE_SHA256]).size).toBe(4);
    expect(one.text).toContain(`I agree that ${site.legalEntity} and Acme Insurance Agency, and licensed insurance agents acting for them, may call and text me`);
    for (const draft of [one, two, reordered]) expect([draft.templateVersion, draft.templateSha256]).toEqual([CONSENT_TEMPLATE.version, CONSENT_TEMPLATE_SHA256]);
    expect(disclosureFor([ACME, BETA])).toEqual(two);
  });

  it("are nobody but us when no buyer could take the request: the same text, no partner, no buyer", () => {
    for (const buyers of [undefined, []]) {
      const draft = disclosureFor(buyers);
      expect(draft).toMatchObject({ text, sha256: CONSENT_DISCLOSURE_SHA256, buyerIds: [], partnerNames: [] });
    }
  });

  it("read right with 0, 1 and 3 buyers, keep every term of version 3, and never name a carrier", () => {
    const texts = [disclosureFor([]), disclosureFor([ACME]), disclosureFor([ACME, BETA, CEDAR])].map((draft) => draft.text.replace(/\s+/g, " "));
    expect(texts[0]).toContain(`I agree that ${site.legalEntity} may call and text me about car insurance quotes at ${PHONE_PLACEHOLDER} and email me`);
    expect(texts[1]).toContain(`I agree that ${site.legalEntity} and Acme Insurance Agency, and licensed insurance agents acting for them, may call and text me about car insurance quotes at ${PHONE_PLACEHOLDER}`);
    expect(texts[2]).toContain(`I agree that ${site.legalEntity} and Acme Insurance Agency, Beta Auto Insurance and Cedar & Sons Insurance, and licensed insurance agents acting for them, may call`);
    for (const words of texts) {
      for (const term of [
        "automatic telephone dialing system or an artificial or prerecorded voice",
        "Ticking this box is my electronic signature.",
        "Calls may be recorded.",
        "Message and data rates may apply. Msg frequency varies. Reply HELP for help, STOP to opt out.",
        `My consent is not a condition of buying any goods or services: I can get quotes without it by calling ${site.phone}`,
        "withdraw it at any time by replying STOP, telling the caller, or on the Stop Calls and Texts page.",
        "I agree to the Terms of Use and have read the Privacy Policy.",
      ]) expect(words, term).toContain(term);
      for (const carrier of carriers) expect(words, carrier.name).not.toContain(carrier.name);
    }
    expect(texts.map((words) => words.includes("Some of these companies may first see my answers"))).toEqual([false, true, true]);
  });

  it("keep the parts the form renders: one run of text before the links", () => {
    expect(disclosureParts(["A", "B"]).filter((part) => typeof part !== "string")).toEqual([
      { text: "Stop Calls and Texts", href: paths.stopCalls },
      { text: "Terms of Use", href: paths.terms },
      { text: "Privacy Policy", href: paths.privacy },
    ]);
    expect(typeof disclosureParts(["A"])[0]).toBe("string");
    expect(listOf([])).toBe("");
    expect(listOf(["A"])).toBe("A");
    expect(listOf(["A", "B"])).toBe("A and B");
    expect(listOf(["A", "B", "C"])).toBe("A, B and C");
  });

  it("are named only as companies that may contact the visitor about quotes: no resale language", () => {
    const words = consentTemplateText().toLowerCase();
    expect(words).toContain("may call and text me about car insurance quotes");
    for (const resale of ["sell", "sold", "sale", "share", "third part", "affiliate", "marketing partners", "and others"]) {
      expect(words, resale).not.toContain(resale);
    }
  });
});

describe("the buyers a visitor's words name (buyersToName)", () => {
  const NOW = new Date("2026-12-01T15:00:00Z");
  const settings = (...buyers: Record<string, unknown>[]): LiveSettings =>
    buyersFileSchema.parse({ buyers: buyers.map((buyer) => ({ url: "https://buyer.example/leads", secret: "s".repeat(32), price: 10, ...buyer })) });
  const facts = (overrides: { state?: string; test?: boolean; residence?: string } = {}) =>
    offerFacts(
      {
        state: overrides.state ?? "CA",
        zip: "90210",
        test: overrides.test ?? false,
        drivers: [{ dateOfBirth: "1990-04-15", accidents: 0, tickets: 0, claims: 0, dui: false, sr22: false }],
        vehicles: [null],
        currentlyInsured: true,
        insuredFor: "1_3y",
        coverage: "standard",
        residence: overrides.residence ?? "own",
      },
      NOW,
    );
  const names = (file: LiveSettings | undefined, of = facts()) => buyersToName(file, of, NOW).map((buyer) => buyer.id);

  it("names nobody without settings or buyers", () => {
    expect(names(undefined)).toEqual([]);
    expect(names(settings())).toEqual([]);
  });

  it("names the active buyers that take the state and pass their filters, in the settings' order", () => {
    const file = settings(
      { id: "west", name: "West Auto", states: ["CA", "OR"] },
      { id: "paused", name: "Paused Auto", status: "paused" },
      { id: "archived", name: "Old Auto", status: "archived" },
      { id: "texas", name: "Texas Auto", states: ["TX"] },
      { id: "owners", name: "Owners Auto", filters: { homeowner: true } },
      { id: "sandbox", name: "Sandbox Auto", sandbox: true },
      { id: "night", name: "Night Auto", schedule: { timeZone: "America/New_York", days: ["sat"], from: "01:00", to: "02:00" } },
    );
    expect(names(file)).toEqual(["west", "owners", "night"]);
    expect(names(file, facts({ state: "TX", residence: "rent" }))).toEqual(["texas", "night"]);
  });

  it("names sandbox buyers only for a test lead, and then no real one", () => {
    const file = settings({ id: "real", name: "Real Auto" }, { id: "sandbox", name: "Sandbox Auto", sandbox: true });
    expect(names(file)).toEqual(["real"]);
    expect(names(file, facts({ test: true }))).toEqual(["sandbox"]);
  });
});
