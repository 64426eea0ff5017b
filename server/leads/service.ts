/**
 * Receiving a quote request: the anti-bot checks, the shared field rules again, the ZIP's city
 * and state, then one transaction for the lead and its consent record. Logs the outcome with
 * the campaign ids, the visit id and the reference, never the person's details.
 */
import type { Request } from "express";
import { HONEYPOT_FIELD, leadEnvelopeSchema } from "../../shared/lead/api";
import { validateLead, type LeadErrors, type RawLead } from "../../shared/lead/fields";
import type { LeadStore } from "./store";
import type { ZipDirectory } from "../zip-codes";
import type { FormTokens } from "./form-token";
import type { CurrentDisclosure } from "./disclosure";
import type { OfferLead } from "../delivery/offer";
import type { LeadRouting } from "../delivery/routing";
import { visitorIdOf } from "../experiments/visitor";
import { hasGpc } from "../http/gpc";
import { logLeadRejected, logLeadSubmitted } from "../events";
import { truncate } from "../logger";
import { paths } from "../../shared/routes";
import { site } from "../../shared/site";

export type LeadOutcome =
  | { kind: "created"; reference: string; duplicate: boolean }
  | { kind: "already_sent"; reference: string }
  | { kind: "invalid"; errors: LeadErrors }
  /** Refused before any field was looked at; `message` is for the visitor. */
  | { kind: "rejected"; status: 400 | 409; message: string };

export interface LeadService {
  submit(req: Request, body: Record<string, unknown>): Promise<LeadOutcome>;
}

export interface LeadServiceOptions {
  store: LeadStore;
  zipCodes: ZipDirectory;
  formTokens: FormTokens;
  /**
   * The stored disclosure a request with these answers is agreed under: the words naming the
   * buyers that could take it (server/leads/visitor-disclosure.ts). The form showed the words for
   * the same answers; another version means they changed since (a buyer added, paused, its
   * filters or states edited, an answer changed without the form asking again).
   */
  disclosure: (lead: OfferLead, now: Date) => Promise<CurrentDisclosure>;
  /** Delivery to the live settings' buyers; absent: leads are stored only. */
  routing?: LeadRouting;
  /** Told after a new lead is stored with deliveries (the delivery worker looks for them at once). */
  onStored?: () => void;
  /** Whether the page the form was on came from an ops test link (server/leads/test-link.ts): the lead is then a test. */
  isTestPage?: (pageUrl: string, now: Date) => boolean;
}

const RELOAD = "This form is out of date. Reload the page and send it again.";
const TOO_FAST = "That was quicker than we expected. Check your answers, then send the form again.";
const NOT_ACCEPTED = "We could not accept this request. Reload the page and try again.";
/** The form asks for the new words by itself on this 409 (client/quote-form/submit.ts) and unticks the box. */
const STALE_DISCLOSURE = "We have updated the wording beside the consent box. Read it, tick the box again, and send the form again.";

/** The consent record's URLs must be the quote form, framed by a page of the same site. */
function isFormAddress(formUrl: string, pageUrl: string): boolean {
  const form = new URL(formUrl);
  const page = new URL(pageUrl);
  return form.pathname === paths.quoteForm && page.origin === form.origin;
}

