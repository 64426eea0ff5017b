/**
 * The site's constants: one place for everything that names the business, so the pages,
 * the legal text and the server never repeat them.
 */
export const site = {
  productName: "QuoteRidge",
  legalEntity: "QuoteRidge Media, LLC",
  domain: "quoteridge.com",
  contactEmail: "privacy@quoteridge.com",
  phone: "1-800-555-0142",
  postalAddress: {
    street: "2150 Harbor Boulevard, Suite 300",
    city: "Costa Mesa",
    region: "CA",
    postalCode: "92627",
  },
  /** Both legal pages were last revised on this date (spec section 9). */
  legalRevised: "2023-05-24",
  /**
   * The privacy policy was last checked against what the site does on this date: the policy
   * promises a review at least every 12 months, and shows this date so the review is visible.
   * Set it whenever a review finds the text still true (or after changing it).
   */
  legalReviewed: "2026-11-24",
  /** Marketing claim used on the landing page (spec section 9). */
  maxSavingsPercent: 50,
} as const;

/** The postal address on one line, as the footer and legal pages print it. */
export function formatPostalAddress(address = site.postalAddress): string {
  return `${address.street}, ${address.city}, ${address.region} ${address.postalCode}`;
}

/** "May 24, 2023": the legal revision date as readers see it; fixed to UTC so SSR and browser agree. */
export function formatLegalDate(isoDate: string = site.legalRevised): string {
  return new Intl.DateTimeFormat("en-US", {
    year: "numeric",
    month: "long",
    day: "numeric",
    timeZone: "UTC",
  }).format(new Date(`${isoDate}T00:00:00Z`));
}

export interface Carrier {
  /** Stable id, used for keys and test hooks. */
  id: string;
  /** The name as the carrier writes it; also the logo's accessible name. */
  name: string;
  /** Wordmark colour; each passes 4.5:1 contrast on white. */
  color: string;
}

/** The six carrier wordmarks on the landing page (spec section 2). */
export const carriers: readonly Carrier[] = [
  { id: "progressive", name: "Progressive", color: "#0a4ca3" },
  { id: "geico", name: "GEICO", color: "#0b3d91" },
  { id: "state-farm", name: "State Farm", color: "#b1121d" },
  { id: "allstate", name: "Allstate", color: "#0a3a7a" },
  { id: "liberty-mutual", name: "Liberty Mutual", color: "#1a1446" },
  { id: "nationwide", name: "Nationwide", color: "#1c57a5" },
];
