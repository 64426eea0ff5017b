/**
 * What ops do from the console (POST, ops only, the session's CSRF token checked before these
 * run): send a lead's dead-lettered deliveries again, record a buyer's return, show a lead's phone
 * and email to help its caller, close a privacy request. Each answers 303 back to its page with a flash message (post/redirect/get), or, when
 * the form itself is wrong, 422 with the page and the problem. Every action is logged as
 * admin_action with the user, whatever came of it.
 */
import type { Request, Response } from "express";
import type { Logger } from "pino";
import type { Database } from "../db/database";
import { deliveryRepository } from "../db/deliveries";
import { privacyRequestRepository } from "../db/privacy-requests";
import type { LiveSettings } from "../delivery/buyers";
import { returnLead } from "../delivery/returns";
import type { EventRecorder } from "../analytics/writer";
import { adminPaths, type AdminView, type Flash } from "../../shared/admin-views";
import { PRIVACY_REFERENCE_PATTERN } from "../../shared/privacy-request";
import type { FlashStore } from "./flash";
import { leadReferenceOf, leadsView } from "./leads-view";
import { privacyView } from "./privacy-view";
import type { RenderView } from "./render";
import { field, sessionOf } from "./session-guard";

/** As POST /api/buyer-returns and `npm run leads -- return` allow. */
export const RETURN_REASON_MAX = 500;
export const PRIVACY_NOTE_MAX = 1_000;
const BUYER_PATTERN = /^[A-Za-z0-9._~-]{1,64}$/;

export interface ActionDependencies {
  db: Database;
  /** The buyers and sources in force now. */
  buyers?: () => LiveSettings;
  flash: FlashStore;
  render: RenderView;
  /** Wakes the delivery worker, when this process runs one, so a retry is sent now. */
  nudge?: () => void;
  /** Where a return is stored for the report (its revenue and payout reversed). */
  analytics?: EventRecorder;
  now: () => Date;
}

export type Outcome = "done" | "nothing_to_do" | "invalid" | "conflict" | "rate_limited";

/** One admin_action line per console action, whatever came of it (warn unless done). */
export function logAction(req: Request, res: Response, action: string, target: string, outcome: Outcome, detail: Record<string, unknown> = {}): void {
  const level = outcome === "done" ? "info" : "warn";
  (req.log as Logger)[level]({ event: "admin_action", user: sessionOf(res).name, action, target, outcome, ...detail }, `console action ${action}`);
}

/** Post/redirect/get: the message for the next page, and a 303 to it. */
export function back(req: Request, res: Response, flash: FlashStore, to: string, message: Flash): void {
  flash.set(req, res, message);
  res.redirect(303, to);
}

const leadPage = (reference: string) => `${adminPaths.leads}?${new URLSearchParams({ reference }).toString()}`;

