// @vitest-environment happy-dom
/**
 * The quote form's screens (issue 13), driven through mount() with a fake server: what the first
 * screen shows, the messages of a screen sent incomplete, moving on (progress bar, focus, funnel
 * events with the screen), Back keeping everything, the vehicles and drivers lists (add, edit,
 * remove), the VIN filling the car in, the insurer questions asked only of the insured, a 422's
 * answer paths taking the visitor to the right record, and answers kept across a reload for 30
 * minutes (never the consent box).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { LEAD_MESSAGES } from "../../../shared/lead/fields";
import { SUBMIT_LABEL } from "../../../shared/consent-disclosure";
import { SAVED_KEY } from "../../../client/quote-form/saved-answers";
import {
  $,
  backButton,
  block,
  choose,
  control,
  errorText,
  fillAll,
  fillUpToContact,
  fillCar,
  fillDriver,
  fillHistory,
  fillInsurance,
  fillPerson,
  fillUse,
  fillVehicle,
  focusedId,
  headingShown,
  listed,
  liveRegion,
  nextButton,
  openForm,
  pressAdd,
  pressListButton,
  pressNext,
  progress,
  screenShown,
  select,
  settle,
  stepShown,
  type,
  VID,
  wall,
} from "./harness";

afterEach(() => {
  document.body.innerHTML = "";
});

const controlsOf = (field: string) => [...document.querySelectorAll(`[name="${field}"]`)];
const shownFields = () => [...document.querySelectorAll<HTMLElement>(".rf-step:not([hidden]) .rf-field")].filter((field) => !field.hidden).map((field) => field.id.replace("rf-field-", ""));

describe("the first screen", () => {
  it("asks the ZIP and the car, with Why we ask, and nothing of the other screens", async () => {
    await openForm("");
    expect(screenShown()).toEqual(["vehicle"]);
    expect(shownFields()).toEqual(["zip", "year", "make", "model", "vin"]);
    expect(headingShown()).toBe("Which car?");
    expect($(".rf-step:not([hidden]) .rf-step-of").textContent).toBe("Step 1 of 3");
    expect(block("year").querySelector("details.rf-why summary")?.textContent).toBe("Why we ask");
    expect(backButton().hidden).toBe(true);
    expect(nextButton().textContent).toBe("Next");
    expect(progress().getAttribute("aria-valuenow")).toBe("1");
  });

  it("on Next with nothing answered, shows each field's message, marks it invalid, focuses the first and says how many", async () => {
    const { server } = await openForm("?sid=a1");
    await pressNext();
    const messages = { zip: LEAD_MESSAGES.zip, year: LEAD_MESSAGES.year, make: LEAD_MESSAGES.make, model: LEAD_MESSAGES.model };
    for (const [field, message] of Object.entries(messages)) {
      expect(errorText(field), field).toBe(message);
      for (const each of controlsOf(field)) expect(each.getAttribute("aria-invalid"), field).toBe("true");
    }
    // The VIN is optional: no message.
    expect(errorText("vin")).toBe("");
    expect(focusedId()).toBe("rf-zip");
    expect(screenShown()).toEqual(["vehicle"]);
    await vi.waitFor(() => expect(liveRegion().textContent).toBe(`4 answers need attention. The first: ${LEAD_MESSAGES.zip}`), { timeout: 5_000 });
    expect(server.sendEvent).not.toHaveBeenCalledWith(expect.objectContaining({ event: "form_step_completed" }));

    // Fixing an answer takes its message and its invalid mark away at once.
    select("year", "2020");
    await settle();
    expect(errorText("year")).toBe("");
    expect(control("year").hasAttribute("aria-invalid")).toBe(false);
    expect(errorText("make")).toBe(LEAD_MESSAGES.make);
  });

  it("shows a field's message on leaving it filled in wrongly, and announces it", async () => {
    await openForm();
    type("model", "!!");
    control("year").focus();
    await settle();
    expect(errorText("model")).toBe(LEAD_MESSAGES.model);
    await vi.waitFor(() => expect(liveRegion().textContent).toBe(LEAD_MESSAGES.model), { timeout: 5_000 });
    expect(errorText("year")).toBe("");
  });
});

describe("moving between screens", () => {
  it("goes on screen by screen: progress bar, heading focused, a funnel event naming the step and the screen", async () => {
    const { server } = await openForm();
    fillCar();
    await pressNext();
    expect(screenShown()).toEqual(["vehicle-use"]);
    expect(document.activeElement).toBe($(".rf-step:not([hidden]) h2"));
    fillUse();
    await pressNext();
    expect(screenShown()).toEqual(["vehicles"]);
    await pressNext();
    expect(screenShown()).toEqual(["driver"]);
    expect(headingShown()).toBe("About you");
    expect(stepShown()).toEqual([2]);
    expect(progress().getAttribute("aria-valuenow")).toBe("2");
    expect(progress().getAttribute("aria-valuetext")).toBe("Step 2 of 3: Drivers, About you");
    expect(backButton().hidden).toBe(false);
    expect(server.sendEvent.mock.calls.map(([event]) => event)).toEqual([
      { event: "form_started", zip: "90210", sid: "a1", tid: "b2", vid: VID, ms: 0 },
      { event: "form_step_completed", step: 1, screen: "vehicle", zip: "90210", sid: "a1", tid: "b2", vid: VID, ms: 0 },
      { event: "form_step_completed", step: 1, screen: "vehicle-use", zip: "90210", sid: "a1", tid: "b2", vid: VID, ms: 0 },
      { event: "form_step_completed", step: 1, screen: "vehicles", zip: "90210", sid: "a1", tid: "b2", vid: VID, ms: 0 },
    ]);
  });

  it("tells the server, with each event, the visit id and how long after the form opened it came (whole milliseconds)", async () => {
    const { server } = await openForm();
    server.clock.ms += 400.6;
    fillCar(); // the first answer starts the form
    server.clock.ms += 2_000;
    await pressNext();
    expect(server.sendEvent.mock.calls.map(([event]) => [event.event, event.vid, event.ms])).toEqual([
      ["form_started", VID, 401],
      ["form_step_completed", VID, 2401],
    ]);
  });

  it("sends no visit id when its address has none", async () => {
    const { server } = await openForm("?zip=90210&sid=a1");
    fillCar();
    await pressNext();
    expect(server.sendEvent.mock.calls.map(([event]) => event.vid)).toEqual([undefined, undefined]);
  });

  it("shows the submit label on the last screen", async () => {
    await openForm();
    await fillAll();
    expect(stepShown()).toEqual([3]);
    expect(nextButton().textContent).toBe(SUBMIT_LABEL);
    expect(progress().getAttribute("aria-valuetext")).toBe("Step 3 of 3: How to reach you, How to reach you");
  });

  it("goes Back screen by screen with every answer kept, and forward again", async () => {
    await openForm();
    await fillVehicle();
    await pressNext();
    type("firstName", "Sam");

    backButton().click();
    await settle();
    expect(screenShown()).toEqual(["vehicles"]);
    expect(listed()).toEqual(["2020 Toyota Camry"]);
    backButton().click();
    expect(screenShown()).toEqual(["vehicle-use"]);
    expect($<HTMLInputElement>('input[name="ownership"][value="finance"]').checked).toBe(true);
    backButton().click();
    expect(screenShown()).toEqual(["vehicle"]);
    expect(control<HTMLSelectElement>("year").value).toBe("2020");
    expect(control<HTMLSelectElement>("make").value).toBe("Toyota");
    expect(control("model").value).toBe(" Camry ");

    await pressNext();
    await pressNext();
    await pressNext();
    expect(screenShown()).toEqual(["driver"]);
    expect(control("firstName").value).toBe("Sam");
  });
});

describe("the vehicles and drivers lists", () => {
  it("adds, edits and removes vehicles, up to 4, always keeping one", async () => {
    await openForm();
    await fillVehicle();
    // One vehicle: nothing to remove.
    expect(document.querySelector(".rf-step:not([hidden]) .rf-remove")).toBeNull();
    await pressAdd();
    expect(screenShown()).toEqual(["vehicle"]);
    expect(headingShown()).toBe("Vehicle 2: Which car?");
    // The ZIP belongs to the first vehicle's screen only; the new vehicle starts empty.
    expect(shownFields()).toEqual(["year", "make", "model", "vin"]);
    expect(control("model").value).toBe("");
    await fillVehicle("2018", "Ford", "F-150");
    expect(listed()).toEqual(["2020 Toyota Camry", "2018 Ford F-150"]);

    // Edit the first: its answers come back; a change shows in the list.
    await pressListButton("edit", 0);
    expect(headingShown()).toBe("Vehicle 1: Which car?");
    expect(control("model").value).toBe(" Camry ");
    type("model", "Corolla");
    await pressNext();
    await pressNext();
    expect(listed()).toEqual(["2020 Toyota Corolla", "2018 Ford F-150"]);

    // Remove the first: announced, focus stays in the list.
    await pressListButton("remove", 0);
    expect(listed()).toEqual(["2018 Ford F-150"]);
    await vi.waitFor(() => expect(liveRegion().textContent).toBe("Removed 2020 Toyota Corolla."), { timeout: 5_000 });
    expect(document.activeElement?.getAttribute("aria-label")).toBe("Edit 2018 Ford F-150");
    // The last vehicle cannot be removed.
    expect(document.querySelector(".rf-step:not([hidden]) .rf-remove")).toBeNull();

    for (let i = 0; i < 3; i += 1) {
      await pressAdd();
      await fillVehicle("2020", "Toyota", `Camry ${i}`);
    }
    expect(listed()).toHaveLength(4);
    expect($(".rf-step:not([hidden]) .rf-add").hidden).toBe(true);
  });

  it("never removes the visitor, the first driver; asks other drivers their relationship", async () => {
    const { server } = await openForm();
    await fillVehicle();
    await pressNext();
    expect(block("relationship").hidden).toBe(true);
    expect(control("firstName").getAttribute("autocomplete")).toBe("given-name");
    await fillDriver();
    await pressAdd();
    expect(headingShown()).toBe("Driver 2: About the driver");
    expect(block("relationship").hidden).toBe(false);
    expect(control("firstName").getAttribute("autocomplete")).toBe("off");
    await pressNext();
    expect(errorText("relationship")).toBe(LEAD_MESSAGES.relationship);
    await fillDriver("Luis", "Diaz", "11021988", "spouse");
    expect(listed()).toEqual(["Ana Diaz-Ortega (you)", "Luis Diaz (spouse)"]);
    expect(document.querySelector(".rf-step:not([hidden]) .rf-remove[data-index='0']")).toBeNull();
    await pressListButton("remove", 1);
    expect(listed()).toEqual(["Ana Diaz-Ortega (you)"]);

    await pressNext();
    fillInsurance();
    await pressNext();
    type("streetAddress", "123 Main St Apt 4");
    type("email", "ana@example.com");
    type("phone", "415.555.0134");
    control("consent").click();
    await pressNext();
    const body = server.submitLead.mock.calls[0]![1];
    expect(body.drivers).toHaveLength(1);
    expect(body.vehicles).toHaveLength(1);
  });

  it("takes a list's Next only when every record on it is complete, and shows the one that is not", async () => {
    await openForm();
    await fillVehicle();
    await pressAdd();
    fillCar("2018", "Ford", "F-150");
    await pressNext();
    // Back to the list with the second vehicle's use unanswered.
    backButton().click();
    backButton().click();
    await settle();
    expect(screenShown()).toEqual(["vehicles"]);
    await pressNext();
    expect(screenShown()).toEqual(["vehicle-use"]);
    expect(headingShown()).toBe("Vehicle 2: How is it used?");
    expect(errorText("ownership")).toBe(LEAD_MESSAGES.ownership);
    expect(focusedId()).toBe("rf-ownership");
  });

  it("drops a new vehicle left empty when the visitor goes Back from it", async () => {
    await openForm();
    await fillVehicle();
    await pressAdd();
    backButton().click();
    await settle();
    expect(screenShown()).toEqual(["vehicles"]);
    expect(listed()).toEqual(["2020 Toyota Camry"]);
  });
});

describe("the VIN", () => {
  it("fills in the year, make and model from a valid VIN, and says so", async () => {
    const { server } = await openForm();
    type("vin", "1hgcm82633a004352");
    await settle();
    expect(server.decodeVin).toHaveBeenCalledWith("1HGCM82633A004352");
    expect(control<HTMLSelectElement>("year").value).toBe("2003");
    expect(control<HTMLSelectElement>("make").value).toBe("Honda");
    expect(control("model").value).toBe("Accord");
    await vi.waitFor(() => expect(liveRegion().textContent).toBe("Filled in from the VIN: 2003 Honda Accord."), { timeout: 5_000 });
    await pressNext();
    expect(screenShown()).toEqual(["vehicle-use"]);
  });

  it("asks nothing of the server for a mistyped VIN, and says what is wrong on leaving it", async () => {
    const { server } = await openForm();
    type("vin", "1HGCM82633A004353");
    control("year").focus();
    await settle();
    expect(server.decodeVin).not.toHaveBeenCalled();
    expect(errorText("vin")).toBe("This VIN's check digit (the 9th character) does not match: please check it for a typo.");
  });
});

describe("the insurer questions", () => {
  it("show only when insured today, and are asked only then", async () => {
    await openForm();
    await fillVehicle();
    await pressNext();
    await fillDriver();
    await pressNext();
    expect(screenShown()).toEqual(["insurance"]);
    expect(block("currentInsurer").hidden).toBe(true);
    expect(block("insuredFor").hidden).toBe(true);

    choose("currentlyInsured", "yes");
    expect(block("currentInsurer").hidden).toBe(false);
    expect(block("insuredFor").hidden).toBe(false);
    await pressNext();
    expect(errorText("currentInsurer")).toBe(LEAD_MESSAGES.currentInsurer);
    expect(errorText("insuredFor")).toBe(LEAD_MESSAGES.insuredFor);

    choose("currentlyInsured", "no");
    expect(block("currentInsurer").hidden).toBe(true);
    expect(errorText("currentInsurer")).toBe("");
    fillInsurance("no");
    await pressNext();
    expect(screenShown()).toEqual(["contact"]);
  });
});

describe("the date of birth", () => {
  it("gets its slashes when typed as digits, and keeps a date typed with its own", async () => {
    await openForm();
    await fillVehicle();
    await pressNext();
    type("dateOfBirth", "04151990");
    expect(control("dateOfBirth").value).toBe("04/15/1990");
    type("dateOfBirth", "4/5/1990");
    expect(control("dateOfBirth").value).toBe("4/5/1990");
  });
});

describe("answers kept across a reload of the same tab", () => {
  async function upToContact(): Promise<void> {
    await fillUpToContact(2);
    type("email", "ana@example.com");
    control("consent").click();
  }

  it("brings every answer back on the screen it was on, within 30 minutes, but never the consent box", async () => {
    await openForm();
    await upToContact();
    expect(window.sessionStorage.getItem(SAVED_KEY)).not.toContain('"consent"');
    wall.ms += 29 * 60_000;
    const { server } = await openForm(undefined, {}, { reload: true });
    expect(screenShown()).toEqual(["contact"]);
    expect(control("email").value).toBe("ana@example.com");
    expect(control<HTMLInputElement>("consent").checked).toBe(false);
    backButton().click();
    backButton().click();
    await settle();
    expect(screenShown()).toEqual(["drivers"]);
    expect(listed()).toEqual(["Ana Diaz-Ortega (you)"]);
    backButton().click();
    backButton().click();
    backButton().click();
    await settle();
    expect(screenShown()).toEqual(["vehicles"]);
    expect(listed()).toEqual(["2020 Toyota Camry", "2018 Ford F-150"]);
    // A restored form has been started.
    expect(server.sendEvent).toHaveBeenCalledWith(expect.objectContaining({ event: "form_started" }));
  });

  it("forgets answers older than 30 minutes, and after the request is sent", async () => {
    await openForm();
    await upToContact();
    wall.ms += 31 * 60_000;
    await openForm(undefined, {}, { reload: true });
    expect(screenShown()).toEqual(["vehicle"]);
    expect(control("model").value).toBe("");
    expect(window.sessionStorage.getItem(SAVED_KEY)).not.toContain("Camry");

    await fillAll();
    await pressNext();
    expect(document.querySelector(".rf-done")).not.toBeNull();
    expect(window.sessionStorage.getItem(SAVED_KEY)).toBeNull();
  });

  it("ignores a saved copy that is not the form's (tampered or from another version)", async () => {
    window.sessionStorage.setItem(SAVED_KEY, JSON.stringify({ savedAt: wall.ms, top: { zip: { evil: true } }, records: {}, position: {} }));
    await openForm(undefined, {}, { reload: true });
    expect(screenShown()).toEqual(["vehicle"]);
    // A place no form ever saves (a record at -1, a screen past the last).
    for (const position of [{ screen: 0, editing: { vehicle: -1, driver: 0 } }, { screen: 99, editing: { vehicle: 0, driver: 0 } }, { screen: 1 }]) {
      window.sessionStorage.setItem(SAVED_KEY, JSON.stringify({ savedAt: wall.ms, top: {}, records: { vehicle: [], driver: [] }, position }));
      await openForm(undefined, {}, { reload: true });
      expect(screenShown(), JSON.stringify(position)).toEqual(["vehicle"]);
    }
    window.sessionStorage.setItem(SAVED_KEY, "{not json");
    await openForm(undefined, {}, { reload: true });
    expect(screenShown()).toEqual(["vehicle"]);
  });
});

describe("each form on its own", () => {
  it("keeps no state between two mounts: each reports its own start", async () => {
    const first = await openForm();
    type("model", "Camry");
    type("model", "Camry 2");
    expect(first.server.sendEvent.mock.calls.filter(([event]) => event.event === "form_started")).toHaveLength(1);

    const second = await openForm();
    expect(screenShown()).toEqual(["vehicle"]);
    type("model", "Civic");
    expect(second.server.sendEvent.mock.calls.filter(([event]) => event.event === "form_started")).toHaveLength(1);
  });
});

describe("driver history", () => {
  it("refuses an age first licensed above the driver's age", async () => {
    await openForm();
    await fillVehicle();
    await pressNext();
    fillPerson();
    await pressNext();
    fillHistory();
    type("ageFirstLicensed", "70");
    await pressNext();
    expect(errorText("ageFirstLicensed")).toBe(LEAD_MESSAGES.licensedTooLate);
    expect(screenShown()).toEqual(["driver-history"]);
  });
});
