// @vitest-environment happy-dom
/**
 * The quote form's markup, written into rapidfire.html at build time (build/quote-form-markup.ts)
 * from the shared field rules: the first step's questions are in the page before any script
 * runs, with the labels, ids and attributes the script expects; and the script adopts that very
 * markup, keeping what the visitor typed before it ran.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import type { IndexHtmlTransformContext } from "vite";
import { insertQuoteForm, quoteFormMarkupPlugin, QUOTE_FORM_SLOT } from "../../../build/quote-form-markup";
import { element, escapeHtml } from "../../../client/quote-form/markup";
import { disclosureMarkup } from "../../../client/quote-form/fields";
import { quoteFormMarkup } from "../../../client/quote-form/form-markup";
import { mount } from "../../../client/quote-form/mount";
import { FORM_SCREENS, LEAD_FIELDS } from "../../../shared/lead/fields";
import { ALL_FIELDS, infoOf } from "../../../client/quote-form/view";
import { fieldsOf } from "../../../client/quote-form/screens";
import { vehicleYears } from "../../../shared/vehicles";
import { site } from "../../../shared/site";
import { $, FORM_URL, PAGE_URL, VID, block, control, fakeServer, nextButton, settle } from "./harness";

afterEach(() => {
  document.body.innerHTML = "";
});

// vitest runs from the project root, where rapidfire.html lives.
const source = readFileSync("rapidfire.html", "utf8");
/** rapidfire.html as the build writes it. */
const built = insertQuoteForm(source, "rapidfire.html");
const parse = (html: string) => new DOMParser().parseFromString(html, "text/html");

/** The first screen's questions: the ZIP and the first vehicle. */
const STEP_ONE = fieldsOf(FORM_SCREENS[0]!, 0);

