/**
 * The screens (shared/lead/fields.ts, FORM_SCREENS), one question each: which one shows, which
 * vehicle or driver its inputs hold, the screens skipped because the answers given do not ask
 * them, the record lists (add, edit, remove), the count of questions ("Question 5 of 24", counted
 * over the answers given, so it stays true as they change), Back and Next, the page's title shown
 * on the first screen only, and where focus goes (the screen's heading on a new screen, with the
 * count announced; the first invalid field when answers need attention). Every answer stays: the
 * request's in their inputs, the records in `records`.
 *
 * The order the screens are asked in is FORM_SCREENS's unless an A/B variant rearranges it
 * (variants.ts, issue 45: a screen moved or left out); everything that walks the screens (the
 * count, Next, Back, a restored position, an error's screen) walks that order. A position still
 * names a screen by its FORM_SCREENS index, so it means the same screen in every order.
 */
import { SUBMIT_LABEL } from "../../shared/consent-disclosure";
import { FORM_SCREENS, LEAD_FIELDS, checkRecordFields, errorPlace, fieldInfo, type FormScreen, type LeadErrors, type LeadField, type RawLead, type RecordKind } from "../../shared/lead/fields";
import { h } from "./dom";
import { RECORD_WORDS } from "./form-markup";
import { RECORD_FIELDS, RECORD_KEY, RECORD_MAX, detailOf, isEmpty, summaryOf, type Answers } from "./records";
import type { View } from "./view";

const LAST = FORM_SCREENS.length - 1;
const firstScreenOf = (kind: RecordKind) => FORM_SCREENS.findIndex((screen) => screen.kind === "record" && screen.record === kind);
const listScreenOf = (kind: RecordKind) => FORM_SCREENS.findIndex((screen) => screen.kind === "list" && screen.record === kind);

/** The fields a screen asks, as the view names them. */
export function fieldsOf(screen: FormScreen, editing: number): string[] {
  if (screen.kind === "list") return [];
  if (screen.kind === "fields") return [...screen.fields];
  return [...(editing === 0 ? (screen.lead ?? []) : []), ...screen.fields];
}

/** Where the form is: the screen, and the vehicle and driver its record screens edit. */
export interface Position {
  screen: number;
  editing: Record<RecordKind, number>;
}

export interface Screens {
  readonly current: FormScreen;
  readonly position: Position;
  readonly records: Record<RecordKind, Answers[]>;
  isLast(): boolean;
  /** Shows a screen (a record screen shows the record being edited); with focusHeading, scrolls up and focuses its heading. */
  show(index: number, focusHeading?: boolean): void;
  /** Copies the record screen's inputs into the record being edited. */
  keep(): void;
  /** The screen after this one, once its answers passed: the next screen asked, a list, the next record; or the screen `to` (a car filled in from its VIN). */
  advance(to?: string): void;
  back(): void;
  /** The request as the form sends it: the request's own answers, every vehicle and driver. */
  request(top: Answers): RawLead;
  /** Goes to the first error's screen (its record loaded), shows every message there, focuses it and says how many. */
  reveal(errors: LeadErrors): void;
  /** Puts back a saved position and records (a reload within the session); a screen the order leaves out gives the next one asked. */
  restore(position: Position, records: Record<RecordKind, Answers[]>): void;
  /**
   * Asks the screens in this order (FORM_SCREENS indices, the contact screen last: variants.ts).
   * The screen showing stays, recounted; if the order leaves it out, the next one asked shows.
   */
  arrange(order: readonly number[]): void;
  /** The page once the request is sent. */
  showSent(): void;
  /** Called after anything changed the records or the screen (to save the answers). */
  onChange(listener: () => void): void;
}

/** Where the form's page shows its title and the notice at collection: the first screen only (issue 32: the header once). */
const LATER_CLASS = "rf-later";

