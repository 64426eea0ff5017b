/**
 * One quote form (rapidfire.html, framed by the quote page /): one question per screen (issue 32),
 * a tap on a choice answers it and goes on, Enter goes on from a typed answer; checked field by
 * field with the shared rules, sent once as JSON to POST /api/leads. Everything typed stays in
 * the page's own inputs, so Back and a failed submit lose nothing. No framework: it must stay
 * small and start fast on a phone. All of a form's state lives in its mount() call.
 */
import { parseCampaignSearch, zipSchema, type Campaign } from "../../shared/campaign";
import type { FormKnobs } from "../../shared/lead/api";
import { LEAD_FIELDS, checkRecordFields, type LeadErrors } from "../../shared/lead/fields";
import { askedField } from "./form-markup";
import type { FunnelEvent } from "../../shared/funnel-events";
import type { ShownDisclosure } from "../../shared/consent-disclosure";
import { disclosureAnswers, type DisclosureAnswers } from "../../shared/lead/disclosure-answers";
import {
  decodeVin as realDecodeVin,
  fetchDisclosure as realFetchDisclosure,
  fetchMatches as realFetchMatches,
  listModels as realListModels,
  lookUpZip as realLookUpZip,
  openSession as realOpenSession,
  sendEvent as realSendEvent,
  submitLead as realSubmitLead,
  type DecodedVin,
  type Session,
  type SubmitReply,
} from "./api";
import { createCheck, watchAnswers, type FieldErrors } from "./checks";
import { watchChoiceSearch } from "./choice-search";
import { createConsentText } from "./consent";
import { RECORD_KEY } from "./records";
import { clearAnswers, loadAnswers, saveAnswers } from "./saved-answers";
import { createScreens, fieldsOf } from "./screens";
import { NETWORK_ERROR, createSender, parentAddress } from "./submit";
import { showThankYou } from "./thank-you";
import type { ZipLocation } from "./types";
import { ALL_FIELDS, adoptView, infoOf, type RawAnswers } from "./view";
import { watchNumericFields } from "./numeric-input";
import { watchVin } from "./vin-fill";
import { createZipPlace } from "./zip-place";
import { createModelList } from "./model-list";
import { matchesSection, type FetchMatches } from "./matches";
import { loadProofScripts } from "./proof-scripts";
import { CONTROL_FORM_KNOBS, SKIPPED_COVERAGE_DEFAULT, screenOrder, sessionKnobs } from "./variants";

