/** The consent disclosure this build shows, with the SHA-256 of its exact text. */
import { createHash } from "node:crypto";
import { CONSENT_DISCLOSURE, disclosureText } from "../../shared/consent-disclosure";

export interface CurrentDisclosure {
  version: number;
  text: string;
  sha256: string;
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

export function currentDisclosure(): CurrentDisclosure {
  const text = disclosureText(CONSENT_DISCLOSURE.parts);
  return { version: CONSENT_DISCLOSURE.version, text, sha256: sha256Hex(text) };
}
