/**
 * Everything the quote form's API needs, built once at start-up: the ZIP directory, the form
 * tokens, and the lead service over the database, after checking that the consent disclosure
 * this build shows is the one recorded for its version.
 */
import type { Database } from "../db/database";
import { leadRepository } from "../db/leads";
import { createZipDirectory, type ZipDirectory } from "../zip-codes";
import { createFormTokens, type FormTokens } from "./form-token";
import { createLeadService, type LeadService } from "./service";
import { currentDisclosure } from "./disclosure";
import { CONSENT_DISCLOSURE_SHA256 } from "../../shared/consent-disclosure";
import type { Config } from "../config";

export interface LeadCapture {
  service: LeadService;
  formTokens: FormTokens;
  zipCodes: ZipDirectory;
}

export async function createLeadCapture(db: Database, secret: string | Buffer, config: Pick<Config, "LEAD_MIN_FILL_MS">): Promise<LeadCapture> {
  const disclosure = currentDisclosure();
  if (disclosure.sha256 !== CONSENT_DISCLOSURE_SHA256) {
    throw new Error(
      `The consent disclosure's text changed (sha256 ${disclosure.sha256}) but its recorded hash did not: bump CONSENT_DISCLOSURE.version and CONSENT_DISCLOSURE_SHA256 in shared/consent-disclosure.ts.`,
    );
  }
  const repository = leadRepository(db);
  await repository.registerDisclosure(disclosure.version, disclosure.sha256, disclosure.text);
  const zipCodes = createZipDirectory();
  const formTokens = createFormTokens(secret, config.LEAD_MIN_FILL_MS);
  return { service: createLeadService({ repository, zipCodes, formTokens, disclosure }), formTokens, zipCodes };
}
