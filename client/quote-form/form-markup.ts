/**
 * The whole quote form as HTML, from the shared screen table (shared/lead/fields.ts,
 * FORM_SCREENS): the live region, the honeypot, one fieldset per screen (the first showing, the
 * others hidden), the ZIP's place summary, the record lists, the form-level message and the
 * navigation. build/quote-form-markup.ts writes it into rapidfire.html, so a visitor reads (and
 * answers) the first screen before any script runs; view.ts then adopts these very elements.
 *
 * Until the script runs, Next is disabled: the form has no action of its own (answers go out as
 * JSON, with tokens only the script fetches), and a native submit would reload the page and lose
 * what was typed. A disabled default button also stops Enter from submitting (HTML §4.10.21.2).
 */
import { HONEYPOT_FIELD } from "../../shared/lead/api";
import { FORM_SCREENS, fieldInfo, type FormScreen, type LeadField, type RecordKind } from "../../shared/lead/fields";
import { fieldMarkup } from "./fields";
import { element, escapeHtml } from "./markup";
import { LEGAL_LINKS, paths } from "../../shared/routes";

export const FORM_ID = "rf-form";
export const screenIdOf = (id: string) => `rf-screen-${id}`;

/** What a list screen calls its records. */
export const RECORD_WORDS: Readonly<Record<RecordKind, { one: string; add: string }>> = {
  vehicle: { one: "Vehicle", add: "Add another vehicle" },
  driver: { one: "Driver", add: "Add another driver" },
};

/**
 * The field whose question the screen's heading asks, when there is one: a screen of one field,
 * or of one field and its secondary one (the VIN behind its link; the insurer screen's "none").
 * Its own label stays for screen readers, which announce it with the choices.
 */
export function askedField(screen: FormScreen): string | undefined {
  if (screen.kind === "list") return undefined;
  const [first, second] = screen.fields;
  const secondary = second === undefined || second === "vin" || (screen.kind === "fields" && screen.none?.field === second);
  return secondary ? first : undefined;
}

/** The names of a screen's fields, and each one's markup. */
function screenFields(screen: FormScreen): string[] {
  if (screen.kind === "list") return [];
  const asked = askedField(screen);
  const options = (field: string) => ({
    asked: field === asked,
    // An ad visitor arrives with a ZIP: the page starts with its place line, not the field, so
    // the questions do not jump when the script fills the line in (mount.ts, zip-place.ts).
    startsHidden: field === "vin" || field === "zip",
    noneLabel: screen.kind === "fields" && screen.none?.field === field ? screen.none.label : undefined,
  });
  const lead = screen.kind === "record" ? (screen.lead ?? []) : screen.fields;
  const own = screen.kind === "record" ? screen.fields.map((field) => fieldMarkup(field, fieldInfo(field, screen.record), options(field))) : [];
  return [...lead.map((field: LeadField) => fieldMarkup(field, fieldInfo(field), options(field))), ...own];
}

/** The VIN's link: the car filled in from its VIN, for visitors who have it at hand. */
export const VIN_LINK_CLASS = "rf-vin-link";

function screenMarkup(screen: FormScreen, index: number): string {
  const placeSummary = screen.kind === "record" && screen.lead?.includes("zip")
    ? element("p", { class: "rf-place" }, element("span", {}, "Quotes for your ZIP code."), " ", element("button", { type: "button", class: "rf-link-button", "aria-label": "Change ZIP code" }, "Change"))
    : "";
  const list =
    screen.kind === "list"
      ? element("ul", { class: "rf-list", "aria-label": `${RECORD_WORDS[screen.record].one}s` }) +
        element("button", { type: "button", class: "rf-add", "data-record": screen.record }, escapeHtml(RECORD_WORDS[screen.record].add))
      : "";
  const vinLink = screen.kind === "record" && screen.fields.includes("vin") ? element("button", { type: "button", class: `rf-link-button ${VIN_LINK_CLASS}` }, "Have the VIN? Fill in the car from it") : "";
  return element(
    "fieldset",
    { class: "rf-step", id: screenIdOf(screen.id), "data-step": String(screen.step + 1), hidden: index > 0 },
    element("legend", {}, element("h2", { tabindex: "-1" }, escapeHtml(screen.title))),
    placeSummary,
    list,
    ...screenFields(screen),
    vinLink,
  );
}

/**
 * A legal page from inside the frame: in a new tab, so the answers typed so far stay (the frame's
 * sandbox does not let a link replace the whole page, and replacing the form would lose them).
 */
const legalLink = (href: string, text: string) => element("a", { href, target: "_blank", rel: "noopener" }, escapeHtml(text));

/**
 * The notice at collection, before the first question (CCPA regulations §7012: at or before the
 * point of collection): what the answers are for, a link straight to the policy's notice section
 * and, beside it, the Do Not Sell or Share link.
 */
export const COLLECTION_NOTICE_CLASS = "rf-collection-notice";
export function collectionNoticeMarkup(): string {
  return element(
    "p",
    { class: COLLECTION_NOTICE_CLASS },
    "Your answers go to the companies named at the last step, for quotes; they pay us for them unless you opt out. ",
    legalLink(paths.noticeAtCollection, "Notice at collection"),
    " · ",
    legalLink(paths.doNotSell, "Do Not Sell or Share My Personal Information"),
  );
}

/** Where the legal footer goes in rapidfire.html, after its main (build/quote-form-markup.ts). */
export const LEGAL_FOOTER_SLOT = "<!--legal-footer-->";

/** The legal links every page carries (shared/routes.ts, LEGAL_LINKS), as the form page's footer. */
export function legalFooterMarkup(): string {
  return element(
    "footer",
    { class: "rf-footer" },
    element("nav", { "aria-label": "Legal" }, element("ul", { class: "rf-footer-links" }, ...LEGAL_LINKS.map((link) => element("li", {}, legalLink(link.href, link.text))))),
  );
}

/** The form's markup, the same on every build and visit: it holds nothing of the visitor's. */
export function quoteFormMarkup(): string {
  return (
    element("p", { class: "rf-visually-hidden", role: "status", "aria-live": "polite" }) +
    collectionNoticeMarkup() +
    element(
      "form",
      { id: FORM_ID, novalidate: true, "aria-label": "Car insurance quote request" },
      // Off-screen and out of the tab order: people never fill it; form-filling bots do.
      element("div", { class: "rf-hp", "aria-hidden": "true" }, element("label", { for: "rf-website" }, "Leave this empty"), element("input", { id: "rf-website", name: HONEYPOT_FIELD, tabindex: "-1", autocomplete: "off" })),
      // Where the visitor is, in one line: Back, and how many questions are left (screens.ts keeps it true).
      element(
        "div",
        { class: "rf-top" },
        element("button", { type: "button", class: "rf-back", hidden: true }, "Back"),
        element("p", { class: "rf-count", "aria-hidden": "true" }, `Question 1 of ${FORM_SCREENS.length - 1}`),
        element("div", { class: "rf-progress", role: "progressbar", "aria-label": "Progress", "aria-valuemin": "0", "aria-valuemax": String(FORM_SCREENS.length - 1), "aria-valuenow": "0", "aria-valuetext": `Question 1 of ${FORM_SCREENS.length - 1}` }, element("div", { class: "rf-progress-bar" })),
      ),
      ...FORM_SCREENS.map((screen, index) => screenMarkup(screen, index)),
      element("p", { class: "rf-form-error", role: "alert" }),
      element("div", { class: "rf-nav" }, element("button", { type: "submit", class: "rf-next", disabled: true }, "Next")),
    )
  );
}
