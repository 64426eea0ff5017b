/**
 * Answers kept across a reload of the same form session, for at most 30 minutes (issue 13).
 *
 * In sessionStorage, never localStorage or a cookie: the browser keeps it for this tab only and
 * deletes it when the tab (or the browser) closes, so the next person at a shared computer opening
 * the site in a new tab sees an empty form; and nothing is sent anywhere. Within the tab, answers
 * older than 30 minutes are thrown away unread, the saved copy is deleted as soon as the request
 * is stored, and the consent box is never kept: consent is an act on the words shown, each time
 * (docs/decisions/006-quote-form.md, "Revised for issue 13").
 */
import type { RecordKind } from "../../shared/lead/fields";
import type { Position } from "./screens";
import type { Answers } from "./records";
import type { FormKnobs } from "../../shared/lead/api";
import { formKnobsOf } from "./variants";

/** Versioned with the screen table: a copy saved by the three-step form (its screen numbers mean other screens) is not read. */
export const SAVED_KEY = "quoteridge.quote-answers.v2";
export const SAVED_MAX_AGE_MS = 30 * 60 * 1000;

export interface SavedAnswers {
  savedAt: number;
  position: Position;
  top: Answers;
  records: Record<RecordKind, Answers[]>;
  /**
   * The A/B variant's knobs the answers were given under (issue 45; the control's in a copy saved
   * before experiments): a reload asks the screens in the same order at once, before its session
   * answers, so the restored position, its count and Back agree with what the visitor saw.
   */
  knobs: FormKnobs;
}

/** The tab's storage, or undefined where a browser refuses it (some private modes, storage off). */
function storage(): Storage | undefined {
  try {
    return window.sessionStorage;
  } catch {
    return undefined;
  }
}

/** A screen's or a record's place: a small whole number (restore() checks it against the screens there are). */
const isPlace = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0 && (value as number) < 64;

const isAnswers = (value: unknown): value is Answers =>
  value !== null && typeof value === "object" && !Array.isArray(value) && Object.values(value).every((entry) => typeof entry === "string" || typeof entry === "boolean");

export function saveAnswers(answers: Omit<SavedAnswers, "savedAt">, now: number): void {
  const { consent: _consent, ...top } = answers.top;
  try {
    storage()?.setItem(SAVED_KEY, JSON.stringify({ ...answers, top, savedAt: now }));
  } catch {
    // Full or refused: the answers are still in the page; only a reload would lose them.
  }
}

/** The saved answers if younger than 30 minutes and well-formed; anything else is deleted. */
export function loadAnswers(now: number): SavedAnswers | undefined {
  const store = storage();
  let saved: unknown;
  try {
    saved = JSON.parse(store?.getItem(SAVED_KEY) ?? "null");
  } catch {
    saved = null;
  }
  const value = saved as Partial<SavedAnswers> | null;
  const fresh =
    value !== null &&
    typeof value === "object" &&
    typeof value.savedAt === "number" &&
    now - value.savedAt >= 0 &&
    now - value.savedAt <= SAVED_MAX_AGE_MS &&
    isAnswers(value.top) &&
    isPlace(value.position?.screen) &&
    isPlace(value.position?.editing?.vehicle) &&
    isPlace(value.position?.editing?.driver) &&
    Array.isArray(value.records?.vehicle) &&
    Array.isArray(value.records?.driver) &&
    value.records.vehicle.every(isAnswers) &&
    value.records.driver.every(isAnswers);
  if (!fresh) {
    clearAnswers();
    return undefined;
  }
  const { consent: _consent, ...top } = value.top as Answers;
  return { ...(value as SavedAnswers), top, knobs: formKnobsOf(value.knobs) };
}

export function clearAnswers(): void {
  try {
    storage()?.removeItem(SAVED_KEY);
  } catch {
    // Nothing to clear.
  }
}
