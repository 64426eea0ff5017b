/**
 * One quote form (rapidfire.html, framed by the quote page /): three steps, checked field by
 * field with the shared rules, sent once as JSON to POST /api/leads. Everything typed stays in
 * the page's own inputs, so Back and a failed submit lose nothing. No framework: it must stay
 * small and start fast on a phone. All of a form's state lives in its mount() call.
 */
import { parseCampaignSearch, zipSchema } from "../../shared/campaign";
import { LEAD_FIELDS, fieldInfo, type RawLead } from "../../shared/lead/fields";
import type { FunnelEvent } from "../../shared/funnel-events";
import type { LeadSubmitResponse } from "../../shared/lead/api";
import { listModels as realListModels, lookUpZip as realLookUpZip, openSession as realOpenSession, sendEvent as realSendEvent, submitLead as realSubmitLead, type Session } from "./api";
import { createCheck, watchAnswers } from "./checks";
import { createConsentText } from "./consent";
import { createSteps } from "./steps";
import { NETWORK_ERROR, createSender, parentAddress } from "./submit";
import { showThankYou } from "./thank-you";
import type { ZipLocation } from "./types";
import { adoptView } from "./view";
import { createZipPlace } from "./zip-place";
import { createModelList } from "./model-list";

/** What a form talks to: its server, and the addresses it records. Tests pass fakes. */
export interface QuoteFormDeps {
  openSession(): Promise<Session>;
  lookUpZip(zip: string): Promise<ZipLocation | null>;
  /** The vehicle catalog's models for a year and make (model-list.ts). */
  listModels(year: string, make: string): Promise<string[]>;
  submitLead(session: Session, body: Record<string, unknown>): Promise<LeadSubmitResponse>;
  sendEvent(event: FunnelEvent): void;
  /** The form's own address: its search has the ZIP, the campaign ids and the visit id (sid, tid, vid); href is sent as formUrl. */
  location: Pick<Location, "href" | "search">;
  /** The address of the page framing the form, sent as pageUrl. */
  pageUrl(): string;
  /** A clock in milliseconds, for the events' time since the form opened (monotonic: performance.now). */
  now(): number;
}

export interface QuoteForm {
  /** Settles once the form is ready: the arrival ZIP is looked up and its place (or message) shown. */
  ready: Promise<void>;
}

/** Whether the visitor has answered anything yet (text typed, a choice made, the box ticked). */
const hasAnswers = (raw: RawLead) => Object.values(raw).some((value) => value === true || (typeof value === "string" && value.trim() !== ""));

/**
 * Runs the quote form in root (which sits in a `main` with the `.rf-progress` bar, as in
 * rapidfire.html): adopts the form the page carries, keeping whatever the visitor typed or the
 * browser restored before the script ran, or writes it when root is empty. Each dependency
 * left out is the real one.
 */
export function mount(root: HTMLElement, deps: Partial<QuoteFormDeps> = {}): QuoteForm {
  const { openSession, lookUpZip, listModels, submitLead, sendEvent, location, pageUrl, now }: QuoteFormDeps = {
    openSession: realOpenSession,
    lookUpZip: realLookUpZip,
    listModels: realListModels,
    submitLead: realSubmitLead,
    sendEvent: realSendEvent,
    location: window.location,
    pageUrl: parentAddress,
    now: () => performance.now(),
    ...deps,
  };
  const openedAt = now();
  const progress = root.closest("main")?.querySelector<HTMLElement>(".rf-progress");
  if (!progress) throw new Error("The quote form needs its .rf-progress bar");
  const { zip: zipFromAddress, campaign } = parseCampaignSearch(new URLSearchParams(location.search));

  const view = adoptView(root);
  // Typed before the script ran, or restored by the browser on a reload.
  const answeredEarly = hasAnswers(view.readRaw());
  const zipPlace = createZipPlace(view, lookUpZip);
  // A year and make already chosen (typed early, or restored) get their suggestions at once.
  void createModelList(view, listModels).refresh();
  const check = createCheck(view, zipPlace);
  const steps = createSteps(view, progress);
  // Every session brings the consent words to show; the latest request's, for a send to wait on.
  const consent = createConsentText(view);
  let sessionOpened: Promise<Session> | undefined;
  let sessionPending = false;
  const openShownSession = (): Promise<Session> => {
    sessionPending = true;
    sessionOpened = openSession()
      .then((session) => {
        consent.show(session.disclosure);
        return session;
      })
      .finally(() => (sessionPending = false));
    return sessionOpened;
  };
  const sender = createSender(view, steps, { openSession: openShownSession, submitLead, formUrl: () => location.href, pageUrl, campaign, consentVersion: () => consent.version }, (reference, duplicate, values) => {
    steps.showSent();
    showThankYou(view.form, reference, duplicate, values);
  });
  const zipInput = view.controlsOf("zip")[0] as HTMLInputElement;

  /**
   * The ZIP (when valid), the campaign and visit ids, and the time since the form opened (the
   * server flags step completions no person could make that fast), for the funnel events.
   */
  function context() {
    const zip = zipInput.value || zipFromAddress;
    const ms = Math.max(0, Math.round(now() - openedAt));
    return { ...(zip && zipSchema.safeParse(zip).success ? { zip } : {}), ...campaign, ms };
  }

  let started = false;
  function start(): void {
    if (started) return;
    started = true;
    sendEvent({ event: "form_started", ...context() });
  }
  watchAnswers(view, check, start);

  async function next(): Promise<void> {
    if (sender.busy) return;
    const errors = await check(steps.visibleFields());
    if (Object.keys(errors).length > 0) {
      steps.reveal(errors);
      return;
    }
    sendEvent({ event: "form_step_completed", step: steps.current + 1, ...context() });
    if (!steps.isLast()) steps.show(steps.current + 1);
    else if (await consentShown()) await sender.send();
  }

  /**
   * Whether the words beside the box came from a session. If none has yet (it failed at load),
   * asks again: the same words go at once; other words replace them, unticked, to be read first.
   */
  let waitingForWords = false;
  async function consentShown(): Promise<boolean> {
    if (consent.version !== undefined) return true;
    if (waitingForWords) return false;
    waitingForWords = true;
    const ticked = view.readRaw().consent === true;
    // One session at a time: two at once would set two CSRF cookies.
    if (!sessionPending) sender.open();
    await sessionOpened?.catch(() => {});
    waitingForWords = false;
    if (consent.version === undefined) {
      view.formError.textContent = NETWORK_ERROR;
      return false;
    }
    // Unticked by consent.show(): the words changed, and it says so on the box.
    if (ticked && view.readRaw().consent !== true) {
      view.focusField("consent");
      return false;
    }
    return true;
  }

  view.form.addEventListener("submit", (event) => {
    event.preventDefault();
    void next();
  });

  steps.show(0, false);
  // A question asked only for some answers shows when the answers already there ask it.
  const answers = view.readRaw();
  for (const field of LEAD_FIELDS) {
    const { askedWhen } = fieldInfo(field);
    if (askedWhen) view.blockOf(field).hidden = !askedWhen(answers);
  }
  // The markup keeps Next disabled until now: without the script there is nothing to send with.
  view.nextButton.disabled = false;
  sender.open();
  if (answeredEarly) start();
  // A ZIP the visitor already typed (another than the address's) is theirs: it is checked on Next.
  const typedZip = zipInput.value.trim();
  const prefill = zipFromAddress && (typedZip === "" || typedZip === zipFromAddress);
  return { ready: prefill ? zipPlace.prefill(zipFromAddress) : Promise.resolve() };
}
