/**
 * The filter box of a long choice list (years, makes: shared/lead/fields.ts, ChoiceSearch): the
 * list shows its featured options until the visitor types, then the ones whose name matches
 * (those that start with the text first), never more than fit the screen. The options stay native
 * radios, so choosing one is the same answer however it was found; Enter with one match left
 * chooses it. A filter that matches nothing says so, and offers "Other" where the list has it.
 */
import type { FieldControl } from "../../shared/lead/fields";
import { OTHER_MAKE } from "../../shared/vehicles";
import { initiallyShown, optionsIdOf } from "./fields";
import type { View } from "./view";

type ChoiceControl = Extract<FieldControl, { kind: "choice" }>;

/** The values to show for a filter text: starts-with matches first, then contains, up to `shown`. */
export function matchingChoices(spec: ChoiceControl, text: string, chosen = ""): string[] {
  const wanted = text.trim().toLowerCase();
  if (!wanted) return [...initiallyShown(spec, chosen)];
  const named = spec.choices.map(([value, label]) => [value, label.toLowerCase()] as const);
  const starts = named.filter(([, label]) => label.startsWith(wanted)).map(([value]) => value);
  const contains = named.filter(([, label]) => !label.startsWith(wanted) && label.includes(wanted)).map(([value]) => value);
  return [...starts, ...contains].slice(0, spec.search?.shown ?? spec.choices.length);
}

/** Wires every searchable list of the form; `chosen` runs when Enter picks the one match left. */
export function watchChoiceSearch(view: View, fields: readonly string[], specOf: (field: string) => FieldControl, chosen: (field: string) => void): { reset(field: string): void } {
  function filter(field: string, box: HTMLInputElement): string[] {
    const spec = specOf(field) as ChoiceControl;
    const radios = view.controlsOf(field) as HTMLInputElement[];
    const checked = radios.find((radio) => radio.checked)?.value ?? "";
    const shown = matchingChoices(spec, box.value, checked);
    const visible = new Set(shown);
    for (const radio of radios) (radio.closest(".rf-option") as HTMLElement).hidden = !visible.has(radio.value);
    const note = view.blockOf(field).querySelector<HTMLElement>(".rf-no-match");
    if (note) {
      const other = spec.choices.some(([value]) => value === OTHER_MAKE);
      const none = box.value.trim() !== "" && shown.length === 0;
      if (none && other) (radios.find((radio) => radio.value === OTHER_MAKE)?.closest(".rf-option") as HTMLElement | null)?.removeAttribute("hidden");
      note.textContent = none ? (other ? `Nothing matches “${box.value.trim()}”. Check the spelling, or choose Other.` : `Nothing matches “${box.value.trim()}”. Check what you typed.`) : "";
    }
    return shown;
  }

  const boxes = new Map<string, HTMLInputElement>();
  for (const field of fields) {
    const box = view.blockOf(field).querySelector<HTMLInputElement>(".rf-filter");
    if (!box || box.getAttribute("aria-controls") !== optionsIdOf(field)) continue;
    boxes.set(field, box);
    box.addEventListener("input", () => void filter(field, box));
    box.addEventListener("keydown", (event) => {
      if (event.key !== "Enter") return;
      // Enter never sends the form from here: it chooses the one match left, or does nothing.
      event.preventDefault();
      const shown = filter(field, box);
      if (shown.length !== 1) return;
      const radio = (view.controlsOf(field) as HTMLInputElement[]).find((candidate) => candidate.value === shown[0]);
      if (!radio) return;
      radio.checked = true;
      radio.dispatchEvent(new Event("input", { bubbles: true }));
      radio.dispatchEvent(new Event("change", { bubbles: true }));
      chosen(field);
    });
  }
  return {
    /** The list as it shows before typing (with the record's own answer), for another car or a restored one. */
    reset(field) {
      const box = boxes.get(field);
      if (!box) return;
      box.value = "";
      filter(field, box);
    },
  };
}
