/**
 * Sending the request (POST /api/leads): the answers as typed plus the envelope (idempotency key,
 * form token, consent version, addresses, honeypot, campaign ids), the busy state while it
 * travels, and what each reply does. The answers stay in the inputs whatever happens.
 */
import { CONSENT_DISCLOSURE, SUBMIT_LABEL } from "../../shared/consent-disclosure";
import type { Campaign } from "../../shared/campaign";
import { HONEYPOT_FIELD, type LeadSubmitResponse } from "../../shared/lead/api";
import { LEAD_FIELDS, checkLeadFields, type Lead } from "../../shared/lead/fields";
import { randomId } from "../../shared/random-id";
import type { Session } from "./api";
import type { Steps } from "./steps";
import type { View } from "./view";

export interface SubmitDeps {
  openSession(): Promise<Session>;
  submitLead(session: Session, body: Record<string, unknown>): Promise<LeadSubmitResponse>;
  /** The form's own address, sent as formUrl. */
  formUrl(): string;
  /** The address of the page framing the form, sent as pageUrl. */
  pageUrl(): string;
  campaign: Campaign;
}

export interface Sender {
  /** True while a request is on its way: Next does nothing then. */
  readonly busy: boolean;
  /** Asks for the form's session (its tokens) early, so Submit does not wait for it. */
  open(): void;
  /** Checks every answer and sends them; on success hands over to thank (the answers, checked). */
  send(): Promise<void>;
}

export const NETWORK_ERROR = "We could not reach our server. Check your connection and try again: your answers are kept.";

/** The page framing the form (the quote page), else the form's referrer or its own address. */
export function parentAddress(): string {
  try {
    if (window.parent !== window) return window.parent.location.href;
  } catch {
    // A cross-origin parent (the CSP's frame-ancestors forbids it, but never fail on it).
  }
  return document.referrer || window.location.href;
}

export function createSender(
  view: View,
  steps: Steps,
  deps: SubmitDeps,
  thank: (reference: string, duplicate: boolean, values: Partial<Lead>) => void,
): Sender {
  /** One per form: a double-click or a retry sends the same key, so only one lead is ever stored. */
  const idempotencyKey = randomId();
  let session: Promise<Session> | undefined;
  let busy = false;
  const { form, nextButton, formError } = view;

  function setBusy(value: boolean): void {
    busy = value;
    nextButton.disabled = value;
    form.setAttribute("aria-busy", String(value));
    // A 422 may have moved the form back to an earlier step, whose button says "Next".
    nextButton.textContent = value ? "Sending…" : steps.isLast() ? SUBMIT_LABEL : "Next";
  }

  function thanks(reference: string, duplicate: boolean, values: Partial<Lead>): void {
    busy = false;
    thank(reference, duplicate, values);
  }

  async function send(): Promise<void> {
    const answers = view.readRaw();
    const { values, errors } = checkLeadFields(answers, LEAD_FIELDS);
    if (Object.keys(errors).length > 0) {
      steps.reveal(errors);
      return;
    }
    setBusy(true);
    formError.textContent = "";
    try {
      const current = await (session ??= deps.openSession());
      const reply = await deps.submitLead(current, {
        // The answers as typed: the server checks and normalises them with the same rules.
        ...answers,
        idempotencyKey,
        formToken: current.formToken,
        consentVersion: CONSENT_DISCLOSURE.version,
        formUrl: deps.formUrl(),
        pageUrl: deps.pageUrl(),
        [HONEYPOT_FIELD]: view.honeypot.value,
        ...deps.campaign,
      });
      if (reply.status === "created") return thanks(reply.reference, reply.duplicate, values);
      if (reply.status === "already_sent") return thanks(reply.reference, false, values);
      // Enabled again before anything is focused: a disabled button cannot take focus.
      setBusy(false);
      if (reply.status === "invalid") steps.reveal(reply.errors);
      else {
        formError.textContent = reply.error;
        nextButton.focus();
      }
    } catch {
      session = undefined; // fetch a fresh one on the next try
      setBusy(false);
      formError.textContent = NETWORK_ERROR;
      nextButton.focus();
    } finally {
      if (busy) setBusy(false);
    }
  }

  return {
    get busy() {
      return busy;
    },
    open() {
      session = deps.openSession();
      session.catch(() => (session = undefined));
    },
    send,
  };
}
