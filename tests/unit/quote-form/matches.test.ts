// @vitest-environment happy-dom
/**
 * The matches step under the thank-you (client/quote-form/matches.ts, issue 13): the companies
 * that accepted the request, as the server reports them, asked again until the answer is final;
 * honest words when no one accepted or the answer is slow; nothing without a token to ask with.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { LeadMatchesResponse } from "../../../shared/lead/api";
import { site } from "../../../shared/site";
import { MATCH_POLL } from "../../../client/quote-form/matches";
import { $, REFERENCE, fillAll, openForm, pressNext, settle } from "./harness";

afterEach(() => {
  document.body.innerHTML = "";
});

const TOKEN = "t".repeat(43);

async function sendWith(answers: LeadMatchesResponse[], duplicate = false) {
  const fetchMatches = vi.fn(async () => answers.length > 1 ? answers.shift()! : answers[0]!);
  const { server } = await openForm(undefined, { fetchMatches, wait: async () => {} });
  server.submitLead.mockResolvedValueOnce({ status: "created", reference: REFERENCE, duplicate, matchesToken: TOKEN });
  await fillAll();
  await pressNext();
  for (let i = 0; i < 40; i += 1) await settle();
  return { fetchMatches, text: () => $(".rf-matches").textContent ?? "" };
}

describe("the matches step", () => {
  it("shows the thank-you at once, then names each company that accepted, with a tap-to-call number, and stops asking once final", async () => {
    const { fetchMatches, text } = await sendWith([
      { settled: false, matches: [] },
      { settled: false, matches: [{ name: "Summit Auto Insurance", phone: "+14155550101" }] },
      { settled: true, matches: [{ name: "Summit Auto Insurance", phone: "+14155550101" }, { name: "Harbor Insurance Agency" }] },
    ]);
    expect($(".rf-reference").textContent).toBe(REFERENCE);
    // Consent can be revoked from here, in a new tab (the FCC's "any reasonable means").
    expect([$(".rf-stop-calls").getAttribute("href"), $(".rf-stop-calls").getAttribute("target"), $(".rf-stop-calls").textContent]).toEqual(["/do-not-sell?request=revoke_consent", "_blank", "Stop calls and texts"]);
    expect(fetchMatches).toHaveBeenCalledWith(REFERENCE, TOKEN);
    expect(fetchMatches).toHaveBeenCalledTimes(3);
    expect(text()).toContain("These companies have your request and will contact you:");
    const items = [...document.querySelectorAll(".rf-match-list li")].map((item) => item.textContent);
    expect(items).toEqual(["Summit Auto Insurance · (415) 555-0101", "Harbor Insurance Agency"]);
    expect($(".rf-match-list a").getAttribute("href")).toBe("tel:+14155550101");
    expect(text()).not.toContain("may still accept");
    expect($(".rf-matches").getAttribute("aria-live")).toBe("polite");
  });

  it("says honestly that no partner has taken the request when every answer is in and none accepted, with our number", async () => {
    const { text } = await sendWith([{ settled: true, matches: [] }]);
    expect(text()).toContain(`None of our partners could take your request just now. To compare quotes with our help, call us at ${site.phone} and give your reference number, ${REFERENCE}.`);
    expect(document.querySelector(".rf-match-list")).toBeNull();
    // Nothing under it still speaks of companies that take the request (issue 32).
    expect($(".rf-next-steps").hidden).toBe(true);
  });

  it("says the matching goes on when the answer is not final in time, naming only those that accepted", async () => {
    const slow = await sendWith([{ settled: false, matches: [] }]);
    expect(slow.fetchMatches).toHaveBeenCalledTimes(MATCH_POLL.attempts);
    expect(slow.text()).toContain("We are still matching your request: the companies that accept it will contact you.");
    document.body.innerHTML = "";
    const partial = await sendWith([{ settled: false, matches: [{ name: "Summit Auto Insurance" }] }]);
    expect(partial.text()).toContain("This company has your request and will contact you:");
    expect(partial.text()).toContain("Other companies may still accept it.");
  });

  it("speaks of the earlier request a duplicate is linked to, and says once who has it or that no one took it (issue 42)", async () => {
    const done = () => $(".rf-done").textContent ?? "";
    const refused = await sendWith([{ settled: true, matches: [] }], true);
    expect(done()).toContain("We already had a request from you in the past 30 days, so we linked this one to it. There is no need to send it again.");
    expect(refused.text()).toContain(`None of our partners took your earlier request, so no company has it. To compare quotes with our help, call us at ${site.phone} and give your reference number, ${REFERENCE}.`);
    expect(done()).not.toMatch(/working on it|could take your request/);
    expect(done().match(/partners/g)).toHaveLength(1);
    expect($(".rf-next-steps").hidden).toBe(true);
    document.body.innerHTML = "";

    const taken = await sendWith([{ settled: true, matches: [{ name: "Summit Auto Insurance", phone: "+14155550101" }] }], true);
    expect(taken.text()).toContain("This company has your earlier request and will contact you:");
    expect(done()).not.toMatch(/working on it|None of our partners/);
    document.body.innerHTML = "";

    const slow = await sendWith([{ settled: false, matches: [] }], true);
    expect(slow.text()).toContain("We are still matching your earlier request: the companies that accept it will contact you.");
  });

  it("keeps asking through a failed call, and shows nothing of it without a token", async () => {
    const fetchMatches = vi.fn<(reference: string, token: string) => Promise<LeadMatchesResponse>>().mockRejectedValueOnce(new TypeError("Failed to fetch")).mockResolvedValue({ settled: true, matches: [{ name: "Summit Auto Insurance" }] });
    const { server } = await openForm(undefined, { fetchMatches, wait: async () => {} });
    server.submitLead.mockResolvedValueOnce({ status: "created", reference: REFERENCE, duplicate: false, matchesToken: TOKEN });
    await fillAll();
    await pressNext();
    for (let i = 0; i < 10; i += 1) await settle();
    expect(fetchMatches).toHaveBeenCalledTimes(2);
    expect($(".rf-matches").textContent).toContain("Summit Auto Insurance");

    const without = vi.fn();
    const again = await openForm(undefined, { fetchMatches: without, wait: async () => {} });
    await fillAll();
    await pressNext();
    expect(again.server.submitLead).toHaveBeenCalled();
    expect(document.querySelector(".rf-matches")).toBeNull();
    expect(without).not.toHaveBeenCalled();
  });
});
