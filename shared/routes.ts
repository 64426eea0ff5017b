/** Route paths, shared so links, the router and the server never disagree. */
export const paths = {
  quote: "/",
  landing: "/zipcode",
  go: "/go",
  privacy: "/privacy-policy",
  terms: "/terms-of-use",
  californiaRights: "/privacy-policy#california-rights",
  cookies: "/privacy-policy#cookies",
  quoteForm: "/rapidfire.html",
  doNotSell: "/do-not-sell",
  privacyApi: "/api/privacy-requests",
  privacySession: "/api/privacy-requests/session",
  leadsApi: "/api/leads",
  leadsSession: "/api/leads/session",
  zipCodesApi: "/api/zip-codes",
  eventsApi: "/api/events",
  healthz: "/healthz",
  readyz: "/readyz",
} as const;

/** /go sends a visitor back to the landing page with this when the ZIP was not 5 digits. */
export const INVALID_ZIP_FLAG = { key: "error", value: "invalid-zip" } as const;

/** How forms carry their CSRF token: a hidden field (no JavaScript) or a header (fetch). */
export const CSRF_FIELD = "_csrf";
export const CSRF_HEADER = "x-csrf-token";
