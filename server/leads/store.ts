/**
 * Storing a new lead: the business's decisions about it, made before its one statement is written
 * (server/db/leads.ts stores what it is given; docs/architecture.md, "Rules live in the domain").
 * Here: whether it is a test (never a duplicate), where its duplicate window starts, its contact's
 * hashes for the suppression list, its consent certificate's id, and its follow-up as the
 * caller plans it once the reference is drawn.
 */
import type { Lead } from "../../shared/lead/fields";
import type { ConsentRow, CreateLeadResult, LeadFollowUp, LeadInsert, LeadRepository } from "../db/leads";
import { DUPLICATE_WINDOW_DAYS } from "./policy";
import { newCertificateId } from "../consent/certificate-id";
import { contactHashes } from "../privacy/suppression";
import { isTestLead } from "../auction/sandbox";

/** The consent record's facts as the lead service gathers them (its certificate id is drawn here). */
export type ConsentEvidence = Omit<ConsentRow, "certificateId">;

/** A quote request as the lead service hands it over; what the repository writes (LeadInsert) is decided from it here. */
export type NewLead = Omit<LeadInsert, "test" | "consent" | "duplicateWindowStart" | "contactHashes"> & {
  consent: ConsentEvidence;
  /** Ops marked it a test (a test link, server/leads/test-link.ts): sandbox buyers only, never billed. */
  test?: boolean;
};

/** A new lead as its follow-up is planned: its reference is drawn, it is not written yet. */
export interface PlannedLead {
  reference: string;
  state: string;
  /** The traffic source's sid: its floor price applies in the auction. */
  sid: string | null;
  /** A test lead (server/auction/sandbox.ts): for sandbox buyers only. */
  test: boolean;
  /** Its checked answers, which the buyers' filters read (server/delivery/offer.ts). */
  answers: Lead;
}

export type PlanFollowUp = (lead: PlannedLead) => LeadFollowUp;

const DAY_MS = 86_400_000;

export interface LeadStore {
  /**
   * Stores the lead and its consent record in one statement. The same idempotency key again
   * stores nothing and reports the first lead; the same phone or email within the duplicate
   * window (policy.ts) is stored as a duplicate of the earliest such lead; a test lead never is.
   */
  create(input: NewLead, followUp?: PlanFollowUp): Promise<CreateLeadResult>;
}

export function leadStore(repository: Pick<LeadRepository, "create">): LeadStore {
  return {
    create(input, followUp) {
      const { lead } = input;
      // A test lead (server/auction/sandbox.ts) is never a duplicate: a buyer trying its integration
      // sends the test number again and again, and each must flow (a window starting tomorrow is empty).
      const test = isTestLead({ phone: lead.phone, test: input.test });
      const start = test ? input.receivedAt.getTime() + DAY_MS : input.receivedAt.getTime() - DUPLICATE_WINDOW_DAYS * DAY_MS;
      return repository.create(
        {
          ...input,
          test: input.test === true,
          consent: { ...input.consent, certificateId: newCertificateId() },
          duplicateWindowStart: new Date(start),
          contactHashes: contactHashes({ email: lead.email, phone: lead.phone }),
        },
        followUp && ((reference) => followUp({ reference, state: input.location.state, sid: input.sid ?? null, test, answers: lead })),
      );
    },
  };
}