export function createActions({ db, buyers: buyersNow, flash, render, nudge, analytics, now }: ActionDependencies) {
  /** The form was wrong: its page again, with the problem, as a 422. */
  const refuse = async (req: Request, res: Response, view: AdminView, text: string) => render(req, res, 422, { ...view, flash: { kind: "error", text } });

  return {
    async retry(req: Request, res: Response): Promise<void> {
      const buyers = buyersNow?.();
      const reference = leadReferenceOf(field(req, "reference"));
      const buyer = field(req, "buyer")?.trim() || undefined;
      if (!reference || (buyer !== undefined && !BUYER_PATTERN.test(buyer))) {
        logAction(req, res, "retry", String(field(req, "reference") ?? "").slice(0, 40), "invalid");
        return refuse(req, res, await leadsView(db, reference, buyers !== undefined), reference ? "That buyer id is not valid." : "A lead reference looks like LD-7K3M-Q9XD.");
      }
      const queued = await deliveryRepository(db).retry(reference, buyer, now());
      logAction(req, res, "retry", reference, queued > 0 ? "done" : "nothing_to_do", { buyer: buyer ?? null, queued });
      if (queued === 0) return back(req, res, flash, leadPage(reference), { kind: "error", text: `${reference} has no failed delivery${buyer ? ` to ${buyer}` : ""} to send again.` });
      nudge?.();
      back(req, res, flash, leadPage(reference), { kind: "success", text: `Queued ${queued} failed ${queued === 1 ? "delivery" : "deliveries"} of ${reference} again.` });
    },

    async returnLead(req: Request, res: Response): Promise<void> {
      const buyers = buyersNow?.();
      const reference = leadReferenceOf(field(req, "reference"));
      const buyerId = field(req, "buyer")?.trim() ?? "";
      const reason = field(req, "reason")?.trim() ?? "";
      const problem = !reference
        ? "A lead reference looks like LD-7K3M-Q9XD."
        : !buyers
          ? "Returns need buyers: this server has none configured."
          : !buyers.buyers.some((buyer) => buyer.id === buyerId)
            ? "Say which buyer returns the lead (one of the buyers' ids)."
            : !reason
              ? "Say why the buyer returns the lead (its words are kept with the delivery)."
              : reason.length > RETURN_REASON_MAX
                ? `The reason is at most ${RETURN_REASON_MAX} characters.`
                : undefined;
      if (problem || !reference || !buyers) {
        logAction(req, res, "return", reference ?? "", "invalid", { buyer: buyerId.slice(0, 40) });
        return refuse(req, res, await leadsView(db, reference, buyers !== undefined), problem ?? "");
      }
      const outcome = await returnLead({ db, buyers, logger: req.log as Logger, ...(analytics ? { analytics } : {}) }, { reference, buyerId, reason, via: "console" }, now());
      logAction(req, res, "return", reference, outcome.kind === "returned" ? "done" : "nothing_to_do", { buyer: buyerId, result: outcome.kind });
      if (outcome.kind === "returned") {
        const price = outcome.price === null ? "no charge (not sold)" : `$${outcome.price.toFixed(2)}`;
        return back(req, res, flash, leadPage(reference), { kind: "success", text: `Returned ${reference} from ${buyerId}: ${price} reversed.` });
      }
      back(req, res, flash, leadPage(reference), {
        kind: "error",
        text: outcome.kind === "already_returned" ? `${reference} was already returned by ${buyerId}.` : `${buyerId} has no accepted delivery of ${reference}.`,
      });
    },

    /**
     * Ops helping a visitor who calls with a reference (issue 42, item 9): the lead's page again
     * with the phone and email whole, in this one answer (never in an address or a cookie), and
     * who looked logged as admin_action show_contact. Analysts never reach this (403 before it).
     */
    async showContact(req: Request, res: Response): Promise<void> {
      const buyers = buyersNow?.();
      const raw = field(req, "reference");
      const reference = leadReferenceOf(raw);
      if (!reference) {
        logAction(req, res, "show_contact", String(raw ?? "").slice(0, 40), "invalid");
        return refuse(req, res, await leadsView(db, undefined, buyers !== undefined), "A lead reference looks like LD-7K3M-Q9XD.");
      }
      const view = await leadsView(db, reference, buyers !== undefined, buyers, "ops", { reveal: true });
      if (!view.lead?.contact?.revealed) {
        logAction(req, res, "show_contact", reference, "nothing_to_do");
        return render(req, res, 404, view);
      }
      logAction(req, res, "show_contact", reference, "done");
      return render(req, res, 200, view);
    },

    async closePrivacyRequest(req: Request, res: Response): Promise<void> {
      const reference = field(req, "reference")?.trim().toUpperCase() ?? "";
      const outcome = field(req, "outcome");
      const note = field(req, "note")?.trim() ?? "";
      const problem = !PRIVACY_REFERENCE_PATTERN.test(reference)
        ? "A privacy request reference looks like PR-7K3M-Q9XD."
        : outcome !== "completed" && outcome !== "denied"
          ? "Choose completed or denied."
          : outcome === "denied" && !note
            ? "Say why the request is denied: the note is kept with it."
            : note.length > PRIVACY_NOTE_MAX
              ? `The note is at most ${PRIVACY_NOTE_MAX} characters.`
              : undefined;
      if (problem || (outcome !== "completed" && outcome !== "denied")) {
        logAction(req, res, "close_privacy_request", reference.slice(0, 40), "invalid", { status: typeof outcome === "string" ? outcome.slice(0, 20) : null });
        return refuse(req, res, await privacyView(db, now()), problem ?? "");
      }
      const closed = await privacyRequestRepository(db).close(reference, outcome, note || null, now());
      logAction(req, res, "close_privacy_request", reference, closed ? "done" : "nothing_to_do", { status: outcome });
      back(
        req,
        res,
        flash,
        adminPaths.privacy,
        closed ? { kind: "success", text: `${reference} marked ${outcome}.` } : { kind: "error", text: `${reference} is not an open request (already closed, or unknown).` },
      );
    },
  };
}
