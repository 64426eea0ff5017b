/**
 * The ZIP code and its place: each ZIP is looked up once (GET /api/zip-codes/:zip); a known one
 * is shown as "Quotes for City, ST 12345." in place of the ZIP field, with a button to change it.
 */
import { sanitizeZipInput } from "../../shared/campaign";
import type { View } from "./view";
import type { ZipLocation } from "./types";

export interface ZipPlace {
  /** The ZIP's place; null: no such ZIP; undefined: the server could not be reached. */
  placeOf(zip: string): Promise<ZipLocation | null | undefined>;
  /** Shows the place instead of the ZIP field, or (null) the ZIP field again. */
  show(place: ZipLocation | null): void;
  /** Fills in the ZIP the visitor arrived with and shows its place, or says it is unknown. */
  prefill(zip: string): Promise<void>;
}

export const unknownZip = (zip: string) => `We could not find ZIP code ${zip}. Please check it and enter it again.`;

export function createZipPlace(view: View, lookUpZip: (zip: string) => Promise<ZipLocation | null>): ZipPlace {
  /** ZIP → place (null: no such ZIP), so each ZIP is looked up once. */
  const places = new Map<string, ZipLocation | null>();
  const input = view.controlsOf("zip")[0] as HTMLInputElement;

  async function placeOf(zip: string): Promise<ZipLocation | null | undefined> {
    if (places.has(zip)) return places.get(zip);
    try {
      const place = await lookUpZip(zip);
      places.set(zip, place);
      return place;
    } catch {
      return undefined; // unreachable: the server checks it again on submit
    }
  }

  function show(place: ZipLocation | null): void {
    if (place) view.placeText.textContent = `Quotes for ${place.city}, ${place.state} ${place.zip}.`;
    view.placeSummary.hidden = place === null;
    view.blockOf("zip").hidden = place !== null;
  }

  view.changeZipButton.addEventListener("click", () => {
    show(null);
    input.focus();
    input.select();
  });

  input.addEventListener("input", () => {
    const digits = sanitizeZipInput(input.value);
    if (digits !== input.value) input.value = digits;
  });

  async function prefill(zip: string): Promise<void> {
    input.value = zip;
    // The ZIP's line takes the field's place at once, and its city fills the same line when the
    // lookup answers: the questions under it do not jump (layout shift) for the visitor who came
    // with a ZIP. An unknown ZIP brings the field back with its message.
    view.placeText.textContent = `Quotes for ZIP code ${zip}.`;
    view.placeSummary.hidden = false;
    view.blockOf("zip").hidden = true;
    const place = await placeOf(zip);
    if (place) show(place);
    else if (place === null) {
      show(null);
      view.showError("zip", unknownZip(zip));
    }
  }

  return { placeOf, show, prefill };
}