export function createLeadService({ store, zipCodes, formTokens, disclosure: disclosureOf, routing, onStored, isTestPage }: LeadServiceOptions): LeadService {
  return {
    async submit(req, body) {
      const envelope = leadEnvelopeSchema.safeParse(body);
      if (!envelope.success) {
        logLeadRejected(req, "bad_envelope", { fields: [...new Set(envelope.error.issues.map((issue) => String(issue.path[0])))] });
        return { kind: "rejected", status: 400, message: RELOAD };
      }
      const meta = envelope.data;
      if (!isFormAddress(meta.formUrl, meta.pageUrl)) {
        logLeadRejected(req, "bad_envelope", { fields: ["formUrl", "pageUrl"] });
        return { kind: "rejected", status: 400, message: RELOAD };
      }
      const campaign = { ...(meta.sid ? { sid: meta.sid } : {}), ...(meta.tid ? { tid: meta.tid } : {}), ...(meta.vid ? { vid: meta.vid } : {}) };
      if (meta[HONEYPOT_FIELD]) {
        logLeadRejected(req, "honeypot", { campaign });
        return { kind: "rejected", status: 400, message: NOT_ACCEPTED };
      }
      const { check: token, openedAt: formOpenedAt } = formTokens.read(meta.formToken);
      if (token !== "ok") {
        logLeadRejected(req, token === "too_fast" ? "too_fast" : "form_expired", { campaign });
        return { kind: "rejected", status: 400, message: token === "too_fast" ? TOO_FAST : RELOAD };
      }
      const receivedAt = new Date();
      const checked = validateLead(body as RawLead, receivedAt);
      const errors: LeadErrors = checked.ok ? {} : { ...checked.errors };
      // A well-formed ZIP is looked up even when other answers are wrong, so every message comes at once.
      const zip = String((checked.ok ? checked.value : checked.values).zip ?? "");
      const location = errors.zip ? undefined : zipCodes.lookup(zip);
      if (!errors.zip && !location) errors.zip = `We could not find ZIP code ${zip}. Check it and try again.`;
      if (!checked.ok || !location) {
        logLeadRejected(req, "invalid_fields", { fields: Object.keys(errors) });
        return { kind: "invalid", errors };
      }

      const lead = checked.value;
      const gpc = hasGpc(req);
      const test = isTestPage?.(meta.pageUrl, receivedAt) ?? false;
      // The words for these answers, worked out again: the version sent must be theirs (issue 44).
      const disclosure = await disclosureOf({ ...lead, state: location.state, test }, receivedAt);
      if (meta.consentVersion !== disclosure.version) {
        logLeadRejected(req, "stale_disclosure");
        return { kind: "rejected", status: 409, message: STALE_DISCLOSURE };
      }
      const result = await store.create({
        lead,
        location,
        test,
        idempotencyKey: meta.idempotencyKey.toLowerCase(),
        sid: meta.sid,
        tid: meta.tid,
        visitId: meta.vid,
        // The experiments' visitor (issue 45): how a lead reaches the variants its visitor saw; none with GPC.
        visitorId: visitorIdOf(req),
        gpc,
        receivedAt,
        consent: {
          disclosureVersion: disclosure.version,
          disclosureSha256: disclosure.sha256,
          checkboxChecked: lead.consent,
          ip: req.ip ?? req.socket.remoteAddress ?? "unknown",
          userAgent: truncate(req.get("user-agent") ?? "", 1024),
          formUrl: meta.formUrl,
          pageUrl: meta.pageUrl,
          formOpenedAt,
          // The form links the legal pages as last revised: that revision is what was agreed to.
          termsVersion: site.legalRevised,
          privacyVersion: site.legalRevised,
          // As the visitor's browser sent them (issue 44): checked later, never a reason to refuse the lead.
          trustedFormCertUrl: meta.trustedFormCertUrl || undefined,
          leadidToken: meta.leadidToken || undefined,
        },
      }, (planned) => {
        // Sold by auction when a ping/post buyer could bid (the auction checks the suppression list before pinging).
        // To the buyers ITS words named, whatever other visitors were shown.
        const auction = routing?.auction(planned, !gpc, receivedAt, disclosure.buyerIds);
        return {
          // A browser's opt-out signal is an opt-out of sale for this person from now on (decision 011).
          suppressContact: gpc,
          // Never sold with GPC (nor, as the lead's statement sees to, with a contact on the suppression
          // list: server/privacy/suppression.ts salesAllowed): sent as the visitor asked, flagged.
          deliveries: auction ? [] : (routing?.deliveries(planned, !gpc, receivedAt, disclosure.buyerIds) ?? []),
          ...(auction ? { auction } : {}),
        };
      });
      if (!result.created) {
        logLeadRejected(req, "already_sent", { reference: result.existingReference });
        return { kind: "already_sent", reference: result.existingReference };
      }
      if (result.deliveries > 0 || result.auctions > 0) onStored?.();
      logLeadSubmitted(req, { reference: result.reference, duplicateOf: result.duplicateOf, zip: lead.zip, state: location.state, gpc, test, sid: meta.sid, tid: meta.tid, visitId: meta.vid ?? null });
      return { kind: "created", reference: result.reference, duplicate: result.duplicateOf !== null };
    },
  };
}
