/**
 * The words beside the consent box are the server's: POST /api/leads/disclosure sends the words for
 * the visitor's answers (their exact stored text, naming the buyers that could take the request,
 * with us, and its version; mount.ts asks on reaching the box), and the form shows that text and
 * sends that version back. Where the words say "the phone number I entered above", the form shows
 * the number typed (issue 13); the consent record keeps that number, so the words shown can be
 * told exactly. Until the words for the answers given have arrived the label holds the bundle's
 * text (naming only us), and nothing is sent: a visitor only ever agrees to words shown to them
 * (docs/decisions/010-consent-disclosure-and-certificate.md, 039-disclosure-per-visitor.md).
 */
import { CONSENT_DISCLOSURE, PHONE_PLACEHOLDER, disclosureText, type ShownDisclosure } from "../../shared/consent-disclosure";
import { formatUsPhone, normalizeUsPhone } from "../../shared/contact";
import { CONSENT_PHONE_CLASS, disclosureMarkup } from "./fields";
import type { View } from "./view";

/** On the consent box, when the words beside it changed after it was ticked. */
export const CONSENT_CHANGED = "The wording beside this box has just been updated. Please read it, then tick the box again.";

export interface ConsentText {
  /** The stored version of the words shown; undefined until the words for the answers given arrived. */
  readonly version: number | undefined;
  /** Shows the visitor's words; if they change while the box is ticked, unticks it and says why. */
  show(disclosure: ShownDisclosure): void;
  /** The answers changed: the words shown may not be theirs, so no version to send until show() again. */
  forget(): void;
  /** Shows the phone input's number in the words (after answers were put back without typing). */
  showPhone(): void;
}

/**
 * The box is ticked by the visitor only, never by the browser. A browser restores form controls
 * on a reload or Back (before or after this script runs: unticked now, and again at `pageshow`,
 * which follows the restore, unless the visitor has ticked it since), and a page shown again from
 * the back/forward cache (`persisted`) comes back as it was left: unticked then too, as HTML resets
 * a control whose autofill is "off" (§4.10.18.7.1) — what the box's `autocomplete="off"` did
 * until it had to go (HTML allows that attribute on text-like inputs only).
 */
function keepUntickedByTheBrowser(box: HTMLInputElement): void {
  let tickedByVisitor = false;
  box.addEventListener("change", () => {
    tickedByVisitor = box.checked;
  });
  box.checked = false;
  window.addEventListener("pageshow", (event) => {
    if (!event.persisted && tickedByVisitor) return;
    box.checked = false;
    tickedByVisitor = false;
  });
}

export function createConsentText(view: View): ConsentText {
  const box = view.controlsOf("consent")[0] as HTMLInputElement;
  const label = view.blockOf("consent").querySelector("label")!;
  const phone = view.controlsOf("phone")[0] as HTMLInputElement;

  /** The words show the number being typed ("at (212) 555-0188") once it is a US number; until then, the stored words. */
  function showPhone(): void {
    const number = normalizeUsPhone(phone.value);
    const shown = number ? formatUsPhone(number) : PHONE_PLACEHOLDER;
    for (const slot of label.querySelectorAll<HTMLElement>(`.${CONSENT_PHONE_CLASS}`)) if (slot.textContent !== shown) slot.textContent = shown;
  }
  phone.addEventListener("input", showPhone);
  showPhone();
  keepUntickedByTheBrowser(box);
  let version: number | undefined;
  let shown = disclosureText(CONSENT_DISCLOSURE.parts);
  return {
    showPhone,
    get version() {
      return version;
    },
    forget() {
      version = undefined;
    },
    show(disclosure) {
      version = disclosure.version;
      const text = disclosureText(disclosure.parts);
      if (text === shown) return;
      // The same writer as the build-time label (fields.ts): each part escaped.
      label.innerHTML = disclosureMarkup(disclosure.parts);
      showPhone();
      shown = text;
      if (box.checked) {
        box.checked = false;
        view.showError("consent", CONSENT_CHANGED);
      }
    },
  };
}
