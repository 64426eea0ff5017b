/**
 * The consent disclosure this process shows: the wording of shared/consent-disclosure.ts with the
 * partners named (the live settings' buyers, else the landing page's carriers), its exact text
 * and SHA-256, and the buyers it names. Its version is the database's (server/consent/disclosures.ts).
 */
import { createHash } from "node:crypto";
import {
  CONSENT_DISCLOSURE,
  CONSENT_PARTNERS,
  CONSENT_TEMPLATE,
  CONSENT_TEMPLATE_SHA256,
  consentTemplateText,
  disclosureParts,
  disclosureText,
  type DisclosurePart,
} from "../../shared/consent-disclosure";

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
  /** The names in the text's partner list, in order (buyers', or the carriers'). */
  partnerNames: string[];
  templateVersion: number;
  templateSha256: string;
}

export interface CurrentDisclosure extends DisclosureDraft {
  /** The stored version (consent_disclosures.version) visitors consent to now. */
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
 * The disclosure naming these buyers. None (no buyer configured) names the
 * carriers, exactly the text of version 1, and no buyer: such leads go to nobody.
 */
export function disclosureFor(buyers: readonly NamedBuyer[] | undefined): DisclosureDraft {
  const named = buyers && buyers.length > 0 ? buyers : undefined;
  const partnerNames = named ? named.map((buyer) => buyer.name) : [...CONSENT_PARTNERS];
  const parts = disclosureParts(partnerNames);
  const text = disclosureText(parts);
  return {
    text,
    sha256: sha256Hex(text),
    parts,
    buyerIds: named ? named.map((buyer) => buyer.id) : [],
    partnerNames,
    templateVersion: CONSENT_TEMPLATE.version,
    templateSha256: sha256Hex(consentTemplateText()),
  };
}

/**
 * The disclosure with no buyer configured, as version 1: the version it has in every store that showed
 * it first (every test store, and production before buyers were configured).
 */
export function currentDisclosure(): CurrentDisclosure {
  return { ...disclosureFor(undefined), version: CONSENT_DISCLOSURE.version };
}
