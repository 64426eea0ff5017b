/**
 * Presses (a finger or a mouse button) on the quote form's page, so that nothing moves under one.
 *
 * A click lands where the press ends: a browser hit-tests the release again, and the click goes to
 * what the press and the release share. A message shown when a field loses focus (checks.ts) takes
 * room above the control the press is on, so the control moves between the press and its release
 * and the click goes elsewhere: the consent box stayed unticked after a 6-digit phone (issue 42),
 * as Next did before issue 32's fix. Work that would move the page during a press waits for
 * `afterPress`: it runs once the click has landed and done its part (the box ticked, "Why we ask"
 * opened), or at once when nothing is pressed (the keyboard's Tab).
 *
 * On a phone the focus moves only as the finger lifts (the tap's mouse events come after
 * `pointerup`), so a press ends at its click, not at `pointerup`; a release with no click (dragged
 * away) ends it after RELEASE_WITHOUT_CLICK_MS, a cancelled one (a scroll) at once.
 */

/** What a press is on: a button (Next, Back: they check the screen themselves), or anything else. */
export type Pressed = "button" | "other";

export interface Presses {
  /** The press now under way, if any. */
  readonly pressed: Pressed | undefined;
  /** Runs `task` once the press under way has ended and its click has landed; at once without one. */
  afterPress(task: () => void): void;
}

/** How long after a release with no click the press counts as ended. */
export const RELEASE_WITHOUT_CLICK_MS = 500;

export function watchPresses(doc: Document): Presses {
  let pressed: Pressed | undefined;
  let waiting: (() => void)[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;

  function end(): void {
    pressed = undefined;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    const tasks = waiting;
    waiting = [];
    for (const task of tasks) task();
  }
  function endSoon(ms: number): void {
    if (pressed === undefined) return;
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(end, ms);
  }

  // Capture: a handler that stops an event on its way must not hide a press from this.
  doc.addEventListener(
    "pointerdown",
    (event) => {
      // A press still open (its click never came) ends before the new one begins.
      end();
      pressed = (event.target as Element | null)?.closest?.("button") ? "button" : "other";
    },
    true,
  );
  doc.addEventListener("pointerup", () => endSoon(RELEASE_WITHOUT_CLICK_MS), true);
  doc.addEventListener("pointercancel", () => endSoon(0), true);
  // After the click's own handlers and its default action (a box ticked, a disclosure toggled).
  doc.addEventListener("click", () => endSoon(0), true);
  // Keys mean the press is over, whatever became of it.
  doc.addEventListener("keydown", () => pressed !== undefined && end(), true);

  return {
    get pressed() {
      return pressed;
    },
    afterPress(task) {
      if (pressed === undefined) task();
      else waiting.push(task);
    },
  };
}
