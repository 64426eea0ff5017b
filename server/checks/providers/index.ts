/**
 * The check providers this process can use: one adapter per configured provider, by the kind it
 * checks (docs/lead-checks.md, "Providers"). A provider without its credentials is absent, so a
 * buyer's requirement for its check finds no provider (the engine treats that as unavailable)
 * instead of a call that would be refused.
 */
import type { Config } from "../../config";
import type { CheckKind, CheckProvider } from "../types";
import { jornayaProvider } from "./jornaya";
import { dncProvider, litigatorProvider } from "./litigator";
import { trustedFormProvider } from "./trustedform";
import { twilioLookupProvider } from "./twilio-lookup";

/** The settings the providers read: their credentials, and where each API is. */
export type CheckProviderConfig = Pick<
  Config,
  | "TRUSTEDFORM_API_KEY"
  | "TRUSTEDFORM_CERT_ORIGIN"
  | "JORNAYA_API_URL"
  | "JORNAYA_ACCOUNT_CODE"
  | "LITIGATOR_API_URL"
  | "LITIGATOR_API_USER"
  | "LITIGATOR_API_KEY"
  | "TWILIO_LOOKUP_URL"
  | "TWILIO_ACCOUNT_SID"
  | "TWILIO_AUTH_TOKEN"
>;

export function createCheckProviders(config: CheckProviderConfig): Map<CheckKind, CheckProvider> {
  const providers = new Map<CheckKind, CheckProvider>();
  const add = (provider: CheckProvider) => providers.set(provider.kind, provider);
  if (config.TRUSTEDFORM_API_KEY) add(trustedFormProvider({ apiKey: config.TRUSTEDFORM_API_KEY, certOrigin: config.TRUSTEDFORM_CERT_ORIGIN }));
  if (config.JORNAYA_ACCOUNT_CODE) add(jornayaProvider({ apiUrl: config.JORNAYA_API_URL, accountCode: config.JORNAYA_ACCOUNT_CODE }));
  if (config.LITIGATOR_API_USER && config.LITIGATOR_API_KEY) {
    const settings = { apiUrl: config.LITIGATOR_API_URL, user: config.LITIGATOR_API_USER, key: config.LITIGATOR_API_KEY };
    add(litigatorProvider(settings));
    add(dncProvider(settings));
  }
  if (config.TWILIO_ACCOUNT_SID && config.TWILIO_AUTH_TOKEN) {
    add(twilioLookupProvider({ apiUrl: config.TWILIO_LOOKUP_URL, accountSid: config.TWILIO_ACCOUNT_SID, authToken: config.TWILIO_AUTH_TOKEN }));
  }
  return providers;
}

export { checkCertUrl } from "./trustedform";
export { LEADID_TOKEN } from "./jornaya";
