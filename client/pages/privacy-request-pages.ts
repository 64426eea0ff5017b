/**
 * The privacy request form has two faces at one address (decision 028): "Do Not Sell or Share My
 * Personal Information", and "Stop calls and texts" when the address asks for a revocation of
 * consent (`paths.stopCalls`, the link in every footer, in the consent text and on the thank-you).
 * Each face's heading is both its h1 and its document title, so the two cannot drift apart.
 *
 * This module lives in the form's lazily loaded chunk with the route's handle, so the words of
 * both faces cost the landing page's first load nothing (decision 027's budget).
 */
import type { PageMeta } from "../../shared/render-contract";
import { PRIVACY_REQUEST_TYPES, type PrivacyRequestType } from "../../shared/privacy-request";
import { site } from "../../shared/site";
import { pageTitle, type RouteHandle } from "../page-meta";

export type RequestPageFace = "doNotSell" | "stopCalls";

/**
 * The deadlines the page promises before and after a request is sent: the ones the server sets
 * each request's `due_at` by (server/privacy/deadlines.ts, docs/privacy-operations.md).
 */
export const REQUEST_DEADLINES = {
  /** Opt-out of sale and sharing: Cal. Code Regs. tit. 11, §7026(f). */
  optOutBusinessDays: 15,
  /** Revocation of consent to calls and texts: 47 CFR 64.1200(a)(10). */
  revokeConsentBusinessDays: 10,
  /** Nevada opt-out: NRS 603A.345. */
  nevadaOptOutDays: 60,
  /** Know, delete, correct (Cal. Civ. Code §1798.130(a)(2)) and appeals. */
  answerDays: 45,
} as const;

export const REQUEST_PAGE_HEADINGS: Record<RequestPageFace, string> = {
  doNotSell: "Do Not Sell or Share My Personal Information",
  stopCalls: "Stop calls and texts",
};

const META: Record<RequestPageFace, PageMeta> = {
  doNotSell: {
    title: pageTitle(REQUEST_PAGE_HEADINGS.doNotSell),
    description: `Opt out of the sale or sharing of your personal information, or ask ${site.productName} to show, delete or correct it.`,
  },
  stopCalls: {
    title: pageTitle(REQUEST_PAGE_HEADINGS.stopCalls),
    description: "Take back your consent to calls and texts about your car insurance quote requests.",
  },
};

/** A request type from outside (the address, a posted field), or null when it is none of the form's. */
export function requestTypeOf(value: unknown): PrivacyRequestType | null {
  return (PRIVACY_REQUEST_TYPES as readonly unknown[]).includes(value) ? (value as PrivacyRequestType) : null;
}

/** The face the address's request type gives the page: only a revocation of consent has its own. */
export function requestPageFace(preselected: PrivacyRequestType | null): RequestPageFace {
  return preselected === "revoke_consent" ? "stopCalls" : "doNotSell";
}

/**
 * The /do-not-sell route's handle: its title follows the loader's `preselected` (read from the
 * address on the server and in the browser alike), and the page, which carries a CSRF token, is
 * never cached.
 */
export const doNotSellHandle: RouteHandle = {
  meta: (data) => {
    const preselected = typeof data === "object" && data !== null && "preselected" in data ? requestTypeOf(data.preselected) : null;
    return META[requestPageFace(preselected)];
  },
  noStore: true,
};
