/**
 * Everything the quote form's API needs, built once at start-up: the ZIP directory, the form
 * tokens, the consent disclosure (its wording checked against its recorded hash, its full text
 * stored and versioned by the database), the lead service over the database, and the consent
 * certificates buyers open.
 */
import { createLeadMatches, type LeadMatches } from "./matches";
import type { Database } from "../db/database";
import { leadRepository } from "../db/leads";
import { leadStore } from "./store";
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
import type { LiveSettings } from "../delivery/buyers";
import type { SettingsDirectory } from "../settings/directory";
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

/** The settings a lead capture runs on: the directory (kept current), or fixed ones in tests. */
export type SettingsSource = Pick<SettingsDirectory, "current"> & Partial<Pick<SettingsDirectory, "onChange">>;

/**
 * The buyers a disclosure names: every buyer but the archived ones (a paused buyer stays named, so
 * a lead consented today can go to it once it resumes) and the sandbox ones, which take test leads
 * only, so visitors are never asked to agree to them (server/auction/sandbox.ts).
 */
const namedIn = (settings: LiveSettings | undefined) => settings?.buyers.filter((buyer) => !buyer.sandbox && buyer.status !== "archived");

/**
 * `settings`: when given, each stored lead's deliveries are scheduled in its own transaction, to
 * the buyers named in the disclosure it was consented under; a change of the buyers' names (one
 * added, renamed or archived from the console) makes a new disclosure version, which visitors are
 * shown from then on. `onStored` hears of each new lead (the delivery worker, to send it at once).
 */
export async function createLeadCapture(
  db: Database,
  secret: string | Buffer,
  config: Pick<Config, "LEAD_MIN_FILL_MS"> & Partial<Pick<Config, "CERTIFICATE_SECRET" | "CSRF_SECRET">>,
  settings?: SettingsSource,
  onStored?: () => void,
): Promise<LeadCapture> {
  checkTemplate();
  // The buyers' names, or the carriers' without buyers; a new list is a new version.
  let disclosure: CurrentDisclosure = await registerDisclosure(db.builder, disclosureFor(namedIn(settings?.current())));
  let shown: ShownDisclosure = { version: disclosure.version, parts: disclosure.parts };
  settings?.onChange?.(async (next) => {
    const draft = disclosureFor(namedIn(next));
    if (draft.sha256 === disclosure.sha256 && draft.buyerIds.join("\n") === disclosure.buyerIds.join("\n")) return;
    disclosure = await registerDisclosure(db.builder, draft);
    shown = { version: disclosure.version, parts: disclosure.parts };
  });
  const store = leadStore(leadRepository(db));
  const zipCodes = createZipDirectory();
  const formTokens = createFormTokens(secret, config.LEAD_MIN_FILL_MS);
  const buyersNow = settings ? () => settings.current() : undefined;
  const routing = buyersNow ? createLeadRouting({ planner: createDeliveryPlanner(buyersNow), namedBuyerIds: () => disclosure.buyerIds, buyers: buyersNow }) : undefined;
  return {
    service: createLeadService({
      store,
      zipCodes,
      formTokens,
      disclosure: () => disclosure,
      ...(routing ? { routing } : {}),
      ...(onStored ? { onStored } : {}),
      isTestPage: (pageUrl, now) => isTestPage(secret, pageUrl, now),
    }),
    formTokens,
    zipCodes,
    shownDisclosure: async () => shown,
    certificates: createConsentCertificates(db.builder, certificateSecret(config, secret)),
    matches: createLeadMatches(db, secret, buyersNow),
  };
}
