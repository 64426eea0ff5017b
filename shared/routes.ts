/** Route paths, shared so links, the router and the server never disagree. */
export const paths = {
  quote: "/",
  landing: "/zipcode",
  go: "/go",
  privacy: "/privacy-policy",
  terms: "/terms-of-use",
  californiaRights: "/privacy-policy#california-rights",
  cookies: "/privacy-policy#cookies",
  /** The privacy policy's notice at collection: the quote form links here, beside Do Not Sell. */
  noticeAtCollection: "/privacy-policy#notice-at-collection",
  quoteForm: "/rapidfire.html",
  doNotSell: "/do-not-sell",
  /** The request form opened on "Stop calls and texts" (a revocation of consent to be contacted). */
  stopCalls: "/do-not-sell?request=revoke_consent",
  privacyApi: "/api/privacy-requests",
  privacySession: "/api/privacy-requests/session",
  leadsApi: "/api/leads",
  leadsSession: "/api/leads/session",
  /** The consent words for a visitor's answers (POST; docs/decisions/039-disclosure-per-visitor.md). */
  leadsDisclosure: "/api/leads/disclosure",
  zipCodesApi: "/api/zip-codes",
  vehicleMakesApi: "/api/vehicles/makes",
  vehicleModelsApi: "/api/vehicles/models",
  vehicleVinApi: "/api/vehicles/vin",
  eventsApi: "/api/events",
  healthz: "/healthz",
  readyz: "/readyz",
} as const;

/**
 * The legal links every page carries, in this order: the footer of the site's pages
 * (client/components/LegalLinks.tsx) and the quote form (rapidfire.html, written at build time),
 * which is also where `/` shows them: once, at the end of the framed form (issue 32). The spec's
 * four plus Do Not Sell or Share, and Stop Calls and Texts.
 */
export const LEGAL_LINKS: readonly { href: string; text: string }[] = [
  { href: paths.privacy, text: "Privacy Policy" },
  { href: paths.terms, text: "Terms of Use" },
  { href: paths.californiaRights, text: "California Privacy Rights" },
  { href: paths.cookies, text: "Cookie Policy" },
  { href: paths.doNotSell, text: "Do Not Sell or Share My Personal Information" },
  { href: paths.stopCalls, text: "Stop Calls and Texts" },
];

/**
 * The pages the React router renders (client/routes.tsx has one route for each; a unit test
 * holds the two together). Code that must know whether an address is a page of the app without
 * loading the route table (the legal pages' links) matches against these.
 */
export const pagePaths = [paths.quote, paths.landing, paths.privacy, paths.terms, paths.doNotSell] as const;

/**
 * Pages that hold no personal data, where ad clicks land: served without Cross-Origin-Opener-Policy,
 * so arriving on them does not force the browser into a new browsing context group and a cold
 * renderer process (decision 025). Every other response keeps `same-origin`; a client-side
 * navigation from one of these documents to a page that takes personal data (the quote page, the
 * request form) loads that page in full, so it gets its header (client/isolation.ts).
 */
export const OPEN_PAGE_PATHS: readonly string[] = [paths.landing, paths.privacy, paths.terms];

/** Whether `pathname` (no query) is one of OPEN_PAGE_PATHS. */
export const isOpenPage = (pathname: string): boolean => OPEN_PAGE_PATHS.includes(pathname);

/** Every JSON endpoint lives under this prefix (server/api/router.ts is mounted there). */
export const API_PREFIX = "/api";

/** /go sends a visitor back to the landing page with this when the ZIP was not 5 digits. */
export const INVALID_ZIP_FLAG = { key: "error", value: "invalid-zip" } as const;

/** How forms carry their CSRF token: a hidden field (no JavaScript) or a header (fetch). */
export const CSRF_FIELD = "_csrf";
export const CSRF_HEADER = "x-csrf-token";
