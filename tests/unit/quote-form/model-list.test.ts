// @vitest-environment happy-dom
/**
 * Model suggestions (client/quote-form/model-list.ts) through mount() with a fake catalog: the
 * models of the chosen year and make are offered under the model field, each pair asked once,
 * and the field still takes what the list lacks.
 */
import { afterEach, describe, expect, it } from "vitest";
import { MODEL_OPTIONS_ID } from "../../../client/quote-form/model-list";
import { control, openForm, select } from "./harness";

afterEach(() => {
  document.body.innerHTML = "";
});

const suggestions = () => [...document.querySelectorAll<HTMLOptionElement>(`#${MODEL_OPTIONS_ID} option`)].map((option) => option.value);
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("model suggestions", () => {
  it("list the catalog's models once a year and a make are chosen, and follow a change of either", async () => {
    const { server } = await openForm();
    expect(control("model").getAttribute("list")).toBe(MODEL_OPTIONS_ID);
    expect(suggestions()).toEqual([]);
    select("year", "2020");
    await settle();
    expect(server.listModels).not.toHaveBeenCalled(); // no make yet
    select("make", "Toyota");
    await settle();
    expect(suggestions()).toEqual(["4Runner", "Camry", "Corolla", "RAV4", "Tacoma"]);
    select("year", "2018");
    select("make", "Ford");
    await settle();
    expect(suggestions()).toEqual(["Escape", "F-150", "Mustang"]);
    // Back to a pair already asked: from memory.
    select("year", "2020");
    select("make", "Toyota");
    await settle();
    expect(suggestions()).toContain("Camry");
    expect(server.listModels.mock.calls.filter(([year, make]) => year === "2020" && make === "Toyota")).toHaveLength(1);
  });

  it("are simply absent when the catalog cannot be reached or has nothing: the field is still typed", async () => {
    const { server } = await openForm(undefined, { listModels: () => Promise.reject(new Error("offline")) });
    select("year", "2020");
    select("make", "Toyota");
    await settle();
    expect(suggestions()).toEqual([]);
    expect(server.listModels).not.toHaveBeenCalled();
    control("model").value = "Land Cruiser";
    expect(control("model").value).toBe("Land Cruiser");
  });
});
