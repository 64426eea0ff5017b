/**
 * The matches step (issue 13), under the thank-you: the companies that accepted the request,
 * asked of the server every 1.5 s for about 20 s (GET /api/leads/:reference/matches) while the
 * thank-you already shows. Only true statements: a company is named once it accepted; when every
 * delivery is over and none accepted, it says so and gives our number; when the time is up
 * without an answer, it says the matching goes on. For a duplicate (a request linked to the
 * visitor's earlier one, never sent to a buyer itself) the server answers with the earlier
 * request's matches, and the words say so: who has that request, or that no partner took it,
 * once (issue 42).
 */
import { formatUsPhone, telUri } from "../../shared/contact";
import type { LeadMatchesResponse } from "../../shared/lead/api";
import { site } from "../../shared/site";
import { h } from "./dom";

export const MATCH_POLL = { intervalMs: 1_500, attempts: 14 } as const;

/** The thank-you's "What happens next" (thank-you.ts): it speaks of companies that take the request, so it goes when none did. */
export const NEXT_STEPS_CLASS = "rf-next-steps";

export type FetchMatches = (reference: string, token: string) => Promise<LeadMatchesResponse>;


function list(matches: LeadMatchesResponse["matches"]): HTMLElement {
  return h(
    "ul",
    { class: "rf-match-list" },
    ...matches.map((match) =>
      h("li", {}, h("strong", {}, match.name), match.phone ? h("span", {}, " · ", h("a", { href: telUri(match.phone) }, formatUsPhone(match.phone))) : null),
    ),
  );
}

/** The words for the visitor's request: this one, or the earlier one a duplicate is linked to. */
const WORDS = {
  own: {
    one: "This company has your request and will contact you:",
    several: "These companies have your request and will contact you:",
    none: "None of our partners could take your request just now.",
    matching: "We are still matching your request: the companies that accept it will contact you.",
  },
  linked: {
    one: "This company has your earlier request and will contact you:",
    several: "These companies have your earlier request and will contact you:",
    none: "None of our partners took your earlier request, so no company has it.",
    matching: "We are still matching your earlier request: the companies that accept it will contact you.",
  },
} as const;

/**
 * The section, polling by itself; `wait` is the pause between asks (tests shorten it). `linked`:
 * the request is a duplicate, and the answers are about the earlier request it is linked to.
 */
export function matchesSection(reference: string, token: string, fetchMatches: FetchMatches, wait: (ms: number) => Promise<void>, poll = MATCH_POLL, linked = false): HTMLElement {
  const words = linked ? WORDS.linked : WORDS.own;
  const status = h("div", { class: "rf-matches-status" }, h("p", {}, "Finding the companies that will quote you…"));
  const section = h("section", { class: "rf-matches", "aria-labelledby": "rf-matches-title", "aria-live": "polite" }, h("h3", { id: "rf-matches-title" }, "Who will contact you"), status);
  const callUs = (): (Node | string)[] => ["call us at ", h("a", { href: telUri(site.phone), class: "rf-call" }, site.phone), ` and give your reference number, ${reference}`];

  function show(answer: LeadMatchesResponse | undefined, final: boolean): void {
    const matches = answer?.matches ?? [];
    if (matches.length > 0) {
      const lines: Node[] = [h("p", {}, matches.length === 1 ? words.one : words.several), list(matches)];
      if (!answer?.settled) lines.push(h("p", { class: "rf-note" }, "Other companies may still accept it."));
      status.replaceChildren(...lines);
    } else if (answer?.settled) {
      status.replaceChildren(h("p", {}, `${words.none} To compare quotes with our help, `, ...callUs(), "."));
      section.closest(".rf-done")?.querySelector<HTMLElement>(`.${NEXT_STEPS_CLASS}`)?.setAttribute("hidden", "");
    } else if (final) {
      status.replaceChildren(h("p", {}, `${words.matching} You can also `, ...callUs(), "."));
    }
  }

  void (async () => {
    let answer: LeadMatchesResponse | undefined;
    for (let attempt = 1; attempt <= poll.attempts; attempt += 1) {
      try {
        answer = await fetchMatches(reference, token);
        show(answer, false);
        if (answer.settled) return;
      } catch {
        // Not reachable just now: ask again at the next turn.
      }
      if (attempt < poll.attempts) await wait(poll.intervalMs);
    }
    show(answer, true);
  })();
  return section;
}