export function createScreens(view: View): Screens {
  const page = view.form.closest("main") ?? view.form;
  const vinLink = view.form.querySelector<HTMLButtonElement>(".rf-vin-link");
  const records: Record<RecordKind, Answers[]> = { vehicle: [], driver: [] };
  const position: Position = { screen: 0, editing: { vehicle: 0, driver: 0 } };
  /** Where Back goes from a record's first screen: the list it was opened from, or the screen before. */
  const returnTo: Record<RecordKind, number | undefined> = { vehicle: undefined, driver: undefined };
  const listeners: (() => void)[] = [];
  const changed = () => listeners.forEach((listener) => listener());
  const current = () => FORM_SCREENS[position.screen]!;
  /** The screens asked, in order, as FORM_SCREENS indices (arrange). */
  let order: readonly number[] = FORM_SCREENS.map((_, index) => index);
  const placeOf = (screenIndex: number) => order.indexOf(screenIndex);
  /** The screen itself if the order asks it, else the first after it (in FORM_SCREENS) that it does ask. */
  const askedFrom = (screenIndex: number) => (placeOf(screenIndex) >= 0 ? screenIndex : (order.find((candidate) => candidate > screenIndex) ?? LAST));

  function keep(): void {
    const screen = current();
    if (screen.kind !== "record") return;
    const kind = screen.record;
    const answers = view.readRaw(RECORD_FIELDS[kind]) as Answers;
    const index = position.editing[kind];
    if (index < records[kind].length || !isEmpty(answers)) records[kind][index] = answers;
  }

  /** Fills the record screens' inputs with record `index` of `kind` (empty for a new one). */
  function load(kind: RecordKind, index: number): void {
    position.editing[kind] = index;
    view.writeRaw(RECORD_FIELDS[kind], records[kind][index] ?? {});
    if (kind === "driver") {
      // The first driver is the visitor: no relationship asked; the browser fills only their name and birthday.
      view.blockOf("relationship").hidden = index === 0;
      for (const [field, token] of [["firstName", "given-name"], ["lastName", "family-name"], ["dateOfBirth", "bday"]] as const) {
        view.controlsOf(field)[0]?.setAttribute("autocomplete", index === 0 ? token : "off");
      }
    } else {
      // The ZIP is asked with the first vehicle.
      view.blockOf("zip").hidden = index !== 0 || !view.placeSummary.hidden;
      if (index !== 0) view.placeSummary.hidden = true;
      // The VIN shows behind its link, or at once for a car entered with one.
      showVin(Boolean(records.vehicle[index]?.vin));
    }
  }

  function showVin(shown: boolean): void {
    view.blockOf("vin").hidden = !shown;
    if (vinLink) vinLink.hidden = shown;
  }
  vinLink?.addEventListener("click", () => {
    showVin(true);
    view.controlsOf("vin")[0]?.focus();
  });

  /** The question in the visitor's words; for a second car or another driver, named with it ("Driver 2: Date of birth"). */
  function headingOf(screen: FormScreen): string {
    if (screen.kind !== "record") return screen.title;
    const index = position.editing[screen.record];
    if (screen.record === "driver" && index === 0) return screen.title;
    const several = index > 0 || records[screen.record].length > 1;
    return several ? `${RECORD_WORDS[screen.record].one} ${index + 1}: ${screen.other ?? screen.title}` : screen.title;
  }

  /** The answers a screen's rules look at: the record's (the one being edited is in the inputs), or the request's own. */
  function answersFor(screen: FormScreen, index: number): Answers {
    if (screen.kind === "record") {
      const here = current();
      const inInputs = here.kind === "record" && here.record === screen.record && index === position.editing[screen.record];
      return inInputs ? (view.readRaw(RECORD_FIELDS[screen.record]) as Answers) : (records[screen.record][index] ?? {});
    }
    return view.readRaw(LEAD_FIELDS) as Answers;
  }

  /** Whether the answers given ask this screen (for record `index`): a field with no askedWhen always is. */
  function applies(screenIndex: number, index: number): boolean {
    const screen = FORM_SCREENS[screenIndex]!;
    if (screen.kind === "list") return true;
    const answers = answersFor(screen, index);
    return screen.fields.some((field) => {
      const info = screen.kind === "record" ? fieldInfo(field, screen.record) : fieldInfo(field as LeadField);
      return !info.askedWhen || info.askedWhen(answers, index);
    });
  }

  /**
   * The questions the answers given ask, in order, as [screen, record index]: every vehicle's
   * screens, their list, every driver's, their list, the household's and the contact. Its length
   * is the count shown; it grows with a car added or "insured today".
   */
  function path(): [number, number][] {
    const steps: [number, number][] = [];
    // A record being entered counts before it is kept; one left by Back is not there any more.
    const here = current();
    const count = (kind: RecordKind) => Math.max(1, records[kind].length, here.kind === "record" && here.record === kind ? position.editing[kind] + 1 : 0);
    order.forEach((screenIndex) => {
      const screen = FORM_SCREENS[screenIndex]!;
      if (screen.kind === "record") {
        for (let index = 0; index < count(screen.record); index += 1) if (applies(screenIndex, index)) steps.push([screenIndex, index]);
      } else if (screen.kind === "list" || applies(screenIndex, 0)) steps.push([screenIndex, 0]);
    });
    // Every vehicle's screens before the next vehicle's: sorted by kind, then record, then screen (by their place in the order asked).
    const rank = (step: [number, number]) => {
      const screen = FORM_SCREENS[step[0]]!;
      return screen.kind === "record" ? placeOf(firstScreenOf(screen.record)) * 1000 + step[1] * 100 + placeOf(step[0]) : placeOf(step[0]) * 1000 + 999;
    };
    return steps.sort((a, b) => rank(a) - rank(b));
  }

  /** "Question 5 of 24": where the visitor is on the path, and its bar. */
  function countQuestions(announce: boolean): void {
    const steps = path();
    const screen = current();
    const index = screen.kind === "record" ? position.editing[screen.record] : 0;
    const at = Math.max(0, steps.findIndex(([s, i]) => s === position.screen && i === index));
    const text = `Question ${at + 1} of ${steps.length}`;
    view.count.textContent = text;
    view.progress.setAttribute("aria-valuenow", String(at));
    view.progress.setAttribute("aria-valuemax", String(steps.length));
    view.progress.setAttribute("aria-valuetext", text);
    view.progress.style.setProperty("--rf-done", `${Math.round((at / steps.length) * 100)}%`);
    if (announce) view.announce(text);
  }

  function renderList(kind: RecordKind): void {
    const section = view.screens[listScreenOf(kind)]!;
    const list = section.querySelector<HTMLUListElement>(".rf-list")!;
    const add = section.querySelector<HTMLButtonElement>(".rf-add")!;
    const removable = (index: number) => (kind === "driver" ? index > 0 : records.vehicle.length > 1);
    list.replaceChildren(
      ...records[kind].map((answers, index) => {
        const name = summaryOf(kind, answers, index);
        const detail = detailOf(kind, answers);
        return h(
          "li",
          { class: "rf-record" },
          h("span", { class: "rf-record-name" }, name),
          detail ? h("span", { class: "rf-record-detail" }, detail) : null,
          h(
            "span",
            { class: "rf-record-actions" },
            h("button", { type: "button", class: "rf-edit", "data-index": String(index), "aria-label": `Edit ${name}` }, "Edit"),
            removable(index) ? h("button", { type: "button", class: "rf-remove", "data-index": String(index), "aria-label": `Remove ${name}` }, "Remove") : null,
          ),
        );
      }),
    );
    add.hidden = records[kind].length >= RECORD_MAX[kind];
  }

  function show(index: number, focusHeading = true): void {
    position.screen = index;
    const screen = current();
    view.screens.forEach((section, i) => (section.hidden = i !== index));
    if (screen.kind === "list") renderList(screen.record);
    const heading = view.screens[index]!.querySelector("h2")!;
    heading.textContent = headingOf(screen);
    const first = index === 0 && position.editing.vehicle === 0;
    view.backButton.hidden = first;
    page.classList.toggle(LATER_CLASS, !first);
    view.nextButton.textContent = index === LAST ? SUBMIT_LABEL : "Next";
    view.formError.textContent = "";
    countQuestions(focusHeading);
    if (focusHeading) {
      window.scrollTo(0, 0);
      heading.focus();
    }
    changed();
  }

  /** Opens record `index` of `kind` on its first screen (a new one when index is the count). */
  function open(kind: RecordKind, index: number, from: number | undefined): void {
    keep();
    returnTo[kind] = from;
    load(kind, index);
    show(firstScreenOf(kind));
  }

  /** The record a screen's inputs hold: the one being edited (0 for the request's own screens). */
  const editingOf = (screenIndex: number) => {
    const screen = FORM_SCREENS[screenIndex];
    return screen?.kind === "record" ? position.editing[screen.record] : 0;
  };

  /** The next screen after `from` in the order asked that the answers ask (a record's own screens: for the record being edited). */
  function nextAsked(from: number): number {
    const last = order.length - 1;
    let place = placeOf(from) + 1;
    while (place < last && !applies(order[place]!, editingOf(order[place]!))) place += 1;
    return order[Math.min(place, last)]!;
  }

  function advance(to?: string): void {
    keep();
    const screen = current();
    if (to !== undefined) {
      show(FORM_SCREENS.findIndex((candidate) => candidate.id === to));
      return;
    }
    if (screen.kind === "record") {
      const next = nextAsked(position.screen);
      show(FORM_SCREENS[next]?.kind === "record" ? next : listScreenOf(screen.record));
      return;
    }
    // On to the drivers: the first one not complete (the visitor, at first), else their list.
    const unfinished = records.driver.findIndex((driver, index) => Object.keys(checkRecordFields("driver", driver, index).errors).length > 0);
    if (screen.kind === "list" && screen.record === "vehicle" && (records.driver.length === 0 || unfinished >= 0)) {
      open("driver", Math.max(0, unfinished), position.screen);
      return;
    }
    if (screen.kind === "list" && screen.record === "vehicle") {
      show(listScreenOf("driver"));
      return;
    }
    show(nextAsked(position.screen));
  }

  function back(): void {
    keep();
    const screen = current();
    if (screen.kind === "record" && position.screen === firstScreenOf(screen.record)) {
      const kind = screen.record;
      const index = position.editing[kind];
      // A new record left empty is dropped; Back goes where the record was opened from.
      if (index === records[kind].length - 1 && isEmpty(records[kind][index]) && index > 0) records[kind].pop();
      const to = returnTo[kind] ?? (index > 0 ? listScreenOf(kind) : kind === "driver" ? listScreenOf("vehicle") : 0);
      if (to === position.screen) return;
      // (Only the first vehicle's screen is a record screen to go back to.)
      if (FORM_SCREENS[to]?.kind === "record") load("vehicle", 0);
      show(to);
      return;
    }
    let place = placeOf(position.screen) - 1;
    const previous = FORM_SCREENS[order[place] ?? -1];
    if (!previous) return;
    if (previous.kind === "record" && screen.kind !== "record") load(previous.record, Math.max(0, records[previous.record].length - 1));
    // Skip the screens the answers do not ask (a relationship for the visitor; "insured for how long" for the uninsured).
    while (place > 0 && !applies(order[place]!, editingOf(order[place]!))) place -= 1;
    show(order[place]!);
  }

  function reveal(errors: LeadErrors): void {
    const paths = Object.keys(errors);
    if (paths.length === 0) return;
    keep();
    const firstPlace = errorPlace(paths[0]!);
    let screenIndex: number;
    if ("record" in firstPlace) {
      const { record, index, field } = firstPlace;
      if (position.editing[record] !== index || current().kind !== "record") load(record, index);
      screenIndex = FORM_SCREENS.findIndex((screen) => screen.kind === "record" && screen.record === record && (screen.fields as readonly string[]).includes(field));
      if (screenIndex < 0) screenIndex = listScreenOf(record);
    } else {
      const { field } = firstPlace;
      const listOf = field === "vehicles" ? "vehicle" : field === "drivers" ? "driver" : undefined;
      screenIndex = listOf ? listScreenOf(listOf) : FORM_SCREENS.findIndex((screen) => fieldsOf(screen, 0).includes(field));
      // A field whose screen this order does not ask (the coverage a variant fills in) is named
      // where the visitor is, in the form's message: a screen out of the order has no count or Back.
      if (screenIndex < 0 || placeOf(screenIndex) < 0) screenIndex = position.screen;
    }
    if (screenIndex !== position.screen) show(screenIndex, false);
    const shown = new Set(fieldsOf(current(), current().kind === "record" ? position.editing[(current() as { record: RecordKind }).record] : 0));
    const here: [string, string][] = [];
    for (const [path, message] of Object.entries(errors)) {
      const place = errorPlace(path);
      const sameRecord = !("record" in place) || (current().kind === "record" && (current() as { record: RecordKind }).record === place.record && position.editing[place.record] === place.index);
      if (message && sameRecord && shown.has(place.field)) here.push([place.field, message]);
      // The request's own fields keep their messages on their screens for when the visitor gets there.
      else if (message && !("record" in place) && (LEAD_FIELDS as readonly string[]).includes(place.field)) view.showError(place.field, message);
    }
    for (const [field, message] of here) view.showError(field, message);
    const first = here[0];
    const count = paths.length;
    const firstMessage = errors[paths[0]!] ?? "";
    if (first) view.focusField(first[0]);
    else {
      view.formError.textContent = firstMessage;
      view.screens[position.screen]!.querySelector("h2")?.focus();
    }
    view.announce(count === 1 ? `One answer needs attention: ${firstMessage}` : `${count} answers need attention. The first: ${firstMessage}`);
  }

  // The lists' buttons: add, edit, remove.
  for (const kind of ["vehicle", "driver"] as const) {
    const section = view.screens[listScreenOf(kind)]!;
    section.addEventListener("click", (event) => {
      const button = (event.target as Element | null)?.closest("button");
      if (!button) return;
      const index = Number(button.dataset.index);
      if (button.classList.contains("rf-add")) open(kind, records[kind].length, position.screen);
      else if (button.classList.contains("rf-edit")) open(kind, index, position.screen);
      else if (button.classList.contains("rf-remove")) {
        const name = summaryOf(kind, records[kind][index] ?? {}, index);
        records[kind].splice(index, 1);
        renderList(kind);
        view.announce(`Removed ${name}.`);
        // Focus stays in the list: the record now in that place, else the one before, else Add.
        const buttons = section.querySelectorAll<HTMLButtonElement>(".rf-edit");
        (buttons[Math.min(index, buttons.length - 1)] ?? section.querySelector<HTMLButtonElement>(".rf-add"))?.focus();
        changed();
      }
    });
  }
  view.backButton.addEventListener("click", back);

  return {
    get current() {
      return current();
    },
    position,
    records,
    isLast: () => position.screen === LAST,
    show,
    keep,
    advance,
    back,
    request(top) {
      keep();
      return { ...top, [RECORD_KEY.vehicle]: records.vehicle, [RECORD_KEY.driver]: records.driver };
    },
    reveal,
    restore(saved, savedRecords) {
      for (const kind of ["vehicle", "driver"] as const) {
        records[kind].splice(0, records[kind].length, ...savedRecords[kind].slice(0, RECORD_MAX[kind]));
        const index = Math.min(saved.editing[kind], records[kind].length);
        returnTo[kind] = undefined;
        load(kind, Math.max(0, index));
      }
      const screen = FORM_SCREENS[saved.screen] ? askedFrom(saved.screen) : 0;
      if (FORM_SCREENS[screen]?.kind === "record") load((FORM_SCREENS[screen] as { record: RecordKind }).record, saved.editing[(FORM_SCREENS[screen] as { record: RecordKind }).record]);
      show(screen, false);
    },
    arrange(asked) {
      order = [...asked];
      const to = askedFrom(position.screen);
      if (to === position.screen) countQuestions(false);
      // Only before the visitor could reach it (the session answers within the first screen), or
      // on a reload's restore: shown as a restored screen is, without moving focus.
      else show(to, false);
    },
    showSent() {
      // The thank-you replaces the form, and with it the count and the bar: nothing is left to do.
      page.classList.add(LATER_CLASS);
    },
    onChange(listener) {
      listeners.push(listener);
    },
  };
}

