/**
 * One quote form (rapidfire.html, framed by the quote page /): three steps, checked field by
 * field with the shared rules, sent once as JSON to POST /api/leads. Everything typed stays in
 * the page's own inputs, so Back and a failed submit lose nothing. No framework: it must stay
 * small and start fast on a phone. All of a form's state lives in its mount() call.
 */
import { parseCampaignSearch, zipSchema } from "../../shared/campaign";
import { LEAD_FIELDS, checkRecordFields, type LeadErrors } from "../../shared/lead/fields";
import type { FunnelEvent } from "../../shared/funnel-events";
import type { LeadSubmitResponse } from "../../shared/lead/api";
import {
  decodeVin as realDecodeVin,
  fetchMatches as realFetchMatches,
  listModels as realListModels,
  lookUpZip as realLookUpZip,
  openSession as realOpenSession,
  sendEvent as realSendEvent,
  submitLead as realSubmitLead,
  type DecodedVin,
  type Session,
} from "./api";
import { createCheck, toggleInsurer, watchAnswers, type FieldErrors } from "./checks";
import { createConsentText } from "./consent";
import { RECORD_KEY } from "./records";
import { clearAnswers, loadAnswers, saveAnswers } from "./saved-answers";
import { createScreens, fieldsOf } from "./screens";
import { NETWORK_ERROR, createSender, parentAddress } from "./submit";
import { showThankYou } from "./thank-you";
import type { ZipLocation } from "./types";
import { adoptView, type RawAnswers } from "./view";
import { watchVin } from "./vin-fill";
import { createZipPlace } from "./zip-place";
import { createModelList } from "./model-list";
import { matchesSection, type FetchMatches } from "./matches";

/** What a form talks to: its server, and the addresses it records. Tests pass fakes. */
export interface QuoteFormDeps {
  openSession(): Promise<Session>;
  lookUpZip(zip: string): Promise<ZipLocation | null>;
  /** The vehicle catalog's models for a year and make (model-list.ts). */
  listModels(year: string, make: string): Promise<string[]>;
  /** The catalog's year, make and model of a VIN (vin-fill.ts). */
  decodeVin(vin: string): Promise<DecodedVin | null>;
  /** The buyers that accepted the stored request (matches.ts). */
  fetchMatches: FetchMatches;
  /** A pause, between two asks of the matches (tests shorten it). */
  wait(ms: number): Promise<void>;
  submitLead(session: Session, body: Record<string, unknown>): Promise<LeadSubmitResponse>;
  sendEvent(event: FunnelEvent): void;
  /** The form's own address: its search has the ZIP, the campaign ids and the visit id (sid, tid, vid); href is sent as formUrl. */
  location: Pick<Location, "href" | "search">;
  /** The address of the page framing the form, sent as pageUrl. */
  pageUrl(): string;
  /** A clock in milliseconds, for the events' time since the form opened (monotonic: performance.now). */
  now(): number;
  /** The wall clock in milliseconds, for the answers kept across a reload (Date.now). */
  wallClock(): number;
}

export interface QuoteForm {
  /** Settles once the form is ready: the arrival ZIP is looked up and its place (or message) shown. */
  ready: Promise<void>;
}

/** Whether the visitor has answered anything yet (text typed, a choice made, the box ticked). */
const hasAnswers = (raw: RawAnswers) => Object.values(raw).some((value) => value === true || (typeof value === "string" && value.trim() !== ""));

/**
 * Runs the quote form in root (which sits in a `main` with the `.rf-progress` bar, as in
 * rapidfire.html): adopts the form the page carries, keeping whatever the visitor typed or the
 * browser restored before the script ran, or writes it when root is empty. Each dependency
 * left out is the real one.
 */
