/**
 * The thank-you step: replaces the form once the request is stored, with the reference number,
 * the companies that accepted it as they do (the matches step, matches.ts), what happens next and
 * the phone number partners will call, read back formatted. Only true statements (issue 32): it
 * never says companies are reviewing the request before one took it, and our number is a tap to call.
 */
import { formatUsPhone, telUri } from "../../shared/contact";
import type { Lead } from "../../shared/lead/fields";
import { site } from "../../shared/site";
import { paths } from "../../shared/routes";
import { h } from "./dom";
import { NEXT_STEPS_CLASS } from "./matches";

/** Shows the thank-you in place of form, scrolled to the top, its heading focused. */
export function showThankYou(form: HTMLFormElement, reference: string, duplicate: boolean, values: Partial<Lead>, matches?: HTMLElement): void {
  const phone = typeof values.phone === "string" ? formatUsPhone(values.phone) : "your phone";
  const heading = h("h2", { tabindex: "-1" }, `Thank you, ${String(values.drivers?.[0]?.firstName ?? "")}!`);
  const done = h(
    "section",
    { class: "rf-done", "aria-labelledby": "rf-done-title" },
    heading,
    h("p", {}, "Your quote request is in. Your reference number is ", h("strong", { class: "rf-reference" }, reference), "."),
    // Who has the earlier request is the matches step's to say (matches.ts), once: this line
    // claims nothing about it (issue 42: it said partners were working on a request none had).
    duplicate ? h("p", {}, "We already had a request from you in the past 30 days, so we linked this one to it. There is no need to send it again.") : null,
    // Who accepted the request (for a duplicate: the earlier one), as they do (matches.ts); none without a token to ask with.
    matches ?? null,
    // What happens with companies that take it: gone when the matches step learns none did (matches.ts).
    h(
      "div",
      { class: NEXT_STEPS_CLASS },
      h("h3", {}, "What happens next"),
      h(
        "ol",
        {},
        h("li", {}, `Each company that takes your request contacts you by phone or text at ${phone}, or by email, with its quote.`),
        h("li", {}, "Compare the offers. Quotes are free and you are never obliged to buy."),
      ),
    ),
    h("p", { class: "rf-note" }, "Questions? Call ", h("a", { href: telUri(site.phone), class: "rf-call" }, site.phone), " and give your reference number."),
    // Consent may be revoked by any reasonable means (the FCC's rule): one click from here.
    h(
      "p",
      { class: "rf-note" },
      "Changed your mind? ",
      h("a", { href: paths.stopCalls, target: "_blank", rel: "noopener", class: "rf-stop-calls" }, "Stop calls and texts"),
      " about this request at any time.",
    ),
  );
  heading.id = "rf-done-title";
  form.replaceWith(done);
  window.scrollTo(0, 0);
  heading.focus();
}
