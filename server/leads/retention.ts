/**
 * How long quote requests and their consent records are kept: the periods the privacy policy
 * states (content/legal/privacy-policy.md, section 18): lead data 3 years from collection,
 * consent records 5 years from the consent (to answer TCPA claims, whose limitation period is 4
 * years). `npm run leads -- purge` applies them.
 */
export const LEAD_RETENTION_YEARS = 3;
export const CONSENT_RETENTION_YEARS = 5;

function yearsBefore(now: Date, years: number): Date {
  const cutoff = new Date(now);
  cutoff.setUTCFullYear(cutoff.getUTCFullYear() - years);
  return cutoff;
}

export function retentionCutoffs(now: Date): { leadCutoff: Date; consentCutoff: Date } {
  return { leadCutoff: yearsBefore(now, LEAD_RETENTION_YEARS), consentCutoff: yearsBefore(now, CONSENT_RETENTION_YEARS) };
}