/** What a form talks to: its server, and the addresses it records. Tests pass fakes. */
export interface QuoteFormDeps {
  /** The form's session; `campaign` is the form's address's sid and tid (an experiment's sources, its exposure's ids). */
  openSession(campaign: Campaign): Promise<Session>;
  lookUpZip(zip: string): Promise<ZipLocation | null>;
  /** The vehicle catalog's models for a year and make (model-list.ts). */
  listModels(year: string, make: string): Promise<string[]>;
  /** The catalog's year, make and model of a VIN (vin-fill.ts). */
  decodeVin(vin: string): Promise<DecodedVin | null>;
  /** The buyers that accepted the stored request (matches.ts). */
  fetchMatches: FetchMatches;
  /** A pause, between two asks of the matches (tests shorten it). */
  wait(ms: number): Promise<void>;
  submitLead(session: Session, body: Record<string, unknown>): Promise<SubmitReply>;
  /** The consent words for the answers they depend on (POST /api/leads/disclosure). */
  fetchDisclosure(session: Session, body: DisclosureAnswers): Promise<ShownDisclosure>;
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

/** How long a tapped choice shows as chosen before the next question replaces it. */
export const ADVANCE_DELAY_MS = 150;

/**
 * Runs the quote form in root (which sits in the page's `main`, after its title, as in
 * rapidfire.html): adopts the form the page carries, keeping whatever the visitor typed or the
 * browser restored before the script ran, or writes it when root is empty. Each dependency
 * left out is the real one.
 */
export function mount(root: HTMLElement, deps: Partial<QuoteFormDeps> = {}): QuoteForm {
  const { openSession, lookUpZip, listModels, decodeVin, fetchMatches, wait, submitLead, fetchDisclosure, sendEvent, location, pageUrl, now, wallClock }: QuoteFormDeps = {
    openSession: realOpenSession,
    lookUpZip: realLookUpZip,
    listModels: realListModels,
    decodeVin: realDecodeVin,
    fetchMatches: realFetchMatches,
    wait: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    submitLead: realSubmitLead,
    fetchDisclosure: realFetchDisclosure,
    sendEvent: realSendEvent,
    location: window.location,
    pageUrl: parentAddress,
    now: () => performance.now(),
    wallClock: () => Date.now(),
    ...deps,
  };
  const openedAt = now();
  const { zip: zipFromAddress, campaign } = parseCampaignSearch(new URLSearchParams(location.search));

  const view = adoptView(root);
  // Typed before the script ran, or restored by the browser on a reload.
  const answeredEarly = hasAnswers(view.readRaw());
  const zipPlace = createZipPlace(view, lookUpZip);
  const modelList = createModelList(view, listModels, () => void next());
  const screens = createScreens(view);
  const check = createCheck(view, zipPlace, () => screens.position.editing);
  // The consent words are the visitor's own (askWords below); the latest session's request, for them and a send to wait on.
  const consent = createConsentText(view);

  /**
   * The A/B variant's knobs this form asks the screens under (variants.ts, issue 45): the control's
   * until the first session answers (a reload's: the saved ones), then that session's for the
   * form's life. A later session (a retry, a stale form token) does not rearrange screens the
   * visitor is already walking; the server's assignment is sticky, so it would say the same.
   */
  let knobs: FormKnobs = CONTROL_FORM_KNOBS;
  let knobsSettled = false;
  function applyKnobs(given: FormKnobs): void {
    knobs = given;
    // The skipped question's answer is the default, in its own input: the request, the saved
    // answers and the consent words' answers all carry it as if chosen. An answer the visitor
    // gave before (under another order, before a reload) stays theirs.
    if (knobs["form.skipCoverage"] && view.readRaw(["coverage"]).coverage === "") view.writeRaw(["coverage"], { coverage: SKIPPED_COVERAGE_DEFAULT });
    screens.arrange(screenOrder(knobs));
  }

  let sessionOpened: Promise<Session> | undefined;
  const openShownSession = (): Promise<Session> => {
    sessionOpened = openSession({ ...(campaign.sid ? { sid: campaign.sid } : {}), ...(campaign.tid ? { tid: campaign.tid } : {}) })
      .then((session) => {
        // The providers switched on (issue 44): the form is on the page, so their scripts find it.
        loadProofScripts(view.form, session.proofScripts);
        if (!knobsSettled && !sent) {
          knobsSettled = true;
          applyKnobs(sessionKnobs(session.experiments));
          save();
        }
        return session;
      });
    return sessionOpened;
  };
  let sent = false;
  /**
   * The words beside the box name the buyers that could take THIS request (docs/decisions/039-disclosure-per-visitor.md):
   * asked of the server for the answers they depend on when the visitor reaches the box, and again
   * whenever those answers changed (Back, an edit, on again). Until the answer for the answers given
   * has come, consent.version is undefined and nothing is sent. `force`: ask even for the same
   * answers (the server refused the version sent: the words changed under them).
   */
  let wordsShownFor: string | undefined;
  let wordsAskedFor: string | undefined;
  let wordsAsked: Promise<void> = Promise.resolve();
  let asks = 0;
  function askWords(force = false): Promise<void> {
    const body: DisclosureAnswers = { answers: disclosureAnswers(screens.request(view.readRaw(LEAD_FIELDS))), pageUrl: pageUrl() };
    const key = JSON.stringify(body);
    if (!force && key === wordsShownFor && consent.version !== undefined) return Promise.resolve();
    if (!force && key === wordsAskedFor) return wordsAsked;
    // Words for other answers must not be sent under: forgotten until these answers' arrive.
    consent.forget();
    wordsShownFor = undefined;
    wordsAskedFor = key;
    const ask = ++asks;
    // The sender's session, so the form keeps one (two at once would set two CSRF cookies).
    if (!sessionOpened) sender.open();
    wordsAsked = (sessionOpened ?? openShownSession())
      .catch(() => {
        sender.open();
        return sessionOpened!;
      })
      .then((session) => fetchDisclosure(session, body))
      .then((disclosure) => {
        // Only the latest ask's answer: an earlier one is for answers since changed.
        if (ask !== asks) return;
        consent.show(disclosure);
        wordsShownFor = key;
      })
      .catch(() => {})
      .finally(() => {
        if (ask === asks) wordsAskedFor = undefined;
      });
    return wordsAsked;
  }
  const sender = createSender(view, screens, { openSession: openShownSession, submitLead, formUrl: () => location.href, pageUrl, campaign, consentVersion: () => consent.version, wordsChanged: () => askWords(true) }, (reference, duplicate, values, matchesToken) => {
    sent = true;
    clearAnswers();
    screens.showSent();
    // The last "Question N of M" must not stay in the live region under the thank-you.
    view.announce("");
    showThankYou(view.form, reference, duplicate, values, matchesToken ? matchesSection(reference, matchesToken, fetchMatches, wait, undefined, duplicate) : undefined);
  });
  const zipInput = view.controlsOf("zip")[0] as HTMLInputElement;

  /** Keeps every answer for a reload within 30 minutes (saved-answers.ts); never after sending. */
  function save(): void {
    if (sent) return;
    screens.keep();
    saveAnswers({ position: screens.position, top: view.readRaw(LEAD_FIELDS), records: screens.records, knobs }, wallClock());
  }
  const searchable = ["year", "make"];
  const search = watchChoiceSearch(view, searchable, (field) => infoOf(field).control, () => void next());
  screens.onChange(() => {
    save();
    if (!sent && screens.current.id === "contact") void askWords();
    void modelList.refresh();
    for (const field of searchable) search.reset(field);
  });
  // `input` fires for every kind of answer (text, list, radio, checkbox: HTML §4.10.5.5), so one listener saves them all.
  view.form.addEventListener("input", save);
  watchVin(view, decodeVin, (said) => {
    void modelList.refresh();
    save();
    // The VIN answered the year, the make and the model: on to the next question it did not,
    // saying both what was filled in and where the visitor now is.
    if (screens.current.id === "vehicle-year") void next("vehicle-ownership").then(() => view.announce(`${said} ${view.count.textContent ?? ""}`));
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
  // Digits only in the numeric fields, before the answers are read or checked (issue 42).
  watchNumericFields(view, ALL_FIELDS);
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

  let advancing = false;
  async function next(to?: string): Promise<void> {
    if (sender.busy || advancing) return;
    advancing = true;
    try {
      await goOn(to);
    } finally {
      advancing = false;
    }
  }

  async function goOn(to?: string): Promise<void> {
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
    if (!screens.isLast()) screens.advance(to);
    else if (await consentShown()) await sender.send();
  }

  /**
   * Whether the words beside the box are the ones for the answers given. If they have not come
   * (the ask failed, or is on its way), asks again and waits: the same words go at once; other
   * words replace them, unticked, to be read first.
   */
  async function consentShown(): Promise<boolean> {
    const ticked = view.readRaw(["consent"]).consent === true;
    await askWords();
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

  /**
   * A tap on a choice answers a one-question screen and goes on (issue 32), after a moment that
   * shows it chosen. Only a pointer's tap: arrow keys move between a group's radios (each move a
   * click for the browser) and must not leave the screen; from the keyboard, Enter goes on.
   */
  let pressed: HTMLInputElement | undefined;
  view.form.addEventListener("pointerdown", (event) => {
    pressed = (event.target as Element | null)?.closest?.(".rf-option")?.querySelector<HTMLInputElement>("input[type=radio]") ?? undefined;
  });
  view.form.addEventListener("click", (event) => {
    const radio = event.target;
    if (!(radio instanceof HTMLInputElement) || radio.type !== "radio" || radio !== pressed) return;
    pressed = undefined;
    if (!answersScreen(radio.name)) return;
    const shown = screens.current;
    void wait(ADVANCE_DELAY_MS).then(() => {
      // Unless the visitor moved on meanwhile (Back, another tap).
      if (screens.current === shown && radio.checked) void next();
    });
  });
  view.form.addEventListener("keydown", (event) => {
    const target = event.target;
    // "Why we ask" is a native disclosure (a tap or Enter opens it, a second closes it); Escape closes it too.
    const why = target instanceof Element ? target.closest("details") : null;
    if (event.key === "Escape" && why?.open) {
      why.open = false;
      why.querySelector("summary")?.focus();
      return;
    }
    if (event.key !== "Enter" || !(target instanceof HTMLInputElement)) return;
    if (target.type === "radio") {
      event.preventDefault();
      void next();
      return;
    }
    // Enter in a field with another after it on the screen (a last name, an email) moves there.
    if (target.type === "checkbox" || target.classList.contains("rf-filter")) return;
    const fields = [...view.screens[screens.position.screen]!.querySelectorAll<HTMLInputElement>("input:not([type=radio]):not(.rf-filter)")].filter((input) => !input.closest("[hidden]"));
    const after = fields[fields.indexOf(target) + 1];
    if (after) {
      event.preventDefault();
      after.focus();
    }
  });

  /** Whether a choice of `field` answers the screen showing: the screen's question, or its one other answer. */
  function answersScreen(field: string): boolean {
    const screen = screens.current;
    if (screen.kind === "list") return false;
    // A screen of two answers to give (a name) goes on with Next; a choice among others (the VIN's, the insurer's "none") still answers it.
    return screen.fields[0] === field ? askedField(screen) === field : screen.kind === "fields" && screen.none?.field === field;
  }

  // A reload within 30 minutes of the last answer: every answer back, on the screen it was on.
  const saved = loadAnswers(wallClock());
  if (saved) {
    view.writeRaw(
      LEAD_FIELDS.filter((field) => field !== "consent"),
      saved.top,
    );
    // The order the answers were given in, at once: the session's may only confirm it.
    applyKnobs(saved.knobs);
    screens.restore(saved.position, saved.records);
    consent.showPhone();
  } else screens.show(0, false);
  // The markup keeps Next disabled until now: without the script there is nothing to send with.
  view.nextButton.disabled = false;
  // Unless the contact screen came back with the answers and asked its words (and the session) already.
  if (!sessionOpened) sender.open();
  if (answeredEarly || saved) start();
  // A ZIP the visitor already typed (another than the address's) is theirs: it is checked on Next.
  const typedZip = zipInput.value.trim();
  const prefill = zipFromAddress && (typedZip === "" || typedZip === zipFromAddress);
  // No ZIP in the address (or another one typed): the field, in place of the line the page starts with.
  if (!prefill) zipPlace.show(null);
  return { ready: prefill ? zipPlace.prefill(zipFromAddress) : Promise.resolve() };
}