describe("rapidfire.html as built", () => {
  const doc = parse(built);
  const stepOne = doc.querySelector("#rf-screen-vehicle-year")!;

  it("holds the first step, showing, and the later steps hidden, in the form the script looks for", () => {
    expect(source).toContain(QUOTE_FORM_SLOT);
    expect(built).not.toContain(QUOTE_FORM_SLOT);
    const form = doc.querySelector("#rf-app > form#rf-form")!;
    expect(form).not.toBeNull();
    expect(form.hasAttribute("novalidate")).toBe(true);
    expect(stepOne.closest("[hidden]")).toBeNull();
    expect(stepOne.querySelector("legend h2")?.textContent).toBe(FORM_SCREENS[0]!.title);
    // One compact count above the question, never a step count (issue 32).
    expect(doc.querySelector(".rf-top .rf-count")?.textContent).toMatch(/^Question 1 of \d+$/);
    expect(doc.querySelector(".rf-top [role=progressbar]")).not.toBeNull();
    expect(built).not.toMatch(/Step \d of|Three short steps/);
    // No long native list anywhere: every list is tap targets over radios.
    expect(doc.querySelectorAll("select")).toHaveLength(0);
    for (const [index, screen] of FORM_SCREENS.entries()) {
      expect(doc.querySelector(`#rf-screen-${screen.id}`)?.hasAttribute("hidden"), screen.id).toBe(index > 0);
      // Every field of every screen, in its screen, in order: the script adopts them all.
      expect([...doc.querySelectorAll(`#rf-screen-${screen.id} .rf-field`)].map((field) => field.id)).toEqual(fieldsOf(screen, 0).map((field) => `rf-field-${field}`));
    }
    // The lists are the script's to fill, with their Add buttons.
    expect(doc.querySelector("#rf-screen-vehicles .rf-list")).not.toBeNull();
    expect(doc.querySelector("#rf-screen-drivers .rf-add")?.textContent).toBe("Add another driver");
    expect(doc.querySelector('#rf-app > p[role="status"][aria-live="polite"]')).not.toBeNull();
    // The ZIP's place line, not its field, until the script reads the address: an ad visitor comes with a ZIP.
    expect(form.querySelector(".rf-place")?.hasAttribute("hidden")).toBe(false);
    expect(form.querySelector(".rf-place span")?.textContent).toBe("Quotes for your ZIP code.");
  });

  it("labels every first-step question with its rule's words and ties each control to its hint and message", () => {
    for (const field of STEP_ONE) {
      const { label, hint, why, control: spec } = infoOf(field);
      const fieldBlock = stepOne.querySelector(`#rf-field-${field}`)!;
      expect(fieldBlock, field).not.toBeNull();
      // The VIN waits behind its link, the ZIP behind its place line; the year shows.
      expect(fieldBlock.hasAttribute("hidden"), field).toBe(field === "vin" || field === "zip");
      expect(fieldBlock.querySelector(`#rf-${field}-error.rf-error`), field).not.toBeNull();
      // "Why we ask", where the rule gives a reason: a native disclosure, closed.
      expect(fieldBlock.querySelector("details.rf-why > p")?.textContent ?? null, field).toBe(why ?? null);
      expect(fieldBlock.querySelector("details.rf-why")?.hasAttribute("open") ?? false).toBe(false);
      const controls = [...fieldBlock.querySelectorAll(`[name="${field}"]`)];
      expect(controls.length, field).toBeGreaterThan(0);
      const first = doc.getElementById(`rf-${field}`)!;
      expect(controls[0], field).toBe(first);
      if (spec.kind === "choice") {
        // A group: the legend names it, each radio is labelled by its choice, the group points at its message.
        expect(fieldBlock.tagName).toBe("FIELDSET");
        expect(fieldBlock.querySelector("legend")?.textContent).toBe(label);
        expect(fieldBlock.getAttribute("aria-describedby")).toBe(`rf-${field}-error`);
        expect(controls.map((radio) => [radio.getAttribute("type"), radio.getAttribute("value"), radio.closest("label")?.textContent])).toEqual(
          spec.choices.map(([value, text]) => ["radio", value, text]),
        );
        // The screen's heading asks it: the legend is kept for screen readers only.
        expect(fieldBlock.classList.contains("rf-asked"), field).toBe(true);
        if (spec.search) {
          // A long list shows as many as fit, with a labelled filter box for the rest.
          const shown = controls.filter((radio) => !radio.closest("label")!.hasAttribute("hidden"));
          expect(shown).toHaveLength(spec.search.shown);
          const box = fieldBlock.querySelector<HTMLInputElement>(".rf-filter")!;
          expect(doc.querySelector(`label[for="${box.id}"]`)?.textContent).toBe(spec.search.label);
          expect(box.getAttribute("inputmode")).toBe(spec.search.inputmode);
          expect(box.hasAttribute("name")).toBe(false);
        }
        continue;
      }
      expect(doc.querySelector(`label[for="rf-${field}"]`)?.textContent, field).toBe(label);
      const describedBy = first.getAttribute("aria-describedby")!.split(" ");
      expect(describedBy, field).toEqual(hint ? [`rf-${field}-hint`, `rf-${field}-error`] : [`rf-${field}-error`]);
      if (hint) expect(doc.getElementById(`rf-${field}-hint`)?.textContent).toBe(hint);
      if (spec.kind === "text") {
        expect(first.tagName).toBe("INPUT");
        expect(first.getAttribute("type")).toBe(spec.type ?? "text");
        expect(first.getAttribute("autocomplete")).toBe(spec.autocomplete);
        expect(first.getAttribute("maxlength")).toBe(String(spec.maxLength));
        expect(first.getAttribute("inputmode")).toBe(spec.inputmode ?? null);
      }
    }
  });

  it("cannot be sent before the script runs (Next disabled), keeps the phone note for visitors without JavaScript, and has nothing inline", () => {
    const next = doc.querySelector<HTMLButtonElement>(".rf-next")!;
    expect(next.getAttribute("type")).toBe("submit");
    expect(next.hasAttribute("disabled")).toBe(true);
    expect(doc.querySelector(".rf-back")?.hasAttribute("hidden")).toBe(true);
    expect(doc.querySelector("noscript")?.textContent).toContain(site.phone);
    expect(built).not.toMatch(/\sstyle=|<script(?![^>]*\ssrc=)/);
  });

  it("fails the build when the page has lost its slot", () => {
    expect(() => insertQuoteForm("<main></main>", "rapidfire.html")).toThrow(/slot/);
  });

  it("is written by the Vite plugin into rapidfire.html only, in the build and in development (an address with a query)", () => {
    const { handler } = quoteFormMarkupPlugin("rapidfire.html").transformIndexHtml as {
      handler: (html: string, context: Pick<IndexHtmlTransformContext, "filename" | "path">) => string;
    };
    expect(handler(source, { filename: "/app/rapidfire.html", path: "/rapidfire.html" })).toBe(built);
    expect(handler(source, { filename: "/app/rapidfire.html?zip=90210&sid=a1", path: "/rapidfire.html?zip=90210&sid=a1" })).toBe(built);
    expect(() => handler("<main></main>", { filename: "/app/rapidfire.html", path: "/rapidfire.html" })).toThrow(/slot/);
    const index = "<!doctype html><div id=root></div>";
    expect(handler(index, { filename: "/app/index.html", path: "/" })).toBe(index);
  });
});

