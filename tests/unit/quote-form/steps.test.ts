// @vitest-environment happy-dom
/**
 * The quote form's steps, driven through mount() with a fake server: what step 1 shows, the
 * messages of a step sent incomplete, moving on (progress bar, focus, funnel event), Back, and the
 * insurer question that only people insured today are asked.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { LEAD_MESSAGES, LEAD_STEPS, type LeadField } from "../../../shared/lead/fields";
import { SUBMIT_LABEL } from "../../../shared/consent-disclosure";
import {
  $,
  backButton,
  block,
  choose,
  control,
  errorText,
  fillDriver,
  fillVehicle,
  focusedId,
  liveRegion,
  nextButton,
  openForm,
  pressNext,
  progress,
  select,
  settle,
  stepShown,
  type,
  VID,
} from "./harness";

afterEach(() => {
  document.body.innerHTML = "";
});

const controlsOf = (field: LeadField) => [...document.querySelectorAll(`[name="${field}"]`)];
const headingOf = (step: number) => $(`#rf-step-${step} h2`);

describe("step 1", () => {
  it("shows the vehicle fields, and nothing of the other steps", async () => {
    await openForm("");
    expect(stepShown()).toEqual([1]);
    const shown = [...$("#rf-step-1").querySelectorAll<HTMLElement>(".rf-field")].filter((field) => !field.hidden).map((field) => field.id);
    expect(shown).toEqual(LEAD_STEPS[0]!.fields.map((field) => `rf-field-${field}`));
    expect(shown).toEqual(["rf-field-zip", "rf-field-vehicleYear", "rf-field-vehicleMake", "rf-field-vehicleModel", "rf-field-ownership", "rf-field-primaryUse"]);
    expect(headingOf(1).textContent).toBe("Step 1 of 3: Your vehicle");
    expect(backButton().hidden).toBe(true);
    expect(nextButton().textContent).toBe("Next");
    expect(progress().getAttribute("aria-valuenow")).toBe("1");
  });

  it("on Next with nothing answered, shows each field's message, marks it invalid, focuses the first and says how many", async () => {
    const { server } = await openForm("?sid=a1");
    await pressNext();

    const fields = LEAD_STEPS[0]!.fields;
    for (const field of fields) {
      expect(errorText(field), field).toBe(LEAD_MESSAGES[field]);
      expect(controlsOf(field).length, field).toBeGreaterThan(0);
      for (const each of controlsOf(field)) expect(each.getAttribute("aria-invalid"), field).toBe("true");
    }
    expect(focusedId()).toBe("rf-zip");
    expect(stepShown()).toEqual([1]);
    await vi.waitFor(() => expect(liveRegion().textContent).toBe(`${fields.length} answers need attention. The first: ${LEAD_MESSAGES.zip}`), { timeout: 5_000 });
    expect(server.sendEvent).not.toHaveBeenCalledWith(expect.objectContaining({ event: "form_step_completed" }));

    // Fixing an answer takes its message and its invalid mark away at once.
    select("vehicleYear", "2020");
    await settle();
    expect(errorText("vehicleYear")).toBe("");
    expect(control("vehicleYear").hasAttribute("aria-invalid")).toBe(false);
    expect(errorText("vehicleMake")).toBe(LEAD_MESSAGES.vehicleMake);
  });

  it("with the place known, starts the messages at the year, the first field asked", async () => {
    await openForm();
    await pressNext();
    expect(errorText("zip")).toBe("");
    expect(errorText("vehicleYear")).toBe(LEAD_MESSAGES.vehicleYear);
    expect(focusedId()).toBe("rf-vehicleYear");
    await vi.waitFor(() => expect(liveRegion().textContent).toBe(`5 answers need attention. The first: ${LEAD_MESSAGES.vehicleYear}`), { timeout: 5_000 });
  });

  it("shows a field's message on leaving it filled in wrongly, and announces it", async () => {
    await openForm();
    type("vehicleModel", "!!");
    control("vehicleYear").focus();
    await settle();
    expect(errorText("vehicleModel")).toBe(LEAD_MESSAGES.vehicleModel);
    await vi.waitFor(() => expect(liveRegion().textContent).toBe(LEAD_MESSAGES.vehicleModel), { timeout: 5_000 });
    // Leaving an empty field untouched says nothing.
    expect(errorText("vehicleYear")).toBe("");
  });
});

describe("moving between steps", () => {
  it("goes to step 2 when step 1 is valid: progress bar, heading focused, funnel events with the campaign ids", async () => {
    const { server } = await openForm();
    fillVehicle();
    await pressNext();

    expect(stepShown()).toEqual([2]);
    expect(progress().getAttribute("aria-valuenow")).toBe("2");
    expect(progress().getAttribute("aria-valuetext")).toBe("Step 2 of 3: About you");
    expect(progress().dataset.step).toBe("2");
    expect(document.activeElement).toBe(headingOf(2));
    expect(headingOf(2).textContent).toBe("Step 2 of 3: About you");
    expect(backButton().hidden).toBe(false);
    expect(server.sendEvent.mock.calls.map(([event]) => event)).toEqual([
      { event: "form_started", zip: "90210", sid: "a1", tid: "b2", vid: VID, ms: 0 },
      { event: "form_step_completed", step: 1, zip: "90210", sid: "a1", tid: "b2", vid: VID, ms: 0 },
    ]);
  });

  it("tells the server, with each event, the visit id and how long after the form opened it came (whole milliseconds)", async () => {
    const { server } = await openForm();
    server.clock.ms += 400.6;
    fillVehicle(); // the first answer starts the form
    server.clock.ms += 2_000;
    await pressNext();
    expect(server.sendEvent.mock.calls.map(([event]) => [event.event, event.vid, event.ms])).toEqual([
      ["form_started", VID, 401],
      ["form_step_completed", VID, 2401],
    ]);
  });

  it("sends no visit id when its address has none", async () => {
    const { server } = await openForm("?zip=90210&sid=a1");
    fillVehicle();
    await pressNext();
    expect(server.sendEvent.mock.calls.map(([event]) => event.vid)).toEqual([undefined, undefined]);
  });

  it("shows the submit label on the last step", async () => {
    await openForm();
    fillVehicle();
    await pressNext();
    fillDriver();
    await pressNext();
    expect(stepShown()).toEqual([3]);
    expect(nextButton().textContent).toBe(SUBMIT_LABEL);
    expect(progress().getAttribute("aria-valuetext")).toBe("Step 3 of 3: How to reach you");
  });

  it("goes Back to step 1 with every answer kept, and forward again to step 2 with its answers", async () => {
    await openForm();
    fillVehicle();
    await pressNext();
    type("firstName", "Sam");

    backButton().click();
    expect(stepShown()).toEqual([1]);
    expect(progress().getAttribute("aria-valuenow")).toBe("1");
    expect(document.activeElement).toBe(headingOf(1));
    expect(control<HTMLSelectElement>("vehicleYear").value).toBe("2020");
    expect(control<HTMLSelectElement>("vehicleMake").value).toBe("Toyota");
    expect(control("vehicleModel").value).toBe(" Camry ");
    expect($<HTMLInputElement>('input[name="ownership"][value="finance"]').checked).toBe(true);

    await pressNext();
    expect(stepShown()).toEqual([2]);
    expect(control("firstName").value).toBe("Sam");
  });
});

describe("the insurer question", () => {
  it("shows only when the car is insured today, and is asked only then", async () => {
    await openForm();
    fillVehicle();
    await pressNext();
    expect(block("currentInsurer").hidden).toBe(true);

    choose("currentlyInsured", "yes");
    expect(block("currentInsurer").hidden).toBe(false);
    await pressNext();
    expect(errorText("currentInsurer")).toBe(LEAD_MESSAGES.currentInsurer);

    choose("currentlyInsured", "no");
    expect(block("currentInsurer").hidden).toBe(true);
    expect(errorText("currentInsurer")).toBe("");

    fillDriver("no");
    await pressNext();
    expect(stepShown()).toEqual([3]);
  });
});

describe("the date of birth", () => {
  it("gets its slashes when typed as digits, and keeps a date typed with its own", async () => {
    await openForm();
    fillVehicle();
    await pressNext();
    type("dateOfBirth", "04151990");
    expect(control("dateOfBirth").value).toBe("04/15/1990");
    type("dateOfBirth", "4/5/1990");
    expect(control("dateOfBirth").value).toBe("4/5/1990");
  });
});

describe("each form on its own", () => {
  it("keeps no state between two mounts: each reports its own start", async () => {
    const first = await openForm();
    type("vehicleModel", "Camry");
    type("vehicleModel", "Camry 2");
    expect(first.server.sendEvent.mock.calls.filter(([event]) => event.event === "form_started")).toHaveLength(1);

    const second = await openForm();
    expect(stepShown()).toEqual([1]);
    type("vehicleModel", "Civic");
    expect(second.server.sendEvent.mock.calls.filter(([event]) => event.event === "form_started")).toHaveLength(1);
  });
});
