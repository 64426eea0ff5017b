// @vitest-environment happy-dom
/**
 * The quote form's screens (issues 13 and 32), driven through mount() with a fake server: one
 * question per screen, a tap on a choice answering it and going on (never an arrow key), Enter
 * going on from a typed answer, the page's title on the first screen only, the question count
 * that follows the answers given, screens skipped when the answers do not ask them, the messages
 * of a screen sent incomplete, Back keeping everything, the vehicles and drivers lists (add,
 * edit, remove), the searchable lists, the VIN behind its link filling the car in, the insurer's
 * name answering "insured today", and answers kept across a reload for 30 minutes (never the
 * consent box).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { FORM_SCREENS, LEAD_MESSAGES } from "../../../shared/lead/fields";
import { SUBMIT_LABEL } from "../../../shared/consent-disclosure";
import { SAVED_KEY } from "../../../client/quote-form/saved-answers";
import {
  $,
  backButton,
  block,
  choose,
  control,
  countShown,
  errorText,
  fillAll,
  fillContact,
  fillUpToContact,
  fillCar,
  fillDriver,
  fillHistory,
  fillInsurance,
  fillPerson,
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
  settle,
  stepShown,
  tap,
  type,
  VID,
  wall,
} from "./harness";

afterEach(() => {
  document.body.innerHTML = "";
});

const controlsOf = (field: string) => [...document.querySelectorAll(`[name="${field}"]`)];
const shownFields = () => [...document.querySelectorAll<HTMLElement>(".rf-step:not([hidden]) .rf-field")].filter((field) => !field.hidden).map((field) => field.id.replace("rf-field-", ""));
const radio = (field: string, value: string) => $<HTMLInputElement>(`input[name="${field}"][value="${value}"]`);
const shownOptions = (field: string) => controlsOf(field).filter((option) => !option.closest("label")!.hidden).map((option) => (option as HTMLInputElement).value);
const press = (target: Element, key: string) => target.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true }));
/** The number of questions the count says there are. */
const total = () => Number(/of (\d+)$/.exec(countShown() ?? "")?.[1]);
const titleShown = () => !$("main").classList.contains("rf-later");

describe("the first screen", () => {
  it("asks the car's year under the ZIP's place, with the page's title, the count and Why we ask; the VIN waits behind its link", async () => {
    await openForm();
    expect(screenShown()).toEqual(["vehicle-year"]);
    expect(headingShown()).toBe("What year is your car?");
    expect(shownFields()).toEqual(["year"]);
    expect($(".rf-place").hidden).toBe(false);
    expect(block("vin").hidden).toBe(true);
    expect($(".rf-vin-link").hidden).toBe(false);
    expect(block("year").querySelector("details.rf-why summary")?.textContent).toBe("Why we ask");
    expect(titleShown()).toBe(true);
    expect(backButton().hidden).toBe(true);
    expect(nextButton().textContent).toBe("Next");
    expect(countShown()).toBe("Question 1 of 22");
    expect(progress().getAttribute("aria-valuetext")).toBe("Question 1 of 22");
    // The newest model years as taps; the rest one filter away.
    expect(shownOptions("year")).toHaveLength(15);
  });

  it("asks the ZIP with the year when the address brought none", async () => {
    await openForm("");
    expect(shownFields()).toEqual(["zip", "year"]);
    expect($(".rf-place").hidden).toBe(true);
  });

  it("on Next with nothing answered, shows each field's message, marks it invalid, focuses the first and says how many", async () => {
    const { server } = await openForm("?sid=a1");
    await pressNext();
    for (const [field, message] of Object.entries({ zip: LEAD_MESSAGES.zip, year: LEAD_MESSAGES.year })) {
      expect(errorText(field), field).toBe(message);
      for (const each of controlsOf(field)) expect(each.getAttribute("aria-invalid"), field).toBe("true");
    }
    expect(focusedId()).toBe("rf-zip");
    expect(screenShown()).toEqual(["vehicle-year"]);
    await vi.waitFor(() => expect(liveRegion().textContent).toBe(`2 answers need attention. The first: ${LEAD_MESSAGES.zip}`), { timeout: 5_000 });
    expect(server.sendEvent).not.toHaveBeenCalledWith(expect.objectContaining({ event: "form_step_completed" }));

    // Fixing an answer takes its message and its invalid mark away at once.
    choose("year", "2020");
    await settle();
    expect(errorText("year")).toBe("");
    expect(control("year").hasAttribute("aria-invalid")).toBe(false);
    expect(errorText("zip")).toBe(LEAD_MESSAGES.zip);
  });

  it("shows a field's message on leaving it filled in wrongly, and announces it", async () => {
    await openForm("");
    type("zip", "12");
    control("year").focus();
    await settle();
    expect(errorText("zip")).toBe(LEAD_MESSAGES.zip);
    await vi.waitFor(() => expect(liveRegion().textContent).toBe(LEAD_MESSAGES.zip), { timeout: 5_000 });
  });
});

