/**
 * The quote form's conversation with the server (POST /api/leads): what it sends besides the
 * answers (shared/lead/fields.ts), and what it gets back.
 */
import * as z from "zod/mini";
import { campaignIdSchema } from "../campaign";
import type { LeadErrors } from "./fields";

/** The longest URL we keep for the form's and the framing page's addresses. */
export const LEAD_URL_MAX_LENGTH = 2048;
/** The honeypot: a field people never see or fill; bots that fill every input do. */
export const HONEYPOT_FIELD = "website";

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
});
export type LeadEnvelope = z.infer<typeof leadEnvelopeSchema>;

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
