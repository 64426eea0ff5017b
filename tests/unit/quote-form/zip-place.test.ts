// @vitest-environment happy-dom
/**
 * The ZIP code and its place, through mount() with a fake lookup: the ZIP the visitor arrived
 * with is looked up and its place shown instead of the field; an unknown one is asked again.
 */
import { afterEach, describe, expect, it } from "vitest";
import { LEAD_MESSAGES } from "../../../shared/lead/fields";
import { $, block, choose, control, errorText, fillVehicle, focusedId, openForm, pressNext, screenShown, type } from "./harness";

afterEach(() => {
  document.body.innerHTML = "";
});

const place = () => $(".rf-place");

describe("the ZIP code", () => {
  it("from the address is looked up once and its place shown instead of the field", async () => {
    const { server } = await openForm();
    expect(server.lookUpZip.mock.calls).toEqual([["90210"]]);
    expect(control("zip").value).toBe("90210");
    expect(place().hidden).toBe(false);
    expect(place().textContent).toBe("Quotes for Beverly Hills, CA 90210. Change");
    expect($(".rf-place button").getAttribute("aria-label")).toBe("Change ZIP code");
    expect(block("zip").hidden).toBe(true);

    await fillVehicle();
    expect(screenShown()).toEqual(["vehicles"]);
    expect(server.lookUpZip).toHaveBeenCalledTimes(1); // remembered, not asked again
  });

  it("takes the field's place at once, before the lookup answers, so the questions under it do not jump", async () => {
    let answer!: (place: { zip: string; city: string; state: string }) => void;
    const pending = openForm(undefined, { lookUpZip: () => new Promise((resolve) => (answer = resolve)) });
    await Promise.resolve();
    expect(place().hidden).toBe(false);
    expect(place().textContent).toBe("Quotes for ZIP code 90210. Change");
    expect(block("zip").hidden).toBe(true);
    answer({ zip: "90210", city: "Beverly Hills", state: "CA" });
    await pending;
    expect(place().textContent).toBe("Quotes for Beverly Hills, CA 90210. Change");
  });

  it("that does not exist (the lookup answers null) is asked again with its message", async () => {
    const { server } = await openForm("?zip=99999&sid=a1");
    expect(server.lookUpZip.mock.calls).toEqual([["99999"]]);
    expect(errorText("zip")).toBe("We could not find ZIP code 99999. Please check it and enter it again.");
    expect(control("zip").getAttribute("aria-invalid")).toBe("true");
    expect(block("zip").hidden).toBe(false);
    expect(place().hidden).toBe(true);

    // Still refused on Next, and focused; a corrected one is looked up and taken.
    choose("year", "2020");
    await pressNext();
    expect(screenShown()).toEqual(["vehicle-year"]);
    expect(focusedId()).toBe("rf-zip");
    expect(errorText("zip")).toBe("We could not find ZIP code 99999. Please check it and enter it again.");

    type("zip", "10001");
    await pressNext();
    expect(server.lookUpZip.mock.calls).toEqual([["99999"], ["10001"]]);
    expect(screenShown()).toEqual(["vehicle-make"]);
    expect(place().textContent).toContain("Quotes for New York, NY 10001.");
    expect(errorText("zip")).toBe("");
  });

  it("typed by the visitor keeps digits only, and an unknown one gets the message on Next", async () => {
    const { server } = await openForm("");
    expect(server.lookUpZip).not.toHaveBeenCalled();
    expect(block("zip").hidden).toBe(false);
    type("zip", "9-99 99x1");
    expect(control("zip").value).toBe("99999");
    choose("year", "2020");
    await pressNext();
    expect(errorText("zip")).toBe("We could not find ZIP code 99999. Please check it and enter it again.");
    expect(screenShown()).toEqual(["vehicle-year"]);
  });

  it("can be changed: the field comes back, focused", async () => {
    await openForm();
    $<HTMLButtonElement>(".rf-link-button").click();
    expect(block("zip").hidden).toBe(false);
    expect(place().hidden).toBe(true);
    expect(focusedId()).toBe("rf-zip");
    type("zip", "");
    await pressNext();
    expect(errorText("zip")).toBe(LEAD_MESSAGES.zip);
  });
});
