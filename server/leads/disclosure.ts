/**
 * A consent disclosure: the wording of shared/consent-disclosure.ts with the partners named (the
 * buyers that could take one visitor's request, or none: then only we are named), its exact text
 * and SHA-256, and the buyers it names. Its version is the database's (server/consent/disclosures.ts).
 * Which buyers a visitor's words name is `buyersToName` (docs/decisions/039-disclosure-per-visitor.md).
 */
import { createHash } from "node:crypto";
import {
  CONSENT_DISCLOSURE,
  CONSENT_TEMPLATE,
  CONSENT_TEMPLATE_SHA256,
  consentTemplateText,
  disclosureParts,
  disclosureText,
  type DisclosurePart,
} from "../../shared/consent-disclosure";
import type { LiveSettings } from "../delivery/buyers";
import { evaluateOffer, type OfferFacts } from "../delivery/offer";

/** A buyer as the disclosure needs it (server/delivery/buyers.ts has the whole entry). */
export interface NamedBuyer {
  id: string;
  name: string;
}

/** The disclosure before the database gave it a version. */
export interface DisclosureDraft {
  text: string;
  sha256: string;
  parts: readonly DisclosurePart[];
  /** The buyers named, by id: a lead consented under this text may only ever go to these. */
  buyerIds: string[];
  /** The names in the text's partner list, in order (the buyers'; none when only we are named). */
  partnerNames: string[];
  templateVersion: number;
  templateSha256: string;
}

export interface CurrentDisclosure extends DisclosureDraft {
  /** The stored version (consent_disclosures.version) of this text. */
  version: number;
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** Thrown at start-up when the wording changed but its version and recorded hash did not. */
export class TemplateChangedError extends Error {}

/** Refuses words edited without CONSENT_TEMPLATE.version and CONSENT_TEMPLATE_SHA256 bumped. */
export function checkTemplate(): void {
  const sha256 = sha256Hex(consentTemplateText());
  if (sha256 !== CONSENT_TEMPLATE_SHA256) {
    throw new TemplateChangedError(
      `The consent disclosure's text changed (wording sha256 ${sha256}) but its recorded hash did not: bump CONSENT_TEMPLATE.version and CONSENT_TEMPLATE_SHA256 in shared/consent-disclosure.ts.`,
    );
  }
}

/**
 * The disclosure naming these buyers, in this order. None names only us (the wording's `alone`
 * form) and no buyer: such leads go to nobody. Never a company that is not a buyer.
 */
export function disclosureFor(buyers: readonly NamedBuyer[] | undefined): DisclosureDraft {
  const named = buyers ?? [];
  const partnerNames = named.map((buyer) => buyer.name);
  const parts = disclosureParts(partnerNames);
  const text = disclosureText(parts);
  return {
    text,
    sha256: sha256Hex(text),
    parts,
    buyerIds: named.map((buyer) => buyer.id),
    partnerNames,
    templateVersion: CONSENT_TEMPLATE.version,
    templateSha256: sha256Hex(consentTemplateText()),
  };
}

/**
 * The disclosure naming only us, as version 1: the version it has in every store that showed it
 * first (every test store). What the session sends before the visitor's answers are known.
 */
export function quoteRidgeOnlyDisclosure(): CurrentDisclosure {
  return { ...disclosureFor(undefined), version: CONSENT_DISCLOSURE.version };
}

/**
 * The buyers a visitor's words name, in the settings' order: those that could take this request
 * by the rules that do not move minute to minute (server/delivery/offer.ts, evaluateOffer without
 * its schedule): active (paused and archived ones are not), of the lead's kind (a sandbox buyer
 * for a test lead only, never for a visitor's real one), taking the ZIP's state, and passing
 * their filters on the answers. Schedules, caps and budgets are left out: they change by the
 * minute, and a lead named to a buyer closed now may still go to it when it opens (the auction's
 * cascade, a lead directed by GPC).
 */
export function buyersToName(settings: LiveSettings | undefined, facts: OfferFacts, now: Date): NamedBuyer[] {
  if (!settings) return [];
  // Every buyer passes the evaluator's consent rule here: the question is which ones to name at all.
  const everyone = new Set(settings.buyers.map((buyer) => buyer.id));
  return settings.buyers
    .filter((buyer) => evaluateOffer(buyer, facts, { named: everyone, now, schedule: false }).offered)
    .map((buyer) => ({ id: buyer.id, name: buyer.name }));
}
