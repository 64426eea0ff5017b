/**
 * The words beside the consent box are the server's: GET /api/leads/session sends the disclosure
 * visitors consent to now (its exact stored text, naming the companies that may contact them, and
 * its version), and the form shows that text and sends that version back. Until a session has
 * arrived the label holds the bundle's text, and nothing is sent: a visitor only ever agrees to
 * words shown to them (docs/decisions/010-consent-disclosure-and-certificate.md).
 */
import { CONSENT_DISCLOSURE, disclosureText, type ShownDisclosure } from "../../shared/consent-disclosure";
import { disclosureMarkup } from "./fields";
import type { View } from "./view";

/** On the consent box, when the words beside it changed after it was ticked. */
export const CONSENT_CHANGED = "The wording beside this box has just been updated. Please read it, then tick the box again.";

export interface ConsentText {
  /** The stored version of the words shown; undefined until a session brought them. */
  readonly version: number | undefined;
  /** Shows a session's disclosure; if the words change while the box is ticked, unticks it and says why. */
  show(disclosure: ShownDisclosure): void;
}

export function createConsentText(view: View): ConsentText {
  const box = view.controlsOf("consent")[0] as HTMLInputElement;
  const label = view.blockOf("consent").querySelector("label")!;
  let version: number | undefined;
  let shown = disclosureText(CONSENT_DISCLOSURE.parts);
  return {
    get version() {
      return version;
    },
    show(disclosure) {
      version = disclosure.version;
      const text = disclosureText(disclosure.parts);
      if (text === shown) return;
      // The same writer as the build-time label (fields.ts): each part escaped.
      label.innerHTML = disclosureMarkup(disclosure.parts);
      shown = text;
      if (box.checked) {
        box.checked = false;
        view.showError("consent", CONSENT_CHANGED);
      }
    },
  };
}