export function mount(root: HTMLElement, deps: Partial<QuoteFormDeps> = {}): QuoteForm {
  const { openSession, lookUpZip, listModels, decodeVin, fetchMatches, wait, submitLead, sendEvent, location, pageUrl, now, wallClock }: QuoteFormDeps = {
    openSession: realOpenSession,
    lookUpZip: realLookUpZip,
    listModels: realListModels,
    decodeVin: realDecodeVin,
    fetchMatches: realFetchMatches,
    wait: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    submitLead: realSubmitLead,
    sendEvent: realSendEvent,
    location: window.location,
    pageUrl: parentAddress,
    now: () => performance.now(),
    wallClock: () => Date.now(),
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
  const modelList = createModelList(view, listModels);
  const screens = createScreens(view, progress);
  const check = createCheck(view, zipPlace, () => screens.position.editing);
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
  let sent = false;
  const sender = createSender(view, screens, { openSession: openShownSession, submitLead, formUrl: () => location.href, pageUrl, campaign, consentVersion: () => consent.version }, (reference, duplicate, values, matchesToken) => {
    sent = true;
    clearAnswers();
    screens.showSent();
    showThankYou(view.form, reference, duplicate, values, matchesToken ? matchesSection(reference, matchesToken, fetchMatches, wait) : undefined);
  });
  const zipInput = view.controlsOf("zip")[0] as HTMLInputElement;

  /** Keeps every answer for a reload within 30 minutes (saved-answers.ts); never after sending. */
  function save(): void {
    if (sent) return;
    screens.keep();
    saveAnswers({ position: screens.position, top: view.readRaw(LEAD_FIELDS), records: screens.records }, wallClock());
  }
  screens.onChange(() => {
    save();
    void modelList.refresh();
  });
  // `input` fires for every kind of answer (text, list, radio, checkbox: HTML §4.10.5.5), so one listener saves them all.
  view.form.addEventListener("input", save);
  watchVin(view, decodeVin, () => {
    void modelList.refresh();
    save();
  });

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

  /** The screen's own messages: focus the first, say how many. */
  function revealHere(errors: FieldErrors, order: readonly string[]): void {
    const fields = order.filter((field) => errors[field]);
    const first = fields[0];
    if (!first) return;
    view.focusField(first);
    view.announce(fields.length === 1 ? `One answer needs attention: ${errors[first]}` : `${fields.length} answers need attention. The first: ${errors[first]}`);
  }

  /** Every record of a list checked whole (one may have been left half done): errors by path. */
  function listErrors(kind: "vehicle" | "driver"): LeadErrors {
    const errors: LeadErrors = {};
    screens.records[kind].forEach((record, index) => {
      for (const [field, message] of Object.entries(checkRecordFields(kind, record, index).errors)) errors[`${RECORD_KEY[kind]}.${index}.${field}`] = message;
    });
    return errors;
  }

  async function next(): Promise<void> {
    if (sender.busy) return;
    const screen = screens.current;
    if (screen.kind === "list") {
      const errors = listErrors(screen.record);
      if (Object.keys(errors).length > 0) {
        screens.reveal(errors);
        return;
      }
    } else {
      const editing = screen.kind === "record" ? screens.position.editing[screen.record] : 0;
      // The ZIP is checked even while its place shows instead of it.
      const fields = fieldsOf(screen, editing).filter((field) => field === "zip" || !view.blockOf(field).hidden);
      const errors = await check(fields);
      if (Object.keys(errors).length > 0) {
        revealHere(errors, fields);
        return;
      }
    }
    sendEvent({ event: "form_step_completed", step: screen.step + 1, screen: screen.id, ...context() });
    if (!screens.isLast()) screens.advance();
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
    const ticked = view.readRaw(["consent"]).consent === true;
    // One session at a time: two at once would set two CSRF cookies.
    if (!sessionPending) sender.open();
    await sessionOpened?.catch(() => {});
    waitingForWords = false;
    if (consent.version === undefined) {
      view.formError.textContent = NETWORK_ERROR;
      return false;
    }
    // Unticked by consent.show(): the words changed, and it says so on the box.
    if (ticked && view.readRaw(["consent"]).consent !== true) {
      view.focusField("consent");
      return false;
    }
    return true;
  }

  view.form.addEventListener("submit", (event) => {
    event.preventDefault();
    void next();
  });

  // A reload within 30 minutes of the last answer: every answer back, on the screen it was on.
  const saved = loadAnswers(wallClock());
  if (saved) {
    view.writeRaw(
      LEAD_FIELDS.filter((field) => field !== "consent"),
      saved.top,
    );
    screens.restore(saved.position, saved.records);
    consent.showPhone();
  } else screens.show(0, false);
  // A question asked only for some answers shows when the answers already there ask it.
  toggleInsurer(view);
  // The markup keeps Next disabled until now: without the script there is nothing to send with.
  view.nextButton.disabled = false;
  sender.open();
  if (answeredEarly || saved) start();
  // A ZIP the visitor already typed (another than the address's) is theirs: it is checked on Next.
  const typedZip = zipInput.value.trim();
  const prefill = zipFromAddress && (typedZip === "" || typedZip === zipFromAddress);
  return { ready: prefill ? zipPlace.prefill(zipFromAddress) : Promise.resolve() };
}
