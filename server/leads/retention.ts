/**
 * How long the records about a person are kept: the periods the privacy policy states
 * (content/legal/privacy-policy.md, section 18, "How long we keep personal information"), each
 * applied by `npm run leads -- purge`, the daily retention job (docs/lead-operations.md):
 *
 * - lead data: 3 years from collection;
 * - consent records (with the name, phone, email and ZIP they cover): 5 years from the consent, to
 *   answer TCPA claims, whose limitation period is 4 years;
 * - delivery records (which buyer got which request, when, sold or not, at what price): 5 years,
 *   as long as the consent record they prove was honoured, so a Shine the Light, Oregon or
 *   Minnesota request for the list of recipients is answerable from them;
 * - privacy requests, once closed: 24 months from receipt (CCPA regulations §7101).
 *
 * Analytics events have their own period (ANALYTICS_RETENTION_DAYS, server/analytics/retention.ts),
 * applied by the same job. The suppression list is kept at least 5 years and has no purge.
 */
export const LEAD_RETENTION_YEARS = 3;
export const CONSENT_RETENTION_YEARS = 5;
export const DELIVERY_RETENTION_YEARS = CONSENT_RETENTION_YEARS;
export const PRIVACY_REQUEST_RETENTION_MONTHS = 24;

function yearsBefore(now: Date, years: number): Date {
  const cutoff = new Date(now);
  cutoff.setUTCFullYear(cutoff.getUTCFullYear() - years);
  return cutoff;
}

/** The instant `months` calendar months before `now` (UTC). */
export function monthsBefore(now: Date, months: number): Date {
  const cutoff = new Date(now);
  cutoff.setUTCMonth(cutoff.getUTCMonth() - months);
  return cutoff;
}

export interface RetentionCutoffs {
  leadCutoff: Date;
  consentCutoff: Date;
  deliveryCutoff: Date;
  privacyRequestCutoff: Date;
}

export function retentionCutoffs(now: Date): RetentionCutoffs {
  return {
    leadCutoff: yearsBefore(now, LEAD_RETENTION_YEARS),
    consentCutoff: yearsBefore(now, CONSENT_RETENTION_YEARS),
    deliveryCutoff: yearsBefore(now, DELIVERY_RETENTION_YEARS),
    privacyRequestCutoff: monthsBefore(now, PRIVACY_REQUEST_RETENTION_MONTHS),
  };
}
