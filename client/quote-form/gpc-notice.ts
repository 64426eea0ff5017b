/**
 * When the visitor's browser sends Global Privacy Control, the quote form says so on its last
 * step, above the consent box, before they submit: the signal is honored (the request is not
 * sold), and the request still goes to the companies the disclosure names, since quotes from
 * them are what the visitor asks for (docs/decisions/011-privacy-choices-in-delivery.md). The
 * server decides from the request's own Sec-GPC header; this only tells the visitor.
 */
import { h } from "./dom";

export const GPC_NOTICE_ID = "rf-gpc-notice";

export const GPC_NOTICE =
  "Your browser's opt-out signal (Global Privacy Control) is honored: we will not sell your information. " +
  "Your request still goes to the companies named below so they can quote you.";

/** What the notice reads: navigator.globalPrivacyControl (absent in browsers that do not support GPC). */
export type GpcNavigator = { globalPrivacyControl?: unknown };

/** The notice when the browser sends GPC, else null. */
export function gpcNotice(nav: GpcNavigator = navigator as GpcNavigator): HTMLElement | null {
  if (nav.globalPrivacyControl !== true) return null;
  return h("p", { class: "rf-gpc", id: GPC_NOTICE_ID, role: "note" }, GPC_NOTICE);
}
