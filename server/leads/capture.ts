/**
 * Everything the quote form's API needs, built once at start-up: the ZIP directory, the form
 * tokens, the consent disclosure (its wording checked against its recorded hash, its full text
 * stored and versioned by the database), the lead service over the database, and the consent
 * certificates buyers open.
 */
import { createLeadMatches, type LeadMatches } from "./matches";
import type { Database } from "../db/database";
import { leadRepository } from "../db/leads";
import { createZipDirectory, type ZipDirectory } from "../zip-codes";
import { createFormTokens, type FormTokens } from "./form-token";
import { createLeadService, type LeadService } from "./service";
import { isTestPage } from "./test-link";
import { checkTemplate, disclosureFor, type CurrentDisclosure } from "./disclosure";
import { registerDisclosure } from "../consent/disclosures";
import { certificateSecret } from "../consent/certificate";
import { createConsentCertificates, type ConsentCertificates } from "../consent/service";
import type { ShownDisclosure } from "../../shared/consent-disclosure";
import type { Config } from "../config";
import type { BuyersFile } from "../delivery/buyers";
import { createDeliveryPlanner } from "../delivery/plan";
import { createLeadRouting } from "../delivery/routing";

export interface LeadCapture {
  service: LeadService;
  formTokens: FormTokens;
  zipCodes: ZipDirectory;
  /** What GET /api/leads/session sends: the stored version and the exact text to show. */
  shownDisclosure(): Promise<ShownDisclosure>;
  /** GET /consent/:id (server/consent/route.ts). */
  certificates: ConsentCertificates;
  /** GET /api/leads/:reference/matches: the buyers that accepted a lead (matches.ts). */
  matches: LeadMatches;
}

/**
 * `buyers` (BUYERS_FILE): when given, each stored lead's deliveries are scheduled in its own
 * transaction, to the buyers named in the disclosure it was consented under; `onStored` hears of
 * each new lead (the delivery worker, to send it at once).
 */
export async function createLeadCapture(
  db: Database,
  secret: string | Buffer,
  config: Pick<Config, "LEAD_MIN_FILL_MS"> & Partial<Pick<Config, "CERTIFICATE_SECRET" | "CSRF_SECRET">>,
  buyers?: BuyersFile,
  onStored?: () => void,
): Promise<LeadCapture> {
  checkTemplate();
  // The buyers' names, or the carriers' without BUYERS_FILE; a new list is a new version. A sandbox
  // buyer takes test leads only, so visitors are never asked to agree to it (server/auction/sandbox.ts).
  const disclosure: CurrentDisclosure = await registerDisclosure(db.builder, disclosureFor(buyers?.buyers.filter((buyer) => !buyer.sandbox)));
  const repository = leadRepository(db);
  const zipCodes = createZipDirectory();
  const formTokens = createFormTokens(secret, config.LEAD_MIN_FILL_MS);
  const namedBuyerIds = disclosure.buyerIds;
  const routing = buyers ? createLeadRouting({ planner: createDeliveryPlanner(buyers), namedBuyerIds: () => namedBuyerIds, buyers }) : undefined;
  const shown: ShownDisclosure = { version: disclosure.version, parts: disclosure.parts };
  return {
    service: createLeadService({
      repository,
      zipCodes,
      formTokens,
      disclosure,
      ...(routing ? { routing } : {}),
      ...(onStored ? { onStored } : {}),
      isTestPage: (pageUrl, now) => isTestPage(secret, pageUrl, now),
    }),
    formTokens,
    zipCodes,
    shownDisclosure: async () => shown,
    certificates: createConsentCertificates(db.builder, certificateSecret(config, secret)),
    matches: createLeadMatches(db, secret, buyers),
  };
}
