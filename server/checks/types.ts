/**
 * Lead checks (issue 44, docs/lead-checks.md): third-party consent proof (TrustedForm, Jornaya
 * LeadiD) and phone scrubs (TCPA litigator, DNC, line type). Each provider is an adapter behind
 * CheckProvider (server/checks/providers/), so another provider is one new file; the engine
 * (server/checks/engine.ts) decides when a check runs, runs a lead's checks in parallel, once per
 * lead, caches phone answers, and records every outcome.
 */

/** What can be checked. A buyer's requirements (server/delivery/buyers.ts) name these. */
export const CHECK_KINDS = ["trustedform", "jornaya", "litigator", "dnc", "line_type"] as const;
export type CheckKind = (typeof CHECK_KINDS)[number];

/** Twilio Lookup v2's line types (line_type_intelligence.type) that a buyer may require. */
export const LINE_TYPES = ["mobile", "landline", "fixedVoip", "nonFixedVoip"] as const;
export type LineType = (typeof LINE_TYPES)[number];

/** What a provider is given: the lead as the checks need it. */
export interface CheckInput {
  /** Our lead reference ("LD-…"): TrustedForm's retain reference. */
  reference: string;
  /** Ten digits (US, no +1). */
  phone: string;
  email: string;
  /** Two-letter state of the lead's ZIP: the state DNC list to scrub against. */
  state: string;
  /** Whatever the form sent as TrustedForm's certificate URL (a visitor can send any string). */
  trustedFormCertUrl: string | null;
  /** Whatever the form sent as Jornaya's LeadiD token. */
  leadidToken: string | null;
}

/**
 * A provider's answer.
 * - `ok`: the provider answered; `outcome` says what (e.g. "retained", "authentic", "clean",
 *   "listed", "dnc_match", or a line type such as "mobile").
 * - `failed`: a definite no that no retry changes: the input is unusable (a certificate URL on
 *   another host, a token of the wrong shape, a phone the provider cannot read) or the provider
 *   refused it (not authentic, certificate expired). Never sent anywhere when the input is bad.
 * - `unavailable`: no usable answer (down, slow, an answer we cannot read, not configured). Not
 *   cached; the buyers that require the check are skipped, or the lead waits (by the buyer's setting).
 */
export interface CheckAnswer {
  status: "ok" | "failed" | "unavailable";
  /** Short machine word, shown on the lead's page and counted in metrics. */
  outcome: string;
  /** One line for ops (never a phone number, email or key). */
  detail: string;
  /** How long the provider took (0 when nothing was sent). */
  latencyMs: number;
}

export interface CheckProvider {
  kind: CheckKind;
  /** The provider's name, as metrics and the lead's page show it: "trustedform", "tcpa-litigator-list", "twilio-lookup", … */
  name: string;
  /**
   * "ping": needs no contact details, so it may run before a ping (the certificate and token
   * checks); "post": reads the phone or email, so only before a post.
   */
  stage: "ping" | "post";
  /** Whether an answer is about the phone alone and may be reused for CHECK_CACHE_DAYS (scrubs, line type). */
  cachedByPhone: boolean;
  /** Never throws and never takes longer than `timeoutMs` (a timeout is `unavailable`). */
  run(input: CheckInput, timeoutMs: number): Promise<CheckAnswer>;
}
