/**
 * Everything the quote form's API needs, built once at start-up: the ZIP directory, the form
 * tokens, the consent disclosures (their wording checked against its recorded hash; each
 * visitor's words naming the buyers that could take their request, each distinct text stored and
 * versioned by the database), the lead service over the database, and the consent certificates
 * buyers open.
 */
import { createLeadMatches, type LeadMatches } from "./matches";
import type { Database } from "../db/database";
import { leadRepository } from "../db/leads";
import { leadStore } from "./store";
import { createZipDirectory, type ZipDirectory } from "../zip-codes";
import { createFormTokens, type FormTokens } from "./form-token";
import { createLeadService, type LeadService } from "./service";
import { isTestPage } from "./test-link";
import { checkTemplate, disclosureFor } from "./disclosure";
import { registerDisclosure } from "../consent/disclosures";
import { createVisitorDisclosures, type VisitorDisclosures } from "./visitor-disclosure";
import { certificateSecret } from "../consent/certificate";
import { createConsentCertificates, type ConsentCertificates } from "../consent/service";
import type { ShownDisclosure } from "../../shared/consent-disclosure";
import type { Config } from "../config";
import type { SettingsDirectory } from "../settings/directory";
import { createDeliveryPlanner } from "../delivery/plan";
import { createLeadRouting } from "../delivery/routing";

export interface LeadCapture {
  service: LeadService;
  formTokens: FormTokens;
  zipCodes: ZipDirectory;
  /**
   * What GET /api/leads/session sends: the words naming only us, stored, before the visitor's
   * answers are known. The form shows them but never sends their version: it waits for its own.
   */
  shownDisclosure(): Promise<ShownDisclosure>;
  /** POST /api/leads/disclosure: the words for a visitor's answers (visitor-disclosure.ts). */
  disclosures: Pick<VisitorDisclosures, "forRequest">;
  /** GET /consent/:id (server/consent/route.ts). */
  certificates: ConsentCertificates;
  /** GET /api/leads/:reference/matches: the buyers that accepted a lead (matches.ts). */
  matches: LeadMatches;
}

/** The settings a lead capture runs on: the directory (kept current), or fixed ones in tests. */
export type SettingsSource = Pick<SettingsDirectory, "current"> & Partial<Pick<SettingsDirectory, "onChange">>;

/**
 * `settings`: when given, each stored lead's deliveries are scheduled in its own transaction, to
 * the buyers named in the disclosure it was consented under; each visitor's words name the buyers
 * the settings in force let take their request (docs/decisions/039-disclosure-per-visitor.md).
 * `onStored` hears of each new lead (the delivery worker, to send it at once).
 */
export async function createLeadCapture(
  db: Database,
  secret: string | Buffer,
  config: Pick<Config, "LEAD_MIN_FILL_MS"> & Partial<Pick<Config, "CERTIFICATE_SECRET" | "CSRF_SECRET">>,
  settings?: SettingsSource,
  onStored?: () => void,
): Promise<LeadCapture> {
  checkTemplate();
  // The words naming only us, stored at start-up (a new wording's refusal shows here, before any
  // visitor): what the session sends before a visitor's answers are known.
  const own = await registerDisclosure(db.builder, disclosureFor(undefined));
  const shown: ShownDisclosure = { version: own.version, parts: own.parts };
  const store = leadStore(leadRepository(db));
  const zipCodes = createZipDirectory();
  const formTokens = createFormTokens(secret, config.LEAD_MIN_FILL_MS);
  const buyersNow = settings ? () => settings.current() : undefined;
  const testPage = (pageUrl: string, now: Date) => isTestPage(secret, pageUrl, now);
  const disclosures = createVisitorDisclosures({ db: db.builder, zipCodes, ...(buyersNow ? { settings: buyersNow } : {}), isTestPage: testPage });
  const routing = buyersNow ? createLeadRouting({ planner: createDeliveryPlanner(buyersNow), buyers: buyersNow }) : undefined;
  return {
    service: createLeadService({
      store,
      zipCodes,
      formTokens,
      disclosure: disclosures.forLead,
      ...(routing ? { routing } : {}),
      ...(onStored ? { onStored } : {}),
      isTestPage: testPage,
    }),
    formTokens,
    zipCodes,
    shownDisclosure: async () => shown,
    disclosures,
    certificates: createConsentCertificates(db.builder, certificateSecret(config, secret)),
    matches: createLeadMatches(db, secret, buyersNow),
  };
}
