/**
 * Model suggestions (issue 13; tap targets since issue 32): once the year and the make are
 * chosen, the models the vehicle catalog lists for them (GET /api/vehicles/models, cached by the
 * browser for a day) show under the model field as buttons, narrowed to what the visitor types:
 * one tap fills the field and goes on. The field stays free text with its own rule
 * (shared/lead/fields.ts), for a model the list lacks. Each year and make is fetched once; a
 * failed fetch only means no suggestions.
 */
import { h } from "./dom";
import type { View } from "./view";

export const MODEL_OPTIONS_ID = "rf-model-options";
/** As many as fit a phone's screen under the field, two to a row. */
export const MODELS_SHOWN = 10;

/** The models to offer for what is typed: starting with it first, then containing it. */
export function matchingModels(models: readonly string[], typed: string): string[] {
  const wanted = typed.trim().toLowerCase();
  if (!wanted) return models.slice(0, MODELS_SHOWN);
  const starts = models.filter((model) => model.toLowerCase().startsWith(wanted));
  const contains = models.filter((model) => !model.toLowerCase().startsWith(wanted) && model.toLowerCase().includes(wanted));
  // The exact model typed needs no button: Next (or Enter) takes it.
  return [...starts, ...contains].filter((model) => model.toLowerCase() !== wanted).slice(0, MODELS_SHOWN);
}

export function createModelList(view: View, listModels: (year: string, make: string) => Promise<string[]>, picked: () => void): { refresh(): Promise<void> } {
  const [modelControl] = view.controlsOf("model");
  if (!(modelControl instanceof HTMLInputElement)) throw new Error("The quote form needs its model field");
  const model = modelControl;
  const options = h("div", { class: "rf-suggest", id: MODEL_OPTIONS_ID, role: "group", "aria-label": "Models to choose from" });
  (view.blockOf("model").querySelector(".rf-error") ?? model).before(options);
  const lists = new Map<string, Promise<string[]>>();
  let shown = "";
  let models: string[] = [];

  function render(): void {
    options.replaceChildren(...matchingModels(models, model.value).map((name) => h("button", { type: "button", class: "rf-suggestion", "data-model": name }, name)));
  }

  async function refresh(): Promise<void> {
    const { year = "", make = "" } = view.readRaw(["year", "make"]) as Record<string, string>;
    const key = `${year}|${make}`;
    if (key === shown) return;
    shown = key;
    models = [];
    render();
    if (!year || !make) return;
    let list = lists.get(key);
    if (!list) {
      list = listModels(year, make).catch(() => []);
      lists.set(key, list);
    }
    const found = await list;
    // The visitor may have changed the year or make while the list was on its way.
    if (shown !== key) return;
    models = found;
    options.setAttribute("aria-label", `${year} ${make} models`);
    render();
  }

  model.addEventListener("input", render);
  view.form.addEventListener("change", (event) => {
    const name = (event.target as HTMLInputElement | null)?.name;
    if (name === "year" || name === "make") void refresh();
  });
  options.addEventListener("click", (event) => {
    const button = (event.target as Element | null)?.closest<HTMLButtonElement>(".rf-suggestion");
    if (!button?.dataset.model) return;
    model.value = button.dataset.model;
    // As typed: the answer is saved, and a shown message goes.
    model.dispatchEvent(new Event("input", { bubbles: true }));
    picked();
  });
  return { refresh };
}
