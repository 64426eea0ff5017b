// @vitest-environment happy-dom
/**
 * Model suggestions (client/quote-form/model-list.ts) through mount() with a fake catalog: the
 * models of the chosen year and make are offered under the model field as tap targets, narrowed
 * to what is typed, each pair asked once; a tap fills the field and goes on, and the field still
 * takes what the list lacks.
 */
import { afterEach, describe, expect, it } from "vitest";
import { MODEL_OPTIONS_ID, MODELS_SHOWN, matchingModels } from "../../../client/quote-form/model-list";
import { $, choose, control, openForm, pressNext, screenShown, settle, type } from "./harness";

afterEach(() => {
  document.body.innerHTML = "";
});

const suggestions = () => [...document.querySelectorAll<HTMLButtonElement>(`#${MODEL_OPTIONS_ID} button`)].map((button) => button.textContent);

describe("model suggestions", () => {
  it("list the catalog's models once a year and a make are chosen, and follow a change of either", async () => {
    const { server } = await openForm();
    expect(suggestions()).toEqual([]);
    choose("year", "2020");
    await settle();
    expect(server.listModels).not.toHaveBeenCalled(); // no make yet
    await pressNext();
    choose("make", "Toyota");
    await pressNext();
    expect(screenShown()).toEqual(["vehicle-model"]);
    expect(suggestions()).toEqual(["4Runner", "Camry", "Corolla", "RAV4", "Tacoma"]);
    expect($(`#${MODEL_OPTIONS_ID}`).getAttribute("aria-label")).toBe("2020 Toyota models");
    // What is typed narrows the list: starting with it first, then containing it.
    type("model", "co");
    expect(suggestions()).toEqual(["Corolla", "Tacoma"]);
    choose("year", "2018");
    choose("make", "Ford");
    await settle();
    type("model", "");
    expect(suggestions()).toEqual(["Escape", "F-150", "Mustang"]);
    // Back to a pair already asked: from memory.
    choose("year", "2020");
    choose("make", "Toyota");
    await settle();
    expect(suggestions()).toContain("Camry");
    expect(server.listModels.mock.calls.filter(([year, make]) => year === "2020" && make === "Toyota")).toHaveLength(1);
  });

  it("fill the field with one tap and go on to the next question", async () => {
    await openForm();
    choose("year", "2020");
    await pressNext();
    choose("make", "Toyota");
    await pressNext();
    $<HTMLButtonElement>(`#${MODEL_OPTIONS_ID} button[data-model="Camry"]`).click();
    await settle();
    expect(screenShown()).toEqual(["vehicle-ownership"]);
  });

  it("show no more than fit a phone's screen, and never the model typed in full", () => {
    const many = Array.from({ length: 30 }, (_, index) => `Model ${index}`);
    expect(matchingModels(many, "")).toHaveLength(MODELS_SHOWN);
    expect(matchingModels(["Camry", "Camry Hybrid"], "camry")).toEqual(["Camry Hybrid"]);
  });

  it("are simply absent when the catalog cannot be reached or has nothing: the field is still typed", async () => {
    const { server } = await openForm(undefined, { listModels: () => Promise.reject(new Error("offline")) });
    choose("year", "2020");
    choose("make", "Toyota");
    await settle();
    expect(suggestions()).toEqual([]);
    expect(server.listModels).not.toHaveBeenCalled();
    control("model").value = "Land Cruiser";
    expect(control("model").value).toBe("Land Cruiser");
  });
});