describe("the markup writer", () => {
  it("escapes text and attribute values", () => {
    expect(escapeHtml(`<a href="x">Tom & Jerry's</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;");
    expect(element("input", { value: `"><script>`, hidden: true, disabled: false, title: undefined })).toBe('<input value="&quot;&gt;&lt;script&gt;" hidden>');
    expect(disclosureMarkup(["I agree <b>", { text: "Terms & Co", href: "/terms?a=1&b=2" }])).toBe(
      'I agree &lt;b&gt;<a href="/terms?a=1&amp;b=2" target="_blank" rel="noopener">Terms &amp; Co</a>',
    );
  });
});

/** rapidfire.html's body as the browser has it before the script runs. */
function renderBuiltPage(): HTMLElement {
  window.sessionStorage.clear();
  document.body.innerHTML = parse(built).body.innerHTML;
  return document.getElementById("rf-app")!;
}

function startForm(root: HTMLElement, search = `?zip=90210&sid=a1&tid=b2&vid=${VID}`) {
  const { clock, ...server } = fakeServer();
  const form = mount(root, { ...server, now: () => clock.ms, location: { href: FORM_URL, search }, pageUrl: () => PAGE_URL });
  return { server, form };
}

const radio = (field: string, value: string) => $<HTMLInputElement>(`input[name="${field}"][value="${value}"]`);

/** What a visitor does before the script runs: answers given, no script listening. */
function answerEarly(): void {
  radio("year", "2020").checked = true;
  radio("make", "Toyota").checked = true;
  control("model").value = "Camry";
}

describe("the script on the built page", () => {
  it("adopts the page's own elements, keeps what was typed before it ran, and sends the form on", async () => {
    const root = renderBuiltPage();
    const stepOne = $("#rf-screen-vehicle-year");
    const model = control("model");
    answerEarly();
    const { server, form } = startForm(root);
    await form.ready;

    expect($("#rf-screen-vehicle-year")).toBe(stepOne);
    expect(control("model")).toBe(model);
    expect(document.querySelectorAll("#rf-form").length).toBe(1);
    expect(control("model").value).toBe("Camry");
    expect(radio("year", "2020").checked).toBe(true);
    expect(radio("make", "Toyota").checked).toBe(true);
    expect(nextButton().disabled).toBe(false);
    // The ZIP the visitor arrived with, as before.
    expect(control("zip").value).toBe("90210");
    expect(block("zip").hidden).toBe(true);
    // The answers came before the script: the funnel still hears that the form was started, once.
    expect(server.sendEvent.mock.calls.filter(([event]) => event.event === "form_started")).toHaveLength(1);

    nextButton().click();
    await settle();
    expect($("#rf-screen-vehicle-make").hidden).toBe(false);
    expect(server.sendEvent.mock.calls.map(([event]) => event.event)).toEqual(["form_started", "form_step_completed"]);
  });

  it("sends no form_started until the first answer when nothing was typed before it ran", async () => {
    const { server, form } = startForm(renderBuiltPage());
    await form.ready;
    expect(server.sendEvent).not.toHaveBeenCalled();
  });

  it("keeps a ZIP the visitor typed before it ran instead of the address's", async () => {
    const root = renderBuiltPage();
    control("zip").value = "10001";
    const { server, form } = startForm(root);
    await form.ready;
    expect(control("zip").value).toBe("10001");
    expect(block("zip").hidden).toBe(false);
    expect(server.lookUpZip).not.toHaveBeenCalled();
  });

  it("brings a list written by an older build up to date (next year's models), keeping the choice", async () => {
    const root = renderBuiltPage();
    radio("year", String(vehicleYears()[0])).closest("label")!.remove(); // the newest year, as a build from last year lacks it
    radio("year", "2020").checked = true;
    const { form } = startForm(root);
    await form.ready;
    const years = [...document.querySelectorAll<HTMLInputElement>('input[name="year"]')];
    expect(years.map((option) => option.value)).toEqual(vehicleYears().map(String));
    expect(years.find((option) => option.checked)?.value).toBe("2020");
  });

  it("counts a question asked only for some answers when the answers already there ask it", async () => {
    const untouched = startForm(renderBuiltPage());
    await untouched.form.ready;
    const without = $(".rf-count").textContent;
    const root = renderBuiltPage();
    // A browser restoring the form on a reload can bring back later screens' answers: insured today asks for how long.
    radio("currentlyInsured", "yes").checked = true;
    const { form } = startForm(root);
    await form.ready;
    const total = (text: string | null) => Number(/of (\d+)$/.exec(text ?? "")?.[1]);
    expect(total($(".rf-count").textContent)).toBe(total(without) + 1);
  });

  it("writes the same markup itself into an empty page", async () => {
    document.body.innerHTML = '<main><div id="rf-app"></div></main>';
    const root = document.getElementById("rf-app")!;
    const { form } = startForm(root, "");
    await form.ready;
    const expected = parse(`<div>${quoteFormMarkup()}</div>`).body.firstElementChild!;
    const fieldIds = (within: Element) => [...within.querySelectorAll("[name]")].map((named) => named.getAttribute("name"));
    expect(fieldIds(root)).toEqual(fieldIds(expected));
    for (const field of ALL_FIELDS) expect(block(field)).not.toBeNull();
    expect(ALL_FIELDS).toEqual(expect.arrayContaining([...LEAD_FIELDS]));
  });
});
