/**
 * Model suggestions (issue 13): once the year and the make are chosen, the models the vehicle
 * catalog lists for them (GET /api/vehicles/models, cached by the browser for a day) are offered
 * under the model field as a native `<datalist>`: the visitor picks one or types what the list
 * lacks, and the field keeps its own rule (shared/lead/fields.ts) either way. Each year and make
 * is fetched once; a failed fetch only means no suggestions.
 */
import type { View } from "./view";

export const MODEL_OPTIONS_ID = "rf-model-options";

export function createModelList(view: View, listModels: (year: string, make: string) => Promise<string[]>): { refresh(): Promise<void> } {
  const [yearControl] = view.controlsOf("year");
  const [makeControl] = view.controlsOf("make");
  const [modelControl] = view.controlsOf("model");
  if (!yearControl || !makeControl || !(modelControl instanceof HTMLInputElement)) throw new Error("The quote form needs its year, make and model fields");
  const options = document.createElement("datalist");
  options.id = MODEL_OPTIONS_ID;
  modelControl.after(options);
  modelControl.setAttribute("list", MODEL_OPTIONS_ID);
  const lists = new Map<string, Promise<string[]>>();
  let shown = "";

  async function refresh(): Promise<void> {
    const year = yearControl!.value;
    const make = makeControl!.value;
    const key = `${year}|${make}`;
    if (key === shown) return;
    shown = key;
    if (!year || !make) {
      options.replaceChildren();
      return;
    }
    let list = lists.get(key);
    if (!list) {
      list = listModels(year, make).catch(() => []);
      lists.set(key, list);
    }
    const models = await list;
    // The visitor may have changed the year or make while the list was on its way.
    if (shown !== key) return;
    options.replaceChildren(
      ...models.map((model) => {
        const option = document.createElement("option");
        option.value = model;
        return option;
      }),
    );
  }

  yearControl.addEventListener("change", () => void refresh());
  makeControl.addEventListener("change", () => void refresh());
  return { refresh };
}