describe("one question per screen", () => {
  it("asks every question on its own screen, in order, the heading focused and the count announced on each", async () => {
    const { server } = await openForm();
    const seen: string[] = [];
    const watch = () => {
      const [screen] = screenShown();
      seen.push(screen!);
      expect(document.activeElement, screen).toBe($(".rf-step:not([hidden]) h2"));
      // Only the name and the contact screens ask more than one answer; the heading asks the others' question.
      if (screen !== "driver-name" && screen !== "contact" && screen !== "vehicles" && screen !== "drivers") expect(shownFields().filter((field) => field !== "currentlyInsured"), screen).toHaveLength(1);
      expect(titleShown(), screen).toBe(false);
    };
    choose("year", "2020");
    await pressNext();
    watch();
    await vi.waitFor(() => expect(liveRegion().textContent).toBe("Question 2 of 22"), { timeout: 5_000 });
    for (const [field, value] of [["make", "Toyota"]] as const) {
      choose(field, value);
      await pressNext();
      watch();
    }
    type("model", "Camry");
    await pressNext();
    watch();
    for (const [field, value] of [["ownership", "own"], ["primaryUse", "commute"], ["annualMileage", "under_5k"]] as const) {
      choose(field, value);
      await pressNext();
      watch();
    }
    await pressNext();
    watch();
    type("firstName", "Ana");
    type("lastName", "Diaz");
    await pressNext();
    watch();
    type("dateOfBirth", "04151990");
    await pressNext();
    watch();
    expect(seen).toEqual(["vehicle-make", "vehicle-model", "vehicle-ownership", "vehicle-use", "vehicle-mileage", "vehicles", "driver-name", "driver-birth", "driver-marital"]);
    // The visitor is the first driver: no relationship to ask.
    expect(seen).not.toContain("driver-relationship");
    expect(stepShown()).toEqual([2]);
    expect(server.sendEvent.mock.calls.map(([event]) => event).slice(0, 3)).toEqual([
      { event: "form_started", zip: "90210", sid: "a1", tid: "b2", vid: VID, ms: 0 },
      { event: "form_step_completed", step: 1, screen: "vehicle-year", zip: "90210", sid: "a1", tid: "b2", vid: VID, ms: 0 },
      { event: "form_step_completed", step: 1, screen: "vehicle-make", zip: "90210", sid: "a1", tid: "b2", vid: VID, ms: 0 },
    ]);
  });

  it("goes on when a choice is tapped, but not when the keyboard moves through the choices; Enter goes on", async () => {
    await openForm();
    await tap("year", "2020");
    expect(screenShown()).toEqual(["vehicle-make"]);
    expect(radio("year", "2020").checked).toBe(true);
    // Arrow keys and Space choose (a click for the browser) without a pointer: the screen stays.
    choose("make", "Ford");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(screenShown()).toEqual(["vehicle-make"]);
    press(radio("make", "Ford"), "Enter");
    await settle();
    expect(screenShown()).toEqual(["vehicle-model"]);
    // Tapping the answer already chosen, back on its screen, goes on as well.
    backButton().click();
    await tap("make", "Ford");
    expect(screenShown()).toEqual(["vehicle-model"]);
  });

  it("moves Enter to the next field of a screen of two answers, and goes on from the last", async () => {
    await openForm();
    await fillVehicle();
    await pressNext();
    expect(screenShown()).toEqual(["driver-name"]);
    type("firstName", "Ana");
    press(control("firstName"), "Enter");
    expect(focusedId()).toBe("rf-lastName");
    expect(screenShown()).toEqual(["driver-name"]);
    type("lastName", "Diaz");
    // The last field's Enter is the browser's: it sends the form, which goes on.
    press(control("lastName"), "Enter");
    nextButton().click();
    await settle();
    expect(screenShown()).toEqual(["driver-birth"]);
  });

  it("counts the questions the answers ask: another car, another driver, insured today", async () => {
    await openForm();
    expect(total()).toBe(22);
    await fillVehicle();
    await pressAdd();
    expect(countShown()).toBe("Question 7 of 28");
    await fillVehicle("2018", "Ford", "F-150");
    expect(countShown()).toBe("Question 13 of 28");
    await pressNext();
    await fillDriver();
    expect(countShown()).toBe("Question 24 of 28");
    await pressAdd();
    // Another driver is also asked how they are related to the visitor.
    expect(total()).toBe(28 + 11);
    backButton().click();
    await settle();
    expect(total()).toBe(28);
    await pressNext();
    choose("currentInsurer", "GEICO");
    expect(total()).toBe(28); // counted on showing a screen
    await pressNext();
    expect(screenShown()).toEqual(["insured-for"]);
    expect(countShown()).toBe("Question 26 of 29");
  });

  it("shows the submit label on the last screen", async () => {
    await openForm();
    await fillAll();
    expect(stepShown()).toEqual([3]);
    expect(nextButton().textContent).toBe(SUBMIT_LABEL);
    expect(countShown()).toBe("Question 23 of 23");
  });

  it("goes Back screen by screen with every answer kept, skipping what the answers do not ask, and forward again", async () => {
    await openForm();
    await fillVehicle();
    await pressNext();
    await fillPerson();
    backButton().click();
    await settle();
    expect(screenShown()).toEqual(["driver-birth"]);
    expect(control("dateOfBirth").value).toBe("04/15/1990");
    backButton().click();
    backButton().click();
    await settle();
    expect(screenShown()).toEqual(["vehicles"]);
    expect(listed()).toEqual(["2020 Toyota Camry"]);
    backButton().click();
    expect(screenShown()).toEqual(["vehicle-mileage"]);
    expect(radio("annualMileage", "10k_15k").checked).toBe(true);
    for (let i = 0; i < 5; i += 1) backButton().click();
    expect(screenShown()).toEqual(["vehicle-year"]);
    expect(titleShown()).toBe(true);
    expect(radio("year", "2020").checked).toBe(true);
    for (let i = 0; i < 7; i += 1) await pressNext();
    expect(screenShown()).toEqual(["driver-name"]);
    expect(control("firstName").value).toBe("Ana");
  });
});

