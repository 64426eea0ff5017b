/**
 * Who will contact the visitor (issue 13's matches step): after a lead is stored, the form asks
 * GET /api/leads/:reference/matches with the token the store's answer gave it, and lists the
 * buyers whose delivery of this lead was accepted, with the phone number their configuration
 * gives (the live settings). Only true statements: a buyer is named once it has accepted, never before;
 * `settled` says no delivery is still on its way. The token is an HMAC of the reference with the
 * server's secret: only the browser that sent the request can read its matches, and any replica
 * can check it.
 *
 * A duplicate (the same phone or email within the duplicate window, policy.ts) is stored linked
 * to the earlier request and is never sent to a buyer itself: its matches are the earlier
 * request's, so the thank-you tells the visitor who has the request they are linked to, or that
 * no partner took it (issue 42), instead of "none" beside "partners who have it are working on it".
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Database } from "../db/database";
import { deliveryRepository } from "../db/deliveries";
import { leadRepository } from "../db/leads";
import { auctionRepository } from "../auction/auctions";
import type { LiveSettings } from "../delivery/buyers";

export interface Match {
  name: string;
  /** E.164, when the buyer's configuration gives one. */
  phone?: string;
}

export interface MatchesAnswer {
  /** No delivery of the lead is waiting or on its way: the list is final. */
  settled: boolean;
  matches: Match[];
}

export interface LeadMatches {
  tokenFor(reference: string): string;
  /** The matches of a lead, or undefined when the token is not this reference's. */
  read(reference: string, token: string): Promise<MatchesAnswer | undefined>;
}

/** The token that reads a lead's matches. */
export function matchesToken(secret: string | Buffer, reference: string): string {
  return createHmac("sha256", secret).update(`lead-matches:${reference}`).digest("base64url");
}

export function createLeadMatches(db: Database, secret: string | Buffer, settings: (() => LiveSettings) | undefined): LeadMatches {
  const tokenFor = (reference: string) => matchesToken(secret, reference);
  const deliveries = deliveryRepository(db);
  const leads = leadRepository(db);
  const auctions = auctionRepository(db);
  return {
    tokenFor,
    async read(reference, token) {
      const expected = Buffer.from(tokenFor(reference));
      const given = Buffer.from(token);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
      // The request whose deliveries say who has it: the earlier one, for a duplicate.
      const linked = (await leads.findByReference(reference))?.duplicateOf ?? reference;
      const [sent, auction] = await Promise.all([deliveries.list({ reference: linked, kind: "buyer" }), auctions.find(linked)]);
      // An auction still running has queued no post yet: nothing is final until it is decided.
      const auctionOpen = auction !== undefined && (auction.status === "pending" || auction.status === "pinging" || auction.status === "cascading");
      const settled = !auctionOpen && sent.every((delivery) => delivery.status !== "pending" && delivery.status !== "sending");
      const buyers = settings?.();
      const matches = sent
        .filter((delivery) => delivery.status === "accepted")
        .flatMap((delivery): Match[] => {
          const buyer = buyers?.buyers.find((candidate) => candidate.id === delivery.target);
          // A buyer no longer configured is not named: we could not say who it is.
          return buyer ? [{ name: buyer.name, ...(buyer.phone ? { phone: buyer.phone } : {}) }] : [];
        });
      return { settled, matches };
    },
  };
}
