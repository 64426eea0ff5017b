/**
 * The quote form's conversation with the server (POST /api/leads): what it sends besides the
 * answers (shared/lead/fields.ts), and what it gets back.
 */
import * as z from "zod/mini";
import { campaignIdSchema } from "../campaign";
import type { KnobValues } from "../experiments";
import type { LeadErrors } from "./fields";

/** The longest URL we keep for the form's and the framing page's addresses. */
export const LEAD_URL_MAX_LENGTH = 2048;
/** The honeypot: a field people never see or fill; bots that fill every input do. */
export const HONEYPOT_FIELD = "website";
/** The longest TrustedForm certificate URL and LeadiD token we keep (issue 44): past them the envelope is refused. */
export const TRUSTEDFORM_CERT_URL_MAX_LENGTH = 2048;
export const LEADID_TOKEN_MAX_LENGTH = 200;

/** What the form sends besides the fields: identifiers, the consent context and the anti-bot signals. */
export const leadEnvelopeSchema = z.object({
  /** One per form: a double-click or a retry repeats it, and never makes a second lead. */
  idempotencyKey: z.string().check(z.regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i)),
  /** Signed by the server when the form opened: proves the fill time. */
  formToken: z.string().check(z.maxLength(200)),
  /** The disclosure version the visitor saw beside the checkbox. */
  consentVersion: z.int(),
  formUrl: z.string().check(z.maxLength(LEAD_URL_MAX_LENGTH), z.url({ protocol: /^https?$/ })),
  pageUrl: z.string().check(z.maxLength(LEAD_URL_MAX_LENGTH), z.url({ protocol: /^https?$/ })),
  sid: z.optional(campaignIdSchema),
  tid: z.optional(campaignIdSchema),
  /** The visit id from the form's address (shared/campaign.ts), stored with the lead. */
  vid: z.optional(campaignIdSchema),
  [HONEYPOT_FIELD]: z.optional(z.string().check(z.maxLength(200))),
  /**
   * What TrustedForm's script wrote into the form (xxTrustedFormCertUrl) and Jornaya's (leadid_token),
   * when they ran. Any text is taken as it is: the visitor's browser can send anything, so a bad
   * value must not cost them their request; it fails its check before a buyer that needs it
   * (server/checks/). Only the length is bounded.
   */
  trustedFormCertUrl: z.optional(z.string().check(z.maxLength(TRUSTEDFORM_CERT_URL_MAX_LENGTH))),
  leadidToken: z.optional(z.string().check(z.maxLength(LEADID_TOKEN_MAX_LENGTH))),
});
export type LeadEnvelope = z.infer<typeof leadEnvelopeSchema>;

/**
 * A consent-proof provider's script the quote form loads (GET /api/leads/session's `proofScripts`,
 * only for the providers switched on): its address and element id as the provider's snippet
 * gives them, and the hidden input the snippet expects in the form, when the script fills one
 * in rather than adding its own (Jornaya's leadid_token).
 */
/** The hidden input TrustedForm's script adds to the form and fills with the certificate URL (its `field` parameter). */
export const TRUSTEDFORM_FIELD = "xxTrustedFormCertUrl";
/** The hidden input Jornaya's snippet puts in the form for its script to fill with the LeadiD token. */
export const LEADID_INPUT = { id: "leadid_token", name: "universal_leadid" } as const;

export interface ProofScript {
  src: string;
  id: string;
  input?: { id: string; name: string };
}

/** "LD-7K3M-Q9XD": how visitors, partners and ops refer to a quote request. */
export const LEAD_REFERENCE_PATTERN = /^LD-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/;

/** GET /api/leads/:reference/matches?token=…: the buyers that accepted the lead; `settled` once none is still being sent to. */
export interface LeadMatchesResponse {
  settled: boolean;
  matches: { name: string; phone?: string }[];
}

/** The answers of POST /api/leads the form understands (matchesToken reads the matches). */
export type LeadSubmitResponse =
  | { status: "created"; reference: string; duplicate: boolean; matchesToken?: string }
  | { status: "already_sent"; reference: string; matchesToken?: string }
  | { status: "invalid"; errors: LeadErrors }
  | { status: "error"; error: string };

/** The knobs of A/B experiments the quote form reads (shared/experiments.ts, issue 45). */
export const FORM_KNOB_NAMES = ["form.coverageFirst", "form.skipCoverage"] as const satisfies readonly (keyof KnobValues)[];
export type FormKnobs = Pick<KnobValues, (typeof FORM_KNOB_NAMES)[number]>;

/**
 * GET /api/leads/session's `experiments`, present only when a running experiment changes the form
 * for this visitor: the form's knobs, the control's value where no variant changes them. The
 * server decides them from its own cookie (server/experiments/visitor.ts); the form never sends
 * them back, and the lead is checked as any other.
 */
export interface SessionExperiments {
  knobs: FormKnobs;
}
