/**
 * Sending the request (POST /api/leads): the answers as typed plus the envelope (idempotency key,
 * form token, consent version, addresses, honeypot, campaign and visit ids, the consent-proof
 * providers' certificate URL and token), the busy state while it travels, and what each reply
 * does. The answers stay in the inputs whatever happens.
 *
 * A 503 (the database restarting or failing over, up to a minute) or no answer at all is not
 * the visitor's problem: the form sends the same request again by itself, with the same
 * idempotency key and session, so the lead is stored exactly once when the server is back (issue 10).
 */
import { SUBMIT_LABEL } from "../../shared/consent-disclosure";
import type { Campaign } from "../../shared/campaign";
import { HONEYPOT_FIELD } from "../../shared/lead/api";
import { LEAD_FIELDS, validateLead, type Lead } from "../../shared/lead/fields";
import { randomId } from "../../shared/random-id";
import { TryAgainLater, type Session, type SubmitReply } from "./api";
import { proofValues } from "./proof-scripts";
import type { Screens } from "./screens";
import type { View } from "./view";

export interface SubmitDeps {
  openSession(): Promise<Session>;
  submitLead(session: Session, body: Record<string, unknown>): Promise<SubmitReply>;
  /** The form's own address, sent as formUrl. */
  formUrl(): string;
  /** The address of the page framing the form, sent as pageUrl. */
  pageUrl(): string;
  /** The campaign and visit ids from the form's address (sid, tid, vid), sent as they are. */
  campaign: Campaign;
  /** The stored version of the consent words shown beside the box (consent.ts). */
  consentVersion(): number | undefined;
  /**
   * The server refused the version sent (409: the words for these answers changed since they were
   * shown): brings the new words, which untick the box and say why (consent.ts). Settles when done.
   */
  wordsChanged?(): Promise<void>;
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
/** Shown, politely, while the form keeps trying by itself. */
export const STILL_SENDING = "Still sending your request… (we will keep trying)";

/**
 * Trying again: after 2 s, 4 s, 8 s, then every 10 s, never sooner than the server's Retry-After
 * (but at most 10 s), while the whole send has taken under 90 s: a database failover takes up to
 * 60 s. About 11 requests at most, well within the per-client budget (LEAD_RATE_LIMIT, 20).
 */
export const RETRY_POLICY = { firstDelayMs: 2_000, maxDelayMs: 10_000, budgetMs: 90_000 } as const;

/** The wait before retry number `retry` (1, 2, …), given the server's Retry-After if it sent one. */
export function retryDelay(retry: number, retryAfterMs: number | undefined): number {
  const backoff = RETRY_POLICY.firstDelayMs * 2 ** (retry - 1);
  return Math.min(Math.max(backoff, retryAfterMs ?? 0), RETRY_POLICY.maxDelayMs);
}

/** One try's end: the server's reply, or a reason to try again (with its Retry-After, if any). */
type Attempt = { reply: SubmitReply } | { retryAfterMs: number | undefined };

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

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
  steps: Screens,
  deps: SubmitDeps,
  thank: (reference: string, duplicate: boolean, values: Partial<Lead>, matchesToken: string | undefined) => void,
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

  function thanks(reference: string, duplicate: boolean, values: Partial<Lead>, matchesToken: string | undefined): void {
    busy = false;
    thank(reference, duplicate, values, matchesToken);
  }

  /** The message above the buttons: a refusal is an alert; "still sending" a polite status. */
  function say(message: string, role: "alert" | "status" = "alert"): void {
    formError.setAttribute("role", role);
    if (formError.textContent !== message) formError.textContent = message;
  }

  async function attempt(body: Record<string, unknown>): Promise<Attempt> {
    let current: Session;
    try {
      current = await (session ??= deps.openSession());
    } catch {
      session = undefined; // ask for a fresh one on the next try
      return { retryAfterMs: undefined };
    }
    try {
      return { reply: await deps.submitLead(current, { ...body, formToken: current.formToken }) };
    } catch (error) {
      // The same session next time: its form token dates the form's opening (a new one would be
      // refused as too fast), and its CSRF cookie is still good.
      return { retryAfterMs: error instanceof TryAgainLater ? error.retryAfterMs : undefined };
    }
  }

  async function send(): Promise<void> {
    // The request as the schema takes it: the request's own answers, every vehicle and driver.
    const answers = steps.request(view.readRaw(LEAD_FIELDS));
    const checked = validateLead(answers);
    if (!checked.ok) {
      steps.reveal(checked.errors);
      return;
    }
    const values = checked.value;
    // Built once: every retry sends the same request.
    const body = {
      // The answers as typed: the server checks and normalises them with the same rules.
      ...answers,
      idempotencyKey,
      consentVersion: deps.consentVersion(),
      formUrl: deps.formUrl(),
      pageUrl: deps.pageUrl(),
      [HONEYPOT_FIELD]: view.honeypot.value,
      ...deps.campaign,
      // TrustedForm's certificate URL and Jornaya's token, when their scripts ran (proof-scripts.ts).
      ...proofValues(view.form),
    };
    setBusy(true);
    say("");
    const started = Date.now();
    try {
      for (let retry = 1; ; retry += 1) {
        const outcome = await attempt(body);
        if ("reply" in outcome) {
          const { reply } = outcome;
          if (reply.status === "created") return thanks(reply.reference, reply.duplicate, values, reply.matchesToken);
          if (reply.status === "already_sent") return thanks(reply.reference, false, values, reply.matchesToken);
          // Enabled again before anything is focused: a disabled button cannot take focus.
          setBusy(false);
          say("");
          if (reply.status === "invalid") steps.reveal(reply.errors);
          else if (reply.status === "stale_disclosure" && deps.wordsChanged) {
            // No reload: the new words come in place, the box unticked and saying why; the visitor reads, ticks, sends.
            say(reply.error);
            await deps.wordsChanged();
            view.focusField("consent");
          } else {
            say(reply.error);
            nextButton.focus();
          }
          return;
        }
        const delay = retryDelay(retry, outcome.retryAfterMs);
        if (Date.now() - started + delay > RETRY_POLICY.budgetMs) {
          // Given up for now: the visitor's next press starts again, with the same key.
          setBusy(false);
          say(NETWORK_ERROR);
          nextButton.focus();
          return;
        }
        say(STILL_SENDING, "status");
        await wait(delay);
      }
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
