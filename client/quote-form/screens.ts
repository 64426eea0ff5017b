/**
 * The screens (shared/lead/fields.ts, FORM_SCREENS): which one shows, which vehicle or driver its
 * inputs hold, the record lists (add, edit, remove), the progress bar, Back and Next, and where
 * focus goes (the screen's heading on a new screen; the first invalid field when answers need
 * attention). Every answer stays: the request's in their inputs, the records in `records`.
 */
import { SUBMIT_LABEL } from "../../shared/consent-disclosure";
import { FORM_SCREENS, LEAD_FIELDS, LEAD_STEPS, checkRecordFields, errorPlace, type FormScreen, type LeadErrors, type RawLead, type RecordKind } from "../../shared/lead/fields";
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
  /** The screen after this one, once its answers passed: the next screen, a list, the next record. */
  advance(): void;
  back(): void;
  /** The request as the form sends it: the request's own answers, every vehicle and driver. */
  request(top: Answers): RawLead;
  /** Goes to the first error's screen (its record loaded), shows every message there, focuses it and says how many. */
  reveal(errors: LeadErrors): void;
  /** Puts back a saved position and records (a reload within the session). */
  restore(position: Position, records: Record<RecordKind, Answers[]>): void;
  /** The progress bar once the request is sent. */
  showSent(): void;
  /** Called after anything changed the records or the screen (to save the answers). */
  onChange(listener: () => void): void;
}

export function createScreens(view: View, progress: HTMLElement): Screens {
  const records: Record<RecordKind, Answers[]> = { vehicle: [], driver: [] };
  const position: Position = { screen: 0, editing: { vehicle: 0, driver: 0 } };
  /** Where Back goes from a record's first screen: the list it was opened from, or the screen before. */
  const returnTo: Record<RecordKind, number | undefined> = { vehicle: undefined, driver: undefined };
  const listeners: (() => void)[] = [];
  const changed = () => listeners.forEach((listener) => listener());
  const current = () => FORM_SCREENS[position.screen]!;

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
    }
  }

  function headingOf(screen: FormScreen): string {
    if (screen.kind !== "record") return screen.title;
    const index = position.editing[screen.record];
    if (screen.record === "driver" && index === 0) return screen.id === "driver" ? "About you" : "Your driving record";
    const several = index > 0 || records[screen.record].length > 1;
    return several ? `${RECORD_WORDS[screen.record].one} ${index + 1}: ${screen.title}` : screen.title;
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
    view.backButton.hidden = index === 0 && position.editing.vehicle === 0;
    view.nextButton.textContent = index === LAST ? SUBMIT_LABEL : "Next";
    const step = screen.step + 1;
    progress.dataset.step = String(step);
    progress.setAttribute("aria-valuenow", String(step));
    progress.setAttribute("aria-valuetext", `Step ${step} of ${LEAD_STEPS.length}: ${LEAD_STEPS[screen.step]?.title ?? ""}, ${heading.textContent}`);
    view.formError.textContent = "";
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

  function advance(): void {
    keep();
    const screen = current();
    if (screen.kind === "record") {
      const next = FORM_SCREENS[position.screen + 1];
      show(next?.kind === "record" ? position.screen + 1 : listScreenOf(screen.record));
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
    show(Math.min(LAST, position.screen + 1));
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
    const previous = FORM_SCREENS[position.screen - 1];
    if (!previous) return;
    if (previous.kind === "record" && screen.kind !== "record") load(previous.record, Math.max(0, records[previous.record].length - 1));
    show(position.screen - 1);
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
      if (screenIndex < 0) screenIndex = position.screen;
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
      const screen = FORM_SCREENS[saved.screen] ? saved.screen : 0;
      if (FORM_SCREENS[screen]?.kind === "record") load((FORM_SCREENS[screen] as { record: RecordKind }).record, saved.editing[(FORM_SCREENS[screen] as { record: RecordKind }).record]);
      show(screen, false);
    },
    showSent() {
      progress.dataset.step = "done";
      progress.setAttribute("aria-valuenow", String(LEAD_STEPS.length));
      progress.setAttribute("aria-valuetext", "Request sent");
    },
    onChange(listener) {
      listeners.push(listener);
    },
  };
}

