/**
 * The database-backed services of an app under test (privacy requests and quote requests), over a
 * real store opened only when a test first uses it: the embedded store in a temporary directory
 * by default, or any TestStore (PostgreSQL) for suites that run against both.
 */
import type { Database } from "../../server/db/database";
import { privacyRequestRepository, type PrivacyRequestRepository } from "../../server/db/privacy-requests";
import { leadRepository, type LeadRepository } from "../../server/db/leads";
import { createPrivacyService, type PrivacyService } from "../../server/privacy/service";
import { createCsrf, type Csrf } from "../../server/csrf";
import { createLeadCapture, type LeadCapture } from "../../server/leads/capture";
import { createFormTokens } from "../../server/leads/form-token";
import { createZipDirectory } from "../../server/zip-codes";
import { matchesToken } from "../../server/leads/matches";
import type { LiveSettings } from "../../server/delivery/buyers";
import { embeddedStore, type TestStore } from "./databases";
import { fixedSettings } from "./settings";

export const TEST_SECRET = "test-secret-test-secret-test-secret!";

export interface TestServices {
  /** What createApp takes. */
  privacy: { service: PrivacyService; csrf: Csrf };
  leads: LeadCapture;
  db(): Promise<Database>;
  repository(): Promise<PrivacyRequestRepository>;
  leadRepository(): Promise<LeadRepository>;
  close(): Promise<void>;
}

export function testServices(options: { store?: TestStore; minFillMs?: number; buyers?: LiveSettings } = {}): TestServices {
  const minFillMs = options.minFillMs ?? 0;
  let opened: Promise<{ db: Database; privacy: PrivacyService; leads: LeadCapture }> | undefined;
  const open = () =>
    (opened ??= (async () => {
      const db = await (options.store ?? embeddedStore()).open();
      const leads = await createLeadCapture(db, TEST_SECRET, { LEAD_MIN_FILL_MS: minFillMs }, options.buyers ? fixedSettings(options.buyers) : undefined);
      return { db, privacy: createPrivacyService(db), leads };
    })());
  return {
    privacy: {
      service: { submit: async (...args) => (await open()).privacy.submit(...args) },
      csrf: createCsrf(TEST_SECRET),
    },
    leads: {
      service: { submit: async (...args) => (await open()).leads.service.submit(...args) },
      // Stateless: no need to open the store for them.
      formTokens: createFormTokens(TEST_SECRET, minFillMs),
      zipCodes: createZipDirectory(),
      // The stored disclosure version comes from the store.
      shownDisclosure: async () => (await open()).leads.shownDisclosure(),
      disclosures: { forRequest: async (...args) => (await open()).leads.disclosures.forRequest(...args) },
      certificates: { open: async (...args) => (await open()).leads.certificates.open(...args) },
      matches: { tokenFor: (reference) => matchesToken(TEST_SECRET, reference), read: async (...args) => (await open()).leads.matches.read(...args) },
    },
    db: async () => (await open()).db,
    repository: async () => privacyRequestRepository((await open()).db),
    leadRepository: async () => leadRepository((await open()).db),
    async close() {
      if (!opened) return;
      const { db } = await opened;
      await db.close();
    },
  };
}