describe("the vehicles and drivers lists", () => {
  it("adds, edits and removes vehicles, up to 4, always keeping one", async () => {
    await openForm();
    await fillVehicle();
    // One vehicle: nothing to remove.
    expect(document.querySelector(".rf-step:not([hidden]) .rf-remove")).toBeNull();
    await pressAdd();
    expect(screenShown()).toEqual(["vehicle-year"]);
    expect(headingShown()).toBe("Vehicle 2: Model year");
    // The ZIP belongs to the first vehicle's screen only; the new vehicle starts empty.
    expect(shownFields()).toEqual(["year"]);
    expect($(".rf-place").hidden).toBe(true);
    expect(controlsOf("year").some((option) => (option as HTMLInputElement).checked)).toBe(false);
    await fillVehicle("2018", "Ford", "F-150");
    expect(listed()).toEqual(["2020 Toyota Camry", "2018 Ford F-150"]);

    // Edit the first: its answers come back; a change shows in the list.
    await pressListButton("edit", 0);
    expect(headingShown()).toBe("Vehicle 1: Model year");
    expect(radio("year", "2020").checked).toBe(true);
    for (let i = 0; i < 2; i += 1) await pressNext();
    expect(control("model").value).toBe(" Camry ");
    type("model", "Corolla");
    for (let i = 0; i < 4; i += 1) await pressNext();
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
    expect(control("firstName").getAttribute("autocomplete")).toBe("given-name");
    await fillDriver();
    await pressAdd();
    expect(headingShown()).toBe("Driver 2: Name");
    expect(control("firstName").getAttribute("autocomplete")).toBe("off");
    type("firstName", "Luis");
    type("lastName", "Diaz");
    await pressNext();
    type("dateOfBirth", "11021988");
    await pressNext();
    expect(screenShown()).toEqual(["driver-relationship"]);
    expect(headingShown()).toBe("Driver 2: Relationship to you");
    await pressNext();
    expect(errorText("relationship")).toBe(LEAD_MESSAGES.relationship);
    choose("relationship", "spouse");
    await pressNext();
    await fillHistory();
    expect(listed()).toEqual(["Ana Diaz-Ortega (you)", "Luis Diaz (spouse)"]);
    expect(document.querySelector(".rf-step:not([hidden]) .rf-remove[data-index='0']")).toBeNull();
    await pressListButton("remove", 1);
    expect(listed()).toEqual(["Ana Diaz-Ortega (you)"]);

    await pressNext();
    await fillInsurance();
    fillContact();
    await pressNext();
    const body = server.submitLead.mock.calls[0]![1];
    expect(body.drivers).toHaveLength(1);
    expect(body.vehicles).toHaveLength(1);
  });

  it("takes a list's Next only when every record on it is complete, and shows the one that is not", async () => {
    await openForm();
    await fillVehicle();
    await pressAdd();
    await fillCar("2018", "Ford", "F-150");
    // Back to the list with the second vehicle's use unanswered.
    for (let i = 0; i < 4; i += 1) backButton().click();
    await settle();
    expect(screenShown()).toEqual(["vehicles"]);
    expect(listed()).toEqual(["2020 Toyota Camry", "2018 Ford F-150"]);
    await pressNext();
    expect(screenShown()).toEqual(["vehicle-ownership"]);
    expect(headingShown()).toBe("Vehicle 2: Do you own, finance or lease it?");
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

describe("a long list", () => {
  it("narrows to what is typed, chooses the one match left on Enter, and says when nothing matches", async () => {
    await openForm();
    const box = $<HTMLInputElement>("#rf-year-search");
    box.value = "199";
    box.dispatchEvent(new Event("input", { bubbles: true }));
    expect(shownOptions("year")).toEqual(["1999", "1998", "1997", "1996", "1995", "1994", "1993", "1992", "1991", "1990"]);
    box.value = "2005";
    box.dispatchEvent(new Event("input", { bubbles: true }));
    press(box, "Enter");
    await settle();
    expect(radio("year", "2005").checked).toBe(true);
    expect(screenShown()).toEqual(["vehicle-make"]);
    // The best-selling makes, in alphabetical order; any other by name; Other when nothing matches.
    expect(shownOptions("make")).toEqual(["Chevrolet", "Ford", "GMC", "Honda", "Hyundai", "Jeep", "Kia", "Nissan", "Ram", "Subaru", "Tesla", "Toyota"]);
    const makes = $<HTMLInputElement>("#rf-make-search");
    makes.value = "vol";
    makes.dispatchEvent(new Event("input", { bubbles: true }));
    expect(shownOptions("make")).toEqual(["Volkswagen", "Volvo"]);
    makes.value = "Zastava";
    makes.dispatchEvent(new Event("input", { bubbles: true }));
    expect(shownOptions("make")).toEqual(["Other"]);
    expect($("#rf-field-make .rf-no-match").textContent).toBe("Nothing matches “Zastava”. Check the spelling, or choose Other.");
    // Back on the screen later, the list shows as before typing, with the answer given.
    choose("make", "Other");
    await pressNext();
    backButton().click();
    expect(shownOptions("make")).toContain("Other");
    expect(shownOptions("make")).toContain("Toyota");
    expect($<HTMLInputElement>("#rf-make-search").value).toBe("");
  });
});

describe("the VIN", () => {
  it("waits behind its link, and a valid one fills in the year, make and model and goes on to the next question", async () => {
    const { server } = await openForm();
    $<HTMLButtonElement>(".rf-vin-link").click();
    expect(block("vin").hidden).toBe(false);
    expect(focusedId()).toBe("rf-vin");
    expect($(".rf-vin-link").hidden).toBe(true);
    type("vin", "1hgcm82633a004352");
    await settle();
    expect(server.decodeVin).toHaveBeenCalledWith("1HGCM82633A004352");
    expect(radio("year", "2003").checked).toBe(true);
    expect(radio("make", "Honda").checked).toBe(true);
    expect(control("model").value).toBe("Accord");
    // Said with the question it goes on to.
    await vi.waitFor(() => expect(liveRegion().textContent).toBe("Filled in from the VIN: 2003 Honda Accord. Question 4 of 22"), { timeout: 5_000 });
    expect(screenShown()).toEqual(["vehicle-ownership"]);
  });

  it("asks nothing of the server for a mistyped VIN, and says what is wrong on leaving it", async () => {
    const { server } = await openForm();
    $<HTMLButtonElement>(".rf-vin-link").click();
    type("vin", "1HGCM82633A004353");
    control("year").focus();
    await settle();
    expect(server.decodeVin).not.toHaveBeenCalled();
    expect(errorText("vin")).toBe("This VIN's check digit (the 9th character) does not match: please check it for a typo.");
  });
});

describe("the insurer question", () => {
  it("answers 'insured today' with the company's name, or with 'none', and asks for how long only then", async () => {
    const { server } = await openForm();
    await fillVehicle();
    await pressNext();
    await fillDriver();
    await pressNext();
    expect(screenShown()).toEqual(["insurer"]);
    expect(headingShown()).toBe("Who insures your car today?");
    await pressNext();
    expect(errorText("currentlyInsured")).toBe(LEAD_MESSAGES.currentlyInsured);
    expect(focusedId()).toBe("rf-currentlyInsured");

    await tap("currentInsurer", "GEICO");
    expect(radio("currentlyInsured", "yes").checked).toBe(true);
    expect(errorText("currentlyInsured")).toBe("");
    expect(screenShown()).toEqual(["insured-for"]);
    backButton().click();
    await tap("currentlyInsured", "no");
    expect(controlsOf("currentInsurer").some((option) => (option as HTMLInputElement).checked)).toBe(false);
    expect(screenShown()).toEqual(["coverage"]);
    // Back skips the question no longer asked.
    backButton().click();
    expect(screenShown()).toEqual(["insurer"]);
    await pressNext();
    expect(screenShown()).toEqual(["coverage"]);
    choose("coverage", "standard");
    await pressNext();
    choose("residence", "rent");
    await pressNext();
    expect(screenShown()).toEqual(["contact"]);
    fillContact();
    await pressNext();
    const body = server.submitLead.mock.calls[0]![1];
    expect(body).toMatchObject({ currentlyInsured: "no", currentInsurer: "", insuredFor: "" });
  });
});

describe("Why we ask", () => {
  it("opens and closes as a native disclosure, and Escape closes it", async () => {
    await openForm();
    const why = block("year").querySelector<HTMLDetailsElement>("details.rf-why")!;
    why.open = true;
    press(why.querySelector("summary")!, "Escape");
    expect(why.open).toBe(false);
    expect(document.activeElement).toBe(why.querySelector("summary"));
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
    for (let i = 0; i < 5; i += 1) backButton().click();
    await settle();
    expect(screenShown()).toEqual(["drivers"]);
    expect(listed()).toEqual(["Ana Diaz-Ortega (you)"]);
    for (let i = 0; i < 11; i += 1) backButton().click();
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
    expect(screenShown()).toEqual(["vehicle-year"]);
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
    expect(screenShown()).toEqual(["vehicle-year"]);
    // A place no form ever saves (a record at -1, a screen past the last).
    for (const position of [{ screen: 0, editing: { vehicle: -1, driver: 0 } }, { screen: FORM_SCREENS.length + 5, editing: { vehicle: 0, driver: 0 } }, { screen: 1 }]) {
      window.sessionStorage.setItem(SAVED_KEY, JSON.stringify({ savedAt: wall.ms, top: {}, records: { vehicle: [], driver: [] }, position }));
      await openForm(undefined, {}, { reload: true });
      expect(screenShown(), JSON.stringify(position)).toEqual(["vehicle-year"]);
    }
    window.sessionStorage.setItem(SAVED_KEY, "{not json");
    await openForm(undefined, {}, { reload: true });
    expect(screenShown()).toEqual(["vehicle-year"]);
  });
});

describe("each form on its own", () => {
  it("keeps no state between two mounts: each reports its own start", async () => {
    const first = await openForm();
    type("model", "Camry");
    type("model", "Camry 2");
    expect(first.server.sendEvent.mock.calls.filter(([event]) => event.event === "form_started")).toHaveLength(1);

    const second = await openForm();
    expect(screenShown()).toEqual(["vehicle-year"]);
    type("model", "Civic");
    expect(second.server.sendEvent.mock.calls.filter(([event]) => event.event === "form_started")).toHaveLength(1);
  });
});

describe("driver history", () => {
  it("refuses an age first licensed above the driver's age", async () => {
    await openForm();
    await fillVehicle();
    await pressNext();
    await fillPerson();
    choose("maritalStatus", "single");
    await pressNext();
    choose("licenseStatus", "active");
    await pressNext();
    type("ageFirstLicensed", "70");
    await pressNext();
    expect(errorText("ageFirstLicensed")).toBe(LEAD_MESSAGES.licensedTooLate);
    expect(screenShown()).toEqual(["driver-licensed-age"]);
  });
});
