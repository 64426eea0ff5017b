/**
 * The lead page's per-buyer offer section (issue 33, item 4): for each configured buyer, whether
 * the rules offer it the stored lead or which rule excluded it (server/delivery/offer.ts, the
 * evaluator delivery and the auction use), beside what actually happened to the lead with that
 * buyer. Its own file so the section's contract stays apart from the Leads list's. Types only.
 */

export interface BuyerOfferView {
  buyerId: string;
  name: string;
  mode: "post" | "pingpost";
  /** The evaluator's answer for this lead at its time of offer. */
  offered: boolean;
  /** The rule that excluded it ("zip", "driverAge", "schedule", …) and its words; null when offered. */
  rule: string | null;
  reason: string | null;
  /** What the records show: the buyer's delivery status or its ping's outcome, null when it has neither. */
  recorded: string | null;
  /**
   * The buyer's requirements' verdict (issue 44) where the records carry one: why its ping was not
   * sent or its post was held back ("requires an authentic LeadiD; the answer was not_authentic"),
   * whole, shown after `recorded`; null when its requirements held nothing back (or it has none).
   */
  requirement: string | null;
}

export interface BuyerOffersView {
  /** When the rules were read: the lead's receipt, when fixed-price deliveries are planned. */
  at: string;
  buyers: BuyerOfferView[];
}
